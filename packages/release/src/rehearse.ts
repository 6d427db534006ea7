/**
 * `pnpm build && pnpm --filter @graphplan/release rehearse [--keep]`: the release rehearsal
 * (src/rehearsal.ts) on the built packages, printing its figures: each package's tarball, unpacked and
 * install size, what a fresh install pulls, and the time of `npx @graphplan/cli demo` from a cold cache.
 */
import { join } from "node:path";
import { rehearse } from "./rehearsal.js";

const root = join(import.meta.dirname, "..", "..", "..");
const args = process.argv.slice(2);
const kB = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;
const MB = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;

try {
  const r = await rehearse({ root, figures: true, keep: args.includes("--keep"), log: (line) => console.error(line) });
  console.log(`\nregistry ${r.registry}; published ${Object.keys(r.published).length} packages`);
  console.log("\n| package | tarball | unpacked | install (with dependencies) | packages installed | lint |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  for (const p of r.packed) {
    const install = r.installs[p.name];
    const i = install ? `${MB(install.bytes)} | ${install.packages}` : "- | -";
    console.log(
      `| ${p.name} | ${kB(p.tarballBytes)} | ${kB(p.unpackedBytes)} | ${i} | ${p.problems.length === 0 ? "clean" : p.problems.join("; ")} |`,
    );
  }
  const cli = r.cliInstall;
  console.log(
    `\nnpx @graphplan/cli demo in an empty directory, cold npm cache: ${((r.coldDemo?.ms ?? Number.NaN) / 1000).toFixed(1)} s (exit ${r.coldDemo?.code}); the same with the CLI installed: ${(r.demo.ms / 1000).toFixed(1)} s`,
  );
  console.log(`the CLI as npx installed it: ${cli ? `${cli.packages} packages, ${MB(cli.bytes)}` : "not found"}`);
  for (const e of r.examples)
    console.log(`${e.name} README example: exit ${e.code}, ${e.claims} claim(s)${e.prints ? ", prints block" : ""}`);
  console.log(
    `npx @graphplan/cli graph: exit ${r.graph.code}; bad command: exit ${r.badCommand.code}; bad path: exit ${r.badPath.code}; bench images list: exit ${r.bench.code}`,
  );
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  process.exit(1);
}

/**
 * `pnpm --filter @graphplan/bench bench:compare -- --dataset FILE.jsonl --repo-map FILE.json --instances ID,...
 * [--namespace NS] [--tag T] [-w N] [--docker-host URL]`: `bench compare --arms graphplan,baseline --provider replay` on the
 * instances, and beside it, in the same invocation, the two plain `bench run`s it stands for (`--strategy
 * graphplan`, `--strategy baseline`), each as a user runs it (the CLI spawned, a fresh --out, no graph
 * cache, so no run profits from another). Prints each wall time, the comparison's overhead (its time − the
 * two runs'), the load average it ran at, and the comparison's report.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules", ".bin", "tsx");
const args = process.argv.slice(2).filter((a) => a !== "--");
const value = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
// `pnpm --filter … bench:compare` runs in apps/bench; relative paths are the caller's (INIT_CWD).
const caller = process.env.INIT_CWD ?? process.cwd();
const dataset = value("--dataset") && resolve(caller, value("--dataset")!);
const repoMap = value("--repo-map") && resolve(caller, value("--repo-map")!);
const instances = value("--instances");
if (!dataset || !repoMap || !instances) {
  process.stderr.write(
    "usage: pnpm --filter @graphplan/bench bench:compare -- --dataset FILE.jsonl --repo-map FILE.json --instances ID,... [--namespace NS] [--tag T] [-w N] [--docker-host URL]\n",
  );
  process.exit(2);
}
const common = [
  "--dataset",
  dataset,
  "--repo-map",
  repoMap,
  "--instances",
  instances,
  "--provider",
  "replay",
  "--no-graph-cache",
  "-q",
  "--namespace",
  value("--namespace") ?? "swebench",
  "--tag",
  value("--tag") ?? "latest",
  "-w",
  value("-w") ?? "1",
  ...(value("--docker-host") ? ["--docker-host", value("--docker-host")!] : []),
];
const root = mkdtempSync(join(tmpdir(), "graphplan-bench-compare-"));

function timed(label: string, command: string, extra: string[]): { ms: number; stdout: string } {
  const started = performance.now();
  const run = spawnSync(tsx, ["--conditions=source", "src/cli.ts", command, ...common, ...extra], {
    cwd: app,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${label} failed (exit ${run.status}):\n${run.stderr}`);
  return { ms, stdout: run.stdout };
}

const load = [loadavg()[0]!];
try {
  const graphplan = timed("bench run --strategy graphplan", "run", [
    "--strategy",
    "graphplan",
    "--out",
    join(root, "graphplan"),
  ]);
  load.push(loadavg()[0]!);
  const baseline = timed("bench run --strategy baseline", "run", [
    "--strategy",
    "baseline",
    "--out",
    join(root, "baseline"),
  ]);
  load.push(loadavg()[0]!);
  const compare = timed("bench compare", "compare", ["--arms", "graphplan,baseline", "--out", join(root, "compare")]);
  load.push(loadavg()[0]!);
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const plain = graphplan.ms + baseline.ms;
  const count = instances.split(",").length;
  process.stdout.write(
    [
      `bench compare overhead, ${count} instances, --provider replay, load average ${load.map((l) => l.toFixed(1)).join(" → ")}`,
      `  bench run --strategy graphplan  ${s(graphplan.ms)}  (${/^resolved \d+ of \d+.*$/m.exec(graphplan.stdout)?.[0] ?? "?"})`,
      `  bench run --strategy baseline   ${s(baseline.ms)}  (${/^resolved \d+ of \d+.*$/m.exec(baseline.stdout)?.[0] ?? "?"})`,
      `  the two runs                    ${s(plain)}`,
      `  bench compare                   ${s(compare.ms)}`,
      `overhead of the comparison: ${s(compare.ms - plain)} (${((100 * (compare.ms - plain)) / plain).toFixed(1)}% of the two runs)`,
      "",
      compare.stdout.trimEnd(),
      "",
    ].join("\n"),
  );
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}

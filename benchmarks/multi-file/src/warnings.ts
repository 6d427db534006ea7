/**
 * `pnpm -s --filter @graphplan/bench-multi-file warnings --dataset FILE.jsonl --repos DIR [--samples N]`
 * (relative paths are the caller's): the verifier's warnings on the
 * compiled plans of real commits, by class. A commit's code is correct (it was committed), so a
 * warning on its plan is at best a note and at worst sends a model to "fix" what is right: this
 * counts them. Each instance's pre-images are read from git at the base commit, its patch compiled
 * into a plan (as `bench replay` does) and the plan verified; every warning is counted under its
 * check and the shape of its message (quoted names, paths and numbers blanked).
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { GitObjectReader, listTree, readDataset, repositoryPath } from "@graphplan/bench";
import { compile, parseUnifiedDiff, preImagePaths } from "@graphplan/compiler";
import { buildGraph, loadGrammarsFor } from "@graphplan/graph";
import { verifyPlan } from "@graphplan/verifier";
import { Command, InvalidArgumentError } from "commander";

const count = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("a whole number");
  return n;
};

/** A path as the user meant it: pnpm runs a package's script in the package's folder and says where it was called from in INIT_CWD. */
const fromCaller = (path: string): string =>
  resolve((process.env.npm_lifecycle_event === "warnings" && process.env.INIT_CWD) || process.cwd(), path);

const program = new Command("warnings")
  .requiredOption("--dataset <file>", "the dataset (JSONL), e.g. from make-dataset", fromCaller)
  .requiredOption("--repos <dir>", "directory of clones named <owner>__<name> (bare or plain)", fromCaller)
  .option("--samples <n>", "messages printed per class", count, 2)
  .showHelpAfterError()
  // Usage errors exit 2, as in every GraphPlan command.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .parse();
const options = program.opts<{ dataset: string; repos: string; samples: number }>();
if (!statSync(options.dataset, { throwIfNoEntry: false })?.isFile())
  program.error(`error: --dataset ${options.dataset} is not a file`);
if (!statSync(options.repos, { throwIfNoEntry: false })?.isDirectory())
  program.error(
    `error: --repos ${options.repos} is not a directory; give the directory of clones named <owner>__<name>`,
  );

/** The shape of a message: what it says, without the names, paths, code and numbers it says it about. */
const shapeOf = (message: string): string =>
  message
    .replace(/`[^`]*`/g, "`…`")
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\[[^\]]*\]/g, "[…]")
    .replace(/[\w./-]+\.\w+/g, "FILE")
    .replace(/\d+/g, "N")
    .slice(0, 110);

const classes = new Map<string, { count: number; plans: Set<string>; samples: string[] }>();
const byCheck = new Map<string, number>();
let plans = 0;
let skipped = 0;
let steps = 0;
const readers = new Map<string, GitObjectReader>();
const started = performance.now();
for (const line of await readDataset(options.dataset)) {
  if (!line.ok) continue;
  const inst = line.instance;
  let reader = readers.get(inst.repo);
  try {
    reader ??= new GitObjectReader(inst.repo, repositoryPath(inst.repo, options.repos, {}));
  } catch {
    skipped++;
    continue;
  }
  readers.set(inst.repo, reader);
  const pre = new Map<string, string>();
  try {
    for (const path of preImagePaths(parseUnifiedDiff(inst.patch))) {
      const text = await reader.file(inst.base_commit, path);
      if (text !== undefined) pre.set(path, text);
    }
    await loadGrammarsFor(pre.keys());
    const { plan } = compile(pre, inst.patch);
    const graph = await buildGraph([...pre].map(([path, source]) => ({ path, source })));
    // The repository's listing, as the agent's VERIFY gives it: names in files not read are unknown, not missing.
    const result = await verifyPlan(plan, pre, graph, { repoPaths: await listTree(reader.path, inst.base_commit) });
    plans++;
    steps += Array.isArray(plan) ? plan.length : plan.plan.length;
    for (const issue of result.issues) {
      if (issue.severity !== "warning") continue;
      byCheck.set(issue.check, (byCheck.get(issue.check) ?? 0) + 1);
      const key = `${issue.check}: ${shapeOf(issue.message)}`;
      const entry = classes.get(key) ?? { count: 0, plans: new Set<string>(), samples: [] };
      entry.count++;
      entry.plans.add(inst.instance_id);
      if (entry.samples.length < options.samples)
        entry.samples.push(`${inst.instance_id} step ${(issue.step ?? -1) + 1}: ${issue.message.slice(0, 240)}`);
      classes.set(key, entry);
    }
  } catch {
    skipped++; // a patch the compiler cannot express, or that does not apply: `bench replay` reports those
  }
}
// The long-lived `git cat-file` readers would keep the process alive after the report.
for (const reader of readers.values()) reader?.close();
const total = [...byCheck.values()].reduce((a, b) => a + b, 0);
console.log(
  `${plans} plans verified (${steps} steps), ${skipped} skipped (no clone, or not compiled); ${total} warnings, ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log("\nwarnings by check:");
for (const [check, n] of [...byCheck].sort((a, b) => b[1] - a[1]))
  console.log(`  ${check.padEnd(12)} ${String(n).padStart(5)}`);
console.log("\nwarnings by class (check: message shape — count, plans):");
for (const [key, { count, plans: on, samples }] of [...classes].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`  ${String(count).padStart(5)} on ${String(on.size).padStart(3)} plans  ${key}`);
  for (const s of samples) console.log(`          e.g. ${s}`);
}

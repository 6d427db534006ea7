/**
 * The weakening rules on real test changes: every `test_patch` of a SWE-bench-style dataset (JSONL with
 * `instance_id`, `test_patch`, `problem_statement`) — changes people made to tests along with a fix, so none of
 * them is a weakening an agent would try — judged file by file from its hunks (context + removed lines before,
 * context + added lines after), with the problem statement as the task. Prints how many files each rule flags,
 * with and without the task, and a few examples per rule.
 *
 *   pnpm --filter @graphplan/rfsn-planner bench:test-patches ../shared/datasets/swe-bench-lite.test.jsonl   (from the repository's root)
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { parsePatch } from "diff";
import { findWeakening } from "../src/weakening.js";

const USAGE =
  "usage: pnpm --filter @graphplan/rfsn-planner bench:test-patches DATASET.jsonl   (e.g. ../shared/datasets/swe-bench-lite.test.jsonl from the repository's root)";
const args = process.argv.slice(2).filter((a) => a !== "--");
if (args.length !== 1) {
  console.error(`give one dataset (JSONL with instance_id, test_patch, problem_statement)\n${USAGE}`);
  process.exit(2);
}
// pnpm runs a package's script in the package's folder and says where it was called from in INIT_CWD.
const path = resolve(
  (process.env.npm_lifecycle_event === "bench:test-patches" && process.env.INIT_CWD) || process.cwd(),
  args[0]!,
);
if (!statSync(path, { throwIfNoEntry: false })?.isFile()) {
  console.error(`${args[0]}: no such file\n${USAGE}`);
  process.exit(2);
}
const lines = readFileSync(path, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "");
const flagged = { withTask: new Map<string, string[]>(), withoutTask: new Map<string, string[]>() };
let files = 0;
/** Real assertions of the patches with their expected value changed (weakenings an agent could make): caught / tried. */
const mutations = { tried: 0, caught: 0, caughtWithoutTask: 0, missed: [] as string[] };

/** The text with the last literal of line `index` changed (a number + 1, a string with "x" appended), or undefined. */
function changeExpected(text: string, index: number): string | undefined {
  const lines = text.split("\n");
  const line = lines[index]!;
  const literals = [...line.matchAll(/(?<![\w.])\d+(?![\w.])|"[^"\n]*"|'[^'\n]*'/g)];
  const last = literals.at(-1);
  if (!last) return undefined;
  const value = last[0];
  const changed = /^\d/.test(value) ? String(Number(value) + 1) : `${value.slice(0, -1)}x${value.slice(-1)}`;
  lines[index] = line.slice(0, last.index) + changed + line.slice(last.index! + value.length);
  return lines.join("\n");
}
for (const line of lines) {
  const instance = JSON.parse(line) as { instance_id: string; test_patch: string; problem_statement: string };
  for (const file of parsePatch(instance.test_patch)) {
    const name = (file.newFileName ?? file.oldFileName ?? "").replace(/^[ab]\//, "");
    if (!name || name === "/dev/null") continue;
    files++;
    const before = file.hunks.flatMap((h) => h.lines.filter((l) => l[0] !== "+").map((l) => l.slice(1))).join("\n");
    const after = file.hunks.flatMap((h) => h.lines.filter((l) => l[0] !== "-").map((l) => l.slice(1))).join("\n");
    after.split("\n").forEach((text, index) => {
      if (!/^\s*(assert\b|self\.assert\w*\(|expect\()/.test(text)) return;
      const mutated = changeExpected(after, index);
      if (mutated === undefined) return;
      mutations.tried++;
      const found = findWeakening({ path: name, before: after, after: mutated }, instance.problem_statement).some(
        (v) => v.rule === "expected-value-changed",
      );
      if (findWeakening({ path: name, before: after, after: mutated }).some((v) => v.rule === "expected-value-changed"))
        mutations.caughtWithoutTask++;
      if (found) mutations.caught++;
      else if (mutations.missed.length < 5)
        mutations.missed.push(`${instance.instance_id} ${name}: ${text.trim().slice(0, 120)}`);
    });
    for (const [key, task] of [
      ["withTask", instance.problem_statement],
      ["withoutTask", undefined],
    ] as const) {
      for (const v of findWeakening({ path: name, before, after }, task)) {
        const list = flagged[key].get(v.rule) ?? [];
        list.push(`${instance.instance_id} ${name}: ${v.detail}`);
        flagged[key].set(v.rule, list);
      }
    }
  }
}
console.log(`${lines.length} instances, ${files} test files changed`);
for (const key of ["withoutTask", "withTask"] as const) {
  console.log(`\nflagged (${key === "withTask" ? "the problem statement as the task" : "no task"}):`);
  for (const [rule, list] of [...flagged[key]].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${rule}: ${list.length} files`);
    if (key === "withTask") for (const example of list.slice(0, 3)) console.log(`    e.g. ${example.slice(0, 220)}`);
  }
}
console.log(
  `\nreal assertions of the patches with their expected value changed: ${mutations.caught}/${mutations.tried} caught as expected-value-changed with the problem statement as the task, ${mutations.caughtWithoutTask}/${mutations.tried} without a task`,
);
for (const example of mutations.missed) console.log(`  missed: ${example}`);

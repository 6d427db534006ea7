/**
 * `pnpm --filter @graphplan/bench-verify bench [-- --lines 5000 --steps 100 --runs 3]`:
 * verifies a generated plan on a generated module, timing every step.
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { buildGraph, loadGrammars } from "@graphplan/graph";
import { PlanVerifier } from "@graphplan/verifier";
import { generateModule, generatePlan } from "./generate.js";
import { summarize } from "./stats.js";

const USAGE = "usage: pnpm --filter @graphplan/bench-verify bench [-- --lines 5000 --steps 100 --runs 3]";
const usageError = (problem: string): never => {
  process.stderr.write(`${problem}\n${USAGE}\n`);
  process.exit(2);
};
const values = (() => {
  try {
    return parseArgs({
      args: process.argv.slice(2).filter((a) => a !== "--"),
      options: {
        lines: { type: "string", default: "5000" },
        steps: { type: "string", default: "100" },
        runs: { type: "string", default: "3" },
      },
    }).values;
  } catch (error) {
    return usageError((error as Error).message);
  }
})();
const [lines, steps, runs] = [values.lines, values.steps, values.runs].map(Number) as [number, number, number];
if (![lines, steps, runs].every((n) => Number.isInteger(n) && n >= 1))
  usageError("--lines, --steps and --runs take whole numbers ≥ 1");

const FILE = "pkg/big.py";
const module = generateModule(lines, Math.ceil(steps / 6) + 1);
if (module.units < Math.ceil(steps / 6) + 1)
  usageError(
    `--lines ${lines} is too few for a plan of ${steps} steps: its ${Math.ceil(steps / 6) + 1} classes need more lines`,
  );
const plan = generatePlan(FILE, module, steps);
const workspace = new Map([[FILE, module.source]]);
await loadGrammars(["python"]);
const graph = await buildGraph([{ path: FILE, source: module.source }]);

console.log(
  `module: ${module.source.split("\n").length - 1} lines, ${module.units} classes, ${module.units * 4} definitions; plan: ${plan.length} steps`,
);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
console.log(`load average at start: ${load()}`);
const byOp = new Map<string, number[]>();
for (let run = 1; run <= runs; run++) {
  const times: number[] = [];
  const verifier = new PlanVerifier(plan, workspace, graph);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; ; i++) {
    const t = performance.now();
    if (!verifier.next()) break;
    const ms = performance.now() - t;
    times.push(ms);
    const op = String(plan[i]!["op"]);
    byOp.set(op, [...(byOp.get(op) ?? []), ms]);
  }
  const total = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const result = verifier.result();
  const s = summarize(times);
  console.log(
    `run ${run}: total ${total.toFixed(0)} ms (CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms); per step median ${s.median.toFixed(2)} ms, p90 ${s.p90.toFixed(2)} ms, max ${s.max.toFixed(1)} ms; ` +
      `errors ${result.errors.length}, warnings ${result.warnings.length}`,
  );
  if (result.errors.length) console.log(`  first error: ${result.errors[0]}`);
}
console.log(
  `per op (median over all runs): ${[...byOp].map(([op, t]) => `${op} ${summarize(t).median.toFixed(2)} ms`).join(", ")}`,
);
console.log(`load average at end: ${load()}`);
console.log(`peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);

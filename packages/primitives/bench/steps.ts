/**
 * The cost of a step: a 100-step plan on a 5,000-line Python file, CPU per step, beside the peer
 * every step would pay without incremental re-parsing — a full tree-sitter parse of the file.
 *
 *   pnpm --filter @graphplan/primitives bench [-- --runs N]
 */
import { parseArgs } from "node:util";
import { loadGrammars, withTree } from "@graphplan/graph";
import { runPlan } from "../src/run.js";
import { bigFile, hundredSteps } from "../src/fixtures/big-plan.js";
import { planOf } from "../src/fixtures/plan.js";

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: { runs: { type: "string", default: "5" } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs must be a positive integer, got "${values.runs}"`);
  process.exit(2);
}

await loadGrammars(["python"]);
const source = bigFile(500);
const steps = hundredSteps();
const plan = planOf(steps); // read once, outside the timing
const lines = source.split("\n").length;
runPlan(planOf(steps.slice(0, 5)), new Map([["big.py", source]])); // warm up the JIT and the parser

const cpuMs = (f: () => void): number => {
  const start = process.cpuUsage();
  f();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const perStep: number[] = [];
const perParse: number[] = [];
for (let run = 0; run < runs; run++) {
  perStep.push(
    cpuMs(() => {
      const result = runPlan(plan, new Map([["big.py", source]]));
      if (!result.ok) throw result.error;
    }) / steps.length,
  );
  perParse.push(
    cpuMs(() => {
      for (let i = 0; i < steps.length; i++) withTree(source, "python", (tree) => tree.rootNode.childCount);
    }) / steps.length,
  );
}
console.log(`${steps.length} steps on a ${lines}-line Python file, ${runs} runs, CPU per step (median, min–max):`);
console.log(
  `  GraphPlan step (locate, edit, checks, incremental re-parse)  ${median(perStep).toFixed(2)} ms  (${Math.min(...perStep).toFixed(2)}–${Math.max(...perStep).toFixed(2)})`,
);
console.log(
  `  peer: a full tree-sitter parse of the file                 ${median(perParse).toFixed(2)} ms  (${Math.min(...perParse).toFixed(2)}–${Math.max(...perParse).toFixed(2)})`,
);
console.log(`  a whole step costs ${(median(perStep) / median(perParse)).toFixed(2)}× one full parse`);

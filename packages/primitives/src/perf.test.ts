/** A 100-step plan on a 5,000-line file: the cost per step (parse once per step, not per check). */
import { beforeAll, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { runPlan } from "./run.js";

beforeAll(() => loadGrammars(["python"]));

function bigFile(functions: number): string {
  const parts: string[] = ["import os\n\n"];
  for (let i = 0; i < functions; i++) {
    parts.push(`\ndef f${i}(a, b):\n    x = a + b\n    y = x * 2\n    if y > 10:\n        return y\n    z = [a, b, x]\n    print("value", z)\n    return x\n\n`);
  }
  return parts.join("");
}

test("100 steps on a 5,000-line file cost under 20 ms of CPU each", () => {
  const source = bigFile(500);
  expect(source.split("\n").length).toBeGreaterThanOrEqual(5000);
  const steps = [];
  for (let i = 0; i < 100; i++) {
    const fn = { kind: "function", name: `f${i * 5}`, file: "big.py" };
    switch (i % 4) {
      case 0:
        steps.push({ op: "replace_node", params: { locator: { kind: "statement", file: "big.py", parent: fn, index: 0 }, replacement: "x = a - b" } });
        break;
      case 1:
        steps.push({ op: "insert_after_node", params: { locator: { kind: "statement", file: "big.py", parent: fn, index: 1 }, code: "w = y + 1" } });
        break;
      case 2:
        steps.push({ op: "delete_node", params: { locator: { kind: "statement", file: "big.py", parent: fn, index: 3 } } });
        break;
      default:
        steps.push({ op: "wrap_node", params: { locator: { kind: "call", name: "print", file: "big.py", parent: fn }, before: "if DEBUG:\n", after: "" } });
    }
  }
  runPlan(steps.slice(0, 5), new Map([["big.py", source]])); // warm up the JIT and the parser
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const result = runPlan(steps, new Map([["big.py", source]]));
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  if (!result.ok) throw result.error;
  // CPU time, not wall time: CI runs other packages' tests on the same two cores.
  const perStep = (cpu.user + cpu.system) / 1000 / steps.length;
  console.log(
    `100 steps on ${source.split("\n").length} lines: ${elapsed.toFixed(0)} ms wall, ${perStep.toFixed(1)} ms CPU per step`,
  );
  expect(result.files.get("big.py")).toContain("def f5(a, b):\n    x = a + b\n    y = x * 2\n    w = y + 1\n");
  expect(perStep).toBeLessThan(20);
});

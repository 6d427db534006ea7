/** A 100-step plan on a 5,000-line file applies every step (its cost is printed by `pnpm --filter @graphplan/primitives bench`). */
import { beforeAll, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { runPlan } from "./run.js";
import { bigFile, hundredSteps } from "./fixtures/big-plan.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["python"]));

test("a 100-step plan on a 5,000-line file applies all four mutators, each in its own function", () => {
  const source = bigFile(500);
  expect(source.split("\n").length).toBeGreaterThanOrEqual(5000);
  const result = runPlan(planOf(hundredSteps()), new Map([["big.py", source]]));
  if (!result.ok) throw result.error;
  expect(result.results).toHaveLength(100);
  const out = result.files.get("big.py")!;
  expect(out).toContain("def f0(a, b):\n    x = a - b\n");
  expect(out).toContain("def f5(a, b):\n    x = a + b\n    y = x * 2\n    w = y + 1\n");
  // a statement locator counts nested statements: index 3 of f10 is `return y`, and its emptied block gets `pass`
  expect(out).toContain(
    "def f10(a, b):\n    x = a + b\n    y = x * 2\n    if y > 10:\n        pass\n    z = [a, b, x]\n",
  );
  expect(out).toContain(
    'def f15(a, b):\n    x = a + b\n    y = x * 2\n    if y > 10:\n        return y\n    z = [a, b, x]\n    if DEBUG:\n        print("value", z)\n    return x\n',
  );
  expect(out.match(/if DEBUG:/g)).toHaveLength(25);
});

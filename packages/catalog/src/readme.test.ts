import { expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { parsePlan, runFormalPlan } from "./index.js";
import { validateStep } from "./execute.js";

test("README example", async () => {
  await loadGrammars(["python"]);
  const files = { "app/cart.py": "def total(items):\n    return sum(items)\n" };
  const parsed = parsePlan([
    {
      template: "guard_clause",
      params: {
        target: { kind: "function", name: "total", file: "app/cart.py" },
        condition: "not items",
        body: "return 0",
      },
    },
    { op: "rename_identifier", params: { file: "app/cart.py", name: "items", new_name: "prices" } },
  ]);
  if (!parsed.ok) throw new Error(parsed.issues[0]?.message); // every problem, each with its fix
  const result = runFormalPlan(parsed.plan, files); // only a parsed plan runs
  expect(result.ok && result.files.get("app/cart.py")).toBe(
    "def total(prices):\n    if not prices:\n        return 0\n    return sum(prices)\n",
  );
  expect(
    validateStep({
      template: "guard_clause",
      params: {
        target: { kind: "function", name: "total", file: "app/cart.py" },
        condition: "items ==",
        body: "return 0",
      },
    })[0]?.path,
  ).toBe("params.condition");
});

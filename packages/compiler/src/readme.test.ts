// The example at the top of README.md, kept runnable.
import { expect, it } from "vitest";

it("README example: a gold patch becomes a plan that reproduces it", async () => {
  const { loadGrammars } = await import("@graphplan/graph");
  const { parsePlan, runFormalPlan } = await import("@graphplan/catalog");
  const { compilePatch } = await import("./index.js");

  await loadGrammars(["python"]);
  const pre = new Map([["app/calc.py", "def area(w, h):\n    return w * h\n"]]);
  const diff =
    "--- a/app/calc.py\n+++ b/app/calc.py\n@@ -1,2 +1,2 @@\n def area(w, h):\n-    return w * h\n+    return abs(w * h)\n";
  const plan = compilePatch(pre, diff);
  const parsed = parsePlan(plan);
  if (!parsed.ok) throw new Error(parsed.issues[0]?.message);
  const run = runFormalPlan(parsed.plan, pre);
  // plan: [{"template":"change_return_value","params":{"target":{"kind":"return", ...},"value":"abs(w * h)"}}]
  expect(run.ok && run.files.get("app/calc.py")).toBe("def area(w, h):\n    return abs(w * h)\n");
  expect(JSON.stringify(plan)).toMatch(/"template":"(change_return_value|replace_expression)"/);
});

/** The example at the top of README.md, verbatim (apart from the import path). */
import { expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { verifyPlan, revisionPrompt } from "./index.js";

it("runs the README example", async () => {
  const files = new Map([["app.py", "def main():\n    return 1\n"]]);
  const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
  const plan = [
    {
      op: "replace_node",
      params: { locator: { kind: "function", name: "mian", file: "app.py" }, replacement: "def main():\n    return 2" },
    },
  ];
  const result = await verifyPlan(plan, files, graph);
  expect(result.passed).toBe(false);
  expect(result.errors[0]).toMatch(
    /^Step 1 \(replace_node\): Locator did not match any AST node in app.py .* — fix: did you mean function 'main' \(line 1\)\?/,
  );
  expect(revisionPrompt(result)).toContain(
    "Errors (the plan will not run until every one is fixed):\n- Step 1 (replace_node)",
  );
});

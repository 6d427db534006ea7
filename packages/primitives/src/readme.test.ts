import { expect, test } from "vitest";

test("the README example runs", async () => {
  // --- README example (keep in sync with README.md) ---
  const { loadGrammars } = await import("@graphplan/graph");
  const { runPlan } = await import("@graphplan/primitives");

  await loadGrammars(["python"]);
  const files = new Map([["query.py", "class QuerySet:\n    def defer(self):\n        return 1\n"]]);
  const result = runPlan(
    [
      { op: "add_import", params: { file: "query.py", import_statement: "import os" } },
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "defer", file: "query.py" },
          replacement: "def defer(self, *fields):\n    return fields",
        },
      },
    ],
    files,
  );
  if (result.ok) console.log(result.files.get("query.py"));
  else console.error(result.error.message); // "Step 2 (replace_node) at {...}: ..." (steps count from 1)
  // --- end ---
  expect(result.ok && result.files.get("query.py")).toBe(
    "import os\n\nclass QuerySet:\n    def defer(self, *fields):\n        return fields\n",
  );
});

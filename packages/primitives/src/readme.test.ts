import { expect, test } from "vitest";

test("the README example runs", async () => {
  // --- README example (keep in sync with README.md) ---
  const { loadGrammars } = await import("@graphplan/graph");
  const { PlanSession } = await import("@graphplan/primitives");

  await loadGrammars(["python"]);
  const session = new PlanSession(new Map([["query.py", "class QuerySet:\n    def defer(self):\n        return 1\n"]]));
  const steps = [
    { op: "add_import", params: { file: "query.py", import_statement: "import os" } },
    {
      op: "replace_node",
      params: {
        locator: { kind: "method", name: "defer", file: "query.py" },
        replacement: "def defer(self, *fields):\n    return fields",
      },
    },
  ];
  for (const step of steps) {
    const result = session.run(step); // its changes: per file the edits, and the text and tree before and after
    if (!result.ok) throw result.error; // "Step 2 (replace_node) at {...}: ..." (steps count from 1); nothing kept
    session.commit();
  }
  console.log(session.text("query.py"));
  session.dispose();
  // --- end ---
  // The session's texts outlive its trees.
  expect(session.text("query.py")).toBe(
    "import os\n\nclass QuerySet:\n    def defer(self, *fields):\n        return fields\n",
  );
});

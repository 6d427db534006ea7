import { expect, test } from "vitest";

test("the README example runs", async () => {
  // --- README example (keep in sync with README.md) ---
  const { loadGrammars, parse } = await import("@graphplan/graph");
  const { resolveOne } = await import("@graphplan/locators");

  await loadGrammars(["python"]);
  const source = "class QuerySet:\n    def defer(self):\n        return 1\n";
  const tree = parse(source, "python");
  const node = resolveOne(tree, source, "python", {
    kind: "method",
    name: "defer",
    file: "query.py",
    parent: { kind: "class", name: "QuerySet" },
  });
  console.log(node.startPosition.row + 1, node.text.split("\n")[0]); // 2 def defer(self):
  tree.delete();
  // --- end ---
  expect(node.startPosition.row + 1).toBe(2);
});

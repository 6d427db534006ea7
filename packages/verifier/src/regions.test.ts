import { afterAll, beforeAll, expect, it } from "vitest";
import { loadGrammars, parse, type Tree } from "@graphplan/graph";
import { childrenTouching } from "./regions.js";

let tree: Tree;
const SOURCE =
  Array.from({ length: 60 }, (_, i) => (i % 7 === 3 ? `# note ${i}\n` : `x${i} = ${i}\n`)).join("") +
  "def f(:\n    return 1\n";
beforeAll(async () => {
  await loadGrammars(["python"]);
  tree = parse(SOURCE, "python");
});
afterAll(() => tree.delete());

it("reads the children around a span of a node with many children exactly as a filter of all of them would", () => {
  const root = tree.rootNode;
  expect(root.childCount).toBeGreaterThan(16);
  for (let start = 0; start <= SOURCE.length; start += 7) {
    for (const length of [0, 1, 9, 40, 200]) {
      const span = { start, end: Math.min(SOURCE.length, start + length) };
      const expected = root.children
        .filter((c) => c!.endIndex > span.start && c!.startIndex < span.end)
        .map((c) => c!.id);
      expect(
        childrenTouching(root, span).map((c) => c.id),
        JSON.stringify(span),
      ).toEqual(expected);
    }
  }
});

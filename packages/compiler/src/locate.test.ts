import { loadGrammars, withTree } from "@graphplan/graph";
import { resolveLocator } from "@graphplan/locators";
import type { Node } from "web-tree-sitter";
import { beforeAll, describe, expect, it } from "vitest";
import { locatorsFor } from "./locate.js";

beforeAll(() => loadGrammars(["python"]));

const SRC = `class A:
    def run(self, x):
        if x > 1:
            return x
        return 0


class B:
    def run(self, x):
        if x > 2:
            return x + 1
        if x < 0:
            return -x
        return 0
`;

function find(root: Node, type: string, text: string): Node {
  const hit = root.descendantsOfType(type).find((n) => n?.text === text);
  if (!hit) throw new Error(`no ${type} ${text}`);
  return hit;
}

describe("locators for a node", () => {
  it("name a method inside its class when the name alone is ambiguous", () => {
    withTree(SRC, "python", (tree) => {
      const ctx = { tree, source: SRC, language: "python" as const, file: "m.py" };
      const runB = tree.rootNode.descendantsOfType("function_definition")[1]!;
      const [loc] = locatorsFor(ctx, runB);
      expect(loc).toEqual({ kind: "method", name: "run", parent: { kind: "class", name: "B" }, file: "m.py" });
    });
  });

  it("use a field of an addressable node (the condition of an if) and index only when needed", () => {
    withTree(SRC, "python", (tree) => {
      const ctx = { tree, source: SRC, language: "python" as const, file: "m.py" };
      const condition = find(tree.rootNode, "comparison_operator", "x < 0");
      const [loc] = locatorsFor(ctx, condition);
      expect(loc).toBeDefined();
      expect(JSON.stringify(loc)).not.toMatch(/line|byte|offset/);
      const resolved = resolveLocator(tree, SRC, "python", loc);
      expect(resolved).toHaveLength(1);
      expect(resolved[0]!.startIndex).toBe(condition.startIndex);
      expect(resolved[0]!.endIndex).toBe(condition.endIndex);
    });
  });

  it("every named node of a file gets a locator that resolves to it alone", () => {
    withTree(SRC, "python", (tree) => {
      const ctx = { tree, source: SRC, language: "python" as const, file: "m.py" };
      const all: Node[] = [];
      const walk = (n: Node) => {
        if (n.isNamed) all.push(n);
        for (const c of n.namedChildren) if (c) walk(c);
      };
      walk(tree.rootNode);
      let located = 0;
      for (const node of all) {
        const [loc] = locatorsFor(ctx, node);
        if (!loc) continue;
        located++;
        const resolved = resolveLocator(tree, SRC, "python", loc);
        expect(resolved, JSON.stringify(loc)).toHaveLength(1);
        expect([resolved[0]!.startIndex, resolved[0]!.endIndex]).toEqual([node.startIndex, node.endIndex]);
      }
      expect(located).toBeGreaterThan(all.length * 0.9);
    });
  });
});

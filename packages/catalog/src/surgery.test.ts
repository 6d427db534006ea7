import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, parse, syntaxErrors } from "@graphplan/graph";
import { executeStep } from "./execute.js";
import { TransformRejected } from "./workspace.js";
import { cpythonParse } from "@graphplan/testkit";
import { TS } from "./fixtures/sources.js";

beforeAll(() => loadGrammars(["python", "typescript"]));

const SRC = `class Order:
    def __init__(self, items):
        self.items = items

    def total(self):
        return sum(self.items)

    @staticmethod
    def validate(items):
        return bool(items)


def main():
    order = Order([1, 2])
    print(order.total())
`;
const m = (name: string) => ({ kind: "method", name, file: "o.py" });
const outputs: string[] = [];
function op(
  name: string,
  params: Record<string, unknown>,
  files: Record<string, string> = { "o.py": SRC },
): Map<string, string> {
  const result = executeStep({ op: name, params }, files).files;
  for (const [file, text] of result) if (file.endsWith(".py")) outputs.push(text);
  return result;
}

/** SRC with the decorated `validate` first in the class: what moving it and reordering both give. */
const VALIDATE_FIRST = `class Order:
    @staticmethod
    def validate(items):
        return bool(items)

    def __init__(self, items):
        self.items = items

    def total(self):
        return sum(self.items)


def main():
    order = Order([1, 2])
    print(order.total())
`;

describe("tier 1 surgery", () => {
  test("move_node: a decorated method moves with its decorator, blank lines kept", () => {
    const out = op("move_node", { source: m("validate"), target: m("__init__"), position: "before" }).get("o.py")!;
    expect(out).toBe(VALIDATE_FIRST);
  });

  test("copy_node to another file at module level is re-indented and separated by two blank lines", () => {
    const files = op(
      "copy_node",
      { source: m("total"), target: { kind: "function", name: "run", file: "b.py" } },
      { "o.py": SRC, "b.py": "def run():\n    pass\n" },
    );
    expect(files.get("b.py")).toBe("def run():\n    pass\n\n\ndef total(self):\n    return sum(self.items)\n");
    expect(files.get("o.py")).toBe(SRC);
  });

  test("swap_nodes exchanges two statements", () => {
    const out = op("swap_nodes", {
      first: { kind: "statement", file: "o.py", parent: { kind: "function", name: "main", file: "o.py" }, index: 0 },
      second: { kind: "statement", file: "o.py", parent: { kind: "function", name: "main", file: "o.py" }, index: 1 },
    }).get("o.py")!;
    expect(out).toBe(
      SRC.replace(
        "    order = Order([1, 2])\n    print(order.total())",
        "    print(order.total())\n    order = Order([1, 2])",
      ),
    );
  });

  test("delete_node runs as the primitive; deleting a block's only statement leaves pass", () => {
    const out = op("delete_node", { locator: m("total") }).get("o.py")!;
    expect(out).toBe(SRC.replace("    def total(self):\n        return sum(self.items)\n\n", ""));
    const only = op("delete_node", { locator: { kind: "return", file: "o.py", parent: m("total") } }).get("o.py")!;
    expect(only).toBe(SRC.replace("        return sum(self.items)", "        pass"));
  });

  test("reorder_children by names and by indices", () => {
    const byName = op("reorder_children", {
      parent: { kind: "class", name: "Order", file: "o.py" },
      order: ["validate", "__init__", "total"],
    }).get("o.py")!;
    expect(byName).toBe(VALIDATE_FIRST);
    const params = op("reorder_children", {
      parent: { kind: "parameters", file: "o.py", parent: m("__init__") },
      order: [1, 0],
    }).get("o.py")!;
    expect(params).toContain("def __init__(items, self):");
  });

  test("refusals name the problem", () => {
    const bad = (name: string, params: Record<string, unknown>) => () => op(name, params);
    expect(bad("move_node", { source: { kind: "class", name: "Order", file: "o.py" }, target: m("total") })).toThrow(
      /inside the node being moved/,
    );
    expect(bad("swap_nodes", { first: { kind: "class", name: "Order", file: "o.py" }, second: m("total") })).toThrow(
      /overlap/,
    );
    expect(bad("reorder_children", { parent: { kind: "class", name: "Order", file: "o.py" }, order: [0, 1] })).toThrow(
      /order has 2 entries but there are 3 children; list every child once\. The children are: \[0\] __init__/,
    );
    expect(
      bad("reorder_children", { parent: { kind: "class", name: "Order", file: "o.py" }, order: [0, 0, 1] }),
    ).toThrow(TransformRejected);
    expect(() =>
      op(
        "copy_node",
        { source: m("total"), target: { kind: "class", name: "Client", file: "t.ts" } },
        { "o.py": SRC, "t.ts": TS },
      ),
    ).toThrow(/cannot put python code from o.py into a typescript file/);
  });

  test("TypeScript: move an exported function with its export; swap methods", () => {
    const moved = executeStep(
      {
        op: "move_node",
        params: {
          source: { kind: "function", name: "parse", file: "m.ts" },
          target: { kind: "class", name: "Client", file: "m.ts" },
          position: "before",
        },
      },
      { "m.ts": TS },
    ).files.get("m.ts")!;
    const parseStart = TS.indexOf("export function parse");
    const parseText = TS.slice(parseStart, TS.indexOf("\n}\n", parseStart) + 2);
    expect(moved).toBe(
      TS.replace(`${parseText}\n\n`, "").replace("export class Client", `${parseText}\n\nexport class Client`),
    );
    const tree = parse(moved, "typescript");
    try {
      expect(syntaxErrors(tree)).toEqual([]);
    } finally {
      tree.delete();
    }
  });

  test("every result parses with CPython", () => {
    expect(cpythonParse(outputs)).toEqual(outputs.map(() => null));
  });
});

import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, parse, type Node, type Tree } from "@graphplan/graph";
import { InvalidLocator, LocatorNotFound, resolveOne } from "@graphplan/locators";
import { applyEdits, FileNotInPlan, PostconditionFailed } from "@graphplan/primitives";
import {
  FragmentInvalid,
  fragmentEdit,
  nodeBlock,
  placeBlock,
  reindent,
  type Fragment,
  type PlaceAction,
} from "./index.js";
import { executeFragment } from "./execute.js";
import { FragmentLanguageUnsupported } from "./edit.js";
import { cpythonParse } from "@graphplan/testkit";

beforeAll(() => loadGrammars(["python", "javascript", "rust"]));

const SOURCE = `class Store:
    def load(self, key):
        value = self.cache.get(key)
        return value
    # trailing comment of load

    @cached
    def save(self, key, value):
        self.cache[key] = value
`;

function apply(source: string, locator: Record<string, unknown>, action: PlaceAction, fragment: unknown): string {
  const tree: Tree = parse(source, "python");
  try {
    const node: Node = resolveOne(tree, source, "python", { file: "s.py", ...locator });
    return applyEdits(source, [fragmentEdit(source, node, action, fragment, "s.py")]);
  } finally {
    tree.delete();
  }
}

const guard: Fragment = {
  kind: "if_statement",
  properties: { condition: "key is None" },
  children: [{ kind: "raise_statement", properties: { exception: 'KeyError("key")' } }],
};
const outputs: string[] = [];

describe("fragmentEdit", () => {
  test("insert_before takes the target's indentation", () => {
    const out = apply(
      SOURCE,
      { kind: "statement", parent: { kind: "method", name: "load" }, index: 0 },
      "insert_before",
      guard,
    );
    expect(out).toBe(
      SOURCE.replace(
        "        value = self",
        '        if key is None:\n            raise KeyError("key")\n        value = self',
      ),
    );
    outputs.push(out);
  });

  test("insert_after a statement", () => {
    const out = apply(
      SOURCE,
      { kind: "statement", parent: { kind: "method", name: "load" }, index: 0 },
      "insert_after",
      { kind: "expression_statement", properties: { expression: "self.hits.append(key)" } },
    );
    expect(out).toContain("        value = self.cache.get(key)\n        self.hits.append(key)\n        return value");
    outputs.push(out);
  });

  test("replace a method keeps the comment after it; insert_after a def adds a blank line", () => {
    const method: Fragment = {
      kind: "function_definition",
      properties: { name: "load", parameters: "self, key, default=None" },
      children: [{ kind: "return_statement", properties: { value: "self.cache.get(key, default)" } }],
    };
    const replaced = apply(SOURCE, { kind: "method", name: "load" }, "replace", method);
    expect(replaced).toBe(
      SOURCE.replace(
        "    def load(self, key):\n        value = self.cache.get(key)\n        return value",
        "    def load(self, key, default=None):\n        return self.cache.get(key, default)",
      ),
    );
    const after = apply(SOURCE, { kind: "method", name: "save" }, "insert_after", {
      kind: "function_definition",
      properties: { name: "clear", parameters: "self" },
      children: [{ kind: "expression_statement", properties: { expression: "self.cache.clear()" } }],
    });
    expect(after).toBe(`${SOURCE}\n    def clear(self):\n        self.cache.clear()\n`);
    outputs.push(replaced, after);
  });

  test("insert_before a decorated method goes above its decorators", () => {
    const out = apply(SOURCE, { kind: "method", name: "save" }, "insert_before", {
      kind: "assignment",
      properties: { target: "limit", value: "10" },
    });
    expect(out).toContain("    limit = 10\n    @cached\n    def save");
    outputs.push(out);
  });

  test("tabs: the file's unit is used for nested levels", () => {
    const tabbed = "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n";
    const out = apply(tabbed, { kind: "return", index: -1 }, "replace", {
      kind: "for_statement",
      properties: { target: "i", iterable: "range(x)" },
      children: [{ kind: "expression_statement", properties: { expression: "print(i)" } }],
    });
    expect(out).toBe("def f(x):\n\tif x:\n\t\treturn 1\n\tfor i in range(x):\n\t\tprint(i)\n");
    outputs.push(out);
  });

  test("invalid fragments and files of a language fragments are not written in are refused with tagged errors", () => {
    expect(() =>
      apply(SOURCE, { kind: "method", name: "load" }, "replace", { kind: "return_statement", children: [guard] }),
    ).toThrow(FragmentInvalid);
    const rust = "fn f() -> i32 {\n    1\n}\n";
    const tree = parse(rust, "rust");
    try {
      const node = resolveOne(tree, rust, "rust", { file: "m.rs", kind: "function", name: "f" });
      expect(() => fragmentEdit(rust, node, "replace", guard, "m.rs", "rust")).toThrow(FragmentLanguageUnsupported);
    } finally {
      tree.delete();
    }
  });

  test("every result parses with CPython", () => {
    expect(outputs.length).toBeGreaterThanOrEqual(5);
    expect(cpythonParse(outputs)).toEqual(outputs.map(() => null));
  });
});

describe("placement helpers", () => {
  test("reindent leaves the inside of multi-line strings alone", () => {
    const code = '    text = """\nkeep\n  this\n"""\n    if text:\n        go()';
    expect(reindent(code, "  ", "python")).toBe('  text = """\nkeep\n  this\n"""\n  if text:\n      go()');
  });

  test("nodeBlock carries the node's column so continuation lines dedent right", () => {
    const tree = parse(SOURCE, "python");
    try {
      const node = resolveOne(tree, SOURCE, "python", { file: "s.py", kind: "method", name: "load" });
      expect(reindent(nodeBlock(SOURCE, node, "python"), "")).toBe(
        "def load(self, key):\n    value = self.cache.get(key)\n    return value",
      );
      // After the code of `load`, before its trailing comment.
      const end = SOURCE.indexOf("return value") + "return value".length;
      expect(placeBlock(SOURCE, "python", node, "insert_after", "x = 1", { blankLines: 1 })).toEqual({
        start: end,
        end,
        text: "\n\n    x = 1",
      });
    } finally {
      tree.delete();
    }
  });
});

describe("executeFragment", () => {
  const files = { "s.py": SOURCE, "m.rb": "f()\n" };

  test("applies a step and returns the new text and the edit", () => {
    const result = executeFragment(
      {
        fragment: { kind: "return_statement", properties: { value: "value or default" } },
        action: "replace",
        locator: { file: "s.py", kind: "return", parent: { kind: "method", name: "load" } },
      },
      files,
    );
    expect(result.file).toBe("s.py");
    expect(result.source).toBe(SOURCE.replace("        return value\n", "        return value or default\n"));
    expect(applyEdits(SOURCE, [result.edit])).toBe(result.source);
  });

  test("a clause where it cannot go fails the parse postcondition; bad locators and files are tagged errors", () => {
    const elif = { kind: "elif_clause", properties: { condition: "x" }, children: [{ kind: "pass_statement" }] };
    expect(() =>
      executeFragment(
        {
          fragment: elif,
          action: "insert_after",
          locator: { file: "s.py", kind: "return", parent: { kind: "method", name: "load" } },
        },
        files,
      ),
    ).toThrow(PostconditionFailed);
    expect(() =>
      executeFragment({ fragment: guard, locator: { file: "s.py", kind: "method", name: "nope" } }, files),
    ).toThrow(LocatorNotFound);
    expect(() =>
      executeFragment({ fragment: guard, locator: { file: "t.py", kind: "method", name: "load" } }, files),
    ).toThrow(FileNotInPlan);
    expect(() => executeFragment({ fragment: guard, locator: { file: "m.rb", kind: "call" } }, files)).toThrow(
      FragmentLanguageUnsupported,
    );
    expect(() => executeFragment({ fragment: guard, locator: { kind: "call" } }, files)).toThrow(InvalidLocator);
  });
});

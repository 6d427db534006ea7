import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { runPlan } from "./run.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["python"]));

const PY = `import os
from typing import List


class QuerySet:
    """Docstring."""

    def defer(self, *fields):
        return self._clone(fields)

    def only(self, *fields):
        x = 1
        return x
    # trailing comment of only


def helper(a, b):
    return a + b
`;

function run(plan: unknown, source = PY) {
  const result = runPlan(planOf(plan), new Map([["q.py", source]]));
  if (!result.ok) throw result.error;
  return result.files.get("q.py")!;
}

describe("python primitives", () => {
  test("replace_node re-indents a column-0 replacement to the method", () => {
    const out = run([
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "defer", file: "q.py", parent: { kind: "class", name: "QuerySet" } },
          replacement: "def defer(self, *fields, clear=True):\n    return self._clone(fields, clear)",
        },
      },
    ]);
    expect(out).toContain(
      "    def defer(self, *fields, clear=True):\n        return self._clone(fields, clear)\n\n    def only",
    );
  });

  test("replace_node keeps absolute indentation written after the first line", () => {
    const out = run([
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "defer", file: "q.py" },
          replacement: "def defer(self):\n        return None",
        },
      },
    ]);
    expect(out).toContain("    def defer(self):\n        return None\n");
  });

  test("a continuation line lined up under an open bracket decides between the two indentation readings", () => {
    const replace = (replacement: string) =>
      run([
        {
          op: "replace_node",
          params: {
            locator: { kind: "return", index: 0, file: "q.py", parent: { kind: "method", name: "only" } },
            replacement,
          },
        },
      ]);
    // `return self.log(` placed at column 8 opens its bracket at column 23: a second line written at
    // column 24 is absolute (lined up under `x`); at column 16 it is relative (8 + 16 = 24, lined up
    // too), though deeper than the target, which alone would read as absolute. Both readings compile.
    const aligned = "        return self.log(x,\n" + " ".repeat(24) + "fields)\n";
    expect(replace("return self.log(x,\n" + " ".repeat(24) + "fields)")).toContain(aligned);
    expect(replace("return self.log(x,\n" + " ".repeat(16) + "fields)")).toContain(aligned);
  });

  test("for a node inside a line, the brackets that decide the reading are where the node starts, not the line's indentation", () => {
    const replace = (replacement: string) =>
      run([
        {
          op: "replace_node",
          params: {
            locator: { kind: "call", name: "self._clone", file: "q.py", parent: { kind: "method", name: "defer" } },
            replacement,
          },
        },
      ]);
    // The call starts at column 15 (after `return `), so its `(` is at column 26: a second line
    // written at column 19 is relative (8 + 19 = 27, lined up under `fields`), though deeper than
    // the line's indentation, which alone would read as absolute.
    const aligned = "        return self._clone(fields,\n" + " ".repeat(27) + "clear)\n";
    expect(replace("self._clone(fields,\n" + " ".repeat(19) + "clear)")).toContain(aligned);
    expect(replace("self._clone(fields,\n" + " ".repeat(27) + "clear)")).toContain(aligned);
  });

  test("a closing bracket on its own line under the statement's start decides between the two indentation readings", () => {
    const replace = (replacement: string) =>
      run([
        {
          op: "replace_node",
          params: {
            locator: { kind: "call", name: "self._clone", file: "q.py", parent: { kind: "method", name: "defer" } },
            replacement,
          },
        },
      ]);
    // The bracket opens on the second line; the `)` at column 8 is under `return` when the lines are
    // absolute, and at column 16, under nothing, when they are read as relative. Both compile.
    const want = "        return self._clone(fields) \\\n            + g(\n            fields\n        )\n";
    expect(replace("self._clone(fields) \\\n            + g(\n            fields\n        )")).toContain(want);
    expect(replace("self._clone(fields) \\\n    + g(\n    fields\n)")).toContain(want);
  });

  test("replace_node of a definition keeps the comment after it", () => {
    const out = run([
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "only", file: "q.py" },
          replacement: "def only(self):\n    return 2",
        },
      },
    ]);
    expect(out).toContain("    def only(self):\n        return 2\n    # trailing comment of only\n");
  });

  test("delete_node removes the method's lines and keeps the trailing comment", () => {
    const out = run([{ op: "delete_node", params: { locator: { kind: "method", name: "only", file: "q.py" } } }]);
    expect(out).toBe(PY.replace("    def only(self, *fields):\n        x = 1\n        return x\n", ""));
  });

  test("delete_node of a function at the end leaves no trailing blank lines", () => {
    const out = run([{ op: "delete_node", params: { locator: { kind: "function", name: "helper", file: "q.py" } } }]);
    expect(out.endsWith("    # trailing comment of only\n")).toBe(true);
  });

  test("delete_node of the only statement of a block leaves pass", () => {
    const out = run([
      {
        op: "delete_node",
        params: { locator: { kind: "statement", parent: { kind: "method", name: "defer" }, file: "q.py" } },
      },
    ]);
    expect(out).toContain("    def defer(self, *fields):\n        pass\n");
  });

  test("delete_node of an argument takes its comma", () => {
    const out = run([{ op: "delete_node", params: { locator: { kind: "parameter", name: "a", file: "q.py" } } }]);
    expect(out).toContain("def helper(b):");
  });

  test("insert_after_node puts code on its own line at the anchor's indentation", () => {
    const out = run([
      {
        op: "insert_after_node",
        params: { locator: { kind: "import", file: "q.py", index: -1 }, code: "from collections import OrderedDict" },
      },
    ]);
    expect(out.startsWith("import os\nfrom typing import List\nfrom collections import OrderedDict\n\n")).toBe(true);
  });

  test("insert_before_node indents a multi-line block", () => {
    const out = run([
      {
        op: "insert_before_node",
        params: {
          locator: { kind: "method", name: "only", file: "q.py" },
          code: "def first(self):\n    return 0",
          separator: "\n\n",
        },
      },
    ]);
    expect(out).toContain("\n    def first(self):\n        return 0\n\n    def only(self, *fields):");
  });

  test("wrap_node wraps a statement in try/except as in the design", () => {
    const out = run([
      {
        op: "wrap_node",
        params: {
          locator: { kind: "statement", file: "q.py", parent: { kind: "function", name: "helper" }, index: 0 },
          before: "try:\n    ",
          after: "\nexcept ValueError:\n    pass",
        },
      },
    ]);
    expect(out).toContain("def helper(a, b):\n    try:\n        return a + b\n    except ValueError:\n        pass\n");
  });

  test("replace_all_matching renames identifiers but not strings or comments", () => {
    const src = 'def f(x):\n    y = x + 1  # x here\n    return "x", y\n';
    const out = run(
      [
        {
          op: "replace_all_matching",
          params: {
            locator: { type: "sexp", file: "q.py", query: '((identifier) @id (#eq? @id "x"))', capture: "id" },
            replacement: "value",
            filter: "not_in_string_or_comment",
          },
        },
      ],
      src,
    );
    expect(out).toBe('def f(value):\n    y = value + 1  # x here\n    return "x", y\n');
  });

  test("a syntax-breaking replacement fails the step and leaves the files untouched", () => {
    const files = new Map([["q.py", PY]]);
    const result = runPlan(
      planOf([
        {
          op: "replace_node",
          params: {
            locator: { kind: "function", name: "helper", file: "q.py" },
            replacement: "def helper(:\n    pass",
          },
        },
      ]),
      files,
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.cause).toMatchObject({ _tag: "PostconditionFailed" });
    expect(result.files.get("q.py")).toBe(PY);
  });

  test("add_method, add_import, add_class_attribute", () => {
    const out = run([
      { op: "add_import", params: { file: "q.py", import_statement: "import sys" } },
      {
        op: "add_method",
        params: { file: "q.py", class_name: "QuerySet", method_code: "def count(self):\n    return 0" },
      },
      { op: "add_class_attribute", params: { file: "q.py", class_name: "QuerySet", attribute_code: "cache = None" } },
    ]);
    expect(out).toContain("from typing import List\nimport sys\n");
    expect(out).toContain('    """Docstring."""\n    cache = None\n');
    expect(out).toContain(
      "        return x\n\n    def count(self):\n        return 0\n    # trailing comment of only\n",
    );
  });
});

describe("a definition inserted beside a definition, with no separator given", () => {
  const MODULE = "import os\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n";
  const CLASS = "class K:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n";
  const after = (name: string, code: string, extra: Record<string, unknown> = {}, source = MODULE) =>
    run(
      [{ op: "insert_after_node", params: { locator: { file: "q.py", kind: "function", name }, code, ...extra } }],
      source,
    );
  const before = (name: string, code: string, source = MODULE) =>
    run([{ op: "insert_before_node", params: { locator: { file: "q.py", kind: "function", name }, code } }], source);

  test("is set apart by the blank lines the file puts between its definitions", () => {
    expect(after("a", "def c():\n    return 3")).toBe(
      "import os\n\n\ndef a():\n    return 1\n\n\ndef c():\n    return 3\n\n\ndef b():\n    return 2\n",
    );
    expect(after("a", "def c(self):\n    return 3", {}, CLASS)).toBe(
      "class K:\n    def a(self):\n        return 1\n\n    def c(self):\n        return 3\n\n    def b(self):\n        return 2\n",
    );
    expect(before("b", "@cache\ndef c():\n    return 3")).toBe(
      "import os\n\n\ndef a():\n    return 1\n\n\n@cache\ndef c():\n    return 3\n\n\ndef b():\n    return 2\n",
    );
  });

  test("takes PEP 8's gap when no neighbour shows one, after the last definition of a file", () => {
    expect(after("b", "class C:\n    pass", {}, "def b():\n    return 2\n")).toBe(
      "def b():\n    return 2\n\n\nclass C:\n    pass\n",
    );
  });

  test("is written as given when the separator or the code's own blank lines say how, or the code is not a definition", () => {
    expect(after("a", "def c():\n    return 3", { separator: "\n" })).toBe(
      "import os\n\n\ndef a():\n    return 1\ndef c():\n    return 3\n\n\ndef b():\n    return 2\n",
    );
    expect(after("a", "\ndef c():\n    return 3")).toBe(
      "import os\n\n\ndef a():\n    return 1\n\ndef c():\n    return 3\n\n\ndef b():\n    return 2\n",
    );
    expect(after("a", "x = 1")).toBe("import os\n\n\ndef a():\n    return 1\nx = 1\n\n\ndef b():\n    return 2\n");
  });
});

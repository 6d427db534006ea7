import { loadGrammars } from "@graphplan/graph";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";
import { detectTier, formalHandlers, runFormalPlan } from "@graphplan/catalog";
import { beforeAll, describe, expect, it } from "vitest";
import { compile, CompileError, type CompiledPlan, type Tier } from "./compile.js";
import { gitDiff } from "./patch.js";
import { suggesters } from "./suggest.js";

beforeAll(() => loadGrammars(["python", "javascript"]));

const FILE = "pkg/mod.py";

/** Compiles pre → post, runs the plan with the engine, and checks it reproduces post exactly. */
function roundTrip(pre: string, post: string, file = FILE): CompiledPlan {
  const diff = gitDiff(new Map([[file, pre]]), new Map([[file, post]]));
  const compiled = compile(new Map([[file, pre]]), diff, {
    handlers: formalHandlers,
    tierOf: (s) => detectTier(s) as Tier,
    suggest: suggesters,
  });
  const run = runFormalPlan(parsePlanOrThrow(JSON.parse(JSON.stringify(compiled.plan))), new Map([[file, pre]]));
  expect(run.ok, run.ok ? "" : String(run.error)).toBe(true);
  if (run.ok) expect(run.files.get(file)).toBe(post);
  // Locators only: never a line number or an offset in a step.
  expect(JSON.stringify(compiled.plan)).not.toMatch(/"(start_line|end_line|anchor_line|line|start_byte|offset)"/);
  return compiled;
}

const ops = (c: CompiledPlan): string[] =>
  c.records.map((r) =>
    "op" in r.step ? r.step.op : "template" in r.step ? `template:${r.step.template}` : "fragment",
  );
const noLegacy = (c: CompiledPlan) => expect(c.records.filter((r) => r.legacy)).toEqual([]);

const BASE = `"""Module docstring."""
import os


def area(w, h):
    """Area of a rectangle."""
    if w < 0:
        raise ValueError("negative width")
    return w * h


class Shape:
    sides = 0

    def __init__(self, name):
        self.name = name

    # describe the shape
    def describe(self):
        return f"{self.name} with {self.sides} sides"


def perimeter(w, h):
    return 2 * (w + h)
`;

describe("additions compile to the template of their shape", () => {
  const DECORATED = "import functools\n\n\n@functools.cache\ndef f(x):\n    return x\n";
  it.each([
    [
      "a parameter added last",
      BASE,
      BASE.replace("def perimeter(w, h):", "def perimeter(w, h, scale=1):"),
      "template:add_parameter",
      { name: "scale", default: "1" },
    ],
    [
      "a parameter added between two",
      BASE,
      BASE.replace("def perimeter(w, h):", "def perimeter(w, d, h):"),
      "template:add_parameter",
      { name: "d", after: "w" },
    ],
    [
      "a typed parameter added between two",
      BASE,
      BASE.replace("def perimeter(w, h):", "def perimeter(w, d: int, h):"),
      "template:add_parameter",
      { name: "d", type: "int", after: "w" },
    ],
    [
      "a decorator added to a bare definition",
      BASE,
      BASE.replace("\ndef perimeter", "\n@staticmethod\ndef perimeter"),
      "template:add_decorator",
      { decorator: "staticmethod" },
    ],
    [
      "a decorator added above another",
      DECORATED,
      DECORATED.replace("@functools.cache\n", "@trace\n@functools.cache\n"),
      "template:add_decorator",
      { decorator: "trace", position: "outermost" },
    ],
    [
      "a class attribute added",
      BASE,
      BASE.replace("    sides = 0\n", '    sides = 0\n    kind: str = "shape"\n'),
      "template:add_class_attribute",
      { name: "kind", type: "str", value: '"shape"' },
    ],
    [
      "a method added between two",
      BASE,
      BASE.replace(
        "    # describe the shape\n",
        "    def rename(self, name):\n        self.name = name\n\n    # describe the shape\n",
      ),
      "template:add_method",
      { after: "__init__" },
    ],
    [
      "a guard first in a function body",
      BASE,
      BASE.replace("def perimeter(w, h):\n", "def perimeter(w, h):\n    if w is None:\n        return 0\n"),
      "template:guard_clause",
      { condition: "w is None", body: "return 0" },
    ],
    [
      "an else added to an if",
      BASE,
      BASE.replace(
        '        raise ValueError("negative width")\n',
        '        raise ValueError("negative width")\n    else:\n        w = float(w)\n',
      ),
      "template:add_conditional_branch",
      { body: "w = float(w)" },
    ],
    [
      "a statement wrapped in with",
      BASE,
      BASE.replace("    return w * h\n", "    with lock as held:\n        return w * h\n"),
      "template:wrap_context_manager",
      { context: "lock", alias: "held" },
    ],
    [
      "a statement wrapped in try/except",
      BASE,
      BASE.replace(
        "    return w * h\n",
        "    try:\n        return w * h\n    except TypeError as e:\n        raise ValueError(w) from e\n",
      ),
      "template:wrap_try_except",
      { exception: "TypeError", alias: "e", handler: "raise ValueError(w) from e" },
    ],
  ])("%s", (_name, pre, post, op, params) => {
    const c = roundTrip(pre, post);
    expect(ops(c)).toEqual([op]);
    expect((c.records[0]!.step as { params: Record<string, unknown> }).params).toMatchObject(params);
  });
});

describe("compilePatch: each path reproduces the gold post-image exactly", () => {
  it("a changed expression becomes one small step on the changed node", () => {
    const c = roundTrip(BASE, BASE.replace("return 2 * (w + h)", "return 2 * (w + h + 1)"));
    expect(c.records).toHaveLength(1);
    noLegacy(c);
    // Smaller than the statement: the step rewrites the expression, not the return or the def.
    expect(c.records[0]!.bytes).toBeLessThan("return 2 * (w + h)".length + "return 2 * (w + h + 1)".length);
    expect(ops(c)).toEqual(["template:replace_expression"]);
  });

  it("a changed if condition and a changed return value", () => {
    const c = roundTrip(
      BASE,
      BASE.replace("if w < 0:", "if w < 0 or h < 0:").replace("return w * h\n", "return abs(w * h)\n"),
    );
    expect(c.records).toHaveLength(2);
    noLegacy(c);
  });

  it("an added function and an added class at module level", () => {
    const post = BASE.replace(
      "\n\ndef perimeter",
      "\n\ndef volume(w, h, d):\n    return w * h * d\n\n\nclass Cube(Shape):\n    sides = 6\n\n\ndef perimeter",
    );
    const c = roundTrip(BASE, post);
    noLegacy(c);
    expect(ops(c).some((o) => o.startsWith("insert_") || o.startsWith("template:") || o === "fragment")).toBe(true);
    expect(ops(c)).not.toContain("replace_node");
  });

  it("an added import uses add_import", () => {
    const c = roundTrip(BASE, BASE.replace("import os\n", "import os\nimport sys\n"));
    expect(ops(c)).toEqual(["add_import"]);
  });

  it("a method added at the end of a class uses add_method", () => {
    const post = BASE.replace(
      '        return f"{self.name} with {self.sides} sides"\n',
      '        return f"{self.name} with {self.sides} sides"\n\n    def sides_count(self):\n        return self.sides\n',
    );
    const c = roundTrip(BASE, post);
    expect(ops(c)).toHaveLength(1);
    expect(ops(c)[0]).toMatch(/add_method/);
  });

  it("deleted definitions and statements use delete_node", () => {
    const post = BASE.replace('    if w < 0:\n        raise ValueError("negative width")\n', "").replace(
      "\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n",
      "\n",
    );
    const c = roundTrip(BASE, post);
    noLegacy(c);
    expect(ops(c)).toEqual(["delete_node", "delete_node"]);
  });

  it("text no node step can make (a blank line left at the end of the file) falls back to replace_text, counted as a text step", () => {
    const post = BASE.replace("\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n", "\n");
    expect(post.endsWith('sides"\n\n')).toBe(true);
    const c = roundTrip(BASE, post);
    expect(c.records.map((r) => [r.legacy, r.text])).toEqual([[false, true]]);
    expect(ops(c)).toEqual(["replace_text"]);
  });

  it("a decorator added to a method and a decorator changed", () => {
    const decorated = BASE.replace("    def describe(self):", "    @property\n    def describe(self):");
    const c1 = roundTrip(BASE, decorated);
    noLegacy(c1);
    const c2 = roundTrip(decorated, decorated.replace("@property", "@functools.cached_property"));
    noLegacy(c2);
    expect(c2.records[0]!.bytes).toBeLessThan(60);
  });

  it("docstrings and comments changed, added and removed", () => {
    const post = BASE.replace(
      '"""Area of a rectangle."""',
      '"""Area of a rectangle.\n\n    Negative sizes raise.\n    """',
    )
      .replace("# describe the shape", "# describe the shape in words")
      .replace("    sides = 0\n", "    # how many sides\n    sides = 0\n");
    const c = roundTrip(BASE, post);
    noLegacy(c);
    // Three small steps, not the function or the class rewritten.
    const shape = BASE.slice(BASE.indexOf("class Shape"), BASE.indexOf("def perimeter"));
    expect(c.records.reduce((sum, r) => sum + r.bytes, 0)).toBeLessThan(shape.length);
  });

  it("whitespace-only hunks: blank lines added and removed", () => {
    // At column 0: an insertion of only a separator.
    const top = roundTrip(BASE, BASE.replace("import os\n\n\n", "import os\n\n\n\n"));
    expect(top.records.map((r) => [r.step, r.bytes])).toEqual([
      [expect.objectContaining({ params: expect.objectContaining({ code: "" }) }), 1],
    ]);
    // Inside a block no primitive writes a bare blank line (they indent it): the block is replaced.
    const inBlock = roundTrip(BASE, BASE.replace("    sides = 0\n\n", "    sides = 0\n\n\n"));
    noLegacy(inBlock);
    expect(inBlock.records.map((r) => r.form)).toEqual(["enclosing:block"]);
    // Removing a blank line: no primitive removes only whitespace; the enclosing node is replaced.
    const removed = roundTrip(BASE, BASE.replace("import os\n\n\n", "import os\n\n"));
    noLegacy(removed);
  });

  it("a file with a syntax error before the change is still edited exactly", () => {
    const broken = BASE.replace("def perimeter(w, h):", "def perimeter(w, h:");
    const c = roundTrip(broken, broken.replace("return w * h\n", "return w * h * 1.0\n"));
    noLegacy(c);
  });

  it("several changes in one file are addressed in the text each step sees", () => {
    const post = BASE.replace("import os\n", "import os\nimport re\n")
      .replace("if w < 0:", "if w <= 0:")
      .replace("sides = 0", "sides = 4")
      .replace("return 2 * (w + h)", "return 2 * w + 2 * h");
    const c = roundTrip(BASE, post);
    noLegacy(c);
    expect(c.records.length).toBeGreaterThanOrEqual(4);
  });

  it("JavaScript files too", () => {
    const pre =
      "function add(a, b) {\n  return a + b;\n}\n\nexport class Calc {\n  run(x) {\n    return add(x, 1);\n  }\n}\n";
    const post = pre
      .replace("return add(x, 1);", "return add(x, 2);")
      .replace("\n\nexport class", "\n\nfunction sub(a, b) {\n  return a - b;\n}\n\nexport class");
    const c = roundTrip(pre, post, "src/calc.js");
    noLegacy(c);
  });

  it("compiles a new file to create_file, and a file with no grammar to text steps quoting it", () => {
    const create = gitDiff(new Map<string, string | null>([["new.py", null]]), new Map([["new.py", "x = 1\n"]]));
    expect(compile(new Map(), create).plan).toEqual([
      { op: "create_file", params: { path: "new.py", content: "x = 1\n" } },
    ]);
    const notes = "alpha\nbeta\ngamma\nbeta\n";
    const text = gitDiff(
      new Map([["notes.txt", notes]]),
      new Map([["notes.txt", "alpha\nbeta\ngamma\nBETA\ndelta\n"]]),
    );
    // The second "beta" is not unique alone: the step quotes the line before it too.
    expect(compile(new Map([["notes.txt", notes]]), text).plan).toEqual([
      { op: "replace_text", params: { file: "notes.txt", find: "gamma\nbeta\n", replace: "gamma\nBETA\ndelta\n" } },
    ]);
  });

  it("compiles insertions at offset 0 and at the end, and a removed final newline, exactly", () => {
    const pre = "\nimport os\n\nx = 1\n";
    for (const post of [
      "import sys\n" + pre,
      pre.slice(1),
      pre + "y = 2\n",
      "\nimport os\n\nx = 1",
      "\r\nimport os\r\n\r\nx = 1\r\n",
      "\nimport os   \n\nx = 1\n",
    ]) {
      const c = roundTrip(pre, post);
      expect(c.records.length).toBeGreaterThan(0);
    }
  });
});

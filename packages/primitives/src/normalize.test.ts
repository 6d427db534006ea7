import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { cpythonParse } from "@graphplan/testkit";
import { findPattern } from "./legacy.js";
import { normalizeCode } from "./indent.js";
import { runPlan } from "./run.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["python", "javascript"]));

const PY = `class Cart:
    def total(self, items):
        if items:
            count = len(items)
            return sum(items)
        return 0
`;

function run(plan: unknown, source = PY, file = "cart.py") {
  const result = runPlan(planOf(plan), new Map([[file, source]]));
  if (!result.ok) throw result.error;
  return {
    text: result.files.get(file)!,
    output: result.results[0]?.ok ? (result.results[0] as { output?: unknown }).output : undefined,
  };
}

const countLine = {
  kind: "expression_statement",
  index: 0,
  file: "cart.py",
  parent: { kind: "method", name: "total" },
};
const ifBlock = { kind: "if", file: "cart.py", parent: { kind: "method", name: "total" } };

describe("the code's whitespace follows the file's conventions, and the step says what changed", () => {
  test("tabs in a file indented with spaces are written with the file's unit", () => {
    const { text, output } = run([
      {
        op: "replace_node",
        params: { locator: ifBlock, replacement: "if items:\n\tfor i in items:\n\t\tprint(i)\n\treturn sum(items)" },
      },
    ]);
    expect(text).toContain(
      "        if items:\n            for i in items:\n                print(i)\n            return sum(items)\n",
    );
    expect(text).not.toContain("\t");
    expect(output).toMatchObject({ normalized: [expect.stringContaining("tab")] });
    expect(cpythonParse([text])).toEqual([null]);
  });

  test("spaces in a file indented with tabs are written as tabs", () => {
    const tabbed = PY.replace(/ {4}/g, "\t");
    const { text } = run(
      [{ op: "replace_node", params: { locator: ifBlock, replacement: "if items:\n    return 1" } }],
      tabbed,
    );
    expect(text).toContain("\t\tif items:\n\t\t\treturn 1\n");
  });

  test("trailing whitespace is removed from code lines, but not from the lines of a multi-line string", () => {
    const { text, output } = run([
      {
        op: "replace_node",
        params: { locator: ifBlock, replacement: 'if items:  \n    s = """a  \n    b"""   \n    return s\t' },
      },
    ]);
    expect(text).toContain('        if items:\n            s = """a  \n            b"""\n            return s\n');
    expect(output).toMatchObject({ normalized: [expect.stringContaining("trailing whitespace from 3 lines")] });
  });

  test("code whose first line is at column 0 and whose other lines carry the target's indentation is not indented twice", () => {
    const { text } = run([
      {
        op: "replace_node",
        params: { locator: countLine, replacement: "count = len(items)\n            assert count > 0" },
      },
    ]);
    expect(text).toContain(
      "            count = len(items)\n            assert count > 0\n            return sum(items)",
    );
    expect(cpythonParse([text])).toEqual([null]);
  });

  test("an edit that would leave an unexpected indent (which tree-sitter accepts) is refused with the rule it breaks", () => {
    const result = runPlan(
      planOf([
        { op: "replace_node", params: { locator: countLine, replacement: "count = len(items)\n  assert count > 0" } },
      ]),
      new Map([["cart.py", PY]]),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/would not compile: line 5: unexpected indent/);
  });

  test("a block opener left without a body is refused (expected an indented block)", () => {
    const result = runPlan(
      planOf([{ op: "insert_after_node", params: { locator: countLine, code: "if count > 3:" } }]),
      new Map([["cart.py", PY]]),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("expected an indented block");
  });

  test("a first line that continues nothing followed by lines at the target's column is read as absolute (comments too)", () => {
    const { text } = run([
      { op: "insert_before_node", params: { locator: countLine, code: "# first\n            # second" } },
    ]);
    expect(text).toContain("            # first\n            # second\n            count = len(items)");
  });

  test("a first line that opens a bracket whose closing line sits at the target's column is read as absolute", () => {
    const { text } = run([
      { op: "insert_before_node", params: { locator: countLine, code: "log(\n                'msg',\n            )" } },
    ]);
    expect(text).toContain("            log(\n                'msg',\n            )\n            count = len(items)");
    const relative = run([{ op: "insert_before_node", params: { locator: countLine, code: "log(\n    'msg',\n)" } }]);
    expect(relative.text).toContain(
      "            log(\n                'msg',\n            )\n            count = len(items)",
    );
  });

  test("a condition in brackets whose closing line sits at the target's column, then a body, is read as absolute", () => {
    const { text } = run([
      {
        op: "replace_node",
        params: {
          locator: countLine,
          replacement: "if (\n                items\n            ):\n                count = len(items)",
        },
      },
    ]);
    expect(text).toContain(
      "            if (\n                items\n            ):\n                count = len(items)\n            return sum(items)",
    );
  });

  test("trailing whitespace goes from a docstring's lines but stays in a data string", () => {
    const doc = normalizeCode('"""Doc  \nmore  \n"""  \nx = """data  \nkept  \n"""', () => "    ", "python");
    expect(doc.code).toBe('"""Doc\nmore\n"""\nx = """data  \nkept  \n"""');
  });

  test("a break or continue the edit puts outside any loop is refused (CPython's compiler rejects it)", () => {
    const result = runPlan(
      planOf([{ op: "insert_after_node", params: { locator: countLine, code: "if count > 3:\n    continue" } }]),
      new Map([["cart.py", PY]]),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("'continue' not properly in loop");
    const inLoop = runPlan(
      planOf([
        {
          op: "insert_after_node",
          params: {
            locator: countLine,
            code: "for i in items:\n    if i:\n        continue\n    else:\n        break",
          },
        },
      ]),
      new Map([["cart.py", PY]]),
    );
    expect(inLoop.ok).toBe(true);
  });

  test("a starred assignment target outside a tuple is refused", () => {
    const result = runPlan(
      planOf([{ op: "replace_node", params: { locator: countLine, replacement: "*count = items" } }]),
      new Map([["cart.py", PY]]),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("starred assignment target must be in a list or tuple");
  });

  test("an edit inside an assignment's target that leaves it starred alone is refused", () => {
    const source = "def f(items):\n    first, rest = items[0], items[1:]\n    return rest\n";
    const result = runPlan(
      planOf([
        { op: "replace_node", params: { locator: { kind: "pattern_list", file: "m.py" }, replacement: "*rest" } },
      ]),
      new Map([["m.py", source]]),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("starred assignment target must be in a list or tuple");
  });

  test("a return the edit puts at module level is refused", () => {
    const result = runPlan(
      planOf([
        {
          op: "insert_after_node",
          params: { locator: { kind: "class", name: "Cart", file: "cart.py" }, code: "return 0", separator: "\n\n" },
        },
      ]),
      new Map([["cart.py", PY]]),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("'return' outside function");
  });

  test("normalizeCode leaves code that already follows the conventions alone and says nothing", () => {
    expect(normalizeCode("if x:\n    y()", () => "    ", "python")).toEqual({ code: "if x:\n    y()", notes: [] });
  });
});

describe("legacy text patterns never match inside a token or from mid-line, nor choose between equal places", () => {
  test("an exact pattern inside a longer identifier does not match it", () => {
    expect(findPattern("x = prefix_total(a)\ny = total(a)\n", "total(a)")).toMatchObject({ start: 24, layer: "exact" });
    expect(findPattern("x = subtotal\n", "total")).toBeUndefined();
  });

  test("a pattern of several lines does not match from the middle of a line", () => {
    expect(findPattern("a = 1; b = 2\nc = 3\n", "b = 2\nc = 3")).toBeUndefined();
  });

  test("two places that match equally well are refused, with their lines", () => {
    const source = "def f():\n    return compute(a)\n\ndef g():\n    return compute(a)\n";
    expect(() => findPattern(source, "return compute(a)")).toThrow(/matches 2 places equally well.*line 2.*line 5/);
    const fuzzy = "def f():\n    return compute(a, 1)\n\ndef g():\n    return compute(a, 2)\n";
    expect(() => findPattern(fuzzy, "return compute(a, 3)")).toThrow(/2 places equally well \(\d+% similar\)/);
  });

  test("replace_code names the file when it refuses an ambiguous pattern", () => {
    const source = "def f():\n    return compute(a)\n\ndef g():\n    return compute(a)\n";
    const result = runPlan(
      planOf([{ op: "replace_code", params: { file: "m.py", pattern: "return compute(a)", replacement: "return 0" } }]),
      new Map([["m.py", source]]),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain("in m.py equally well");
  });

  test("a similar match re-indents the replacement once, whether it was written relative or with the file's indentation", () => {
    const source = "class A:\n    def f(self):\n        if ready:\n            go(1)\n        return 2\n";
    const relative = runPlan(
      planOf([
        {
          op: "replace_code",
          params: { file: "a.py", pattern: "if redy:\n    go(1)", replacement: "if ready:\n    go(2)" },
        },
      ]),
      new Map([["a.py", source]]),
    );
    const absolute = runPlan(
      planOf([
        {
          op: "replace_code",
          params: { file: "a.py", pattern: "if redy:\n            go(1)", replacement: "if ready:\n            go(2)" },
        },
      ]),
      new Map([["a.py", source]]),
    );
    for (const result of [relative, absolute]) {
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.files.get("a.py")).toBe(source.replace("go(1)", "go(2)"));
    }
  });
});

import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { executeStep } from "./execute.js";
import { TransformRejected } from "./workspace.js";

beforeAll(() => loadGrammars(["python", "javascript", "typescript"]));

/** Runs a template and returns the message of the TransformRejected it must throw. */
function refusal(file: string, source: string, template: string, params: Record<string, unknown>): string {
  try {
    executeStep({ template, params }, { [file]: source });
  } catch (error) {
    expect(error).toBeInstanceOf(TransformRejected);
    expect((error as TransformRejected)._tag).toBe("TransformRejected");
    return (error as Error).message;
  }
  throw new Error(`${template} did not refuse`);
}

const py = (template: string, source: string, params: Record<string, unknown>) =>
  refusal("a.py", source, template, params);
const f = (name: string) => ({ kind: "function", name, file: "a.py" });

describe("templates refuse what would break or change behaviour", () => {
  test("add_parameter", () => {
    const src = "def f(a, b=1):\n    pass\n";
    expect(py("add_parameter", src, { target: f("f"), name: "c" })).toContain(
      "would follow a parameter with a default",
    );
    expect(py("add_parameter", src, { target: f("f"), name: "a", default: "0" })).toContain(
      "already has a parameter named a",
    );
    expect(py("add_parameter", src, { target: f("f"), name: "c", default: "0", after: "zz" })).toContain(
      "no parameter named zz",
    );
    expect(
      py("add_parameter", "def g(*args, **kw):\n    pass\n", { target: f("g"), name: "c", default: "0", after: "kw" }),
    ).toContain("nothing may follow **kw");
  });

  test("duplicates: methods, attributes, decorators, else", () => {
    const src =
      "class A:\n    n = 1\n\n    @staticmethod\n    def m():\n        if x:\n            pass\n        else:\n            pass\n";
    expect(
      py("add_method", src, { target: { kind: "class", name: "A", file: "a.py" }, code: "def m(self):\n    pass" }),
    ).toContain("already has a member named m");
    expect(
      py("add_class_attribute", src, { target: { kind: "class", name: "A", file: "a.py" }, name: "n", value: "2" }),
    ).toContain("already has a member named n");
    // `value` is optional only for a Go struct's field.
    expect(py("add_class_attribute", src, { target: { kind: "class", name: "A", file: "a.py" }, name: "k" })).toBe(
      'add_class_attribute on a.py: a python class attribute needs a value: give "value"',
    );
    expect(
      py("add_decorator", src, { target: { kind: "method", name: "m", file: "a.py" }, decorator: "staticmethod" }),
    ).toContain("already there");
    expect(py("add_conditional_branch", src, { target: { kind: "if", file: "a.py" }, body: "pass" })).toContain(
      "already has an else",
    );
  });

  test("change_return_value needs one return or all: true", () => {
    const src = "def f(x):\n    if x:\n        return 1\n    return 2\n\n\ndef g():\n    pass\n";
    expect(py("change_return_value", src, { target: f("f"), value: "0" })).toContain(
      "has 2 return statements (lines 3, 4)",
    );
    expect(py("change_return_value", src, { target: f("g"), value: "0" })).toContain("has no return statement");
  });

  test("extract_variable keeps evaluation order and names", () => {
    const src =
      "def f(a, b, items):\n    ok = a and b.ready()\n    g = lambda v: v * 2\n    while a.more():\n        pass\n    total = a + b\n    return [x * 2 for x in items]\n";
    const sexp = (query: string, index = 0) => ({ type: "sexp", file: "a.py", query, capture: "e", index });
    expect(py("extract_variable", src, { target: sexp('((call) @e (#match? @e "ready"))'), name: "r" })).toContain(
      "right operand of `and`",
    );
    expect(py("extract_variable", src, { target: sexp("(lambda body: (binary_operator) @e)"), name: "r" })).toContain(
      "inside a lambda",
    );
    expect(py("extract_variable", src, { target: sexp('((call) @e (#match? @e "more"))'), name: "r" })).toContain(
      "loop condition",
    );
    expect(
      py("extract_variable", src, { target: sexp("(list_comprehension body: (binary_operator) @e)"), name: "r" }),
    ).toContain("inside a list comprehension");
    expect(
      py("extract_variable", src, { target: sexp('((binary_operator) @e (#eq? @e "a + b"))'), name: "items" }),
    ).toContain("already names something visible here");
    expect(
      py("extract_variable", src, { target: sexp('((binary_operator) @e (#eq? @e "a + b"))'), name: "len" }),
    ).toContain("shadow the builtin");
  });

  test("inline_variable refuses unsafe inlines", () => {
    const at = (name: string) => ({ target: { kind: "assignment", name, file: "a.py" } });
    expect(
      py("inline_variable", "def f():\n    x = 1\n    x = 2\n    return x\n", {
        target: { kind: "assignment", name: "x", file: "a.py", index: 0 },
      }),
    ).toContain("assigned 2 times");
    expect(
      py("inline_variable", "def f():\n    x = 1\n    def g():\n        return x\n    return g\n", at("x")),
    ).toContain("nested function");
    expect(py("inline_variable", "def f(a):\n    x = a + 1\n    a = 5\n    return x\n", at("x"))).toContain(
      "reads a, which is reassigned at line 3",
    );
    expect(py("inline_variable", "def f():\n    x = load()\n    return x + x\n", at("x"))).toContain(
      "evaluated 2 times",
    );
    expect(
      py("inline_variable", "def f(items):\n    x = load()\n    for i in items:\n        use(x)\n", at("x")),
    ).toContain("every loop iteration");
    expect(py("inline_variable", "X = 1\nprint(X)\n", at("X"))).toContain("module-level");
    expect(py("inline_variable", "def f():\n    x = 1\n    return 0\n", at("x"))).toContain("never used");
  });

  test("targets of the wrong kind are named in the refusal", () => {
    const src = "def f(x):\n    return x\n";
    expect(py("replace_expression", src, { target: f("f"), expression: "1" })).toContain(
      "is a function_definition, not an expression",
    );
    expect(py("modify_condition", src, { target: f("f"), condition: "x" })).toContain(
      "point the locator at an if, elif, while or ternary",
    );
    expect(py("add_method", src, { target: f("f"), code: "def g(self):\n    pass" })).toContain("not a class");
    expect(py("guard_clause", "def f(x): return x\n", { target: f("f"), condition: "x", body: "return 0" })).toContain(
      "on its header line",
    );
  });

  test("JavaScript/TypeScript specifics", () => {
    expect(() =>
      executeStep(
        {
          template: "wrap_try_except",
          params: { target: { kind: "function", name: "f", file: "a.ts" }, exception: "Error", handler: "h();" },
        },
        { "a.ts": "function f() {\n  g();\n}\n" },
      ),
    ).toThrow(/exception: .*catch clauses have no exception type/);
    expect(
      refusal("a.js", "function f() {\n  const v = g();\n  use(v);\n}\n", "wrap_try_except", {
        target: { kind: "statement", file: "a.js", index: 0 },
        handler: "h();",
      }),
    ).toContain("v is declared inside the wrapped code and used after it");
    expect(
      refusal("a.ts", "function f() {}\n", "add_decorator", {
        target: { kind: "function", name: "f", file: "a.ts" },
        decorator: "d",
      }),
    ).toContain("classes and class members");
    expect(
      refusal("a.js", "function f(total) {\n  return total * 2;\n}\n", "extract_variable", {
        target: { type: "sexp", file: "a.js", query: "(binary_expression) @e", capture: "e" },
        name: "total",
      }),
    ).toContain("already used in this function");
  });
});

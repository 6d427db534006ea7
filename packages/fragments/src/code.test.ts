import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { checkCode, type CodeKind } from "./index.js";
import { dedent, type CodeLanguage } from "./code.js";

beforeAll(() => loadGrammars(["python", "javascript", "typescript", "tsx", "java", "go"]));

const ok = (code: string, kind: CodeKind, language: CodeLanguage = "python") => checkCode(code, kind, language).ok;

describe("checkCode: Python", () => {
  test.each([
    ["x is None", "condition"],
    ["(n := next(it))", "condition"],
    ["n := next(it)", "condition"],
    ["a, b", "expression"],
    ["lambda x: x + 1", "expression"],
    ["yield value", "expression"],
    ["Optional[Dict[str, int]]", "type"],
    ["self.items[0]", "target"],
    ["a, *rest", "target"],
    ["self, *args, key=None, **kwargs", "parameters"],
    ["", "parameters"],
    ["Base, metaclass=Meta", "arguments"],
    ["open(p) as f, lock", "with_items"],
    ["(KeyError, IndexError)", "exception"],
    ["@functools.lru_cache(maxsize=None)", "decorator"],
    ["_private", "identifier"],
    ["match", "identifier"],
  ] as const)("accepts %j as %s", (code, kind) => {
    expect(checkCode(code, kind, "python")).toEqual({ ok: true, code: code.trim().replace(/^@/, "") });
  });

  test.each([
    ["x ==", "expression"],
    ["x = 1", "expression"],
    ["return x", "expression"],
    ["a b", "condition"],
    ["f(x) # why", "expression"],
    ["int,", "type"],
    ["f()", "target"],
    ["x=1, y", "parameters"],
    ["open(p) as", "with_items"],
    ["E as e", "exception"],
    ["lambda", "identifier"],
    ["1abc", "identifier"],
    ["a.b", "identifier"],
    ["", "expression"],
  ] as const)("refuses %j as %s", (code, kind) => {
    const result = checkCode(code, kind, "python");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
  });

  test("statements are dedented; imports and functions are exactly one", () => {
    expect(checkCode("    if x:\n        return 1\n    return 2\n", "statements", "python")).toEqual({
      ok: true,
      code: "if x:\n    return 1\nreturn 2",
    });
    expect(ok("if x:\nreturn 1", "statements")).toBe(false);
    expect(ok("# only a comment", "statements")).toBe(false);
    expect(ok("from a import (b,\n    c)", "import")).toBe(true);
    expect(ok("import os\nimport sys", "import")).toBe(false);
    expect(ok("os.path.join()", "import")).toBe(false);
    expect(ok("@staticmethod\ndef f():\n    pass", "function")).toBe(true);
    expect(ok("class A:\n    pass", "function")).toBe(false);
  });
});

describe("checkCode: JavaScript / TypeScript", () => {
  test("expressions and conditions", () => {
    expect(ok("a ?? b", "expression", "javascript")).toBe(true);
    expect(ok("{ a: 1 }", "expression", "javascript")).toBe(true);
    expect(ok("async (x) => await x", "expression", "typescript")).toBe(true);
    expect(ok("a, b", "expression", "javascript")).toBe(false);
    expect(ok("x === null || !x", "condition", "typescript")).toBe(true);
    expect(ok("let x = 1", "expression", "javascript")).toBe(false);
  });

  test("types only in TypeScript", () => {
    expect(ok("Record<string, number[]>", "type", "typescript")).toBe(true);
    expect(ok("Array<", "type", "typescript")).toBe(false);
    const js = checkCode("number", "type", "javascript");
    expect(js.ok).toBe(false);
    if (!js.ok) expect(js.message).toContain("JavaScript has no type annotations");
  });

  test("identifiers, parameters, statements and methods", () => {
    expect(ok("$el", "identifier", "javascript")).toBe(true);
    expect(ok("class", "identifier", "javascript")).toBe(false);
    expect(ok("a, b = 2, ...rest", "parameters", "javascript")).toBe(true);
    expect(ok("const a = 1;\nreturn a;", "statements", "typescript")).toBe(true);
    expect(ok("close(): void {\n  this.c.close();\n}", "function", "typescript")).toBe(true);
    expect(ok("function go() {}", "function", "javascript")).toBe(true);
    expect(ok("import { a } from './a';", "import", "typescript")).toBe(true);
    expect(ok("with_items", "with_items", "javascript")).toBe(false);
  });
});

test("dedent strips only the common indentation", () => {
  expect(dedent("\n    a\n      b\n\n    c")).toBe("a\n  b\n\nc");
  expect(dedent("a\n  b")).toBe("a\n  b");
});

describe("checkCode: Java and Go statements (a method's or function's body)", () => {
  test.each([
    ["java", "if (x == null) {\n  return 0;\n}\nreturn x.size();", true],
    ["java", "    int n = 0;\n    n++;\n", true],
    ["java", "return x.size()", false],
    ["java", "int f() { return 1; }", false],
    ["go", "if x == nil {\n\treturn 0\n}\nreturn len(x)", true],
    ["go", "n := 0\nn++", true],
    ["go", "return len(x", false],
    ["go", "// only a comment", false],
  ] as const)("%s %j: %s", (language, code, valid) => {
    expect(ok(code, "statements", language)).toBe(valid);
  });

  test("statements are dedented; a syntax error is placed in the code, not in the wrapper", () => {
    expect(checkCode("    int n = 0;\n    n++;\n", "statements", "java")).toEqual({
      ok: true,
      code: "int n = 0;\nn++;",
    });
    const bad = checkCode("x := (1", "statements", "go");
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/^"x := \(1" does not parse as .*character [0-7]\b/);
    expect(ok("import java.util.List;", "import", "java")).toBe(true);
    expect(ok("import static java.util.Objects.requireNonNull;", "import", "java")).toBe(true);
    expect(ok("import java.util.List", "import", "java")).toBe(false);
    expect(ok("int x = 1;", "import", "java")).toBe(false);
  });

  test("a Java identifier is anything but a keyword or literal: the restricted identifiers (record, var, yield...) are names", () => {
    for (const name of ["record", "var", "yield", "sealed", "permits", "count$", "_x"])
      expect(ok(name, "identifier", "java")).toBe(true);
    for (const name of ["class", "_", "null", "true", "goto", "1x"]) expect(ok(name, "identifier", "java")).toBe(false);
  });

  test("a Java function is one method or constructor, annotations included", () => {
    expect(ok('@Override\npublic String toString() {\n    return "x";\n}', "function", "java")).toBe(true);
    expect(ok("Cart(int n) {\n    this.n = n;\n}", "function", "java")).toBe(true);
    expect(ok("int n = 0;", "function", "java")).toBe(false);
    expect(ok("void a() {}\nvoid b() {}", "function", "java")).toBe(false);
    expect(ok('import "strings"', "import", "go")).toBe(true);
    expect(ok('import str "strings"', "import", "go")).toBe(true);
    expect(ok("import strings", "import", "go")).toBe(false);
    expect(ok("var x = 1", "import", "go")).toBe(false);
  });

  test("a Go function is one function or method declaration", () => {
    expect(ok("func f() {}", "function", "go")).toBe(true);
    expect(ok("func (c *Cart) Reset() {\n\tc.items = nil\n}", "function", "go")).toBe(true);
    expect(ok("func (c *Cart) Reset() {\n\tc.items = nil\n", "function", "go")).toBe(false);
    expect(ok("func a() {}\nfunc b() {}", "function", "go")).toBe(false);
    expect(checkCode("var x = 1", "function", "go")).toEqual({
      ok: false,
      message: "expected a function definition, found a var_declaration",
    });
  });
});

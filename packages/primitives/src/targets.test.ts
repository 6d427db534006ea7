import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { runPlan } from "./run.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars());

function run(file: string, source: string, plan: unknown): string {
  const r = runPlan(planOf(plan), new Map([[file, source]]));
  if (!r.ok) throw r.error;
  return r.files.get(file)!;
}

describe("wrappers and attached syntax", () => {
  test("deleting a decorated Python function takes its decorators", () => {
    const src = "import x\n\n\n@cache\n@other(1)\ndef f():\n    pass\n\n\ndef g():\n    pass\n";
    expect(
      run("a.py", src, [{ op: "delete_node", params: { locator: { kind: "function", name: "f", file: "a.py" } } }]),
    ).toBe("import x\n\n\ndef g():\n    pass\n");
  });

  test("replace_node keeps decorators unless the replacement restates them", () => {
    const src = "@cache\ndef f():\n    return 1\n";
    const loc = { kind: "function", name: "f", file: "a.py" };
    expect(
      run("a.py", src, [{ op: "replace_node", params: { locator: loc, replacement: "def f():\n    return 2" } }]),
    ).toBe("@cache\ndef f():\n    return 2\n");
    expect(
      run("a.py", src, [{ op: "replace_node", params: { locator: loc, replacement: "@lru\ndef f():\n    return 2" } }]),
    ).toBe("@lru\ndef f():\n    return 2\n");
  });

  test("deleting an exported JS function or const arrow function takes export and the declaration", () => {
    const src = "export function f() {}\nexport const g = () => 1;\nconst h = 2;\n";
    const out = run("a.ts", src, [
      { op: "delete_node", params: { locator: { kind: "function", name: "f", file: "a.ts" } } },
      { op: "delete_node", params: { locator: { kind: "function", name: "g", file: "a.ts" } } },
    ]);
    expect(out).toBe("const h = 2;\n");
  });

  test("deleting a decorated TS method takes its decorator", () => {
    const src = "class A {\n  @Input()\n  name: string;\n\n  @HostListener('click')\n  onClick() {}\n}\n";
    expect(
      run("a.ts", src, [{ op: "delete_node", params: { locator: { kind: "method", name: "onClick", file: "a.ts" } } }]),
    ).toBe("class A {\n  @Input()\n  name: string;\n}\n");
  });

  test("deleting a Rust struct takes its attributes; a C struct its semicolon", () => {
    expect(
      run("a.rs", "#[derive(Debug)]\n#[allow(dead_code)]\nstruct A {\n    x: u8,\n}\n\nfn main() {}\n", [
        { op: "delete_node", params: { locator: { kind: "struct", name: "A", file: "a.rs" } } },
      ]),
    ).toBe("fn main() {}\n");
    expect(
      run("a.c", "struct A {\n    int x;\n};\n\nint main(void) { return 0; }\n", [
        { op: "delete_node", params: { locator: { kind: "struct", name: "A", file: "a.c" } } },
      ]),
    ).toBe("int main(void) { return 0; }\n");
  });

  test("deleting a Go type spec takes its type declaration; a sole Java declarator its declaration", () => {
    expect(
      run("a.go", "package m\n\ntype A struct{}\n\nfunc f() {}\n", [
        { op: "delete_node", params: { locator: { kind: "struct", name: "A", file: "a.go" } } },
      ]),
    ).toBe("package m\n\nfunc f() {}\n");
    expect(
      run("A.java", "class A {\n    void f() {\n        int x = 1;\n        g();\n    }\n}\n", [
        { op: "delete_node", params: { locator: { kind: "assignment", name: "x", file: "A.java" } } },
      ]),
    ).toBe("class A {\n    void f() {\n        g();\n    }\n}\n");
  });

  test("deleting an inline argument takes the comma and the space", () => {
    const src = "f(a, b, c)\n";
    const arg = (index: number) => ({
      op: "delete_node",
      params: { locator: { kind: "call", name: "f", file: "a.py", field: "arguments", nth_child: index } },
    });
    expect(run("a.py", src, [arg(0)])).toBe("f(b, c)\n");
    expect(run("a.py", src, [arg(1)])).toBe("f(a, c)\n");
    expect(run("a.py", src, [arg(-1)])).toBe("f(a, b)\n");
  });

  test("deleting the first element of a multi-line list removes its line", () => {
    const src = "x = [\n    1,\n    2,\n]\n";
    expect(
      run("a.py", src, [{ op: "delete_node", params: { locator: { kind: "list", file: "a.py", nth_child: 0 } } }]),
    ).toBe("x = [\n    2,\n]\n");
  });

  test("insert_after_node keeps a trailing comment with its line; inline separators insert inline", () => {
    expect(
      run("a.py", "x = 1  # one\ny = 2\n", [
        {
          op: "insert_after_node",
          params: { locator: { kind: "assignment", name: "x", file: "a.py" }, code: "z = 3" },
        },
      ]),
    ).toBe("x = 1  # one\nz = 3\ny = 2\n");
    expect(
      run("a.py", "f(a)\n", [
        {
          op: "insert_after_node",
          params: { locator: { kind: "identifier", name: "a", file: "a.py" }, code: "b", separator: ", " },
        },
      ]),
    ).toBe("f(a, b)\n");
  });

  test("a multi-line insertion into a nested block is re-indented to the block", () => {
    const src = "class A:\n    def f(self):\n        if x:\n            return 1\n        return 2\n";
    expect(
      run("a.py", src, [
        {
          op: "insert_before_node",
          params: { locator: { kind: "return", file: "a.py", index: -1 }, code: "for i in y:\n    print(i)" },
        },
      ]),
    ).toBe(
      "class A:\n    def f(self):\n        if x:\n            return 1\n        for i in y:\n            print(i)\n        return 2\n",
    );
  });

  test("several matches for a single-target primitive fail with the matches listed", () => {
    const r = runPlan(
      planOf([{ op: "delete_node", params: { locator: { kind: "return", file: "a.py" } } }]),
      new Map([["a.py", "def f(x):\n    if x:\n        return 1\n    return 2\n"]]),
    );
    expect(!r.ok && r.error.cause).toMatchObject({
      _tag: "LocatorAmbiguous",
      matches: [
        { line: 3, text: "return 1" },
        { line: 4, text: "return 2" },
      ],
    });
  });

  test("in a CRLF file, inserted line breaks are CRLF", () => {
    const src = "def f():\r\n    return 1\r\n";
    expect(
      run("a.py", src, [
        { op: "insert_before_node", params: { locator: { kind: "return", file: "a.py" }, code: "if x:\n    y()" } },
      ]),
    ).toBe("def f():\r\n    if x:\r\n        y()\r\n    return 1\r\n");
  });

  test("add_method on C says C has no classes", () => {
    const r = runPlan(
      planOf([
        { op: "add_method", params: { file: "a.c", class_name: "S", method_code: "int f(void) { return 0; }" } },
      ]),
      new Map([["a.c", "struct S { int x; };\n"]]),
    );
    expect(!r.ok && r.error.cause).toMatchObject({ _tag: "PreconditionFailed" });
    expect(!r.ok && r.error.message).toContain("C has no classes");
  });

  test("add_method into an empty brace class body and a bodiless Ruby class", () => {
    expect(
      run("a.js", "class A {}\n", [
        { op: "add_method", params: { file: "a.js", class_name: "A", method_code: "m() {\n  return 1;\n}" } },
      ]),
    ).toBe(
      "class A {\n  m() {\n    return 1;\n  }\n}\n", // no indented line to learn the unit from: JS's usual 2
    );
    expect(
      run("a.rb", "class A\nend\n", [
        { op: "add_method", params: { file: "a.rb", class_name: "A", method_code: "def m\n  1\nend" } },
      ]),
    ).toBe("class A\n  def m\n    1\n  end\nend\n");
  });
});

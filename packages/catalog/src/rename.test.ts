import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { BindingNotFound, NameCollision } from "./surgery/rename.js";
import { executeStep } from "./execute.js";
import { cpythonParse } from "@graphplan/testkit";

beforeAll(() => loadGrammars(["python"]));

const outputs: string[] = [];
function rename(source: string, name: string, newName: string, scope?: Record<string, unknown>): string {
  const out = executeStep(
    {
      op: "rename_identifier",
      params: { file: "m.py", name, new_name: newName, ...(scope ? { scope: { file: "m.py", ...scope } } : {}) },
    },
    { "m.py": source },
  ).files.get("m.py")!;
  outputs.push(out);
  return out;
}
function refuse(source: string, name: string, newName: string, scope?: Record<string, unknown>): Error {
  try {
    rename(source, name, newName, scope);
  } catch (error) {
    return error as Error;
  }
  throw new Error("the rename was not refused");
}

describe("rename_identifier (scope-aware, Python)", () => {
  test("a module name: its references, not a shadowing parameter, a string or a comment", () => {
    const src =
      'x = 1\n\n\ndef f(x):\n    return x + 1\n\n\ndef g():\n    return x * 2  # x doubled\n\n\nprint(x, "x")\n';
    expect(rename(src, "x", "y")).toBe(
      'y = 1\n\n\ndef f(x):\n    return x + 1\n\n\ndef g():\n    return y * 2  # x doubled\n\n\nprint(y, "x")\n',
    );
  });

  test("a local: only inside its function; attributes of other objects are untouched", () => {
    const src =
      "total = 5\n\n\ndef f(items):\n    total = 0\n    for item in items:\n        total += item.total\n    return total\n";
    expect(rename(src, "total", "acc", { kind: "function", name: "f" })).toBe(
      "total = 5\n\n\ndef f(items):\n    acc = 0\n    for item in items:\n        acc += item.total\n    return acc\n",
    );
  });

  test("match patterns: captures are renamed; the attribute of a value pattern and a keyword are not", () => {
    const src =
      "RED = 1\n\n\ndef paint(c):\n    match c:\n        case Color.RED:\n            return RED\n        case Point(RED=x):\n            return x\n";
    expect(rename(src, "RED", "CRIMSON")).toBe(
      "CRIMSON = 1\n\n\ndef paint(c):\n    match c:\n        case Color.RED:\n            return CRIMSON\n        case Point(RED=x):\n            return x\n",
    );
    expect(rename(src, "x", "px", { kind: "function", name: "paint" })).toBe(
      src.replace("RED=x", "RED=px").replace("return x", "return px"),
    );
  });

  test("global and nonlocal declarations follow the binding", () => {
    const glob = "count = 0\n\n\ndef bump():\n    global count\n    count += 1\n";
    expect(rename(glob, "count", "counter")).toBe(
      "counter = 0\n\n\ndef bump():\n    global counter\n    counter += 1\n",
    );
    const nonloc =
      "def outer():\n    n = 0\n    def inner():\n        nonlocal n\n        n += 1\n    inner()\n    return n\n";
    expect(rename(nonloc, "n", "hits", { kind: "function", name: "outer" })).toBe(
      "def outer():\n    hits = 0\n    def inner():\n        nonlocal hits\n        hits += 1\n    inner()\n    return hits\n",
    );
  });

  test("a class member: the class-level binding and self.<name> in its methods, not a method local of the same name", () => {
    const src =
      "class C:\n    limit = 3\n\n    def check(self, n):\n        limit = n\n        return n < self.limit and limit\n";
    expect(rename(src, "limit", "max_items", { kind: "class", name: "C" })).toBe(
      "class C:\n    max_items = 3\n\n    def check(self, n):\n        limit = n\n        return n < self.max_items and limit\n",
    );
  });

  test("comprehension and lambda variables are their own scopes; f-string references are code", () => {
    const src = 'i = 10\nsquares = [i * i for i in range(i)]\nf = lambda i: i + 1\nprint(f"{i}", i)\n';
    expect(rename(src, "i", "index")).toBe(
      'index = 10\nsquares = [i * i for i in range(index)]\nf = lambda i: i + 1\nprint(f"{index}", index)\n',
    );
  });

  test("a parameter inferred from the only scope that binds it", () => {
    const src = "def area(w, h):\n    return w * h\n";
    expect(rename(src, "w", "width")).toBe("def area(width, h):\n    return width * h\n");
  });

  test("a function by its scope locator, and its call sites", () => {
    const src = "def helper():\n    return 1\n\n\ndef main():\n    return helper() + helper()\n";
    expect(rename(src, "helper", "one", { kind: "function", name: "helper" })).toBe(
      "def one():\n    return 1\n\n\ndef main():\n    return one() + one()\n",
    );
  });

  test("imports keep the imported name and gain an alias", () => {
    const src = "from os import path\nimport numpy as np\n\n\ndef f():\n    return path.join(np.ones(2))\n";
    expect(rename(rename(src, "path", "osp"), "np", "numpy")).toBe(
      "from os import path as osp\nimport numpy as numpy\n\n\ndef f():\n    return osp.join(numpy.ones(2))\n",
    );
  });

  test("the new name already bound in the same scope is an error", () => {
    const error = refuse("def f():\n    a = 1\n    b = 2\n    return a + b\n", "a", "b", {
      kind: "function",
      name: "f",
    });
    expect(error).toBeInstanceOf(NameCollision);
    expect(error.message).toContain("b is already bound in function f (line 1)");
  });

  test("a rename that an inner binding would capture is an error", () => {
    const error = refuse(
      "def f():\n    a = 1\n    def g():\n        b = 2\n        return a + b\n    return g\n",
      "a",
      "b",
      { kind: "function", name: "f" },
    );
    expect(error).toBeInstanceOf(NameCollision);
    expect((error as NameCollision).line).toBe(5);
    expect(error.message).toContain("inner scope binds it");
  });

  test("a rename that would shadow a name used inside the scope is an error", () => {
    const error = refuse("def f():\n    a = [1]\n    def g():\n        return len(a)\n    return g\n", "a", "len", {
      kind: "function",
      name: "f",
    });
    expect(error).toBeInstanceOf(NameCollision);
    expect(error.message).toContain("would be shadowed");
  });

  test("ambiguous or unknown bindings say where the name is bound", () => {
    const src = "def f():\n    v = 1\n    return v\n\n\ndef g():\n    v = 2\n    return v\n";
    const ambiguous = refuse(src, "v", "w");
    expect(ambiguous).toBeInstanceOf(BindingNotFound);
    expect((ambiguous as BindingNotFound).candidates).toEqual(["function f (line 1)", "function g (line 6)"]);
    const missing = refuse(src, "zzz", "w");
    expect(missing.message).toContain("not bound");
    const wrongScope = refuse(src, "v", "w", { kind: "function", name: "nope" });
    expect(wrongScope.message).toContain("nope");
  });

  test("every renamed file parses with CPython", () => {
    expect(outputs.length).toBeGreaterThanOrEqual(10);
    expect(cpythonParse(outputs)).toEqual(outputs.map(() => null));
  });
});

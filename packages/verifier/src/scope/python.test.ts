import { beforeAll, describe, expect, it } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { Sim } from "../sim.js";
import { pythonScope } from "./python.js";

beforeAll(() => loadGrammars(["python"]));

/** Unresolved names in the text between the markers «» of `source`. */
function unresolved(source: string): string[] | "unknown" {
  const start = source.indexOf("«");
  const end = source.indexOf("»") - 1;
  const clean = source.replace("«", "").replace("»", "");
  const sim = new Sim(new Map([["m.py", clean]]));
  try {
    const found = pythonScope.unresolved(sim.doc("m.py")!, start, end);
    return found === "unknown" ? found : found.map((u) => u.name);
  } finally {
    sim.dispose();
  }
}

describe("python scope model (L3)", () => {
  it("resolves parameters, locals, module names, imports and builtins", () => {
    const src = `import os\nfrom a.b import C as D\nLIMIT = 3\n\ndef helper():\n    pass\n\ndef f(x, *args, y=1, **kw):\n    total = 0\n«    for i, (j, k) in enumerate(args):\n        total += helper() + os.sep + D + LIMIT + x + y + len(kw) + i + j + k\n    return total»\n`;
    expect(unresolved(src)).toEqual([]);
  });

  it("reports a name bound nowhere, once per use", () => {
    expect(unresolved(`def f(x):\n«    return helpr(x) + y»\n`)).toEqual(["helpr", "y"]);
  });

  it("does not count attributes, keyword names and definition names as uses", () => {
    expect(
      unresolved(`import obj\n«obj.missing_attr(key=1)\ndef newfn(p):\n    return p\nclass K:\n    pass»\n`),
    ).toEqual([]);
  });

  it("binds with/except/walrus/comprehension/lambda targets where Python binds them", () => {
    const src = `«with open("f") as (a, b), open("g") as c:\n    pass\ntry:\n    pass\nexcept ValueError as e:\n    print(e, a, b, c)\nxs = [y for y in range(3) if (w := y)]\nprint(w)\ng = lambda p, q=2: p + q»\n`;
    expect(unresolved(src)).toEqual([]);
  });

  it("does not leak comprehension variables or lambda parameters", () => {
    expect(unresolved(`«xs = [y for y in range(3)]\nf = lambda p: p\nprint(y, p)»\n`)).toEqual(["y", "p"]);
  });

  it("hides class-body names from methods, but not from the class body", () => {
    const src = `class K:\n    size = 3\n«    other = size * 2\n    def m(self):\n        return size»\n`;
    expect(unresolved(src)).toEqual(["size"]);
  });

  it("sees enclosing function scopes from nested functions", () => {
    expect(
      unresolved(`def outer(a):\n    b = 1\n    def inner():\n«        return a + b + inner()»\n    return inner\n`),
    ).toEqual([]);
  });

  it("cannot decide in a file with a wildcard import", () => {
    expect(unresolved(`from x import *\n«print(anything)»\n`)).toBe("unknown");
  });

  // Cases where the verifier's former model and the templates' former model disagreed (or
  // both were wrong); each is decided by Python's semantics, as CPython's symtable reports it.
  it("reads a comprehension's first iterable outside the comprehension", () => {
    expect(unresolved(`«xs = [y for y in y]»\n`)).toEqual(["y"]);
  });

  it("hides a class body's names from a class nested in it", () => {
    expect(unresolved(`class A:\n    size = 3\n    class B:\n«        other = size»\n`)).toEqual(["size"]);
  });

  it("checks the names a match pattern reads (classes, dotted values) and binds only its captures", () => {
    const src = `«match cmd:\n    case Color.RED:\n        pass\n    case Point(x=a) | [a, *_] as whole:\n        print(a, whole, x)»\n`;
    expect(unresolved(src)).toEqual(["cmd", "Color", "Point", "x"]);
  });

  it("counts a name assigned under `global` in a function as a module name, and a bare `global` as binding nothing", () => {
    expect(unresolved(`def setup():\n    global conf\n    conf = 1\n«print(conf)»\n`)).toEqual([]);
    expect(unresolved(`def f():\n    global ghost\n«    return ghost»\n`)).toEqual(["ghost"]);
  });

  it("reports `x += 1` and `del x` on a name local to the function that nothing assigns (UnboundLocalError)", () => {
    expect(unresolved(`count = 0\ndef bump():\n«    count += 1»\n`)).toEqual(["count"]);
    expect(unresolved(`x = 1\ndef f():\n«    del x»\n`)).toEqual(["x"]);
    expect(unresolved(`count = 0\ndef bump():\n    global count\n«    count += 1»\n`)).toEqual([]);
  });

  it("binds a walrus in a lambda in the lambda", () => {
    expect(unresolved(`«f = lambda: (y := 1) + y»\n`)).toEqual([]);
  });

  it("gives __class__ to code nested in a class only", () => {
    expect(unresolved(`class K:\n    def m(self):\n«        return __class__»\n`)).toEqual([]);
    expect(unresolved(`def f():\n«    return __class__»\n`)).toEqual(["__class__"]);
  });
});

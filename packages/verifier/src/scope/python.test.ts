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
    expect(unresolved(`import obj\n«obj.missing_attr(key=1)\ndef newfn(p):\n    return p\nclass K:\n    pass»\n`)).toEqual([]);
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
    expect(unresolved(`def outer(a):\n    b = 1\n    def inner():\n«        return a + b + inner()»\n    return inner\n`)).toEqual([]);
  });

  it("cannot decide in a file with a wildcard import", () => {
    expect(unresolved(`from x import *\n«print(anything)»\n`)).toBe("unknown");
  });
});

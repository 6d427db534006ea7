import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, withTree } from "@graphplan/graph";
import { cpythonScopes, type CpythonScopes } from "@graphplan/testkit";
import { analyzePython, type Scope, type ScopeAnalysis } from "./python.js";

beforeAll(() => loadGrammars(["python"]));

const COMPREHENSION_NAMES: Record<string, string> = {
  list_comprehension: "listcomp",
  set_comprehension: "setcomp",
  dictionary_comprehension: "dictcomp",
  generator_expression: "genexpr",
};

/** The model's view in symtable's terms: every non-module scope, each name it uses or binds → local / free / global. */
function modelScopes(a: ScopeAnalysis): CpythonScopes {
  const label = (s: Scope): string => {
    const line = s.node.startPosition.row + 1;
    if (s.kind === "class") return `class ${s.name} ${line}`;
    if (s.kind === "comprehension") return `function ${COMPREHENSION_NAMES[s.node.type]} ${line}`;
    return `function ${s.kind === "lambda" ? "lambda" : s.name} ${line}`;
  };
  const scopes = a.scopes
    .filter((s) => s.kind !== "module")
    .map((s) => {
      const names: Record<string, "local" | "free" | "global"> = {};
      const used = new Set([...a.occurrences.filter((o) => o.scope.id === s.id).map((o) => o.name), ...s.bound.keys()]);
      for (const name of used) {
        const where = a.lookup(name, s);
        names[name] = s.globals.has(name)
          ? "global"
          : s.nonlocals.has(name)
            ? "free"
            : s.bound.has(name)
              ? "local"
              : where && where.kind !== "module"
                ? "free"
                : "global";
      }
      return { scope: label(s), names };
    });
  return { module: [...a.module.bound.keys()].sort(), scopes };
}

const byScope = (c: CpythonScopes) => ({
  module: c.module,
  scopes: Object.fromEntries(c.scopes.map((s) => [s.scope, s.names])),
});

/** Hand-written modules, each exercising a group of binding rules. */
const FIXTURES: Record<string, string> = {
  "parameters of every kind, defaults and annotations outside": `
D = 1
def f(a, /, b: int, *args: str, c=D, d: "T" = D, e=lambda q=a: q, **kw: dict) -> R:
    return a, b, args, c, d, e, kw
g = lambda x, *ys, z=D, **kws: (x, ys, z, kws)
`,
  "imports, loop, with, except and del targets": `
import os.path, json as j
from . import sibling
from .pkg.mod import (alpha as a2, beta)
def f(items):
    for i, (k, *rest) in enumerate(items):
        pass
    with open(os.sep) as fh, open(j) as (p, q):
        pass
    try:
        pass
    except (ValueError, KeyError) as err:
        pass
    del fh, p.attr, q[0]
    return sibling, a2, beta, i, k, rest, err
`,
  "augmented assignment and del make a name local": `
count = 0
def bump():
    count += 1
def drop():
    del count
def ok():
    global count
    count += 1
`,
  "global and nonlocal": `
def outer():
    n = 0
    global g
    g = n
    def inner():
        nonlocal n
        n += 1
        def deepest():
            nonlocal n
            return n, g
        return deepest
    return inner
`,
  "class bodies do not enclose methods, lambdas, comprehensions or nested classes": `
size = 1
class A:
    size = 2
    items = [size for _ in range(size)]
    pairs = {k: size for k in range(3)}
    f = lambda self: size
    class B:
        other = size
    def m(self):
        return size, __class__
    def n(self):
        def inner():
            return __class__
        return inner
`,
  "a class inside a function sees the function's names": `
def make(base):
    tag = "t"
    class K(base):
        label = tag
        def get(self):
            return tag
    return K
`,
  "comprehension scopes and walrus": `
def f(xs, ys):
    pairs = [(x, y) for x in xs if x for y in ys if (last := y)]
    gen = (z * 2 for z in xs)
    s = {w for w in range(3)}
    nested = [
        [c for c in row] for row in xs]
    return pairs, gen, s, nested, last
`,
  "match captures, values and class patterns": `
import enum
class Color(enum.Enum):
    RED = 1
def area(shape):
    match shape:
        case Color.RED | Color.RED:
            return 0
        case {"w": w, "h": h, **extra}:
            return w * h, extra
        case [first, *others] if first:
            return first, others
        case Point(x=px, y=0) as pt:
            return px, pt
        case str() | bytes():
            return 1
        case other:
            return other
`,
};

describe("the Python scope model agrees with CPython's symtable", () => {
  const names = Object.keys(FIXTURES);
  let cpython: CpythonScopes[] = [];
  beforeAll(() => {
    cpython = cpythonScopes(names.map((n) => FIXTURES[n]!));
  });
  for (const [index, name] of names.entries()) {
    test(name, () => {
      const ours = withTree(FIXTURES[name]!, "python", (tree) => modelScopes(analyzePython(tree)));
      const labels = ours.scopes.map((s) => s.scope);
      expect(new Set(labels).size).toBe(labels.length);
      expect(byScope(ours)).toEqual(byScope(cpython[index]!));
    });
  }
});

/** For each occurrence that reads a name: "name@line" when the model finds no value for it. */
function unresolved(source: string, analyze: (a: ScopeAnalysis) => boolean = () => true): string[] {
  return withTree(source, "python", (tree) => {
    const a = analyzePython(tree);
    expect(analyze(a)).toBe(true);
    return a.occurrences
      .filter((o) => o.reads && !a.resolves(o))
      .map((o) => `${o.name}@${o.node.startPosition.row + 1}`);
  });
}

describe("which reads find a value", () => {
  test("`x += 1` and `del x` read a name that they also make local", () => {
    expect(
      unresolved(
        "count = 0\ndef bump():\n    count += 1\ndef drop():\n    del count\ndef fine():\n    global count\n    count += 1\n",
      ),
    ).toEqual(["count@3", "count@5"]);
  });

  test("a name assigned only under `global` in a function is a module name; a `global` without assignment binds nothing", () => {
    expect(unresolved("def setup():\n    global conf, ghost\n    conf = 1\n    return ghost\nprint(conf)\n")).toEqual([
      "ghost@4",
    ]);
  });

  test("__class__ exists only in code nested in a class; __qualname__ and __module__ only in a class body", () => {
    const src =
      "class A:\n    q = __qualname__, __module__\n    def m(self):\n        return __class__, (lambda: __class__), __qualname__\ndef f():\n    return __class__\n";
    expect(unresolved(src)).toEqual(["__qualname__@4", "__class__@6"]);
  });

  test("builtins and module attributes resolve; comprehension variables and lambda parameters do not leak", () => {
    expect(
      unresolved("print(len(__file__), __name__)\nxs = [y for y in range(3)]\nf = lambda p: p\nprint(y, p)\n"),
    ).toEqual(["y@4", "p@4"]);
  });

  test("a comprehension's first iterable is read outside the comprehension", () => {
    expect(unresolved("xs = [y for y in y]\n")).toEqual(["y@1"]);
  });

  test("a walrus in a lambda binds in the lambda", () => {
    expect(unresolved("f = lambda: (y := 1) + y\nprint(y)\n")).toEqual(["y@2"]);
  });

  test("lists `from m import *`, whose names it cannot know", () => {
    expect(
      unresolved(
        "from m import *\nimport os\n",
        (a) => a.starImports.length === 1 && a.starImports[0]!.text === "from m import *",
      ),
    ).toEqual([]);
  });
});

describe("analysing some statements, focused on a range", () => {
  const SRC = `import os
LIMIT = 3

class Store:
    kind = "s"
    items = [_ for _ in range(LIMIT, len(kind))]

    def get(self, key, default=None):
        hits = [k for k in self.keys if (found := k) == key]
        def inner():
            nonlocal hits
            hits += [os.sep, found, kind, missing]
        return inner, hits


def total(xs):
    return sum(x for x in xs) + LIMIT + unknown
`;

  test("resolves every read in the range exactly as the whole analysis does, given the module's names", () => {
    withTree(SRC, "python", (tree) => {
      const whole = analyzePython(tree);
      const wholeVerdict = new Map(
        whole.occurrences.filter((o) => o.reads).map((o) => [o.node.startIndex, whole.resolves(o)]),
      );
      expect([...wholeVerdict.values()].filter((v) => !v)).toHaveLength(3); // kind and missing in inner, unknown in total
      const statements = tree.rootNode.namedChildren.filter((n) => n !== null);
      // Every line of the file as the range, in turn.
      let checked = 0;
      for (let start = 0; start < SRC.length; start = SRC.indexOf("\n", start) + 1) {
        const end = SRC.indexOf("\n", start) + 1;
        const touched = statements.filter((s) => s.startIndex < end && start < s.endIndex);
        const part = analyzePython(tree, { statements: touched, focus: { start, end } });
        for (const o of part.occurrences) {
          if (!o.reads || o.node.startIndex < start || o.node.endIndex > end) continue;
          expect(part.resolves(o, whole.module.assigned), `${o.name} at ${o.node.startIndex}`).toBe(
            wholeVerdict.get(o.node.startIndex),
          );
          checked++;
        }
      }
      expect(checked).toBe(wholeVerdict.size);
    });
  });

  test("enters only the bodies that overlap the focus, or that hold a `global` statement", () => {
    const src = "def a():\n    x = 1\ndef b():\n    y = 2\ndef c():\n    global z\n    z = 3\n";
    withTree(src, "python", (tree) => {
      const part = analyzePython(tree, { focus: { start: src.indexOf("y = 2"), end: src.indexOf("y = 2") + 5 } });
      const bound = (name: string) => part.scopes.find((s) => s.name === name)!.bound;
      expect([...bound("a").keys()]).toEqual([]);
      expect([...bound("b").keys()]).toEqual(["y"]);
      expect([...part.module.bound.keys()].sort()).toEqual(["a", "b", "c", "z"]);
    });
  });
});

import { beforeAll, expect, test } from "vitest";
import { loadGrammars, withTree } from "@graphplan/graph";
import { analyzePython, scopeLabel } from "./index.js";

beforeAll(() => loadGrammars(["python"]));

/** For every occurrence of `name`: "line:role→scope". */
function resolved(source: string, name: string): string[] {
  return withTree(source, "python", (tree) => {
    const a = analyzePython(tree);
    return a.occurrences
      .filter((o) => o.name === name)
      .sort((x, y) => x.node.startIndex - y.node.startIndex)
      .map((o) => {
        const s = a.resolve(o);
        return `${o.node.startPosition.row + 1}:${o.role}→${s ? scopeLabel(s) : "builtin"}`;
      });
  });
}

test("class bodies do not enclose their methods or comprehensions (but the first iterable is the class's)", () => {
  const src =
    "size = 1\nclass A:\n    size = 2\n    items = [size for _ in range(size)]\n    def m(self):\n        return size\n";
  expect(resolved(src, "size")).toEqual([
    "1:binding→the module",
    "3:binding→class A (line 2)",
    "4:reference→the module",
    "4:reference→class A (line 2)",
    "6:reference→the module",
  ]);
});

test("a walrus in a comprehension binds in the enclosing function", () => {
  const src = "def f(xs):\n    ys = [y for x in xs if (y := x * 2)]\n    return y\n";
  expect(resolved(src, "y")).toEqual([
    "2:reference→function f (line 1)",
    "2:binding→function f (line 1)",
    "3:reference→function f (line 1)",
  ]);
});

test("defaults and decorators are evaluated in the enclosing scope; parameters bind in the function", () => {
  const src = "d = 1\n@deco(d)\ndef f(d=d):\n    return d\n";
  expect(resolved(src, "d")).toEqual([
    "1:binding→the module",
    "2:reference→the module",
    "3:binding→function f (line 3)",
    "3:reference→the module",
    "4:reference→function f (line 3)",
  ]);
});

test("except/with aliases, del, match captures and unbound names", () => {
  const src =
    "try:\n    pass\nexcept E as err:\n    print(err)\nwith open(p) as fh:\n    del fh\nmatch cmd:\n    case [op, *args]:\n        print(op, args)\n";
  expect(resolved(src, "err")).toEqual(["3:binding→the module", "4:reference→the module"]);
  expect(resolved(src, "fh")).toEqual(["5:binding→the module", "6:binding→the module"]);
  expect(resolved(src, "args")).toEqual(["8:binding→the module", "9:reference→the module"]);
  expect(resolved(src, "print")).toEqual(["4:reference→builtin", "9:reference→builtin"]);
});

test("scopeAt: a default value belongs to the enclosing scope, the body to the function", () => {
  const src = "def outer():\n    def inner(a=b):\n        return c\n";
  withTree(src, "python", (tree) => {
    const a = analyzePython(tree);
    const find = (text: string) => tree.rootNode.descendantsOfType("identifier").find((n) => n?.text === text)!;
    expect(scopeLabel(a.scopeAt(find("b")))).toBe("function outer (line 1)");
    expect(scopeLabel(a.scopeAt(find("c")))).toBe("function inner (line 2)");
    expect(scopeLabel(a.scopeAt(find("inner")))).toBe("function outer (line 1)");
  });
});

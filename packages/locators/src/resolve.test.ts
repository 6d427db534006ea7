import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, parse, type LanguageId, type Tree } from "@graphplan/graph";
import { resolveLocator, resolveOne, resolveSome } from "./resolve.js";
import { InvalidLocator, InvalidQuery, LocatorAmbiguous, LocatorNotFound, UnknownKind } from "./errors.js";
import { locatorJsonSchema } from "./jsonschema.js";

beforeAll(() => loadGrammars());

const trees: Tree[] = [];
afterAll(() => trees.forEach((t) => t.delete()));

function doc(language: LanguageId, source: string) {
  const tree = parse(source, language);
  trees.push(tree);
  return {
    all: (locator: unknown) => resolveLocator(tree, source, language, locator).map((n) => n.text),
    one: (locator: unknown) => resolveOne(tree, source, language, locator),
    some: (locator: unknown) => resolveSome(tree, source, language, locator),
    error: (locator: unknown): unknown => {
      try {
        resolveOne(tree, source, language, locator);
      } catch (e) {
        return e;
      }
      throw new Error("expected an error");
    },
  };
}

const PY = `import os
from typing import List


class QuerySet:
    def defer(self, *fields):
        if fields:
            return 1
        return 2

    def only(self):
        return 3


def defer_all(x):
    return x


def helper():
    pass
`;

describe("structured locators (python)", () => {
  const py = () => doc("python", PY);

  test("kind + name + parent finds the method", () => {
    const node = py().one({
      kind: "function",
      name: "defer",
      file: "q.py",
      parent: { kind: "class", name: "QuerySet" },
    });
    expect(node.type).toBe("function_definition");
    expect(node.startPosition.row).toBe(5);
  });

  test("method matches only functions inside a class body", () => {
    expect(
      py()
        .all({ kind: "method", file: "q.py" })
        .map((t) => t.split("(")[0]),
    ).toEqual(["def defer", "def only"]);
    expect(py().all({ kind: "function", file: "q.py" })).toHaveLength(4);
  });

  test("field and nth_child (-1) navigate from the match", () => {
    expect(py().all({ kind: "function", name: "defer", file: "q.py", field: "parameters" })).toEqual([
      "(self, *fields)",
    ]);
    expect(py().all({ kind: "function", name: "defer", file: "q.py", field: "body", nth_child: -1 })).toEqual([
      "return 2",
    ]);
    expect(py().all({ kind: "class", name: "QuerySet", file: "q.py", field: "body", nth_child: 0 })[0]).toMatch(
      /^def defer/,
    );
  });

  test("index picks one of several matches, -1 the last", () => {
    expect(py().all({ kind: "import", file: "q.py", index: -1 })).toEqual(["from typing import List"]);
    expect(py().all({ kind: "import", file: "q.py", index: 0 })).toEqual(["import os"]);
  });

  test("a raw node type works as a kind", () => {
    expect(py().all({ kind: "if_statement", file: "q.py" })).toHaveLength(1);
    expect(py().all({ kind: "return_statement", file: "q.py", parent: { kind: "method", name: "only" } })).toEqual([
      "return 3",
    ]);
  });

  test("a name without kind matches any definition", () => {
    expect(py().all({ name: "QuerySet", file: "q.py" })).toHaveLength(1);
  });

  test("a locator without kind or name is the file's root", () => {
    expect(py().all({ file: "q.py", nth_child: 0 })).toEqual(["import os"]);
  });

  test("imports answer to the names they mention", () => {
    expect(py().all({ kind: "import", name: "List", file: "q.py" })).toEqual(["from typing import List"]);
  });
});

describe("locator errors", () => {
  const py = () => doc("python", PY);

  test("several matches without index is LocatorAmbiguous listing lines", () => {
    const error = py().error({ kind: "return", file: "q.py", parent: { kind: "method", name: "defer" } });
    expect(error).toBeInstanceOf(LocatorAmbiguous);
    const e = error as LocatorAmbiguous;
    expect(e.matches).toEqual([
      { line: 8, text: "return 1" },
      { line: 9, text: "return 2" },
    ]);
    expect(e.message).toContain('add "index"');
  });

  test("no match is LocatorNotFound naming similar names of the same kind", () => {
    const e = py().error({ kind: "function", name: "defr", file: "q.py" }) as LocatorNotFound;
    expect(e).toBeInstanceOf(LocatorNotFound);
    expect(e.candidates.filter((c) => c.reason === "similar_name").map((c) => c.name)).toEqual(["defer"]);
    expect(e.message).toContain('function "defer" (line 6');
  });

  test("no match suggests the same name under another kind", () => {
    const e = py().error({ kind: "class", name: "helper", file: "q.py" }) as LocatorNotFound;
    expect(e.candidates).toContainEqual({ kind: "function", name: "helper", line: 19, reason: "other_kind" });
  });

  test("a match outside the parent is offered", () => {
    const e = py().error({
      kind: "function",
      name: "helper",
      file: "q.py",
      parent: { kind: "class", name: "QuerySet" },
    }) as LocatorNotFound;
    expect(e.candidates).toContainEqual({ kind: "function", name: "helper", line: 19, reason: "outside_parent" });
  });

  test("a missing parent is reported as such", () => {
    const e = py().error({
      kind: "function",
      name: "defer",
      file: "q.py",
      parent: { kind: "class", name: "QuerySett" },
    }) as LocatorNotFound;
    expect(e.message).toContain("its parent");
    expect(e.candidates.map((c) => c.name)).toContain("QuerySet");
  });

  test("index out of range and missing field say so", () => {
    expect((py().error({ kind: "import", file: "q.py", index: 5 }) as LocatorNotFound).reason).toMatch(
      /index 5 is out of range: 2 nodes matched/,
    );
    expect(
      (py().error({ kind: "function", name: "helper", file: "q.py", field: "bdy" }) as LocatorNotFound).reason,
    ).toMatch(/no field "bdy".*body/);
    expect(
      (py().error({ kind: "function", name: "helper", file: "q.py", field: "body", nth_child: 3 }) as LocatorNotFound)
        .reason,
    ).toMatch(/nth_child 3/);
  });

  test("an unknown kind is UnknownKind listing valid kinds, closest first", () => {
    const e = py().error({ kind: "functon", file: "q.py" }) as UnknownKind;
    expect(e).toBeInstanceOf(UnknownKind);
    expect(e.validKinds[0]).toBe("function");
    expect(e.message).toContain("Valid kinds:");
  });

  test("an invalid S-expression is InvalidQuery quoting the query, not a crash", () => {
    const e = py().error({ type: "sexp", file: "q.py", query: "(identifier @id", capture: "id" }) as InvalidQuery;
    expect(e).toBeInstanceOf(InvalidQuery);
    expect(e.query).toBe("(identifier @id");
    expect(e.message).toContain('"(identifier @id"');
    const unknownType = py().error({ type: "sexp", file: "q.py", query: "(no_such_node) @x", capture: "x" });
    expect(unknownType).toBeInstanceOf(InvalidQuery);
  });

  test("a capture the query does not have is InvalidQuery naming the captures", () => {
    const e = py().error({ type: "sexp", file: "q.py", query: "(identifier) @id", capture: "target" }) as InvalidQuery;
    expect(e.message).toContain("@id");
  });

  test("a malformed locator is InvalidLocator", () => {
    expect(py().error({ kind: "function" })).toBeInstanceOf(InvalidLocator);
    expect(py().error({ kind: "function", file: "q.py", nth_child: "last" })).toBeInstanceOf(InvalidLocator);
  });
});

describe("S-expression locators", () => {
  test("captures with predicates, with index", () => {
    const py = doc("python", PY);
    const q = { type: "sexp", file: "q.py", query: '((identifier) @id (#eq? @id "fields"))', capture: "id" };
    expect(py.all(q)).toEqual(["fields", "fields"]);
    expect(py.all({ ...q, index: -1 })).toEqual(["fields"]);
    expect(py.all({ ...q, query: '((identifier) @id (#eq? @id "nothing"))' })).toEqual([]);
  });
});

const HELPERS: Record<LanguageId, [string, string]> = {
  python: ["def helper(a):\n    return a\n", "class Box:\n    pass\n"],
  javascript: ["function helper(a) { return a; }\n", "class Box {}\n"],
  typescript: ["export function helper(a: number) { return a; }\n", "export class Box {}\n"],
  tsx: ["const helper = (a: number) => <div>{a}</div>;\n", "class Box {}\n"],
  java: ["class X { static int helper(int a) { return a; } }\n", "class Box {}\n"],
  go: ["package m\nfunc helper(a int) int { return a }\n", "package m\ntype Box struct{}\n"],
  rust: ["fn helper(a: u8) -> u8 { a }\n", "struct Box { a: u8 }\n"],
  ruby: ["def helper(a)\n  a\nend\n", "class Box\nend\n"],
  php: ["<?php\nfunction helper($a) { return $a; }\n", "<?php\nclass Box {}\n"],
  c: ["int *helper(int a) { return 0; }\n", "struct Box { int a; };\n"],
  cpp: ["int helper(int a) { return a; }\n", "class Box { int a; };\n"],
};

describe.each(Object.entries(HELPERS))("%s", (language, [fn, cls]) => {
  test("finds the function helper by name and its class", () => {
    const f = doc(language as LanguageId, fn);
    expect(f.some({ kind: "function", name: "helper", file: "x" })).toHaveLength(1);
    const c = doc(language as LanguageId, cls);
    expect(c.some({ kind: "class", name: "Box", file: "x" })).toHaveLength(1);
    expect(
      (() => {
        try {
          c.one({ kind: "class", name: "Bx", file: "x" });
        } catch (e) {
          return (e as LocatorNotFound).candidates.map((x) => x.name);
        }
        return [];
      })(),
    ).toContain("Box");
  });
});

describe("language-specific kinds", () => {
  test("Go struct and interface are type specs filtered by their type", () => {
    const go = doc("go", "package m\ntype A struct{}\ntype B interface{}\ntype C int\n");
    expect(go.all({ kind: "struct", file: "x" })).toEqual(["A struct{}"]);
    expect(go.all({ kind: "interface", file: "x" })).toEqual(["B interface{}"]);
  });

  test("Rust impl names read like the graph's (Trait for Type)", () => {
    const rs = doc("rust", "struct A;\nimpl A { fn f(&self) {} }\nimpl Clone for A { fn clone(&self) -> A { A } }\n");
    expect(rs.all({ kind: "impl", name: "Clone for A", file: "x" })).toHaveLength(1);
    expect(rs.all({ kind: "method", file: "x" })).toHaveLength(2);
  });

  test("Ruby imports are require calls only", () => {
    const rb = doc("ruby", "require 'json'\nputs 'x'\nrequire_relative 'a'\n");
    expect(rb.all({ kind: "import", file: "x" })).toEqual(["require 'json'", "require_relative 'a'"]);
    expect(rb.all({ kind: "import", name: "json", file: "x" })).toEqual(["require 'json'"]);
  });

  test("C names come from declarators; forward declarations are not structs", () => {
    const c = doc("c", "struct S;\nstruct S { int a; };\nstatic int **getter(void) { return 0; }\n");
    expect(c.all({ kind: "struct", file: "x" })).toHaveLength(1);
    expect(c.all({ kind: "function", name: "getter", file: "x" })).toHaveLength(1);
  });

  test("JS arrow functions bound to a const are functions by the const's name", () => {
    const js = doc("javascript", "const twice = (x) => x * 2;\nconst n = 1;\n");
    expect(js.all({ kind: "function", file: "x" })).toEqual(["twice = (x) => x * 2"]);
  });
});

test("locatorJsonSchema is generated from the zod schema", () => {
  const schema = JSON.stringify(locatorJsonSchema());
  expect(schema).toContain('"sexp"');
  expect(schema).toContain("nth_child");
  expect(schema).toContain("parent");
});

test("InvalidLocator explains the branch the locator was meant for", () => {
  const tree = parse("x = 1\n", "python");
  trees.push(tree);
  const error = (locator: unknown) => {
    try {
      resolveLocator(tree, "x = 1\n", "python", locator);
    } catch (e) {
      return (e as InvalidLocator).issues;
    }
    return [];
  };
  expect(error({ type: "sexp", file: "a.py" })).toEqual(["query: Invalid input: expected string, received undefined"]);
  expect(error({ kind: "function" })).toEqual(["file: Invalid input: expected string, received undefined"]);
});

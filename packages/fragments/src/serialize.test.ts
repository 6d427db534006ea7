import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, parse, syntaxErrors } from "@graphplan/graph";
import { FRAGMENT_KINDS, KIND_SPECS, serialize, validateFragment, type Fragment } from "./index.js";
import { cpythonParse } from "@graphplan/testkit";

beforeAll(() => loadGrammars(["python"]));

const ret = (value?: string): Fragment => ({ kind: "return_statement", ...(value ? { properties: { value } } : {}) });

/** One hand-written expectation per kind of the design (and the three extras). */
const QUOTED_DOCSTRING: Fragment = {
  kind: "function_definition",
  properties: { name: "f", docstring: 'Say """hi""" \\ "bye"' },
};

const NESTED: Fragment = {
  kind: "function_definition",
  properties: { name: "factory" },
  children: [
    {
      kind: "class_definition",
      properties: { name: "Impl", docstring: "Made\nat runtime." },
      children: [
        {
          kind: "function_definition",
          properties: { name: "go", parameters: "self" },
          children: [
            { kind: "while_statement", properties: { condition: "True" }, children: [{ kind: "break_statement" }] },
          ],
        },
      ],
    },
    { kind: "return_statement", properties: { value: "Impl" } },
  ],
};

const CASES: [string, Fragment, string][] = [
  [
    "function_definition",
    {
      kind: "function_definition",
      properties: {
        name: "area",
        parameters: "self, scale=1",
        return_type: "float",
        decorators: ["property", "@cache"],
        docstring: "Area.",
      },
      children: [ret("self.w * self.h * scale")],
    },
    '@property\n@cache\ndef area(self, scale=1) -> float:\n    """Area."""\n    return self.w * self.h * scale',
  ],
  [
    "async function, empty body",
    { kind: "function_definition", properties: { name: "run", is_async: true } },
    "async def run():\n    pass",
  ],
  [
    "class_definition",
    {
      kind: "class_definition",
      properties: { name: "Point", bases: "Base, metaclass=Meta" },
      children: [{ kind: "assignment", properties: { target: "x", type: "int", value: "0" } }],
    },
    "class Point(Base, metaclass=Meta):\n    x: int = 0",
  ],
  [
    "if_statement with elif_clause and else_clause",
    {
      kind: "if_statement",
      properties: { condition: "x is None" },
      children: [
        ret("None"),
        {
          kind: "elif_clause",
          properties: { condition: "x < 0" },
          children: [{ kind: "raise_statement", properties: { exception: "ValueError(x)" } }],
        },
        { kind: "else_clause", children: [ret("x")] },
      ],
    },
    "if x is None:\n    return None\nelif x < 0:\n    raise ValueError(x)\nelse:\n    return x",
  ],
  [
    "elif_clause alone",
    { kind: "elif_clause", properties: { condition: "ready" }, children: [{ kind: "pass_statement" }] },
    "elif ready:\n    pass",
  ],
  ["else_clause alone", { kind: "else_clause", children: [{ kind: "break_statement" }] }, "else:\n    break"],
  [
    "for_statement with else",
    {
      kind: "for_statement",
      properties: { target: "key, value", iterable: "items.items()" },
      children: [{ kind: "continue_statement" }, { kind: "else_clause", children: [ret()] }],
    },
    "for key, value in items.items():\n    continue\nelse:\n    return",
  ],
  [
    "async for",
    { kind: "for_statement", properties: { target: "row", iterable: "cursor", is_async: true } },
    "async for row in cursor:\n    pass",
  ],
  [
    "while_statement",
    {
      kind: "while_statement",
      properties: { condition: "queue" },
      children: [{ kind: "expression_statement", properties: { expression: "queue.pop()" } }],
    },
    "while queue:\n    queue.pop()",
  ],
  [
    "with_statement",
    { kind: "with_statement", properties: { items: "open(path) as f, lock" }, children: [ret("f.read()")] },
    "with open(path) as f, lock:\n    return f.read()",
  ],
  [
    "try_statement with every clause",
    {
      kind: "try_statement",
      children: [
        ret("int(text)"),
        {
          kind: "except_clause",
          properties: { exception: "(KeyError, IndexError)", alias: "err" },
          children: [{ kind: "raise_statement", properties: { exception: "LookupError(str(err))", cause: "err" } }],
        },
        { kind: "except_clause", children: [{ kind: "raise_statement" }] },
        { kind: "else_clause", children: [{ kind: "pass_statement" }] },
        {
          kind: "finally_clause",
          children: [{ kind: "expression_statement", properties: { expression: "handle.close()" } }],
        },
      ],
    },
    "try:\n    return int(text)\nexcept (KeyError, IndexError) as err:\n    raise LookupError(str(err)) from err\nexcept:\n    raise\nelse:\n    pass\nfinally:\n    handle.close()",
  ],
  [
    "except_clause alone",
    { kind: "except_clause", properties: { exception: "OSError" }, children: [ret("None")] },
    "except OSError:\n    return None",
  ],
  [
    "finally_clause alone",
    {
      kind: "finally_clause",
      children: [{ kind: "expression_statement", properties: { expression: "lock.release()" } }],
    },
    "finally:\n    lock.release()",
  ],
  ["return_statement", ret("a, b"), "return a, b"],
  ["bare return", ret(), "return"],
  [
    "raise_statement",
    { kind: "raise_statement", properties: { exception: 'TypeError("expected str")' } },
    'raise TypeError("expected str")',
  ],
  ["assignment", { kind: "assignment", properties: { target: "self.count", value: "0" } }, "self.count = 0"],
  [
    "augmented assignment",
    { kind: "assignment", properties: { target: "total", operator: "+=", value: "price * qty" } },
    "total += price * qty",
  ],
  ["annotation only", { kind: "assignment", properties: { target: "name", type: "str" } }, "name: str"],
  [
    "expression_statement",
    { kind: "expression_statement", properties: { expression: 'logger.info("done")' } },
    'logger.info("done")',
  ],
];

describe("serialize", () => {
  test.each(CASES)("%s", (_, fragment, expected) => {
    expect(serialize(fragment)).toBe(expected);
  });

  test("covers every fragment kind of the design", () => {
    const covered = new Set<string>();
    const walk = (f: Fragment): void => {
      covered.add(f.kind);
      f.children?.forEach(walk);
    };
    CASES.forEach(([, f]) => walk(f));
    expect([...FRAGMENT_KINDS].filter((k) => !covered.has(k))).toEqual([]);
  });

  test("indent: a number of levels of the unit, or a literal prefix", () => {
    const f: Fragment = { kind: "if_statement", properties: { condition: "x" }, children: [ret("1")] };
    expect(serialize(f, 2)).toBe("        if x:\n            return 1");
    expect(serialize(f, "\t", { unit: "\t" })).toBe("\tif x:\n\t\treturn 1");
    expect(serialize(f, 1, { unit: "  " })).toBe("  if x:\n    return 1");
  });

  test("multi-line values keep their lines; continuation lines follow the indentation", () => {
    const f: Fragment = {
      kind: "function_definition",
      properties: { name: "f" },
      children: [{ kind: "assignment", properties: { target: "x", value: "call(\n    1,\n    2)" } }],
    };
    expect(serialize(f)).toBe("def f():\n    x = call(\n        1,\n        2)");
  });

  test("docstrings with quotes and backslashes stay one string literal", () => {
    expect(serialize(QUOTED_DOCSTRING)).toBe('def f():\n    """Say \\"\\"\\"hi\\"\\"\\" \\\\ "bye\\""""');
  });
});

describe("round trip: serialize → parse", () => {
  const everything = [
    ...CASES.map(([, f]) => f),
    ...FRAGMENT_KINDS.map((k) => KIND_SPECS[k].example),
    QUOTED_DOCSTRING,
    NESTED,
  ];
  const statements = everything.filter(
    (f) => !["elif_clause", "else_clause", "except_clause", "finally_clause"].includes(f.kind),
  );
  /** Clauses parse inside their statement. */
  const wrap = (f: Fragment): string => {
    const text = serialize(f);
    switch (f.kind) {
      case "elif_clause":
        return `if a:\n    pass\n${text}`;
      case "else_clause":
        return `if a:\n    pass\n${text}`;
      case "except_clause":
        return `try:\n    pass\n${text}`;
      case "finally_clause":
        return `try:\n    pass\n${text}`;
      default:
        return text;
    }
  };
  const sources = everything.map(wrap);

  test("every example and case validates", () => {
    for (const f of everything) expect(validateFragment(f), JSON.stringify(f)).toEqual([]);
  });

  test("tree-sitter parses every serialized fragment without errors", () => {
    for (const source of sources) {
      const tree = parse(`${source}\n`, "python");
      try {
        expect(syntaxErrors(tree), source).toEqual([]);
      } finally {
        tree.delete();
      }
    }
  });

  test("CPython's ast parses every serialized fragment (one python3 run)", () => {
    expect(statements.length).toBeGreaterThan(15);
    const results = cpythonParse(sources.map((s) => `${s}\n`));
    const failures = results.flatMap((r, i) => (r ? [`${sources[i]}\n→ ${r}`] : []));
    expect(failures).toEqual([]);
  });

  test("nested at depth: a method inside a class inside a function", () => {
    expect(serialize(NESTED, 1)).toBe(
      '    def factory():\n        class Impl:\n            """Made\n            at runtime."""\n            def go(self):\n                while True:\n                    break\n        return Impl',
    );
  });
});

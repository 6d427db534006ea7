import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { javacParse } from "@graphplan/testkit";
import { placeFragment, treeSitterErrors } from "./fixtures/place.js";
import { serialize, validateFragment, type Fragment, type PlaceAction } from "./index.js";
import { executeFragment } from "./execute.js";

beforeAll(() => loadGrammars(["python", "java"]));

const ret = (value?: string): Fragment => ({ kind: "return_statement", ...(value ? { properties: { value } } : {}) });
const expr = (expression: string): Fragment => ({ kind: "expression_statement", properties: { expression } });

/** Hand-written statement fragments, as a model would write them for a method body of a .java file. */
const STATEMENTS: readonly Fragment[] = [
  {
    kind: "if_statement",
    properties: { condition: "key == null" },
    children: [
      { kind: "raise_statement", properties: { exception: 'new IllegalArgumentException("key is required")' } },
      { kind: "elif_clause", properties: { condition: "key.isEmpty()" }, children: [ret("null")] },
      { kind: "else_clause", children: [expr("log.debug(key)")] },
    ],
  },
  {
    kind: "for_statement",
    properties: { target: "item", iterable: "items" },
    children: [
      { kind: "if_statement", properties: { condition: "item == null" }, children: [{ kind: "continue_statement" }] },
      expr("total += item.price()"),
    ],
  },
  {
    kind: "while_statement",
    properties: { condition: "!queue.isEmpty()" },
    children: [expr("queue.poll().run()"), { kind: "break_statement" }],
  },
  {
    kind: "try_statement",
    children: [
      expr("risky()"),
      {
        kind: "except_clause",
        properties: { exception: "IOException | TimeoutException", alias: "err" },
        children: [
          { kind: "raise_statement", properties: { exception: 'new IllegalStateException("risky failed", err)' } },
        ],
      },
      {
        kind: "except_clause",
        properties: { exception: "RuntimeException" },
        children: [expr("log.warn(e.getMessage())")],
      },
      { kind: "finally_clause", children: [expr("cleanup()")] },
    ],
  },
  {
    kind: "with_statement",
    properties: { items: "var in = Files.newInputStream(path); var out = new ByteArrayOutputStream()" },
    children: [expr("in.transferTo(out)")],
  },
  { kind: "assignment", properties: { target: "limit", type: "int", value: "10" } },
  { kind: "assignment", properties: { target: "names", value: "new ArrayList<String>()", declaration: "let" } },
  { kind: "assignment", properties: { target: "MAX", type: "long", value: "1L << 20", declaration: "const" } },
  { kind: "assignment", properties: { target: "this.count", operator: "+=", value: "1" } },
  { kind: "assignment", properties: { target: "flags", operator: ">>>=", value: "2" } },
  ret("total"),
  ret(),
  { kind: "pass_statement" },
];

/** Hand-written class-body fragments: methods, fields, a nested class. */
const MEMBERS: readonly Fragment[] = [
  {
    kind: "function_definition",
    properties: {
      name: "area",
      parameters: "double w, double h",
      return_type: "double",
      modifiers: "public static",
      docstring: "The area.\nIn square metres.",
    },
    children: [ret("w * h")],
  },
  {
    kind: "function_definition",
    properties: { name: "toString", return_type: "String", modifiers: "public", decorators: ["Override"] },
    children: [ret('"Point(" + x + ")"')],
  },
  { kind: "function_definition", properties: { name: "reset", decorators: ['SuppressWarnings("unchecked")'] } },
  {
    kind: "assignment",
    properties: {
      target: "cache",
      type: "Map<String, List<Integer>>",
      value: "new HashMap<>()",
      modifiers: "private final",
    },
  },
  { kind: "assignment", properties: { target: "count", type: "int" } },
  {
    kind: "class_definition",
    properties: { name: "Node", bases: "AbstractNode<T>", modifiers: "static final", decorators: ["Deprecated"] },
    children: [
      { kind: "assignment", properties: { target: "next", type: "Node", modifiers: "private" } },
      { kind: "function_definition", properties: { name: "next", return_type: "Node" }, children: [ret("next")] },
    ],
  },
];

const inMethod = (code: string): string =>
  `class Host {\n  Object run(Object key, java.util.List<Object> items, java.util.Queue<Runnable> queue) throws Exception {\n${code}\n  }\n}\n`;
const inClass = (code: string): string => `class Host {\n${code}\n}\n`;

describe("fragments in Java", () => {
  const written = [
    ...STATEMENTS.map((f) => inMethod(serialize(f, 2, { unit: "  ", language: "java" }))),
    ...MEMBERS.map((f) => inClass(serialize(f, 1, { unit: "  ", language: "java", inClass: true }))),
  ];

  test.each([...STATEMENTS.map((f) => [f.kind, f, false] as const), ...MEMBERS.map((f) => [f.kind, f, true] as const)])(
    "%s is valid Java where it stands",
    (_kind, fragment, member) => {
      expect(validateFragment(fragment, { language: "java", inClass: member })).toEqual([]);
    },
  );

  test("what is written parses with tree-sitter-java and with javac's own parser", () => {
    for (const source of written) expect(treeSitterErrors(source, "java"), source).toEqual([]);
    const javac = javacParse(written);
    written.forEach((source, i) => expect(javac[i], source).toBeNull());
    // The oracle is not lenient: a statement outside a method is refused.
    expect(javacParse([inClass("  x = 1;")])[0]).toMatch(/^line 2: /);
  });

  test("writes each kind as Java writes it", () => {
    expect(serialize(STATEMENTS[3]!, 0, { unit: "  ", language: "java" }).split("\n")).toEqual([
      "try {",
      "  risky();",
      "} catch (IOException | TimeoutException err) {",
      '  throw new IllegalStateException("risky failed", err);',
      "} catch (RuntimeException e) {",
      "  log.warn(e.getMessage());",
      "} finally {",
      "  cleanup();",
      "}",
    ]);
    expect(serialize(STATEMENTS[1]!, 0, { unit: "  ", language: "java" })).toBe(
      "for (var item : items) {\n  if (item == null) {\n    continue;\n  }\n  total += item.price();\n}",
    );
    expect(STATEMENTS.slice(5, 10).map((f) => serialize(f, 0, { language: "java" }))).toEqual([
      "int limit = 10;",
      "var names = new ArrayList<String>();",
      "final long MAX = 1L << 20;",
      "this.count += 1;",
      "flags >>>= 2;",
    ]);
    expect(serialize(MEMBERS[0]!, 0, { unit: "  ", language: "java", inClass: true })).toBe(
      "/**\n * The area.\n * In square metres.\n */\npublic static double area(double w, double h) {\n  return w * h;\n}",
    );
    expect(serialize(MEMBERS[3]!, 0, { language: "java", inClass: true })).toBe(
      "private final Map<String, List<Integer>> cache = new HashMap<>();",
    );
    expect(serialize(MEMBERS[2]!, 0, { language: "java", inClass: true })).toBe(
      '@SuppressWarnings("unchecked")\nvoid reset() {}',
    );
    expect(serialize(STATEMENTS[4]!, 0, { unit: "  ", language: "java" })).toBe(
      "try (var in = Files.newInputStream(path); var out = new ByteArrayOutputStream()) {\n  in.transferTo(out);\n}",
    );
  });

  test("refuses what Java cannot say, each with the way to write it", () => {
    const issues = (fragment: unknown, inClass?: boolean) =>
      validateFragment(fragment, { language: "java", ...(inClass === undefined ? {} : { inClass }) }).map(
        (i) => `${i.path}: ${i.message}`,
      );
    expect(issues({ kind: "function_definition", properties: { name: "f" } }, false)).toEqual([
      expect.stringMatching(/^kind: Java has no function outside a class/),
    ]);
    expect(issues({ kind: "function_definition", properties: { name: "f" } })).toEqual([]); // place not known yet: left to the run
    expect(issues({ kind: "function_definition", properties: { name: "f", is_async: true } }, true)).toEqual([
      expect.stringMatching(/^properties\.is_async: Java has no async/),
    ]);
    expect(
      issues({ kind: "function_definition", properties: { name: "f", modifiers: "public inline" } }, true),
    ).toEqual([expect.stringMatching(/^properties\.modifiers: not Java modifiers: inline/)]);
    expect(
      issues(
        { kind: "try_statement", children: [expr("f()"), { kind: "except_clause", properties: { alias: "e" } }] },
        false,
      ),
    ).toEqual([expect.stringMatching(/^children\[1\]\.properties\.exception: a Java catch names the exception type/)]);
    expect(
      issues(
        {
          kind: "while_statement",
          properties: { condition: "x" },
          children: [expr("f()"), { kind: "else_clause", children: [expr("g()")] }],
        },
        false,
      ),
    ).toEqual([expect.stringMatching(/^children: Java loops have no else clause/)]);
    expect(issues({ kind: "raise_statement" }, false)).toEqual([
      expect.stringMatching(/^properties\.exception: Java has no bare re-throw/),
    ]);
    expect(issues({ kind: "raise_statement", properties: { exception: "err", cause: "e" } }, false)).toEqual([
      expect.stringMatching(/^properties\.cause: .*pass the cause to the exception/),
    ]);
    expect(issues({ kind: "assignment", properties: { target: "count", value: "0" } }, true)).toEqual([
      expect.stringMatching(/^properties\.type: a Java field needs its type/),
    ]);
    expect(issues({ kind: "assignment", properties: { target: "x", operator: "??=", value: "1" } }, false)).toEqual([
      expect.stringMatching(/^properties\.operator: \?\?= is not a Java operator/),
    ]);
    expect(issues({ kind: "assignment", properties: { target: "x", declaration: "let" } }, false)).toEqual([
      "properties.value: a var needs a value (or give the type)",
    ]);
    expect(issues({ kind: "class_definition", properties: { name: "A" }, children: [expr("f()")] })).toEqual([
      expect.stringMatching(/^children\[0\]\.kind: a Java class body holds methods/),
    ]);
    expect(issues({ kind: "if_statement", properties: { condition: "x is None" } }, false)[0]).toMatch(
      /^properties\.condition: "x is None" does not parse as a condition/,
    );
    expect(issues({ kind: "class_definition", properties: { name: "A", bases: "B, C" } })[0]).toMatch(
      /^properties\.bases: "B, C" /,
    );
    // Python and JavaScript refuse Java's modifiers.
    expect(
      validateFragment({ kind: "function_definition", properties: { name: "f", modifiers: "public" } })[0]?.message,
    ).toBe("modifiers are Java's: leave them out in Python");
    expect(
      validateFragment(
        { kind: "function_definition", properties: { name: "f", modifiers: "public" } },
        { language: "javascript" },
      )[0]?.message,
    ).toBe("modifiers are Java's: leave them out in JavaScript");
  });
});

const JAVA_FILE = `package shop;

import java.util.ArrayList;
import java.util.List;

public class Cart {
    private final List<Item> items = new ArrayList<>();

    public void add(Item item) {
        items.add(item);
    }

    public double total() {
        double sum = 0;
        for (Item item : items) {
            sum += item.price();
        }
        return sum;
    }
}
`;

describe("fragments placed in a Java file", () => {
  function place(locator: Record<string, unknown>, action: PlaceAction, fragment: Fragment): string {
    const after = placeFragment(JAVA_FILE, "java", "Cart.java", locator, action, fragment);
    expect(treeSitterErrors(after, "java"), after).toEqual([]);
    expect(javacParse([after])[0], after).toBeNull();
    return after;
  }

  test("a guard before a method's first statement, in the file's four-space indentation", () => {
    const guard: Fragment = {
      kind: "if_statement",
      properties: { condition: "item == null" },
      children: [{ kind: "raise_statement", properties: { exception: 'new IllegalArgumentException("item")' } }],
    };
    const out = place({ kind: "statement", parent: { kind: "method", name: "add" }, index: 0 }, "insert_before", guard);
    expect(out).toBe(
      JAVA_FILE.replace(
        "        items.add(item);\n",
        '        if (item == null) {\n            throw new IllegalArgumentException("item");\n        }\n        items.add(item);\n',
      ),
    );
  });

  test("a method inserted after a method, a blank line apart; a field before the first field", () => {
    const clear: Fragment = {
      kind: "function_definition",
      properties: { name: "clear", modifiers: "public" },
      children: [expr("items.clear()")],
    };
    const out = place({ kind: "method", name: "add" }, "insert_after", clear);
    expect(out).toBe(
      JAVA_FILE.replace(
        "        items.add(item);\n    }\n",
        "        items.add(item);\n    }\n\n    public void clear() {\n        items.clear();\n    }\n",
      ),
    );
    const field: Fragment = {
      kind: "assignment",
      properties: { target: "discount", type: "double", value: "0.0", modifiers: "private" },
    };
    const withField = place({ kind: "field", name: "items" }, "insert_before", field);
    expect(withField).toContain("    private double discount = 0.0;\n    private final List<Item> items");
  });

  test("executeFragment replaces a loop with a checked try; a method in a method body is refused before", () => {
    const files = { "Cart.java": JAVA_FILE };
    const loop: Fragment = {
      kind: "for_statement",
      properties: { target: "item", iterable: "items" },
      children: [
        { kind: "assignment", properties: { target: "sum", operator: "+=", value: "item.price() * item.quantity()" } },
      ],
    };
    const result = executeFragment(
      {
        fragment: loop,
        action: "replace",
        locator: { file: "Cart.java", kind: "statement", parent: { kind: "method", name: "total" }, index: 1 },
      },
      files,
    );
    expect(result.source).toContain(
      "        for (var item : items) {\n            sum += item.price() * item.quantity();\n        }\n",
    );
    const method: Fragment = { kind: "function_definition", properties: { name: "nested" } };
    expect(() =>
      executeFragment(
        {
          fragment: method,
          action: "insert_after",
          locator: { file: "Cart.java", kind: "statement", parent: { kind: "method", name: "total" }, index: 0 },
        },
        files,
      ),
    ).toThrow(/Java has no function outside a class/);
  });
});

import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { gofmt, goParse } from "@graphplan/testkit";
import { placeFragment, treeSitterErrors } from "./fixtures/place.js";
import { serialize, validateFragment, type Fragment, type PlaceAction } from "./index.js";
import { executeFragment } from "./execute.js";

beforeAll(() => loadGrammars(["python", "go"]));

const ret = (value?: string): Fragment => ({ kind: "return_statement", ...(value ? { properties: { value } } : {}) });
const expr = (expression: string): Fragment => ({ kind: "expression_statement", properties: { expression } });

/** Hand-written statement fragments, as a model would write them for a function body of a .go file. */
const STATEMENTS: readonly Fragment[] = [
  {
    kind: "if_statement",
    properties: { condition: "err != nil" },
    children: [
      ret('nil, fmt.Errorf("load %s: %w", key, err)'),
      { kind: "elif_clause", properties: { condition: "len(key) == 0" }, children: [ret("nil, ErrEmpty")] },
      { kind: "else_clause", children: [expr("log.Println(key)")] },
    ],
  },
  {
    kind: "for_statement",
    properties: { target: "i, item", iterable: "items" },
    children: [
      { kind: "if_statement", properties: { condition: "item == nil" }, children: [{ kind: "continue_statement" }] },
      expr("total += item.Price * i"),
    ],
  },
  {
    kind: "while_statement",
    properties: { condition: "len(queue) > 0" },
    children: [
      { kind: "assignment", properties: { target: "queue", value: "queue[1:]" } },
      { kind: "break_statement" },
    ],
  },
  { kind: "assignment", properties: { target: "v, ok", value: "cache[key]", declaration: "let" } },
  { kind: "assignment", properties: { target: "limit", type: "int", declaration: "var" } },
  { kind: "assignment", properties: { target: "names", type: "[]string", value: "nil", declaration: "var" } },
  { kind: "assignment", properties: { target: "maxSize", value: "1 << 20", declaration: "const" } },
  { kind: "assignment", properties: { target: "c.count", operator: "+=", value: "1" } },
  expr("defer f.Close()"),
  expr("go worker(jobs)"),
  ret("total, nil"),
  ret(),
];

/** Hand-written top-level fragments: functions and methods. */
const FUNCTIONS: readonly Fragment[] = [
  {
    kind: "function_definition",
    properties: {
      name: "Area",
      parameters: "w, h float64",
      return_type: "float64",
      docstring: "Area is w times h.\nIn square metres.",
    },
    children: [ret("w * h")],
  },
  {
    kind: "function_definition",
    properties: { name: "Load", receiver: "c *Cache", parameters: "key string", return_type: "(*Item, error)" },
    children: [ret("c.items[key], nil")],
  },
  { kind: "function_definition", properties: { name: "reset", receiver: "c *Cache" } },
];

const inFunc = (code: string): string =>
  `package shop\n\nfunc host(key string, items []*Item, queue []int) (int, error) {\n${code}\n}\n`;
const atTop = (code: string): string => `package shop\n\n${code}\n`;

describe("fragments in Go", () => {
  const written = [
    ...STATEMENTS.map((f) => inFunc(serialize(f, 1, { unit: "\t", language: "go" }))),
    ...FUNCTIONS.map((f) => atTop(serialize(f, 0, { unit: "\t", language: "go" }))),
  ];

  test.each([...STATEMENTS, ...FUNCTIONS].map((f) => [f.kind, f] as const))("%s is valid Go", (_kind, fragment) => {
    expect(validateFragment(fragment, { language: "go" })).toEqual([]);
  });

  test("what is written parses with tree-sitter-go and with Go's own parser, and is laid out as gofmt lays it out", () => {
    for (const source of written) expect(treeSitterErrors(source, "go"), source).toEqual([]);
    const go = goParse(written);
    written.forEach((source, i) => expect(go[i], source).toBeNull());
    for (const source of written) expect(gofmt(source), source).toBe(source);
    // The oracle is not lenient.
    expect(goParse([inFunc("\tx = ")])[0]).toMatch(/expected operand/);
  });

  test("writes each kind as Go writes it", () => {
    expect(serialize(STATEMENTS[0]!, 0, { unit: "\t", language: "go" }).split("\n")).toEqual([
      "if err != nil {",
      '\treturn nil, fmt.Errorf("load %s: %w", key, err)',
      "} else if len(key) == 0 {",
      "\treturn nil, ErrEmpty",
      "} else {",
      "\tlog.Println(key)",
      "}",
    ]);
    expect(STATEMENTS.slice(3, 8).map((f) => serialize(f, 0, { language: "go" }))).toEqual([
      "v, ok := cache[key]",
      "var limit int",
      "var names []string = nil",
      "const maxSize = 1 << 20",
      "c.count += 1",
    ]);
    expect(serialize(STATEMENTS[2]!, 0, { unit: "\t", language: "go" })).toBe(
      "for len(queue) > 0 {\n\tqueue = queue[1:]\n\tbreak\n}",
    );
    expect(serialize(FUNCTIONS[1]!, 0, { unit: "\t", language: "go" })).toBe(
      "func (c *Cache) Load(key string) (*Item, error) {\n\treturn c.items[key], nil\n}",
    );
    expect(serialize(FUNCTIONS[0]!, 0, { unit: "\t", language: "go" }).split("\n").slice(0, 3)).toEqual([
      "// Area is w times h.",
      "// In square metres.",
      "func Area(w, h float64) float64 {",
    ]);
  });

  test("refuses what Go does not have, each with the Go way to write it", () => {
    const issues = (fragment: unknown) =>
      validateFragment(fragment, { language: "go" }).map((i) => `${i.path}: ${i.message}`);
    expect(issues({ kind: "class_definition", properties: { name: "Cart" } })).toEqual([
      expect.stringMatching(/^kind: Go has no classes: declare a struct type/),
    ]);
    expect(issues({ kind: "try_statement", children: [expr("f()"), { kind: "finally_clause" }] })).toEqual([
      expect.stringMatching(/^kind: Go has no exceptions: return the error/),
    ]);
    expect(issues({ kind: "raise_statement", properties: { exception: "err" } })).toEqual([
      expect.stringMatching(/^kind: Go returns errors instead of raising them/),
    ]);
    expect(issues({ kind: "with_statement", properties: { items: "lock" } })).toEqual([
      expect.stringMatching(/^kind: Go has no with statement: .*defer/),
    ]);
    expect(
      issues({ kind: "if_statement", properties: { condition: "x" }, children: [{ kind: "pass_statement" }] }),
    ).toEqual([expect.stringMatching(/^children\[0\]\.kind: Go has no pass/)]);
    expect(issues({ kind: "function_definition", properties: { name: "f", decorators: ["memo"] } })).toEqual([
      expect.stringMatching(/^properties\.decorators: Go has no decorators/),
    ]);
    expect(issues({ kind: "function_definition", properties: { name: "f", is_async: true } })).toEqual([
      expect.stringMatching(/^properties\.is_async: Go has no async: start a goroutine/),
    ]);
    expect(
      issues({
        kind: "for_statement",
        properties: { target: "x", iterable: "xs" },
        children: [expr("f(x)"), { kind: "else_clause", children: [expr("g()")] }],
      }),
    ).toEqual([expect.stringMatching(/^children: Go loops have no else clause/)]);
    expect(issues({ kind: "assignment", properties: { target: "x", type: "int", value: "1" } })).toEqual([
      expect.stringMatching(/^properties\.declaration: a typed assignment declares a variable/),
    ]);
    expect(issues({ kind: "assignment", properties: { target: "x", operator: "**=", value: "2" } })).toEqual([
      expect.stringMatching(/^properties\.operator: \*\*= is not a Go operator/),
    ]);
    expect(issues({ kind: "function_definition", properties: { name: "f", return_type: "(int, error" } })[0]).toMatch(
      /^properties\.return_type: /,
    );
    expect(issues({ kind: "if_statement", properties: { condition: "x is None" } })[0]).toMatch(
      /^properties\.condition: "x is None" does not parse as a condition/,
    );
    // Only Go takes a receiver.
    expect(
      validateFragment(
        { kind: "function_definition", properties: { name: "f", receiver: "c *Cart" } },
        { language: "java", inClass: true },
      )[0]?.message,
    ).toBe("a receiver is Go's: leave it out");
  });
});

const GO_FILE = `package shop

import "errors"

type Cart struct {
	items []Item
}

func (c *Cart) Add(item Item) {
	c.items = append(c.items, item)
}

func (c *Cart) Total() float64 {
	sum := 0.0
	for _, item := range c.items {
		sum += item.Price
	}
	return sum
}

var ErrEmpty = errors.New("empty cart")
`;

describe("fragments placed in a Go file", () => {
  function place(locator: Record<string, unknown>, action: PlaceAction, fragment: Fragment): string {
    const after = placeFragment(GO_FILE, "go", "cart.go", locator, action, fragment);
    expect(treeSitterErrors(after, "go"), after).toEqual([]);
    expect(goParse([after])[0], after).toBeNull();
    expect(gofmt(after)).toBe(after);
    return after;
  }

  test("a guard before a method's first statement, in the file's tabs", () => {
    const guard: Fragment = {
      kind: "if_statement",
      properties: { condition: "item.Price < 0" },
      children: [{ kind: "expression_statement", properties: { expression: 'panic("negative price")' } }],
    };
    const out = place({ kind: "statement", parent: { kind: "method", name: "Add" }, index: 0 }, "insert_before", guard);
    expect(out).toBe(
      GO_FILE.replace(
        "\tc.items = append",
        '\tif item.Price < 0 {\n\t\tpanic("negative price")\n\t}\n\tc.items = append',
      ),
    );
  });

  test("a method after a method, a blank line apart, as gofmt writes it", () => {
    const size: Fragment = {
      kind: "function_definition",
      properties: { name: "Size", receiver: "c *Cart", return_type: "int" },
      children: [ret("len(c.items)")],
    };
    const out = place({ kind: "method", name: "Add" }, "insert_after", size);
    expect(out).toBe(
      GO_FILE.replace(
        "\tc.items = append(c.items, item)\n}\n",
        "\tc.items = append(c.items, item)\n}\n\nfunc (c *Cart) Size() int {\n\treturn len(c.items)\n}\n",
      ),
    );
  });

  test("executeFragment replaces a loop; a statement at the top of the file is refused; a declaration there is written with var", () => {
    const files = { "cart.go": GO_FILE };
    const loop: Fragment = {
      kind: "for_statement",
      properties: { target: "_, item", iterable: "c.items" },
      children: [
        { kind: "assignment", properties: { target: "sum", operator: "+=", value: "item.Price * float64(item.Qty)" } },
      ],
    };
    const result = executeFragment(
      {
        fragment: loop,
        action: "replace",
        locator: { file: "cart.go", kind: "statement", parent: { kind: "method", name: "Total" }, index: 1 },
      },
      files,
    );
    expect(result.source).toContain(
      "\tfor _, item := range c.items {\n\t\tsum += item.Price * float64(item.Qty)\n\t}\n",
    );
    expect(() =>
      executeFragment(
        { fragment: expr("log()"), action: "insert_after", locator: { file: "cart.go", kind: "method", name: "Add" } },
        files,
      ),
    ).toThrow(/the top of a Go file holds declarations/);
    // A variable declared at the top of the file is written with var (:= is for function bodies).
    const declared = executeFragment(
      {
        fragment: { kind: "assignment", properties: { target: "maxItems", value: "100", declaration: "let" } },
        action: "insert_before",
        locator: { file: "cart.go", kind: "method", name: "Add" },
      },
      files,
    );
    expect(declared.source).toContain("var maxItems = 100\nfunc (c *Cart) Add");
    expect(goParse([declared.source])[0]).toBeNull();
  });
});

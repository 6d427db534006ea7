/**
 * Property: for random and mutated plans against the fixture files, runPlan never throws, and
 * either succeeds with every file parsing without syntax errors, or leaves every file
 * byte-identical.
 */
import { beforeAll, expect, test } from "vitest";
import fc from "fast-check";
import { detectLanguage, loadGrammars, parse, syntaxErrors } from "@graphplan/graph";
import { SAMPLE_FILES, sample } from "@graphplan/testkit";
import { runPlan } from "./run.js";
import { planOf } from "./fixtures/plan.js";

const FIXTURES = new Map(SAMPLE_FILES.map((f) => [f, sample(f)] as const));
const FILES = [...FIXTURES.keys()];

beforeAll(() => loadGrammars());

const names = [
  "helper",
  "Store",
  "get",
  "put",
  "total",
  "value",
  "key",
  "a",
  "b",
  "limit",
  "data",
  "nope",
  "Stor",
  "__init__",
];
const kinds = [
  "function",
  "method",
  "class",
  "statement",
  "import",
  "call",
  "identifier",
  "parameter",
  "assignment",
  "return",
  "if",
  "string",
  "comment",
  "struct",
  "impl",
  "block",
  "return_statement",
  "expression_statement",
  "functon",
  "ERROR",
  "",
];
const fields = ["body", "name", "parameters", "condition", "bogus"];
const snippets = [
  "x = 1",
  "return x",
  "log(a);",
  "return 0;",
  "}",
  "{",
  "(",
  "def f(:",
  "",
  "  ",
  "\n",
  "pass",
  "int y = 0;",
  "let y = 1;",
  "y := 1",
  "puts 1",
  "def g(self):\n    return 1",
  "function g() {\n  return 1;\n}",
  "if (a) {\n  b();\n}",
  '"unterminated',
  "# comment",
  "// comment",
  "/* c */",
  "é ü 中文",
  "\t\tz = 2",
];
const queries = [
  "(identifier) @id",
  '((identifier) @id (#eq? @id "total"))',
  "(identifier @id",
  "(no_such_type) @x",
  "(call) @target",
  "(_) @target",
  "((string) @s)",
];

const locatorArb = (file: string) =>
  fc.oneof(
    fc.record(
      {
        kind: fc.constantFrom(...kinds),
        name: fc.oneof(fc.constantFrom(...names), fc.string({ maxLength: 6 })),
        file: fc.constant(file),
        parent: fc.record(
          { kind: fc.constantFrom("class", "function", "method", "impl"), name: fc.constantFrom(...names) },
          { requiredKeys: ["kind"] },
        ),
        field: fc.constantFrom(...fields),
        nth_child: fc.integer({ min: -3, max: 3 }),
        index: fc.integer({ min: -3, max: 3 }),
      },
      { requiredKeys: ["file"] },
    ),
    fc.record(
      {
        type: fc.constant("sexp"),
        file: fc.constant(file),
        query: fc.constantFrom(...queries),
        capture: fc.constantFrom("id", "target", "s", "x"),
        index: fc.integer({ min: -2, max: 2 }),
      },
      { requiredKeys: ["type", "file", "query"] },
    ),
  );

const code = fc.oneof(fc.constantFrom(...snippets), fc.string({ maxLength: 12 }));

const stepArb = (file: string) =>
  fc.oneof(
    fc.record({
      op: fc.constantFrom("replace_node", "replace_all_matching"),
      params: fc.record(
        { locator: locatorArb(file), replacement: code, filter: fc.constant("not_in_string_or_comment") },
        { requiredKeys: ["locator", "replacement"] },
      ),
    }),
    fc.record({
      op: fc.constantFrom("insert_before_node", "insert_after_node"),
      params: fc.record(
        { locator: locatorArb(file), code, separator: fc.constantFrom("\n", "\n\n", ", ", " ") },
        { requiredKeys: ["locator", "code"] },
      ),
    }),
    fc.record({
      op: fc.constantFrom("delete_node", "locate", "locate_region"),
      params: fc.record({ locator: locatorArb(file) }),
    }),
    fc.record({
      op: fc.constant("wrap_node"),
      params: fc.record(
        {
          locator: locatorArb(file),
          before: code,
          after: code,
          indent_body: fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constant("  ")),
        },
        { requiredKeys: ["locator"] },
      ),
    }),
    fc.record({
      op: fc.constantFrom("add_method", "add_class_attribute"),
      params: fc.record({
        file: fc.constant(file),
        class_name: fc.constantFrom(...names),
        method_code: code,
        attribute_code: code,
      }),
    }),
    fc.record({
      op: fc.constant("add_import"),
      params: fc.record({ file: fc.constant(file), import_statement: code }),
    }),
    fc.record({
      op: fc.constant("replace_code"),
      params: fc.record({
        file: fc.constant(file),
        pattern: fc.oneof(
          fc.constantFrom("return total", "total", "a + b", "{"),
          fc.string({ minLength: 1, maxLength: 8 }),
        ),
        replacement: code,
      }),
    }),
    fc.record({
      op: fc.constantFrom("insert_code", "delete_lines", "wrap_block"),
      params: fc.record({
        file: fc.constant(file),
        anchor_line: fc.integer({ min: -1, max: 40 }),
        start_line: fc.integer({ min: 0, max: 40 }),
        end_line: fc.integer({ min: 0, max: 40 }),
        code,
        before_code: code,
        after_code: code,
        position: fc.constantFrom("before", "after"),
      }),
    }),
    fc.record({
      op: fc.constantFrom("rename_symbol", "modify_function_signature", "replace_function_body"),
      params: fc.record({
        file: fc.constant(file),
        old_name: fc.constantFrom("total", "a", "x y"),
        new_name: fc.constantFrom("sum", "b", "1x"),
        func_name: fc.constantFrom(...names),
        old_signature: fc.constantFrom("a, b", "(a", "zz"),
        new_signature: code,
        new_body: code,
      }),
    }),
    // Any operator name with any params, in a plan's form (which the catalog's parse checks, and the run does not).
    fc.record({ op: fc.string({ minLength: 1, maxLength: 10 }), params: fc.dictionary(fc.string(), fc.anything()) }),
  );

/** Steps that usually succeed on every fixture, so that multi-step plans succeed often enough. */
const goodStepArb = (file: string) =>
  fc.constantFrom(
    { op: "locate", params: { locator: { kind: "function", file } } },
    { op: "delete_node", params: { locator: { kind: "function", name: "helper", file } } },
    {
      op: "delete_node",
      params: { locator: { kind: "statement", file, parent: { kind: "function", name: "helper" }, index: 0 } },
    },
    {
      op: "replace_all_matching",
      params: {
        locator: { kind: "identifier", name: "total", file },
        replacement: "sum2",
        filter: "not_in_string_or_comment",
      },
    },
    {
      op: "delete_node",
      params: { locator: { kind: "parameter", file, parent: { kind: "function", name: "helper" }, index: -1 } },
    },
    {
      op: "wrap_node",
      params: {
        locator: { kind: "statement", file, parent: { kind: "function", name: "helper" }, index: -1 },
        before: "",
        after: "",
      },
    },
    { op: "rename_symbol", params: { file, old_name: "total", new_name: "sum3" } },
  );

/**
 * A random mutation of a step that keeps the plan's type (runPlan takes a parsed plan; what parsePlan
 * refuses is the catalog's to test): drop the params, make the locator anything, rename the operator.
 */
const mutate = (step: Record<string, unknown>) =>
  fc.oneof(
    fc.constant(step),
    fc.constant({ op: step.op, params: {} }),
    fc.anything().map((v) => ({ ...step, params: { ...(step.params as object), locator: v } })),
    fc.string({ minLength: 1 }).map((v) => ({ ...step, op: v })),
  );

const planArb = fc.subarray(FILES, { minLength: 1, maxLength: 3 }).chain((files) =>
  fc.array(
    fc
      .constantFrom(...files)
      .chain((f) =>
        fc.oneof(
          { weight: 1, arbitrary: stepArb(f).chain((s) => mutate(s as Record<string, unknown>)) },
          { weight: 2, arbitrary: goodStepArb(f) },
        ),
      ),
    { minLength: 1, maxLength: 5 },
  ),
);

function parsesClean(file: string, text: string): boolean {
  const tree = parse(text, detectLanguage(file)!);
  try {
    return syntaxErrors(tree).length === 0;
  } finally {
    tree.delete();
  }
}

test("fixtures parse without errors", () => {
  for (const [file, text] of FIXTURES) expect(parsesClean(file, text), file).toBe(true);
});

test("random and mutated plans: success with clean files, or every file byte-identical", () => {
  let successes = 0;
  let failures = 0;
  fc.assert(
    fc.property(
      fc.oneof(
        planArb,
        planArb.map((steps) => ({ define_operators: [], plan: steps })),
      ),
      (plan) => {
        const input = new Map(FIXTURES);
        const result = runPlan(planOf(plan), input);
        if (result.ok) {
          successes++;
          for (const [file, text] of result.files) {
            if (!parsesClean(file, text))
              throw new Error(`plan ${JSON.stringify(plan)} left ${file} with a syntax error:\n${text}`);
          }
        } else {
          failures++;
          for (const [file, text] of FIXTURES) expect(result.files.get(file)).toBe(text);
          expect(result.error._tag).toMatch(/StepFailed|OperatorRedefined/);
          // Every failure is a tagged error that says what to fix, never a stray exception.
          if (result.error._tag === "StepFailed") expect((result.error.cause as { _tag?: string })._tag).toBeTruthy();
        }
        for (const [file, text] of FIXTURES) expect(input.get(file)).toBe(text);
      },
    ),
    { numRuns: 400, seed: 20261121 },
  );
  expect(successes).toBeGreaterThan(10);
  expect(failures).toBeGreaterThan(10);
}, 120_000);

test("a file with an old syntax error: successful plans never add errors", () => {
  const broken =
    "def ok(a):\n    total = a + 1\n    return total\n\n\ndef bad(:\n    pass\n\n\ndef helper(a, b):\n    total = a + b\n    return total\n";
  const count = (text: string) => {
    const tree = parse(text, "python");
    try {
      return syntaxErrors(tree, 1000).length;
    } finally {
      tree.delete();
    }
  };
  const before = count(broken);
  expect(before).toBeGreaterThan(0);
  let successes = 0;
  fc.assert(
    fc.property(fc.array(fc.oneof(stepArb("b.py"), goodStepArb("b.py")), { minLength: 1, maxLength: 3 }), (plan) => {
      const result = runPlan(planOf(plan), new Map([["b.py", broken]]));
      if (result.ok) {
        successes++;
        expect(count(result.files.get("b.py")!)).toBeLessThanOrEqual(before);
      } else expect(result.files.get("b.py")).toBe(broken);
    }),
    { numRuns: 200, seed: 4242 },
  );
  expect(successes).toBeGreaterThan(5);
}, 120_000);

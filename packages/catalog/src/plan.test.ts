import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { PlanSession, runPlan, StepFailed } from "@graphplan/primitives";
import { detectTier, formalHandlers, runFormalPlan } from "./index.js";
import { executeStep, SURGERY_OPS, validateStep } from "./execute.js";
import { ParamsInvalid } from "./params.js";
import { cpythonParse } from "@graphplan/testkit";
import { parsePlanOrThrow } from "./testing.js";

beforeAll(() => loadGrammars(["python", "javascript"]));

describe("detectTier", () => {
  test.each([
    [{ op: "rename_identifier", params: {} }, 1],
    [{ op: "copy_node", params: {} }, 1],
    [{ op: "move_node", params: {} }, 1],
    [{ op: "swap_nodes", params: {} }, 1],
    [{ op: "delete_node", params: {} }, 1],
    [{ op: "reorder_children", params: {} }, 1],
    [{ template: "guard_clause", params: {} }, 2],
    [{ template: "no_such_template" }, 2],
    [{ fragment: { kind: "if_statement" }, locator: {} }, 3],
    [{ op: "replace_node", params: {} }, 0],
    [{ op: "replace_code", params: {} }, 0],
    [{ op: "add_method", params: {} }, 0],
    [{ op: "my_custom_op", params: {} }, 0],
    [{ op: 7 }, 0],
    ["replace_node", 0],
    [null, 0],
  ] as const)("%j → tier %i", (step, tier) => {
    expect(detectTier(step)).toBe(tier);
  });

  test("the surgery set is the design's", () => {
    expect([...SURGERY_OPS].sort()).toEqual([
      "copy_node",
      "delete_node",
      "move_node",
      "rename_across_files",
      "rename_identifier",
      "reorder_children",
      "swap_nodes",
    ]);
  });
});

const FILES = {
  "app/cart.py": `def total(items, discount):
    tmp = sum(i.price for i in items)
    return tmp - discount


def legacy():
    return 1
`,
  "app/ui.js": "function show(x) {\n  return render(x);\n}\n",
};

const MIXED = [
  // tier 1: surgery
  {
    op: "rename_identifier",
    params: {
      file: "app/cart.py",
      name: "tmp",
      new_name: "subtotal",
      scope: { kind: "function", name: "total", file: "app/cart.py" },
    },
  },
  // tier 2: template
  {
    template: "guard_clause",
    params: {
      target: { kind: "function", name: "total", file: "app/cart.py" },
      condition: "not items",
      body: "return 0",
    },
  },
  // tier 3: fragment
  {
    fragment: {
      kind: "if_statement",
      properties: { condition: "discount > subtotal" },
      children: [{ kind: "raise_statement", properties: { exception: 'ValueError("discount too large")' } }],
    },
    action: "insert_before",
    locator: {
      kind: "return",
      file: "app/cart.py",
      parent: { kind: "function", name: "total", file: "app/cart.py" },
      index: -1,
    },
  },
  // tier 0: primitive
  {
    op: "replace_node",
    params: { locator: { kind: "return", file: "app/ui.js" }, replacement: "return render(x, { strict: true });" },
  },
  // tier 0: legacy
  { op: "replace_code", params: { file: "app/cart.py", pattern: "return 1", replacement: "return 2" } },
  // tier 1 delete_node, run as the primitive
  { op: "delete_node", params: { locator: { kind: "function", name: "legacy", file: "app/cart.py" } } },
];

const EXPECTED_CART = `def total(items, discount):
    if not items:
        return 0
    subtotal = sum(i.price for i in items)
    if discount > subtotal:
        raise ValueError("discount too large")
    return subtotal - discount
`;

describe("mixed-tier plans through primitives' runPlan", () => {
  test("tiers 0–3 and legacy steps run in order in one plan", () => {
    expect(MIXED.map(detectTier)).toEqual([1, 2, 3, 0, 0, 1]);
    for (const step of MIXED) expect(validateStep(step), JSON.stringify(step)).toEqual([]);
    const result = runPlan(parsePlanOrThrow(MIXED), new Map(Object.entries(FILES)), { handlers: formalHandlers });
    if (!result.ok) throw result.error;
    expect(result.files.get("app/cart.py")).toBe(EXPECTED_CART);
    expect(result.files.get("app/ui.js")).toBe("function show(x) {\n  return render(x, { strict: true });\n}\n");
    expect(result.results.map((r) => r.ok)).toEqual([true, true, true, true, true, true]);
    expect(cpythonParse([result.files.get("app/cart.py")!])).toEqual([null]);
  });

  test("runFormalPlan accepts plain objects and the {define_operators, plan} form", () => {
    const result = runFormalPlan(
      parsePlanOrThrow({
        define_operators: [
          {
            define: "prepend_comment",
            params_schema: { file: "string" },
            steps: [
              {
                primitive: "insert_before_node",
                params: { locator: { kind: "function", name: "total", file: "$file" }, code: "# checked" },
              },
            ],
          },
        ],
        plan: [MIXED[1], { op: "prepend_comment", params: { file: "app/cart.py" } }],
      }),
      FILES,
    );
    if (!result.ok) throw result.error;
    expect(
      result.files
        .get("app/cart.py")!
        .startsWith("# checked\ndef total(items, discount):\n    if not items:\n        return 0\n"),
    ).toBe(true);
  });

  test("all or nothing: a failing formal step returns the original files and names the step", () => {
    const plan = [
      MIXED[0],
      MIXED[1],
      {
        template: "guard_clause",
        params: {
          target: { kind: "function", name: "totl", file: "app/cart.py" },
          condition: "not items",
          body: "return 0",
        },
      },
    ];
    const result = runFormalPlan(parsePlanOrThrow(plan), FILES);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failedStep).toBe(2);
    expect(result.error).toBeInstanceOf(StepFailed);
    expect((result.error as StepFailed).cause).toMatchObject({ _tag: "LocatorNotFound" });
    expect(result.error.message).toContain("totl");
    expect(result.files.get("app/cart.py")).toBe(FILES["app/cart.py"]);
  });

  test("a template step whose params the handler refuses, or whose result would not parse, is rolled back", () => {
    // parsePlan refuses both first (it parses code params as the kind they claim); steps built in code reach
    // the handlers as written, and the run checks them again.
    const session = new PlanSession(new Map(Object.entries(FILES)), { handlers: formalHandlers });
    const bad = session.run({
      template: "guard_clause",
      params: {
        target: { kind: "function", name: "total", file: "app/cart.py" },
        condition: "items is",
        body: "return 0",
      },
    });
    expect(!bad.ok && bad.error.cause).toBeInstanceOf(ParamsInvalid);
    const broken = session.run({
      template: "replace_expression",
      params: { target: { kind: "call", file: "app/ui.js" }, expression: "a => {" },
    });
    expect(broken.ok).toBe(false);
    expect(session.files()).toEqual(new Map(Object.entries(FILES)));
    session.dispose();
  });

  test("executeStep runs a single step of any tier", () => {
    expect(executeStep(MIXED[3], FILES).changed).toEqual(["app/ui.js"]);
    expect(executeStep(MIXED[0], FILES).files.get("app/cart.py")).toContain("subtotal - discount");
    expect(() => executeStep({ op: "no_such_op", params: {} }, FILES)).toThrow(/Unknown operator "no_such_op"/);
  });

  test("validateStep covers tier 0 params and unknown operators", () => {
    expect(
      validateStep({ op: "replace_node", params: { locator: { kind: "function", file: "a.py" } } }).map((i) => i.path),
    ).toEqual(["params.replacement"]);
    expect(validateStep({ op: "replace_nod", params: {} })[0]!.message).toContain("did you mean replace_node?");
    expect(validateStep({ op: "custom_thing", params: {} }, ["custom_thing"])).toEqual([]);
    expect(
      validateStep({ op: "replace_code", params: { locator: { kind: "call", file: "a.py" }, replacement: "x" } }),
    ).toEqual([]);
    expect(
      validateStep({ fragment: { kind: "return_statement" }, locator: { kind: "return", file: "a.rs" } }).map(
        (i) => i.path,
      ),
    ).toEqual(["locator.file"]);
    // A .js target: the fragment is checked as JavaScript (no with statement there).
    expect(validateStep({ fragment: { kind: "return_statement" }, locator: { kind: "return", file: "a.js" } })).toEqual(
      [],
    );
    expect(
      validateStep({
        fragment: { kind: "with_statement", properties: { items: "lock" } },
        locator: { kind: "return", file: "a.js" },
      }).map((i) => i.path),
    ).toEqual(["fragment.kind"]);
  });
});

import { beforeAll, describe, expect, test } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { loadGrammars } from "@graphplan/graph";
import { CATALOG, didYouMean, parsePlan, parsePlanSteps, planIntegrity, planJsonSchema } from "./index.js";

beforeAll(() => loadGrammars(["python", "javascript", "typescript"]));

const target = { kind: "function", name: "f", file: "a.py" };
const issuesOf = (json: unknown) => {
  const parsed = parsePlan(json);
  return parsed.ok ? [] : parsed.issues.filter((i) => i.severity === "error");
};

describe("parsePlan", () => {
  test("gives a typed plan, custom operators included", () => {
    const steps = [{ op: "replace_node", params: { locator: target, replacement: "def f(): pass" } }];
    expect(parsePlan(steps)).toEqual({ ok: true, plan: steps, warnings: [] });
    const custom = {
      define_operators: [
        {
          define: "mine",
          params_schema: { file: "string" },
          steps: [{ primitive: "locate", params: { locator: target } }],
        },
      ],
      plan: [{ op: "mine", params: { file: "a.py" } }],
    };
    const parsed = parsePlan(custom);
    expect(parsed.ok && parsed.plan).toEqual(custom);
  });

  test("reports every bad step, each with its index, its operator and a fix", () => {
    const issues = issuesOf([
      { op: "replace_nod", params: { locator: target, replacement: "x" } },
      { op: "replace_node", params: { locator: target, replacement: "def f(): pass" } },
      { template: "guard_clause", params: { target, body: "return" } },
    ]);
    expect(issues.map((i) => [i.step, i.op, i.check])).toEqual([
      [0, "replace_nod", "operator"],
      [2, "guard_clause", "operator"],
    ]);
    expect(issues[0]!.fix).toContain("did you mean 'replace_node'?");
    expect(issues[1]!.message).toContain("condition");
  });

  test("corrects what is certain and says so as a warning", () => {
    const parsed = parsePlan(
      [
        {
          template: "replace_node",
          params: { locator: { ...target, file: "/repo/a.py" }, replacement: "def f(): pass" },
        },
      ],
      { root: "/repo" },
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.plan).toEqual([{ op: "replace_node", params: { locator: target, replacement: "def f(): pass" } }]);
    expect(parsed.warnings.map((w) => [w.step, w.severity])).toEqual([
      [0, "warning"],
      [0, "warning"],
    ]);
  });

  test("refuses a plan that is not a list of steps, with one plan-wide issue", () => {
    for (const json of [{}, [], ["a.py", "b.py"], { plan: "x" }, "replace a.py"]) {
      const issues = issuesOf(json);
      expect(issues, JSON.stringify(json)).toHaveLength(1);
      expect(issues[0]).toMatchObject({ step: null, op: "plan", check: "plan" });
    }
  });

  test("a custom operator may not take the name of an operator the run has", () => {
    const def = (define: string) => ({
      define,
      params_schema: {},
      steps: [{ primitive: "locate", params: { locator: target } }],
    });
    for (const name of ["replace_node", "rename_identifier", "template", "mine"]) {
      const parsed = parsePlanSteps(
        { define_operators: [def(name)], plan: [{ op: "locate", params: { locator: target } }] },
        { operators: ["mine"] },
      );
      expect(
        parsed.planIssues.map((i) => i.message),
        name,
      ).toEqual([`define_operators: '${name}' is already an operator (or defined twice)`]);
    }
  });

  test("a step of an operator the run has a handler for is the handler's to check", () => {
    const steps = [{ op: "append_line", params: { file: "a.py", text: "x = 1" } }];
    expect(parsePlan(steps, { operators: ["append_line"] })).toEqual({ ok: true, plan: steps, warnings: [] });
    expect(issuesOf(steps).map((i) => i.message)).toEqual(["Unknown operator 'append_line'"]);
  });

  test("step by step: the valid steps come out typed beside the invalid ones", () => {
    const parsed = parsePlanSteps([
      { op: "nope", params: {} },
      { op: "locate", params: { locator: target } },
    ]);
    expect(parsed.steps.map((s) => [s.ok, s.key])).toEqual([
      [false, "nope"],
      [true, "locate"],
    ]);
    expect(parsed.steps[1]!.written).toEqual({ op: "locate", params: { locator: target } });
    expect(parsed.plan).toBeUndefined();
    expect(parsePlanSteps([{ op: "locate", params: { locator: target } }]).plan).toEqual([
      { op: "locate", params: { locator: target } },
    ]);
  });

  test("didYouMean suggests a close name and nothing for a far one", () => {
    expect(didYouMean("helpr", ["helper", "main", "Service"])).toBe("helper");
    expect(didYouMean("xyz", ["helper", "main"])).toBeUndefined();
  });
});

describe("planIntegrity: is a reply's JSON a plan at all (no grammar needed)", () => {
  test.each([
    [[], "plan"],
    [["src/foo.py"], "plan"],
    [[{ file: "x" }], "operator"],
    [{ notplan: [] }, "plan"],
    [
      { define_operators: [{ define: "bad name", params_schema: {}, steps: [] }], plan: [{ op: "x", params: {} }] },
      "plan",
    ],
  ])("%j is not: one issue, by the check that refuses it", (json, check) => {
    const issues = planIntegrity(json);
    expect(issues.map((i) => i.check)).toEqual([check]);
    expect(issues[0]!.fix).not.toBe("");
  });

  test.each([
    [[{ op: "locate", params: {} }]],
    [[{ template: "no_such_template" }]],
    [{ define_operators: [], plan: [{ op: "x" }] }],
  ])("%j is (what its steps hold is parsePlan's to say)", (json) => {
    expect(planIntegrity(json)).toEqual([]);
  });
});

describe("parsePlan accepts exactly what the JSON Schema shown to the model describes", () => {
  const validate = new Ajv2020({ strict: false, allErrors: false }).compile(planJsonSchema());
  const custom = (plan: unknown[]) => ({
    define_operators: [
      {
        define: "mine",
        params_schema: { file: "string" },
        steps: [{ primitive: "locate", params: { locator: target } }],
      },
    ],
    plan,
  });
  const valid: unknown[] = [
    ...CATALOG.filter((c) => c.example).map((e) => [
      e.step === "fragment" ? e.example : { [e.step]: e.name, params: e.example },
    ]),
    [
      { template: "guard_clause", params: { target, condition: "x is None", body: "return None" } },
      { op: "rename_identifier", params: { file: "a.py", name: "x", new_name: "y" } },
      {
        fragment: { kind: "if_statement", properties: { condition: "y" }, children: [{ kind: "pass_statement" }] },
        action: "insert_after",
        locator: target,
      },
      { op: "replace_code", params: { file: "a.py", pattern: "a", replacement: "b" } },
    ],
    custom([
      { op: "mine", params: { file: "a.py" } },
      { op: "replace_node", params: { locator: target, replacement: "def f(): pass" } },
    ]),
  ];
  const invalid: unknown[] = [
    [],
    {},
    ["a.py"],
    [{ template: "guard_clause", params: { target, body: "return" } }],
    [{ template: "guard_clouse", params: {} }],
    [{ fragment: { kind: "if", properties: {} }, locator: target }],
    [{ fragment: { kind: "return_statement", children: [{ kind: "pass_statement" }] }, locator: target }],
    [{ op: "swap_nodes", params: { first: target, second: target, third: target } }],
    [{ op: "replace_node", params: { locator: target } }],
    [{ op: "replace_node", params: { locator: target, replacement: "x", extra: 1 } }],
    [{ op: "replace_node", locator: target, replacement: "x" }],
    [{ op: "replace_node", params: { locator: { kind: "function", name: "f" }, replacement: "x" } }],
    [{ op: "mine", params: { file: "a.py" } }],
    custom([
      { op: "mine", params: {} },
      { op: "nope", params: {} },
    ]),
    [{ template: "guard_clause", params: { target, condition: "x is", body: "return None" } }],
  ];

  const corrected: unknown[] = [
    [{ op: "replace_node", params: { locator: target, replacement: "x" }, note: "why" }],
    [{ op: "replace_node", params: { locator: target, replacement: "x" }, context: { why: "a note" } }],
    [{ template: "replace_node", params: { locator: target, replacement: "x" } }],
    [{ op: "guard_clause", params: { target, condition: "x is None", body: "return None" } }],
    [{ fragment: { kind: "pass_statement" }, action: "insert_after_node", target }],
  ];

  test.each(valid.map((plan, i) => [i, plan]))("valid plan %i: both accept, with nothing to correct", (_, plan) => {
    expect(validate(plan), JSON.stringify(validate.errors?.slice(0, 2))).toBe(true);
    expect(parsePlan(plan)).toMatchObject({ ok: true, plan, warnings: [] });
  });

  test.each(corrected.map((plan, i) => [i, plan]))(
    "plan %i with a certain mistake: the schema refuses it, parsePlan corrects it into a plan the schema accepts",
    (_, plan) => {
      expect(validate(plan)).toBe(false);
      const parsed = parsePlan(plan);
      expect(parsed.ok).toBe(true);
      if (!parsed.ok) return;
      expect(parsed.warnings.length).toBeGreaterThan(0);
      expect(validate(parsed.plan), JSON.stringify(validate.errors?.slice(0, 2))).toBe(true);
    },
  );

  test.each(invalid.map((plan, i) => [i, plan]))("invalid plan %i: both refuse", (_, plan) => {
    expect(issuesOf(plan).length, JSON.stringify(plan)).toBeGreaterThan(0);
    if (JSON.stringify(plan).includes('"x is"')) return; // code that does not parse: beyond a JSON Schema
    if (JSON.stringify(plan).includes('"params":{}},{"op":"nope"')) return; // custom op's declared params: beyond a JSON Schema
    expect(validate(plan)).toBe(false);
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { loadPlanGrammars } from "@graphplan/catalog";
import { ProposalSchema, createProposal } from "./schemas.js";

beforeAll(() =>
  loadPlanGrammars([{ op: "locate", params: { locator: { kind: "module", file: "src/shop/auth.py" } } }]),
);

const validEdit = {
  id: "p-1",
  intent: "repair",
  hypothesis: "authenticate fails because password may be None.",
  action_type: "edit_file",
  target: { path: "src/shop/auth.py", symbol: "authenticate" },
  change_summary: "Return False when the stored password is None",
  expected_effect: {
    tests: ["tests/test_auth.py::test_login"],
    behavior: "authenticate returns False instead of raising",
  },
  risk_level: "low",
  rollback_plan: "Revert the edit to src/shop/auth.py",
  change: [
    {
      op: "insert_before_node",
      params: {
        locator: {
          kind: "statement",
          file: "src/shop/auth.py",
          parent: { kind: "function", name: "authenticate" },
          index: 0,
        },
        code: "if user.password is None:\n    return False",
      },
    },
  ],
} as const;

const REQUIRED = [
  "id",
  "intent",
  "hypothesis",
  "action_type",
  "target",
  "change_summary",
  "expected_effect",
  "risk_level",
  "rollback_plan",
  "change",
] as const;

describe("proposal validation", () => {
  it("accepts a complete edit proposal", () => {
    expect(createProposal(validEdit).id).toBe("p-1");
  });

  it.each(REQUIRED)("rejects a proposal without %s", (field) => {
    const { [field]: _omitted, ...rest } = validEdit;
    const result = ProposalSchema.safeParse(rest);
    expect(result.success).toBe(false);
  });

  it("rejects HIGH risk with a message saying so, and accepts low and medium", () => {
    const result = ProposalSchema.safeParse({ ...validEdit, risk_level: "high" });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("HIGH risk proposals are rejected");
    expect(ProposalSchema.safeParse({ ...validEdit, risk_level: "medium" }).success).toBe(true);
  });

  it("rejects unknown intents and action types, blank strings, multi-line hypotheses and extra keys", () => {
    expect(ProposalSchema.safeParse({ ...validEdit, intent: "yolo" }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...validEdit, action_type: "delete_repo" }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...validEdit, rollback_plan: "   " }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...validEdit, hypothesis: "one.\ntwo." }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...validEdit, notes: "hi" }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...validEdit, target: { path: "a.py" } }).success).toBe(false);
  });

  it("reads the change of edit_file through parsePlan, in both plan formats: a plan that would not run is refused with parsePlan's words", () => {
    expect(ProposalSchema.safeParse({ ...validEdit, change: [] }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...validEdit, change: [{ params: {} }] }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...validEdit, change: "rewrite auth.py" }).success).toBe(false);
    const objectFormat = {
      define_operators: [
        {
          define: "add_guard",
          params_schema: { file: "string", fn: "string" },
          steps: [
            {
              primitive: "insert_before_node",
              params: { locator: { kind: "statement", file: "$file" }, code: "pass" },
            },
          ],
        },
      ],
      plan: [{ op: "add_guard", params: { file: "src/shop/auth.py", fn: "authenticate" } }],
    };
    expect(ProposalSchema.safeParse({ ...validEdit, change: objectFormat }).success).toBe(true);
    const guard = {
      template: "guard_clause",
      params: {
        target: { kind: "function", name: "authenticate", file: "src/shop/auth.py" },
        condition: "user is None",
        body: "return None",
      },
    };
    expect(ProposalSchema.safeParse({ ...validEdit, change: [guard] }).success).toBe(true);
    const unknown = ProposalSchema.safeParse({
      ...validEdit,
      change: [{ template: "guard_none", params: { var: "x" } }],
    });
    expect(unknown.error?.issues.map((i) => [i.path, i.message])).toEqual([
      [
        ["change"],
        expect.stringMatching(
          /^step 1 \(guard_none\): Unknown template 'guard_none' — valid templates: guard_clause, /,
        ),
      ],
    ]);
  });

  it("requires the per-action fields: tests and scope for run_tests, query for search_repo", () => {
    const { change: _c, ...base } = validEdit;
    const run = { ...base, intent: "test", action_type: "run_tests", risk_level: "low" };
    expect(ProposalSchema.safeParse({ ...run, tests: ["tests/test_auth.py"], scope: "targeted" }).success).toBe(true);
    expect(ProposalSchema.safeParse({ ...run, tests: ["tests/test_auth.py"] }).success).toBe(false);
    expect(ProposalSchema.safeParse({ ...run, tests: [], scope: "everything" }).success).toBe(false);
    const search = { ...base, intent: "analyze", action_type: "search_repo" };
    expect(ProposalSchema.safeParse({ ...search, query: "load_salt" }).success).toBe(true);
    expect(ProposalSchema.safeParse(search).success).toBe(false);
    // an edit's change is not allowed on other actions
    expect(ProposalSchema.safeParse({ ...validEdit, action_type: "read_file" }).success).toBe(false);
  });

  it("freezes the proposal deeply", () => {
    const p = createProposal(validEdit);
    expect(Object.isFrozen(p)).toBe(true);
    expect(Object.isFrozen(p.target)).toBe(true);
    expect(Object.isFrozen(p.expected_effect.tests)).toBe(true);
    if (p.action_type !== "edit_file" || !Array.isArray(p.change)) throw new Error("expected an array plan");
    const step = p.change[0] as { params: { code: string } };
    expect(() => {
      step.params.code = "pass";
    }).toThrow(TypeError);
  });

  it("does not freeze or alias the caller's input", () => {
    const input = structuredClone(validEdit) as { target: { path: string } };
    const p = createProposal(input);
    input.target.path = "elsewhere.py";
    expect(p.target.path).toBe("src/shop/auth.py");
    expect(Object.isFrozen(input)).toBe(false);
  });

  it("converts to JSON Schema for prompting a model", () => {
    const schema = z.toJSONSchema(ProposalSchema, { io: "input" }) as { oneOf?: unknown[]; anyOf?: unknown[] };
    const variants = schema.oneOf ?? schema.anyOf ?? [];
    expect(variants).toHaveLength(5);
    expect(JSON.stringify(schema)).toContain('"rollback_plan"');
  });
});

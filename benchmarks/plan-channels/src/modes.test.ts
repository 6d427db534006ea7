import { describe, expect, it } from "vitest";
import { extractPlan } from "@graphplan/agent";
import { MODES, operatorAsTemplate, operatorSynonym, trailingComma, trailingSpaces, turnOf } from "./modes.js";

const PLAN = [
  {
    op: "replace_node",
    params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f():\n    return 1" },
  },
  {
    op: "insert_after_node",
    params: { locator: { kind: "function", name: "f", file: "a.py" }, code: "def g():\n    return 2" },
  },
];
const mode = (name: string) => MODES.find((m) => m.name === name)!;
const textOf = (reply: ReturnType<(typeof MODES)[number]["first"]>) => (reply.kind === "text" ? reply.text : "");

describe("the bad-model modes", () => {
  it("send the gold plan unchanged through each channel the agent reads", () => {
    for (const name of ["json-block", "untagged-fence", "bare-json"]) {
      const extracted = extractPlan(textOf(mode(name).first(PLAN, "/tmp/edit_plan.json")));
      expect(extracted.ok && extracted.json, name).toEqual(PLAN);
    }
    expect(mode("tool-call").first(PLAN, "/tmp/edit_plan.json")).toEqual({ kind: "tool", input: { plan: PLAN } });
    expect(textOf(mode("plan-file").first(PLAN, "/tmp/edit_plan.json"))).toMatch(
      /```bash\ncat > \/tmp\/edit_plan\.json <<'EOF'\n\[/,
    );
  });

  it("make the first reply unusable as a plan in the modes that stand for broken replies, and correct it after the nudge", () => {
    for (const name of ["two-json-blocks", "cut-off", "invalid-json", "prose-first", "never-a-plan"]) {
      expect(extractPlan(textOf(mode(name).first(PLAN, "/tmp/edit_plan.json"))).ok, name).toBe(false);
    }
    expect(mode("cut-off").first(PLAN, "/tmp/edit_plan.json")).toMatchObject({ stopReason: "max_tokens" });
    for (const name of ["two-json-blocks", "cut-off", "invalid-json", "prose-first"]) {
      const extracted = extractPlan(textOf(mode(name).corrected(PLAN, "/tmp/edit_plan.json")));
      expect(extracted.ok && extracted.json, name).toEqual(PLAN);
    }
    expect(extractPlan(textOf(mode("never-a-plan").corrected(PLAN, "/tmp/edit_plan.json"))).ok).toBe(false);
  });

  it("make exactly one mistake in the plan's content", () => {
    expect(operatorAsTemplate(PLAN)).toEqual([{ template: "replace_node", params: PLAN[0]!.params }, PLAN[1]]);
    expect(operatorSynonym(PLAN)).toEqual([{ ...PLAN[0], op: "replace" }, PLAN[1]]);
    expect(operatorSynonym({ define_operators: [], plan: PLAN })).toEqual({
      define_operators: [],
      plan: [{ ...PLAN[0], op: "replace" }, PLAN[1]],
    });
    expect(trailingSpaces(PLAN)).toEqual([
      { ...PLAN[0], params: { ...PLAN[0]!.params, replacement: "def f():  \n    return 1  " } },
      { ...PLAN[1], params: { ...PLAN[1]!.params, code: "def g():  \n    return 2  " } },
    ]);
    expect(() => JSON.parse(trailingComma(JSON.stringify(PLAN)))).toThrow();
    expect(PLAN[0]!.op).toBe("replace_node"); // the gold plan is not changed in place
  });
});

describe("turnOf", () => {
  it("reads the agent's phase from its last message, as the default prompts word it", () => {
    expect(turnOf("Task: fix it", 0)).toBe("explore");
    expect(turnOf("exit code 0\nsetup.py", 1)).toBe("ready");
    expect(turnOf("Phase 2, PLAN. This is the code graph", 2)).toBe("plan");
    expect(turnOf("That reply has no usable plan: the reply has no plan", 3)).toBe("nudge");
    expect(turnOf("Your reply was cut off at 4096 tokens", 3)).toBe("nudge");
    expect(turnOf("The plan did not pass verification; nothing was changed.", 3)).toBe("nudge");
    expect(turnOf("plan received; it is verified next\nThe plan was verified and applied (a.py).", 3)).toBe("review");
    expect(turnOf("The structured plan is not used (no valid plan).", 7)).toBe("fallback");
  });
});

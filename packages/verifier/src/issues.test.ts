import { describe, expect, it } from "vitest";
import { CHECKS, renderIssue, revisionPrompt, toResult, VerifyResultSchema, type Issue } from "./issues.js";

const issue = (over: Partial<Issue>): Issue => ({
  step: 0,
  op: "replace_code",
  check: "content",
  severity: "error",
  message: "Pattern not found in src/a.py",
  fix: "copy the exact text",
  ...over,
});

describe("messages", () => {
  it("renders step (numbered from 1: plan[3] is Step 4), op, the hierarchy check, what and fix on one line", () => {
    expect(renderIssue(issue({ step: 3 }))).toBe(
      "Step 4 (replace_code): Pattern not found in src/a.py — fix: copy the exact text",
    );
    expect(renderIssue(issue({ check: "references", severity: "warning", message: "'x' is not defined" }))).toBe(
      "Step 1 (replace_code): [references] 'x' is not defined — fix: copy the exact text",
    );
    expect(
      renderIssue(issue({ step: null, op: "plan", check: "plan", message: "the plan is empty", fix: "give a step" })),
    ).toBe("Plan: the plan is empty — fix: give a step");
  });

  it("orders issues by step then check (in the order of CHECKS), splits errors from warnings, and passes only without errors", () => {
    const result = toResult([
      issue({ step: 2, check: "syntax" }),
      issue({ step: 1, check: "importers", severity: "warning", message: "w" }),
      issue({ step: 1, check: "locator", message: "first" }),
      issue({ step: null, op: "plan", check: "plan", message: "p" }),
    ]);
    expect(result.passed).toBe(false);
    expect(result.issues.map((i) => [i.step, i.check])).toEqual([
      [null, "plan"],
      [1, "locator"],
      [1, "importers"],
      [2, "syntax"],
    ]);
    expect(result.errors).toHaveLength(3);
    expect(result.warnings).toEqual(["Step 2 (replace_code): w — fix: copy the exact text"]);
    expect(VerifyResultSchema.parse(result)).toEqual(result);
    expect(toResult([issue({ severity: "warning" })]).passed).toBe(true);
  });

  it("builds the revision prompt from a failed result: every error and warning, and what to do", () => {
    const result = toResult([
      issue({ step: 0 }),
      issue({
        step: 4,
        op: "rename_symbol",
        check: "rename",
        severity: "warning",
        message: "'data' also appears in strings (2x)",
        fix: "use replace_all_matching",
      }),
    ]);
    const prompt = revisionPrompt(result, { attempt: 2, maxAttempts: 3, planPath: "/tmp/p.json" });
    expect(prompt.split("\n")).toEqual([
      "Your plan had 1 error and 1 warning. This is revision 2 of 3.",
      "Steps are numbered from 1 in the order of the plan array (Step 1 is the first step); each step was checked against the files as the earlier steps leave them.",
      "",
      "Errors (the plan will not run until every one is fixed):",
      "- Step 1 (replace_code): Pattern not found in src/a.py — fix: copy the exact text",
      "",
      "Warnings (the plan may run, but check each one):",
      "- Step 5 (rename_symbol): 'data' also appears in strings (2x) — fix: use replace_all_matching",
      "",
      "Revise the plan to fix every error above (keep the steps that had none unchanged) and write the complete revised plan to /tmp/p.json.",
    ]);
  });

  it("reads a result written before the checks had names: layer and level become the check", () => {
    const issues = [
      { step: 0, op: "replace_node", layer: "0b", severity: "error", message: "e", fix: "f" },
      { step: 0, op: "replace_node", layer: "hierarchy", level: "L4", severity: "warning", message: "w", fix: "f" },
      { step: null, op: "plan", layer: "plan", severity: "error", message: "p", fix: "f" },
    ];
    const old = { passed: false, errors: ["e"], warnings: ["w"], issues };
    expect(VerifyResultSchema.parse(old).issues.map((i) => i.check)).toEqual(["locator", "imports", "plan"]);
    expect(Object.keys(VerifyResultSchema.parse(old).issues[1]!)).not.toContain("level");
    expect(() => VerifyResultSchema.parse({ ...old, issues: [{ ...issues[0], layer: "9" }] })).toThrow();
    expect(CHECKS.indexOf("syntax")).toBeLessThan(CHECKS.indexOf("kind"));
  });
});

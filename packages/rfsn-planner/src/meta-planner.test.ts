import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Gate } from "./gate.js";
import { MetaPlanner, type NextProposalInput } from "./meta-planner.js";
import { StateTracker } from "./state-tracker.js";
import type { GateRejection, ModelCandidate, Proposal } from "./schemas.js";

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
const FAILING = fixture("pytest-long.txt"); // test_login: AttributeError in src/shop/auth.py::authenticate
const OTHER_FAILURE = FAILING.replace("AttributeError: 'NoneType'", "TypeError: 'NoneType'").replace(
  "src/shop/auth.py:42: AttributeError",
  "src/shop/auth.py:42: TypeError",
);
const PASSING = "============================== 3 passed in 0.05s ===============================";
const TEST = "tests/test_auth.py::test_login";

const ok = (output = ""): NextProposalInput => ({ controllerFeedback: { ok: true, output } });
const rejected = (type: GateRejection["type"], extra: Partial<GateRejection> = {}): NextProposalInput => ({
  gateRejection: { _tag: "Rejected", type, reason: type.toLowerCase(), proposalId: null, violations: [], ...extra },
});

function candidate(
  model: string,
  id: string,
  code: string,
  over: { files?: string[]; risk?: "low" | "medium"; intent?: string } = {},
): ModelCandidate {
  const files = over.files ?? ["src/shop/auth.py"];
  return {
    model,
    proposal: {
      id,
      intent: over.intent ?? "repair",
      hypothesis: "authenticate raises AttributeError because the stored password is None.",
      action_type: "edit_file",
      target: { path: files[0], symbol: "authenticate" },
      change_summary: `edit by ${model}`,
      expected_effect: { tests: [TEST], behavior: "authenticate returns False" },
      risk_level: over.risk ?? "low",
      rollback_plan: "revert the edit",
      change: files.map((file) => ({
        op: "insert_before_node",
        params: {
          locator: { kind: "statement", file, parent: { kind: "function", name: "authenticate" }, index: 0 },
          code,
        },
      })),
    },
  };
}
const GUARD = "if user.password is None:\n    return False";
const tooLong = { measured: { files: 1, lines: 120 }, limits: { files: 3, lines: 100 } };
/** A None guard; each id writes a slightly different change (a rejected or failed change is never resubmitted). */
const guard = (id = "guard", model = "claude") => candidate(model, id, GUARD.replace(":", `:  # ${id}`));

function planner(extra: ConstructorParameters<typeof MetaPlanner>[0] = {}): MetaPlanner {
  return new MetaPlanner({
    task: { failingTests: [TEST], issueText: "login crashes with AttributeError when the password is None" },
    ...extra,
  });
}

/** Feeds `inputs` one by one; returns "PHASE/kind" for every proposal emitted, and the proposals. */
function drive(meta: MetaPlanner, inputs: readonly NextProposalInput[]): { trace: string[]; proposals: Proposal[] } {
  const proposals: Proposal[] = [];
  for (const input of inputs) {
    const p = meta.nextProposal(input);
    if (p === null) break;
    proposals.push(p);
  }
  return { trace: meta.history.map((h) => `${h.phase}/${h.kind}`), proposals };
}

describe("MetaPlanner phases", () => {
  it("always starts with a reproduce proposal: intent test, action run_tests, the failing test", () => {
    const p = planner().nextProposal();
    expect(p).toMatchObject({ intent: "test", action_type: "run_tests", tests: [TEST], scope: "targeted" });
    expect(new MetaPlanner().nextProposal()).toMatchObject({ intent: "test", action_type: "run_tests", tests: [] });
  });

  it("goes REPRODUCE → LOCALIZE → PATCH → VERIFY → EXPAND → DONE on success, and the gate accepts every step", () => {
    const meta = planner();
    const gate = new Gate();
    const responses: NextProposalInput[] = [
      ok(FAILING),
      { ...ok("def authenticate(user, password): ..."), candidates: [guard()] },
      ok(),
      ok(PASSING),
      ok(PASSING),
    ];
    let p = meta.nextProposal();
    const trace: string[] = [];
    for (const response of responses) {
      expect(p).not.toBeNull();
      expect(gate.validate(p, meta.gateContext())._tag).toBe("Accepted");
      trace.push(`${meta.phase}:${p!.action_type}`);
      p = meta.nextProposal(response);
    }
    expect(p).toBeNull();
    expect(trace).toEqual([
      "REPRODUCE:run_tests",
      "LOCALIZE:read_file",
      "PATCH:edit_file",
      "VERIFY:run_tests",
      "EXPAND:run_tests",
    ]);
    expect([meta.phase, meta.outcome]).toEqual(["DONE", "success"]);
    expect(meta.state.reproductionConfirmed).toBe(true);
    expect(meta.state.hypothesesTried.map((h) => [h.proposalId, h.outcome])).toEqual([["guard", "success"]]);
  });

  it("anchors localization on the traceback: reads the innermost project file at its failing function", () => {
    const meta = planner();
    const { proposals } = drive(meta, [{}, ok(FAILING)]);
    expect(proposals[1]).toMatchObject({
      action_type: "read_file",
      target: { path: "src/shop/auth.py", symbol: "authenticate" },
    });
    expect(meta.state.suspectFiles[0]).toMatchObject({ path: "src/shop/auth.py", confidence: 0.9 });
  });

  it("localizes Django and SymPy failures relative to the project root", () => {
    const django = new MetaPlanner({ task: { projectRoot: "/testbed" } });
    expect(drive(django, [{}, ok(fixture("django-runtests.txt"))]).proposals[1]?.target).toEqual({
      path: "django/contrib/admin/views/main.py",
      symbol: "get_ordering",
    });
    const sympy = new MetaPlanner({ task: { projectRoot: "/testbed", failingTests: ["test_ccode_Relational"] } });
    expect(drive(sympy, [{}, ok(fixture("sympy-bin-test.txt"))]).proposals[1]?.target).toEqual({
      path: "sympy/printing/ccode.py",
      symbol: "_print_Relational",
    });
  });

  it("verifies the failing tests after a patch and expands to their files only after a targeted pass", () => {
    const { proposals } = drive(planner(), [{}, ok(FAILING), { ...ok(), candidates: [guard()] }, ok(), ok(PASSING)]);
    expect(proposals[3]).toMatchObject({
      action_type: "run_tests",
      scope: "targeted",
      tests: [TEST, "tests/test_auth.py::test_logout"],
    });
    expect(proposals[4]).toMatchObject({ action_type: "run_tests", scope: "broad", tests: ["tests/test_auth.py"] });
  });

  it("widens reproduction (test, its file, the suite) and is stuck when nothing fails", () => {
    const meta = planner();
    const { trace, proposals } = drive(meta, [{}, ok(PASSING), ok(PASSING), ok(PASSING), ok(PASSING)]);
    expect(proposals.slice(0, 3).map((p) => (p.action_type === "run_tests" ? p.tests : null))).toEqual([
      [TEST],
      ["tests/test_auth.py"],
      [],
    ]);
    expect(trace).toEqual(["REPRODUCE/reproduce", "REPRODUCE/reproduce", "REPRODUCE/reproduce", "STUCK/explain"]);
    expect(meta.stuckReason).toMatch(/^phase_attempts_exhausted/);
  });

  it("goes back to PATCH after a failed verification, with the next-best candidate", () => {
    const meta = planner();
    const { trace, proposals } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: [guard("g1"), guard("g2", "gemini")] },
      ok(),
      { ...ok(OTHER_FAILURE), candidates: [guard("g1"), guard("g2", "gemini")] },
    ]);
    expect(trace.slice(3)).toEqual(["VERIFY/verify", "PATCH/patch"]);
    expect(proposals.at(-1)?.id).toBe("g2");
    expect([meta.state.consecutiveFailures, meta.state.exceptionTypes]).toEqual([1, ["AttributeError", "TypeError"]]);
  });
});

describe("MetaPlanner scenarios", () => {
  it("pivots to LOCALIZE after two patch failures with the same symptom, searching first", () => {
    const meta = planner();
    const search =
      "src/shop/auth.py:42:    return check_hash(user.password.encode(), password, salt)\nsrc/shop/salt.py:7:def load_salt(user):\n";
    const { trace, proposals } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: [guard("g1"), guard("g2", "gemini")] },
      ok(),
      { ...ok(FAILING), candidates: [guard("g1"), guard("g2", "gemini")] }, // same symptom (1)
      ok(),
      { ...ok(FAILING), candidates: [guard("g4")] }, // same symptom (2): pivot, although a candidate is on offer
      ok(search),
      { ...ok(), candidates: [candidate("claude", "g3", "salt = salt or b''", { files: ["src/shop/salt.py"] })] },
      ok(),
      ok(PASSING),
      ok(PASSING),
    ]);
    expect(trace).toEqual([
      "REPRODUCE/reproduce",
      "LOCALIZE/read",
      "PATCH/patch",
      "VERIFY/verify",
      "PATCH/patch",
      "VERIFY/verify",
      "LOCALIZE/search",
      "LOCALIZE/read",
      "PATCH/patch",
      "VERIFY/verify",
      "EXPAND/expand",
    ]);
    // the failed patch g1 is never resubmitted; the search is for the failing function; the new suspect is read
    expect(proposals.filter((p) => p.action_type === "edit_file").map((p) => p.id)).toEqual(["g1", "g2", "g3"]);
    expect(proposals[6]).toMatchObject({ action_type: "search_repo", query: "authenticate" });
    expect(proposals[7]?.target.path).toBe("src/shop/salt.py");
    expect(meta.state.suspectFiles.find((f) => f.path === "src/shop/auth.py")?.confidence).toBeCloseTo(0.45);
    expect(meta.outcome).toBe("success");
  });

  it("is stuck when the same symptom repeats after the pivot, and explains why", () => {
    const meta = planner();
    const patches = (n: number, input: NextProposalInput) => ({
      ...input,
      candidates: [candidate("m", `p${n}`, `x = ${n}`)],
    });
    const { trace, proposals } = drive(meta, [
      {},
      ok(FAILING),
      patches(1, ok()),
      ok(),
      patches(2, ok(FAILING)),
      ok(),
      ok(FAILING), // pivot
      ok("src/shop/auth.py:42: return check_hash(...)"),
      patches(3, ok()),
      ok(),
      patches(4, ok(FAILING)),
      ok(),
      ok(FAILING), // same symptom again after the pivot
      ok(),
    ]);
    expect(trace.slice(-3)).toEqual(["PATCH/patch", "VERIFY/verify", "STUCK/explain"]);
    expect(meta.stuckReason).toBe("repeated_failure");
    const last = proposals.at(-1)!;
    expect(last).toMatchObject({ action_type: "explain_stuck", intent: "analyze" });
    expect(last.change_summary).toContain("hypotheses tried: 4 (4 failed)");
    expect(meta.nextProposal()).toBeNull();
    expect(meta.outcome).toBe("stuck");
  });

  it("enters safe mode after three rejections in a row: analysis only (read, then search), then patches again", () => {
    const meta = planner();
    const all = [guard("a"), guard("b", "gemini"), guard("c", "deepseek"), guard("d")];
    const { trace, proposals } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: all },
      { ...rejected("BOUNDS_VIOLATION", tooLong), candidates: all },
      { ...rejected("BOUNDS_VIOLATION", tooLong), candidates: all },
      rejected("BOUNDS_VIOLATION", tooLong), // third in a row
      ok(),
      { ...ok(), candidates: all },
    ]);
    expect(trace).toEqual([
      "REPRODUCE/reproduce",
      "LOCALIZE/read",
      "PATCH/patch",
      "PATCH/patch",
      "PATCH/patch",
      "LOCALIZE/read",
      "LOCALIZE/search",
      "PATCH/patch",
    ]);
    expect(proposals.filter((p) => p.action_type === "edit_file").map((p) => p.id)).toEqual(["a", "b", "c", "d"]);
    expect(meta.history.slice(5, 7).map((h) => h.mode)).toEqual(["safe", "safe"]);
    expect(meta.mode).toBe("normal");
    expect(proposals.slice(5, 7).every((p) => p.action_type !== "edit_file")).toBe(true);
    expect(meta.state.safeModeEntries).toBe(1);
  });

  it("is stuck after another three rejections in a row once safe mode was used", () => {
    const meta = planner();
    const many = ["a", "b", "c", "d", "e", "f"].map((id) => guard(id));
    const { trace } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: many },
      { ...rejected("BOUNDS_VIOLATION", tooLong), candidates: many },
      { ...rejected("BOUNDS_VIOLATION", tooLong), candidates: many },
      rejected("INVARIANT_VIOLATION"), // third in a row: safe mode
      ok(),
      { ...ok(), candidates: many },
      { ...rejected("BOUNDS_VIOLATION", tooLong), candidates: many },
      { ...rejected("BOUNDS_VIOLATION", tooLong), candidates: many },
      rejected("BOUNDS_VIOLATION", tooLong),
    ]);
    expect(trace.slice(-5)).toEqual(["LOCALIZE/search", "PATCH/patch", "PATCH/patch", "PATCH/patch", "STUCK/explain"]);
    expect(meta.stuckReason).toBe("repeated_rejections");
    expect(meta.state.gateRejections.map((r) => r.type[0]).join("")).toBe("BBIBBB");
  });

  it("enters safe mode at once on INVARIANT_VIOLATION and never resubmits the rejected change", () => {
    const meta = planner();
    const weakening = candidate("gemini", "skip", "@pytest.mark.skip", { files: ["tests/test_auth.py"] });
    const { trace, proposals } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: [weakening] },
      rejected("INVARIANT_VIOLATION"),
      ok(),
      { ...ok(), candidates: [weakening, guard()] },
    ]);
    expect(trace.slice(2)).toEqual(["PATCH/patch", "LOCALIZE/read", "LOCALIZE/search", "PATCH/patch"]);
    expect(meta.history[3]?.mode).toBe("safe");
    expect(proposals.at(-1)?.id).toBe("guard");
    expect(meta.lastSelection?.ranking.map((c) => c.proposal.id).sort()).toEqual(["guard", "skip"]);
  });

  it("SCHEMA_VIOLATION: compliance mode proposes a planner-built analysis, then resumes patching", () => {
    const meta = planner();
    const { trace, proposals } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: [guard("a")] },
      rejected("SCHEMA_VIOLATION"),
      { ...ok(), candidates: [guard("a"), guard("b", "gemini")] },
    ]);
    expect(trace.slice(2)).toEqual(["PATCH/patch", "PATCH/read", "PATCH/patch"]);
    expect(meta.history[3]?.mode).toBe("compliance");
    expect(proposals[3]).toMatchObject({ action_type: "read_file", id: "proposal-3" });
    expect(proposals[4]?.id).toBe("b");
  });

  it("ORDERING_VIOLATION: goes back to the phase the gate names", () => {
    const meta = planner();
    const { trace } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: [guard("a")] },
      rejected("ORDERING_VIOLATION", { requiredPhase: "LOCALIZE" }),
    ]);
    expect(trace.slice(2)).toEqual(["PATCH/patch", "LOCALIZE/read"]);
    expect(meta.gateContext().localized).toBe(false);
  });

  it("BOUNDS_VIOLATION: shrinks the scope so that only smaller candidates are submitted", () => {
    const meta = planner();
    const big = candidate("deepseek", "big", GUARD, { files: ["src/shop/auth.py", "src/shop/salt.py"] });
    const otherBig = candidate("gemini", "big2", GUARD + "\n", { files: ["src/shop/auth.py", "src/shop/util.py"] });
    const small = candidate("claude", "small", "x = 1", { files: ["src/shop/salt.py"] });
    const { proposals } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: [big, small] },
      {
        ...rejected("BOUNDS_VIOLATION", { measured: { files: 2, lines: 4 }, limits: { files: 1, lines: 100 } }),
        candidates: [otherBig, small],
      },
    ]);
    expect(proposals.map((p) => p.id).slice(2)).toEqual(["big", "small"]);
    expect(meta.patchRequest()?.scope).toEqual({ files: 1, lines: 2 });
    expect(meta.lastSelection?.ranking[0]?.proposal.id).toBe("big2"); // best scored, but out of scope
  });

  it("searches for evidence when no model offers a viable patch, and is stuck when that keeps happening", () => {
    const meta = planner();
    const { trace, proposals } = drive(meta, [{}, ok(FAILING), ok(), ok(""), ok("")]);
    expect(trace).toEqual([
      "REPRODUCE/reproduce",
      "LOCALIZE/read",
      "LOCALIZE/search",
      "LOCALIZE/search",
      "STUCK/explain",
    ]);
    expect(proposals.slice(2, 4).map((p) => (p.action_type === "search_repo" ? p.query : null))).toEqual([
      "authenticate",
      "AttributeError",
    ]);
    expect(meta.stuckReason).toBe("no viable patch candidate 3 times in a row");
  });

  it("drops medium-risk candidates once the risk budget is spent", () => {
    const meta = planner({ stateTracker: new StateTracker({ riskBudget: 0 }) });
    const medium = candidate("deepseek", "medium", GUARD, { risk: "medium" });
    const low = candidate("claude", "low", "x = 1");
    const { proposals } = drive(meta, [{}, ok(FAILING), { ...ok(), candidates: [medium, low] }]);
    expect(proposals.at(-1)?.id).toBe("low");
  });

  it("is stuck when the iteration budget is spent", () => {
    const meta = planner({ stateTracker: new StateTracker({ iterationBudget: 2 }) });
    const { trace } = drive(meta, [{}, ok(FAILING), ok()]);
    expect(trace).toEqual(["REPRODUCE/reproduce", "LOCALIZE/read", "STUCK/explain"]);
    expect(meta.stuckReason).toBe("iteration_budget_exhausted");
  });

  it("returns to patching with the regression's evidence when the broader run fails", () => {
    const meta = planner();
    const regression = FAILING.replaceAll("src/shop/auth.py", "src/shop/session.py");
    const fix = candidate("claude", "session-fix", "if session is None:\n    return", {
      files: ["src/shop/session.py"],
    });
    const { trace, proposals } = drive(meta, [
      {},
      ok(FAILING),
      { ...ok(), candidates: [guard()] },
      ok(),
      ok(PASSING),
      { ...ok(regression), candidates: [guard(), fix] },
    ]);
    expect(trace.slice(-2)).toEqual(["EXPAND/expand", "PATCH/patch"]);
    expect(proposals.at(-1)?.id).toBe("session-fix");
    expect(meta.state.suspectFiles.map((s) => s.path)).toContain("src/shop/session.py");
    expect(meta.gateContext().targetedPassed).toBe(false);
  });
});

describe("MetaPlanner contract", () => {
  it("tells what a patch needs before candidates are gathered (observe, patchRequest, nextProposal)", () => {
    const meta = planner();
    meta.nextProposal();
    meta.observe(ok(FAILING));
    expect(meta.patchRequest()).toBeNull(); // LOCALIZE next
    meta.nextProposal();
    meta.observe(ok("source"));
    expect(meta.patchRequest()).toMatchObject({
      file: "src/shop/auth.py",
      symbol: "authenticate",
      exceptionType: "AttributeError",
      failingTests: [TEST, "tests/test_auth.py::test_logout"],
      scope: null,
    });
    expect(meta.nextProposal({ candidates: [guard()] })?.id).toBe("guard");
  });

  it("refuses feedback with nothing to answer, both outcomes at once, and feedback for another proposal", () => {
    expect(() => planner().nextProposal(ok())).toThrow(/awaiting/);
    const meta = planner();
    const p = meta.nextProposal()!;
    expect(() => meta.nextProposal({ ...ok(), ...rejected("SCHEMA_VIOLATION") })).toThrow(/not both/);
    expect(() => meta.nextProposal({ controllerFeedback: { ok: true, output: "", proposalId: "other" } })).toThrow(
      /last proposal/,
    );
    expect(
      meta.nextProposal({ controllerFeedback: { ok: true, output: FAILING, proposalId: p.id } })?.action_type,
    ).toBe("read_file");
  });

  it("uses the injected id generator for its own proposals", () => {
    let n = 0;
    const meta = planner({ idGenerator: () => `run7-${++n}` });
    expect(drive(meta, [{}, ok(FAILING)]).proposals.map((p) => p.id)).toEqual(["run7-1", "run7-2"]);
  });

  it("selects among model candidates with the evidence it has gathered", () => {
    const meta = planner();
    drive(meta, [{}, ok(FAILING)]);
    const selection = meta.selectBestCandidate([
      candidate("deepseek", "far", "x = 1", { files: ["src/shop/cart.py"] }),
      guard("near"),
    ]);
    expect(selection.winner?.proposal.id).toBe("near");
    expect(selection.winner?.score.factors.tracebackRelevance).toBe(1);
  });
});

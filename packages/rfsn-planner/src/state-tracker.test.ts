import { describe, expect, it } from "vitest";
import { StateTracker } from "./state-tracker.js";

const fail = (s: StateTracker, signature: string, id = "p") =>
  s.recordHypothesis({ proposalId: id, hypothesis: "h", outcome: "failure", failureSignature: signature });

describe("StateTracker", () => {
  it("has the design's defaults: iteration budget 50, stuck threshold 2, three rejections; risk budget 3", () => {
    const s = new StateTracker();
    expect([s.iterationBudget, s.stuckThreshold, s.maxConsecutiveRejections, s.riskBudget]).toEqual([50, 2, 3, 3]);
  });

  it("takes configurable budgets and rejects invalid ones", () => {
    const s = new StateTracker({ riskBudget: 5, iterationBudget: 100, stuckThreshold: 3 });
    expect([s.riskBudget, s.iterationBudget, s.stuckThreshold]).toEqual([5, 100, 3]);
    expect(() => new StateTracker({ iterationBudget: 0 })).toThrow();
  });

  it("records reproduction and failures", () => {
    const s = new StateTracker();
    expect(s.reproductionConfirmed).toBe(false);
    s.confirmReproduction("pytest tests/test_auth.py::test_login");
    s.recordFailure({
      failingTests: [{ id: "tests/test_auth.py::test_login", name: "test_login", file: "tests/test_auth.py" }],
      exceptionType: "AttributeError",
      frames: [{ file: "src/shop/auth.py", line: 42, name: "authenticate", project: true }],
    });
    s.recordFailure({ failingTests: [], exceptionType: "AttributeError", frames: [] });
    expect(s.reproCommand).toBe("pytest tests/test_auth.py::test_login");
    expect(s.reproductionConfirmed).toBe(true);
    expect(s.failingTests).toEqual(["tests/test_auth.py::test_login"]);
    expect(s.exceptionTypes).toEqual(["AttributeError"]);
    expect(s.tracebackFrames).toHaveLength(1);
  });

  it("ranks suspects by confidence (ties by path), keeping the highest confidence given", () => {
    const s = new StateTracker();
    s.addSuspectFile("src/b.py", 0.5);
    s.addSuspectFile("src/a.py", 0.5);
    s.addSuspectFile("src/c.py", 0.9);
    s.addSuspectFile("src/b.py", 0.3);
    s.addSuspectFile("src/a.py", 1.7);
    expect(s.suspectFiles.map((f) => [f.path, f.confidence])).toEqual([
      ["src/a.py", 1],
      ["src/c.py", 0.9],
      ["src/b.py", 0.5],
    ]);
    s.addSuspectSymbol("src/c.py", "load", 0.4);
    s.addSuspectSymbol("src/c.py", "save", 0.8);
    s.demoteSuspect("src/c.py", 0.5);
    expect(s.suspectSymbols.map((x) => [x.symbol, x.confidence])).toEqual([
      ["save", 0.4],
      ["load", 0.2],
    ]);
    expect(s.suspectFiles.map((f) => f.path)).toEqual(["src/a.py", "src/b.py", "src/c.py"]);
  });

  it("counts consecutive failures of the same symptom, restarting on a new one and ending on success", () => {
    const s = new StateTracker();
    fail(s, "KeyError|a.py:f");
    fail(s, "KeyError|a.py:f");
    expect([s.consecutiveFailures, s.lastFailureSignature]).toEqual([2, "KeyError|a.py:f"]);
    fail(s, "TypeError|a.py:g");
    expect(s.consecutiveFailures).toBe(1);
    s.recordHypothesis({ proposalId: "p", hypothesis: "h", outcome: "success" });
    expect(s.consecutiveFailures).toBe(0);
    expect(s.hypothesesTried.map((h) => h.outcome)).toEqual(["failure", "failure", "failure", "success"]);
  });

  it("stamps records with the injected clock", () => {
    let t = 1000;
    const s = new StateTracker({ clock: { now: () => (t += 5) } });
    fail(s, "x");
    s.recordGateRejection({ proposalId: "p", type: "BOUNDS_VIOLATION", reason: "too big" });
    expect([s.hypothesesTried[0]?.at, s.gateRejections[0]?.at]).toEqual([1005, 1010]);
  });

  it("pivots after stuckThreshold same-symptom failures, once; the same symptom again is stuck", () => {
    const s = new StateTracker();
    fail(s, "sig");
    expect(s.shouldPivotToLocalization()).toBe(false);
    fail(s, "sig");
    expect(s.shouldPivotToLocalization()).toBe(true);
    expect(s.isStuck()).toBe(false);
    s.recordPivot();
    expect([s.shouldPivotToLocalization(), s.consecutiveFailures]).toEqual([false, 0]);
    fail(s, "sig");
    fail(s, "sig");
    expect(s.shouldPivotToLocalization()).toBe(false);
    expect(s.stuckReason()).toBe("repeated_failure");
  });

  it("uses a custom stuck threshold", () => {
    const s = new StateTracker({ stuckThreshold: 3 });
    fail(s, "sig");
    fail(s, "sig");
    expect(s.shouldPivotToLocalization()).toBe(false);
    fail(s, "sig");
    expect(s.shouldPivotToLocalization()).toBe(true);
  });

  it("enters safe mode on the first rejection streak and is stuck on the second", () => {
    const s = new StateTracker();
    const reject = () => s.recordGateRejection({ proposalId: null, type: "SCHEMA_VIOLATION", reason: "bad" });
    reject();
    reject();
    s.recordAcceptance();
    reject();
    reject();
    expect(s.shouldEnterSafeMode()).toBe(false);
    reject();
    expect(s.shouldEnterSafeMode()).toBe(true);
    expect(s.isStuck()).toBe(false);
    s.enterSafeMode();
    expect([s.consecutiveRejections, s.shouldEnterSafeMode()]).toEqual([0, false]);
    reject();
    reject();
    reject();
    expect(s.stuckReason()).toBe("repeated_rejections");
  });

  it("is stuck when the iteration budget is spent", () => {
    const s = new StateTracker({ iterationBudget: 2 });
    s.spendIteration();
    expect(s.isStuck()).toBe(false);
    s.spendIteration();
    expect(s.stuckReason()).toBe("iteration_budget_exhausted");
  });

  it("affords low risk always, medium within the budget, high never", () => {
    const s = new StateTracker({ riskBudget: 1 });
    expect([s.canAffordRisk("low"), s.canAffordRisk("medium"), s.canAffordRisk("high")]).toEqual([true, true, false]);
    s.spendRisk("low");
    s.spendRisk("medium");
    expect([s.riskSpent, s.canAffordRisk("medium"), s.canAffordRisk("low")]).toEqual([1, false, true]);
    expect(() => s.spendRisk("medium")).toThrow(/risk budget/);
  });
});

import { describe, expect, it } from "vitest";
import { ScoringEngine } from "./scoring.js";
import { createProposal, type Proposal } from "./schemas.js";

function editProposal(id: string, change: unknown, over: Record<string, unknown> = {}): Proposal {
  return createProposal({
    id,
    intent: "repair",
    hypothesis: "module.get fails on a missing attribute.",
    action_type: "edit_file",
    target: { path: "src/module.py", symbol: "get" },
    change_summary: "edit",
    expected_effect: { tests: [], behavior: "no error" },
    risk_level: "low",
    rollback_plan: "revert",
    change,
    ...over,
  });
}
const step = (file: string, code: string, op = "insert_before_node") => ({
  op,
  params: { locator: { kind: "statement", file, index: 0 }, code },
});

const engine = new ScoringEngine({
  failingTests: ["tests/test_x.py::test_y"],
  tracebackFrames: [{ file: "/repo/src/module.py", name: "get" }],
  testNarrative: "AttributeError when accessing .foo()",
});

describe("ScoringEngine factors", () => {
  it("file count: 1 / number of files touched", () => {
    const one = engine.score(editProposal("a", [step("src/module.py", "x = 1")]));
    const two = engine.score(editProposal("b", [step("src/module.py", "x = 1"), step("src/other.py", "y = 2")]));
    expect([one.factors.fileCount, two.factors.fileCount]).toEqual([1, 0.5]);
  });

  it("traceback relevance: the frame's file (0.7), and its function as target symbol (1.0)", () => {
    const elsewhere = editProposal("a", [step("src/other.py", "x = 1")], {
      target: { path: "src/other.py", symbol: "get" },
    });
    const sameFile = editProposal("b", [step("src/module.py", "x = 1")], {
      target: { path: "src/module.py", symbol: "put" },
    });
    const sameFn = editProposal("c", [step("src/module.py", "x = 1")]);
    expect([elsewhere, sameFile, sameFn].map((p) => engine.score(p).factors.tracebackRelevance)).toEqual([0, 0.7, 1]);
  });

  it("guard quality: None, boundary and type checks count; plain code does not", () => {
    const guards = [
      "if obj is None:\n    return None",
      "if len(items) == 0:\n    return []",
      "if not isinstance(v, str):\n    raise TypeError(v)",
    ];
    for (const code of guards)
      expect(engine.score(editProposal("g", [step("src/module.py", code)])).factors.guardQuality, code).toBe(1);
    expect(engine.score(editProposal("n", [step("src/module.py", "total += 1")])).factors.guardQuality).toBe(0);
  });

  it("API preservation: renames, deletions and incompatible signatures break it; a new defaulted parameter does not", () => {
    const rename = editProposal("r", [
      { op: "rename_symbol", params: { file: "src/module.py", old_name: "get", new_name: "fetch" } },
    ]);
    const del = editProposal("d", [
      { op: "delete_node", params: { locator: { kind: "function", name: "get", file: "src/module.py" } } },
    ]);
    const sig = (after: string) =>
      editProposal("s", [
        { op: "replace_code", params: { file: "src/module.py", pattern: "def get(self, key):", replacement: after } },
      ]);
    expect(engine.score(rename).factors.apiPreservation).toBe(0);
    expect(engine.score(del).factors.apiPreservation).toBe(0);
    expect(engine.score(sig("def get(self, name):")).factors.apiPreservation).toBe(0);
    expect(engine.score(sig("def get(self, key, default=None):")).factors.apiPreservation).toBe(1);
    expect(engine.score(editProposal("g", [step("src/module.py", "x = 1")])).factors.apiPreservation).toBe(1);
  });

  it("refactor penalty: refactor intent, rename-everywhere ops and long edits, subtracted from the total", () => {
    const small = engine.score(editProposal("a", [step("src/module.py", "x = 1")]));
    const refactor = engine.score(editProposal("b", [step("src/module.py", "x = 1")], { intent: "refactor" }));
    const long = engine.score(
      editProposal("c", [step("src/module.py", Array.from({ length: 60 }, (_, i) => `x${i} = ${i}`).join("\n"))]),
    );
    expect([small.factors.refactorPenalty, refactor.factors.refactorPenalty, long.factors.refactorPenalty]).toEqual([
      0, 0.5, 0.5,
    ]);
    expect(small.total - refactor.total).toBeCloseTo(0.5);
  });

  it("test narrative match: words of the failure narrative, and the failing tests named as expected effect", () => {
    const unrelated = editProposal("a", [step("src/module.py", "x = 1")], { hypothesis: "A cache is stale." });
    const related = editProposal("b", [step("src/module.py", "x = 1")], {
      hypothesis: "get raises AttributeError when accessing foo on a None parent.",
      expected_effect: { tests: ["tests/test_x.py::test_y"], behavior: "no AttributeError" },
    });
    expect(engine.score(unrelated).factors.testNarrativeMatch).toBe(0);
    // narrative words: attributeerror, accessing, foo → all matched (0.6) + failing test covered (0.4)
    expect(engine.score(related).factors.testNarrativeMatch).toBeCloseTo(1);
  });

  it("weighs the factors 1, 3, 2, 1.5, -1, 2 by default, and takes custom weights", () => {
    const p = editProposal("a", [step("src/module.py", "if self.parent is None:\n    return None")]);
    const s = engine.score(p);
    const f = s.factors;
    expect(s.total).toBeCloseTo(
      f.fileCount +
        3 * f.tracebackRelevance +
        2 * f.guardQuality +
        1.5 * f.apiPreservation -
        f.refactorPenalty +
        2 * f.testNarrativeMatch,
    );
    const onlyGuards = new ScoringEngine({
      weights: { fileCount: 0, tracebackRelevance: 0, guardQuality: 10, apiPreservation: 0, testNarrativeMatch: 0 },
    });
    expect(onlyGuards.score(p).total).toBe(10);
    expect(() => new ScoringEngine({ weights: { refactorPenalty: 1 } })).toThrow();
  });
});

describe("ScoringEngine selection", () => {
  const guard = editProposal("guard", [step("src/module.py", "if self.parent is None:\n    return None")]);
  const broad = editProposal(
    "broad",
    [step("src/module.py", "x = 1"), step("src/a.py", "y = 1"), step("src/b.py", "z = 1")],
    {
      intent: "refactor",
    },
  );
  const twinA = editProposal("twin-a", [step("src/other.py", "x = 1")], {
    target: { path: "src/other.py", symbol: null },
  });
  const twinB = editProposal("twin-b", [step("src/other.py", "x = 1")], {
    target: { path: "src/other.py", symbol: null },
  });

  it("prefers the small guard in the failing frame over a broad refactor", () => {
    expect(engine.selectBest([broad, guard], 1).map((s) => s.proposal.id)).toEqual(["guard"]);
  });

  it("breaks ties by proposal id, whatever the input order, and honours topN", () => {
    expect(engine.score(twinA).total).toBe(engine.score(twinB).total);
    const order1 = engine.selectBest([twinB, guard, twinA, broad], 4).map((s) => s.proposal.id);
    const order2 = engine.selectBest([twinA, broad, twinB, guard], 4).map((s) => s.proposal.id);
    expect(order1).toEqual(["guard", "broad", "twin-a", "twin-b"]);
    expect(engine.selectBest([twinB, twinA], 1).map((s) => s.proposal.id)).toEqual(["twin-a"]);
    expect(order2).toEqual(order1);
    expect(engine.selectBest([guard, broad], 0)).toEqual([]);
  });

  it("selects the best candidate across models, reporting invalid ones and every breakdown", () => {
    const selection = engine.selectBestCandidate([
      { model: "deepseek", proposal: broad },
      { model: "gemini", proposal: { ...guard, risk_level: "high" } },
      { model: "claude", proposal: guard },
      { model: "gpt", proposal: { id: "x" } },
    ]);
    expect(selection.winner?.model).toBe("claude");
    expect(selection.winner?.score.factors.guardQuality).toBe(1);
    expect(selection.ranking.map((c) => c.model)).toEqual(["claude", "deepseek"]);
    expect(selection.invalid.map((c) => c.model)).toEqual(["gemini", "gpt"]);
    expect(selection.invalid[0]?.reason).toContain("HIGH risk");
  });

  it("orders equal candidates by proposal id, then by model name", () => {
    const selection = engine.selectBestCandidate([
      { model: "zeta", proposal: twinA },
      { model: "alpha", proposal: twinA },
      { model: "beta", proposal: twinB },
    ]);
    expect(selection.ranking.map((c) => `${c.proposal.id}@${c.model}`)).toEqual([
      "twin-a@alpha",
      "twin-a@zeta",
      "twin-b@beta",
    ]);
    expect(engine.selectBestCandidate([]).winner).toBeNull();
  });
});

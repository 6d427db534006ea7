import { describe, expect, it } from "vitest";
import { ProposalPlanner, testTarget } from "./proposal-planner.js";
import { ProposalSchema } from "./schemas.js";

const plan = [
  {
    op: "insert_before_node",
    params: {
      locator: { kind: "statement", file: "src/auth.py", index: 0 },
      code: "if user is None:\n    return False",
    },
  },
];

describe("ProposalPlanner", () => {
  it("takes ids from the injected generator, and counts proposal-1, proposal-2 by default", () => {
    let n = 100;
    const injected = new ProposalPlanner({ idGenerator: () => `id-${n++}` });
    expect([injected.proposeReproduce().id, injected.proposeReproduce().id]).toEqual(["id-100", "id-101"]);
    const counter = new ProposalPlanner();
    expect([counter.proposeReproduce().id, counter.proposeReproduce().id]).toEqual(["proposal-1", "proposal-2"]);
  });

  it("reproduce: a targeted run of the given test, intent test", () => {
    const p = new ProposalPlanner().proposeReproduce({ tests: ["tests/test_auth.py::test_login"] });
    expect(p).toMatchObject({
      intent: "test",
      action_type: "run_tests",
      tests: ["tests/test_auth.py::test_login"],
      scope: "targeted",
      target: { path: "tests/test_auth.py", symbol: "test_login" },
      risk_level: "low",
    });
  });

  it("every generator returns a schema-valid, frozen proposal with the design's intent and action", () => {
    const planner = new ProposalPlanner();
    const made = [
      planner.proposeReproduce(),
      planner.proposeLocalizeFile({
        filePath: "src/auth.py",
        reason: "File appears in failure traceback",
        symbol: "authenticate",
      }),
      planner.proposeSearchRepo({ pattern: "load_salt", reason: "find callers" }),
      planner.proposeAddGuard({
        filePath: "src/auth.py",
        symbol: "authenticate",
        guardType: "none",
        condition: "a None user",
        change: plan,
      }),
      planner.proposeFixLogicError({
        filePath: "src/auth.py",
        symbol: "authenticate",
        description: "the salt is read twice",
        change: plan,
      }),
      planner.proposeVerifyTargeted({ tests: ["tests/test_auth.py::test_login"], afterFix: "guard added" }),
      planner.proposeExpandVerification({ testPaths: ["tests/test_auth.py"] }),
      planner.proposeExplainStuck({ reason: "same failure after re-localizing", details: ["iterations: 9"] }),
    ];
    for (const p of made) {
      expect(ProposalSchema.safeParse(p).success).toBe(true);
      expect(Object.isFrozen(p)).toBe(true);
    }
    expect(made.map((p) => `${p.intent}/${p.action_type}/${p.risk_level}`)).toEqual([
      "test/run_tests/low",
      "analyze/read_file/low",
      "analyze/search_repo/low",
      "repair/edit_file/low",
      "repair/edit_file/medium",
      "test/run_tests/low",
      "test/run_tests/low",
      "analyze/explain_stuck/low",
    ]);
    expect(made.map((p) => (p.action_type === "run_tests" ? p.scope : "-"))).toEqual([
      "targeted",
      "-",
      "-",
      "-",
      "-",
      "targeted",
      "broad",
      "-",
    ]);
    expect(made[2]?.action_type === "search_repo" && made[2].query).toBe("load_salt");
    expect(made[3]?.change_summary).toBe("Add a None check for a None user in authenticate");
  });

  it("keeps hypotheses on one line when names or reasons carry newlines", () => {
    const p = new ProposalPlanner().proposeLocalizeFile({
      filePath: "src/auth.py",
      reason: "appears in\nthe traceback",
    });
    expect(p.hypothesis).toBe("The fault is in src/auth.py: appears in the traceback.");
  });
});

describe("testTarget", () => {
  it("reads the file and function of pytest, Django and SymPy ids", () => {
    expect(testTarget("tests/test_x.py::TestX::test_y[1-2]")).toEqual({ path: "tests/test_x.py", symbol: "test_y" });
    expect(testTarget("test_override (test_utils.tests.OverrideSettingsTests)")).toEqual({
      path: null,
      symbol: "test_override",
    });
    expect(testTarget("test_ccode_sinc")).toEqual({ path: null, symbol: "test_ccode_sinc" });
    expect(testTarget("tests/test_x.py")).toEqual({ path: "tests/test_x.py", symbol: "tests/test_x.py" });
  });
});

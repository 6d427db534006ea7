import { describe, expect, it } from "vitest";
import { Gate } from "./gate.js";
import type { GateRejection, GateResult } from "./schemas.js";

const edit = (change: unknown, path = "src/shop/auth.py") => ({
  id: "e-1",
  intent: "repair",
  hypothesis: "authenticate fails on a None password.",
  action_type: "edit_file",
  target: { path, symbol: "authenticate" },
  change_summary: "guard None",
  expected_effect: { tests: ["tests/test_auth.py::test_login"], behavior: "returns False" },
  risk_level: "low",
  rollback_plan: "revert",
  change,
});
const insert = (file: string, code: string) => [
  { op: "insert_before_node", params: { locator: { kind: "statement", file, index: 0 }, code } },
];
const run = (scope: "targeted" | "broad") => ({
  id: "r-1",
  intent: "test",
  hypothesis: "The suite passes.",
  action_type: "run_tests",
  target: { path: "tests", symbol: null },
  change_summary: "run",
  expected_effect: { tests: [], behavior: "green" },
  risk_level: "low",
  rollback_plan: "none",
  tests: ["tests/test_auth.py"],
  scope,
});
const patching = { phase: "PATCH", localized: true } as const;

function rejection(result: GateResult): GateRejection {
  if (result._tag !== "Rejected") throw new Error("expected a rejection");
  return result;
}

describe("Gate: schema", () => {
  it("rejects a proposal with a missing field as SCHEMA_VIOLATION naming the field", () => {
    const { rollback_plan: _r, ...incomplete } = edit(insert("src/shop/auth.py", "pass"));
    const r = rejection(new Gate().validate(incomplete, patching));
    expect(r.type).toBe("SCHEMA_VIOLATION");
    expect(r.proposalId).toBe("e-1");
    expect(r.violations.map((v) => v.path)).toContain("rollback_plan");
  });

  it("rejects HIGH risk and non-objects", () => {
    expect(
      rejection(new Gate().validate({ ...edit(insert("a.py", "pass")), risk_level: "high" }, patching)).reason,
    ).toMatch(/HIGH risk/);
    const r = rejection(new Gate().validate("rm -rf /", patching));
    expect([r.type, r.proposalId]).toEqual(["SCHEMA_VIOLATION", null]);
  });

  it("returns the accepted proposal validated and frozen", () => {
    const result = new Gate().validate(
      edit(insert("src/shop/auth.py", "if user.password is None:\n    return False")),
      patching,
    );
    expect(result._tag).toBe("Accepted");
    expect(result._tag === "Accepted" && Object.isFrozen(result.proposal)).toBe(true);
  });

  it("throws on a malformed context (a caller bug, not a proposal problem)", () => {
    expect(() => new Gate().validate(run("targeted"), { localised: true } as never)).toThrow();
  });
});

describe("Gate: ordering", () => {
  const fix = edit(insert("src/shop/auth.py", "pass"));

  it("rejects an edit before localization and names LOCALIZE", () => {
    const r = rejection(new Gate().validate(fix, { phase: "PATCH", localized: false }));
    expect([r.type, r.requiredPhase]).toEqual(["ORDERING_VIOLATION", "LOCALIZE"]);
    expect(rejection(new Gate().validate(fix)).type).toBe("ORDERING_VIOLATION");
  });

  it("rejects an edit outside PATCH once localized", () => {
    const r = rejection(new Gate().validate(fix, { phase: "VERIFY", localized: true }));
    expect([r.type, r.requiredPhase]).toEqual(["ORDERING_VIOLATION", "PATCH"]);
  });

  it("rejects a broad run before a targeted pass, and accepts it after", () => {
    const r = rejection(new Gate().validate(run("broad"), { phase: "EXPAND", localized: true }));
    expect([r.type, r.requiredPhase]).toEqual(["ORDERING_VIOLATION", "VERIFY"]);
    expect(new Gate().validate(run("broad"), { phase: "EXPAND", localized: true, targetedPassed: true })._tag).toBe(
      "Accepted",
    );
    expect(rejection(new Gate().validate(run("targeted"), { phase: "EXPAND" })).type).toBe("ORDERING_VIOLATION");
    expect(new Gate().validate(run("targeted"), { phase: "REPRODUCE" })._tag).toBe("Accepted");
  });
});

describe("Gate: bounds", () => {
  it("rejects an edit touching more files than allowed, with measured and limits", () => {
    const plan = ["a.py", "b.py", "c.py", "d.py"].flatMap((f) => insert(`src/${f}`, "x = 1"));
    const r = rejection(new Gate().validate(edit(plan), patching));
    expect(r.type).toBe("BOUNDS_VIOLATION");
    expect(r.measured).toEqual({ files: 4, lines: 4 });
    expect(r.limits).toEqual({ files: 3, lines: 100 });
    expect(new Gate({ maxFiles: 4 }).validate(edit(plan), patching)._tag).toBe("Accepted");
  });

  it("estimates lines from the plan's code when no file changes are given", () => {
    const code = Array.from({ length: 12 }, (_, i) => `x${i} = ${i}`).join("\n");
    expect(rejection(new Gate({ maxLines: 10 }).validate(edit(insert("src/a.py", code)), patching)).measured).toEqual({
      files: 1,
      lines: 12,
    });
    expect(new Gate({ maxLines: 12 }).validate(edit(insert("src/a.py", code)), patching)._tag).toBe("Accepted");
  });

  it("counts added plus removed lines exactly from file changes (line diff)", () => {
    const before = "a\nb\nc\nd\n";
    const after = "a\nB\nc\nd\ne\n"; // b → B (1 removed, 1 added) and e added
    const r = rejection(
      new Gate({ maxLines: 2 }).validate(edit(insert("src/a.py", "B")), {
        ...patching,
        fileChanges: [{ path: "src/a.py", before, after }],
      }),
    );
    expect(r.measured).toEqual({ files: 1, lines: 3 });
  });
});

describe("Gate: invariants without file changes (plan code strings)", () => {
  it("rejects any plan that touches a test file under the default policy", () => {
    const r = rejection(new Gate().validate(edit(insert("tests/test_auth.py", "assert True is True")), patching));
    expect(r.type).toBe("INVARIANT_VIOLATION");
    expect(r.violations).toContainEqual({
      rule: "test-file-edit",
      path: "tests/test_auth.py",
      detail: "edits a test file",
    });
  });

  it("rejects skip markers written by the plan even when test edits are allowed", () => {
    const gate = new Gate({ policy: { allowTestEdits: true } });
    const plan = [
      {
        op: "wrap_node",
        params: {
          locator: { kind: "function", name: "test_login", file: "tests/test_auth.py" },
          before: "@pytest.mark.skip\n",
          after: "",
        },
      },
    ];
    expect(rejection(gate.validate(edit(plan), patching)).violations.map((v) => v.rule)).toEqual(["skip-marker-added"]);
  });

  it("rejects a deletion in a test file, whose content it cannot see", () => {
    const gate = new Gate({ policy: { allowTestEdits: true } });
    const plan = [
      { op: "delete_node", params: { locator: { kind: "function", name: "test_login", file: "tests/test_auth.py" } } },
    ];
    expect(rejection(gate.validate(edit(plan), patching)).violations[0]?.detail).toBe(
      "delete_node removes function test_login from a test file",
    );
  });

  it("rejects a rewritten test that asserts nothing", () => {
    const gate = new Gate({ policy: { allowTestEdits: true } });
    const plan = [
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "test_login", file: "tests/test_auth.py" },
          replacement: "def test_login():\n    authenticate(user, 'x')",
        },
      },
    ];
    expect(rejection(gate.validate(edit(plan), patching)).violations.map((v) => v.rule)).toEqual(["assertion-removed"]);
  });

  it("accepts a test that gains an assertion when test edits are allowed", () => {
    const gate = new Gate({ policy: { allowTestEdits: true } });
    const plan = insert("tests/test_auth.py", "assert user.failed_logins == 1");
    expect(gate.validate(edit(plan), patching)._tag).toBe("Accepted");
  });

  it("uses the target path for steps that name no file", () => {
    const guard = {
      define: "guard_user",
      params_schema: {},
      steps: [
        {
          primitive: "insert_before_node",
          params: { locator: { kind: "statement", file: "src/shop/auth.py", index: 0 }, code: "assert user" },
        },
      ],
    };
    const plan = { define_operators: [guard], plan: [{ op: "guard_user", params: {} }] };
    expect(rejection(new Gate().validate(edit(plan, "tests/test_auth.py"), patching)).violations[0]?.path).toBe(
      "tests/test_auth.py",
    );
    expect(new Gate().validate(edit(plan, "src/shop/auth.py"), patching)._tag).toBe("Accepted");
  });

  it("lets a policy that allows weakening through", () => {
    const gate = new Gate({ policy: { allowTestWeakening: true } });
    expect(gate.validate(edit(insert("tests/test_auth.py", "@pytest.mark.skip")), patching)._tag).toBe("Accepted");
  });
});

describe("Gate: invariants with file changes", () => {
  it("checks test paths from both the plan and the file changes", () => {
    const r = rejection(
      new Gate().validate(edit(insert("src/shop/auth.py", "pass")), {
        ...patching,
        fileChanges: [
          { path: "src/shop/auth.py", before: "a\n", after: "b\n" },
          { path: "tests/test_auth.py", before: "assert f() == 1\n", after: "assert f() == 2\n" },
        ],
      }),
    );
    // The edit both touches a test file and changes an existing assertion's expected value.
    expect(r.violations.map((v) => `${v.rule}:${v.path}`)).toEqual([
      "test-file-edit:tests/test_auth.py",
      "expected-value-changed:tests/test_auth.py",
    ]);
  });

  it("ignores file changes that change nothing", () => {
    const result = new Gate().validate(edit(insert("src/shop/auth.py", "pass")), {
      ...patching,
      fileChanges: [{ path: "tests/test_auth.py", before: "same\n", after: "same\n" }],
    });
    expect(result._tag).toBe("Accepted");
  });
});

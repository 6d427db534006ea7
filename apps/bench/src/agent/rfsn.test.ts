/** The RFSN planner's task for a SWE-bench line: the FAIL_TO_PASS names, the harness's test command, or why there is none. */
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import { rfsnTask } from "./rfsn.js";

const line = (extra: Record<string, unknown>) => ({
  repo: "pallets/flask",
  instance_id: "pallets__flask-4045",
  version: "2.0",
  FAIL_TO_PASS: '["tests/test_blueprints.py::test_dotted_name_not_allowed"]',
  ...extra,
});

describe("rfsnTask", () => {
  it("names the instance's FAIL_TO_PASS tests and runs them with the harness's test command for the repository and version", () => {
    expect(Result.getOrThrow(rfsnTask(line({})))).toEqual({
      failingTests: ["tests/test_blueprints.py::test_dotted_name_not_allowed"],
      testCommand: "pytest -rA {tests}",
    });
    const django = rfsnTask(
      line({ repo: "django/django", version: "4.0", FAIL_TO_PASS: ["test_x (admin_views.tests.AdminViewTests)"] }),
    );
    expect(Result.getOrThrow(django)).toEqual({
      failingTests: ["test_x (admin_views.tests.AdminViewTests)"],
      testCommand: "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 {tests}",
    });
  });

  it("says why an instance has no task: no failing tests, an unknown version, sympy's runner, a line without the fields", () => {
    const failure = (extra: Record<string, unknown>) => {
      const task = rfsnTask(line(extra));
      return Result.isFailure(task) ? task.failure : "ok";
    };
    expect(failure({ FAIL_TO_PASS: "[]" })).toBe(
      "--strategy rfsn needs the instance's failing tests, and its FAIL_TO_PASS is empty",
    );
    expect(failure({ version: "0.1" })).toBe(
      "--strategy rfsn: no test command is known for pallets/flask 0.1 (the harness's spec table)",
    );
    expect(failure({ repo: "sympy/sympy", version: "1.1", FAIL_TO_PASS: ["test_x"] })).toMatch(
      /^--strategy rfsn: sympy's FAIL_TO_PASS names are bare function names .* cannot run them by name$/,
    );
    expect(failure({ version: undefined })).toMatch(
      /^--strategy rfsn needs the instance's repo, version and FAIL_TO_PASS \(version: /,
    );
  });
});

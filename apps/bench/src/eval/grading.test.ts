import { describe, expect, it } from "vitest";
import {
  getLogsEval,
  type InstanceReport,
  InstanceReportSchema,
  instanceReport,
  instanceReportText,
  pythonJsonDumps,
  resolutionStatus,
  RunSummarySchema,
  runSummaryText,
  summarizeRun,
  summaryFileName,
  testsStatus,
} from "./grading.js";
import { HarnessParseError, type StatusMap } from "./parsers.js";

const START = "+ : '>>>>> Start Test Output'";
const END = "+ : '>>>>> End Test Output'";

/** test_output.txt of a flask run: xtrace lines, pytest -rA output between the markers. */
const flaskLog = (summary: string): string =>
  `+ git apply -v -\nChecking patch tests/test_basic.py...\nApplied patch tests/test_basic.py cleanly.\n${START}\n+ pytest -rA tests/test_basic.py\n=========================== short test summary info ============================\n${summary}\n${END}\n+ git checkout abc tests/test_basic.py\nUpdated 1 path from abc\n`;

const map = (entries: Record<string, StatusMap[string]>): StatusMap =>
  Object.assign(Object.create(null) as StatusMap, entries);

describe("getLogsEval", () => {
  it("parses the text between the markers", () => {
    const { statusMap, found } = getLogsEval(
      flaskLog("PASSED tests/test_basic.py::test_a\nFAILED tests/test_basic.py::test_b - x"),
      "pallets/flask",
    );
    expect(found).toBe(true);
    expect({ ...statusMap }).toEqual({
      "tests/test_basic.py::test_a": "PASSED",
      "tests/test_basic.py::test_b": "FAILED",
    });
  });

  it("parses the whole log when the slice between the markers yields nothing", () => {
    const log = `PASSED tests/test_basic.py::test_early\n${START}\n${END}\nPASSED tests/test_basic.py::test_late\n`;
    const { statusMap, found } = getLogsEval(log, "pallets/flask");
    expect(found).toBe(true);
    expect({ ...statusMap }).toEqual({
      "tests/test_basic.py::test_early": "PASSED",
      "tests/test_basic.py::test_late": "PASSED",
    });
  });

  it("does not look outside the markers when the slice has results", () => {
    const log = `PASSED tests/test_basic.py::test_outside\n${START}\nPASSED tests/test_basic.py::test_in\n${END}\n`;
    expect(Object.keys(getLogsEval(log, "pallets/flask").statusMap)).toEqual(["tests/test_basic.py::test_in"]);
  });

  it("is not found without both markers, or with a bad code anywhere", () => {
    expect(getLogsEval(`${START}\nPASSED t::a\n`, "pallets/flask")).toEqual({ statusMap: {}, found: false });
    expect(getLogsEval(flaskLog("PASSED t::a\n>>>>> Tests Timed Out"), "pallets/flask").found).toBe(false);
    expect(getLogsEval(`>>>>> Patch Apply Failed\n${flaskLog("PASSED t::a")}`, "pallets/flask").found).toBe(false);
  });

  it("stops the slice at a second START marker, as split(START)[1] does", () => {
    const log = `${START}\nPASSED t::first\n${START}\nPASSED t::second\n${END}\n`;
    expect(Object.keys(getLogsEval(log, "pallets/flask").statusMap)).toEqual(["t::first"]);
  });

  it("reads \\r and \\r\\n as newlines, as Python's text-mode open() does", () => {
    const log = `${START}\rPASSED t::a\r\nPASSED t::b\r${END}\n`;
    expect(Object.keys(getLogsEval(log, "pallets/flask").statusMap)).toEqual(["t::a", "t::b"]);
  });

  it("throws for a repository without a parser, and where the parser raises", () => {
    expect(() => getLogsEval(flaskLog(""), "pvlib/pvlib-python")).toThrow(/no SWE-bench log parser/);
    expect(() => getLogsEval(flaskLog("FAILED"), "mwaskom/seaborn")).toThrow(HarnessParseError);
  });
});

describe("testsStatus and resolutionStatus", () => {
  it("counts PASSED and XFAIL as success, FAILED, ERROR and absent as failure", () => {
    const sm = map({ a: "PASSED", b: "XFAIL", c: "FAILED", d: "ERROR" });
    expect(testsStatus(sm, ["a", "c", "missing"], ["b", "d"])).toEqual({
      FAIL_TO_PASS: { success: ["a"], failure: ["c", "missing"] },
      PASS_TO_PASS: { success: ["b"], failure: ["d"] },
      FAIL_TO_FAIL: { success: [], failure: [] },
      PASS_TO_FAIL: { success: [], failure: [] },
    });
  });

  it("drops SKIPPED tests from both lists (v4.1.0), so an all-skipped F2P counts as resolved", () => {
    const status = testsStatus(map({ f: "SKIPPED", p: "PASSED" }), ["f"], ["p"]);
    expect(status.FAIL_TO_PASS).toEqual({ success: [], failure: [] });
    expect(resolutionStatus(status)).toBe("FULL");
  });

  it("is FULL when all pass, PARTIAL when some F2P pass and all P2P pass, NO otherwise", () => {
    const sm = map({ f1: "PASSED", f2: "FAILED", p1: "PASSED", p2: "FAILED" });
    expect(resolutionStatus(testsStatus(sm, ["f1"], ["p1"]))).toBe("FULL");
    expect(resolutionStatus(testsStatus(sm, ["f1", "f2"], ["p1"]))).toBe("PARTIAL");
    expect(resolutionStatus(testsStatus(sm, ["f1", "f2"], ["p1", "p2"]))).toBe("NO");
    expect(resolutionStatus(testsStatus(sm, ["f2"], ["p1"]))).toBe("NO");
    expect(resolutionStatus(testsStatus(sm, [], []))).toBe("FULL");
  });

  it("does not treat prototype names as present", () => {
    expect(testsStatus(map({}), ["toString", "__proto__"], []).FAIL_TO_PASS.failure).toEqual(["toString", "__proto__"]);
  });
});

describe("instanceReport", () => {
  const base = { instanceId: "pallets__flask-4045", patch: "diff --git a/x b/x", repo: "pallets/flask" };
  const f2p = ["tests/test_basic.py::test_a"];
  const p2p = ["tests/test_basic.py::test_b"];

  it("writes a resolved instance with its tests_status, keys in the harness's order", () => {
    const log = flaskLog("PASSED tests/test_basic.py::test_a\nPASSED tests/test_basic.py::test_b");
    const report = instanceReport({ ...base, log, f2p, p2p });
    expect(report).toEqual({
      "pallets__flask-4045": {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: true,
        tests_status: {
          FAIL_TO_PASS: { success: f2p, failure: [] },
          PASS_TO_PASS: { success: p2p, failure: [] },
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    });
    expect(Object.keys(report["pallets__flask-4045"]!)).toEqual([
      "patch_is_None",
      "patch_exists",
      "patch_successfully_applied",
      "resolved",
      "tests_status",
    ]);
    expect(Object.keys(report["pallets__flask-4045"]!.tests_status!)).toEqual([
      "FAIL_TO_PASS",
      "PASS_TO_PASS",
      "FAIL_TO_FAIL",
      "PASS_TO_FAIL",
    ]);
  });

  it("does not resolve a partial fix", () => {
    const log = flaskLog("PASSED tests/test_basic.py::test_a\nPASSED tests/test_basic.py::test_b");
    const result = instanceReport({ ...base, log, f2p: [...f2p, "tests/test_basic.py::test_c"], p2p })[
      "pallets__flask-4045"
    ]!;
    expect(result.resolved).toBe(false);
    expect(result.tests_status?.FAIL_TO_PASS.failure).toEqual(["tests/test_basic.py::test_c"]);
  });

  it("counts an XFAIL F2P test as passed", () => {
    const log = flaskLog("XFAIL tests/test_basic.py::test_a - reason\nPASSED tests/test_basic.py::test_b");
    expect(instanceReport({ ...base, log, f2p, p2p })["pallets__flask-4045"]!.resolved).toBe(true);
  });

  it("stops after patch_exists, with no tests_status, when a marker is missing", () => {
    const log = "+ git apply -v -\nerror: patch failed: tests/test_basic.py:10\n";
    expect(instanceReport({ ...base, log, f2p, p2p })).toEqual({
      "pallets__flask-4045": {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: false,
        resolved: false,
      },
    });
    expect(
      instanceReport({ ...base, log: undefined, f2p, p2p })["pallets__flask-4045"]!.patch_successfully_applied,
    ).toBe(false);
  });

  it("stops after patch_is_None for a None patch, but grades an empty string", () => {
    expect(instanceReport({ ...base, patch: null, log: undefined, f2p, p2p })).toEqual({
      "pallets__flask-4045": {
        patch_is_None: true,
        patch_exists: false,
        patch_successfully_applied: false,
        resolved: false,
      },
    });
    const log = flaskLog("PASSED tests/test_basic.py::test_a\nPASSED tests/test_basic.py::test_b");
    expect(instanceReport({ ...base, patch: "", log, f2p, p2p })["pallets__flask-4045"]!.resolved).toBe(true);
  });

  it("grades a django log, where the P2P docstring id and the F2P id come from verbosity-2 lines", () => {
    const log = `${START}\n+ ./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 httpwrappers.tests\ntest_fixed (httpwrappers.tests.T) ... ok\nEnsure the old behaviour still holds. ... ok\n${END}\n`;
    const report = instanceReport({
      instanceId: "django__django-1",
      patch: "x",
      log,
      repo: "django/django",
      f2p: ["test_fixed (httpwrappers.tests.T)"],
      p2p: ["Ensure the old behaviour still holds."],
    });
    expect(report["django__django-1"]!.resolved).toBe(true);
  });

  it("round-trips through its schema and the harness's json.dumps(indent=4) text", () => {
    const report: InstanceReport = instanceReport({
      ...base,
      log: flaskLog("PASSED tests/test_basic.py::test_é"),
      f2p: ["tests/test_basic.py::test_é"],
      p2p: [],
    });
    const text = instanceReportText(report);
    expect(text).toContain(
      '\n            "FAIL_TO_PASS": {\n                "success": [\n                    "tests/test_basic.py::test_\\u00e9"\n                ],\n                "failure": []',
    );
    expect(text.endsWith("}")).toBe(true);
    expect(InstanceReportSchema.parse(JSON.parse(text))).toEqual(report);
  });
});

describe("summarizeRun", () => {
  const resolved = (id: string, value: boolean): InstanceReport => ({
    [id]: { patch_is_None: false, patch_exists: true, patch_successfully_applied: value, resolved: value },
  });

  it("files every dataset id as make_run_report does, ids sorted, fields in its order", () => {
    const summary = summarizeRun({
      datasetIds: ["r", "u", "empty", "none", "err", "missing", "bad", "other", "gone"],
      predictions: new Map<string, { model_patch: string | null }>([
        ["r", { model_patch: "p" }],
        ["u", { model_patch: "p" }],
        ["empty", { model_patch: "" }],
        ["none", { model_patch: null }],
        ["err", { model_patch: "p" }],
        ["bad", { model_patch: "p" }],
        ["other", { model_patch: "p" }],
        ["gone", { model_patch: "p" }],
        ["not-in-dataset", { model_patch: "p" }],
      ]),
      reports: new Map([
        ["r", resolved("r", true)],
        ["u", resolved("u", false)],
        ["err", "error" as const],
        ["bad", "invalid" as const],
        ["other", resolved("someone-else", true)],
      ]),
    });
    expect(summary).toEqual({
      total_instances: 9,
      submitted_instances: 9,
      completed_instances: 4,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 2,
      error_instances: 4,
      completed_ids: ["bad", "other", "r", "u"],
      incomplete_ids: ["missing"],
      empty_patch_ids: ["empty", "none"],
      submitted_ids: ["bad", "empty", "err", "gone", "none", "not-in-dataset", "other", "r", "u"],
      resolved_ids: ["r"],
      unresolved_ids: ["u"],
      error_ids: ["bad", "err", "gone", "other"],
      schema_version: 2,
    });
    expect(Object.keys(summary)).toEqual([
      "total_instances",
      "submitted_instances",
      "completed_instances",
      "resolved_instances",
      "unresolved_instances",
      "empty_patch_instances",
      "error_instances",
      "completed_ids",
      "incomplete_ids",
      "empty_patch_ids",
      "submitted_ids",
      "resolved_ids",
      "unresolved_ids",
      "error_ids",
      "schema_version",
    ]);
    expect(RunSummarySchema.parse(JSON.parse(runSummaryText(summary)))).toEqual(summary);
    expect(runSummaryText(summary).endsWith("}\n")).toBe(true);
  });

  it("sorts ids by code point, as Python's sorted() does", () => {
    const ids = ["\u{1F600}", "\uFF21", "b", "B"];
    const summary = summarizeRun({ datasetIds: ids, predictions: new Map(), reports: new Map() });
    expect(summary.incomplete_ids).toEqual(["B", "b", "\uFF21", "\u{1F600}"]);
  });

  it("names the file after the model with / replaced by __ and the run id", () => {
    expect(summaryFileName("openai/gpt-4o/mini", "run-1")).toBe("openai__gpt-4o__mini.run-1.json");
  });
});

describe("pythonJsonDumps", () => {
  it("indents by 4 and escapes non-ASCII like json.dumps(ensure_ascii=True)", () => {
    expect(pythonJsonDumps({ a: ["ü", "\u{1F600}"], b: [] })).toBe(
      '{\n    "a": [\n        "\\u00fc",\n        "\\ud83d\\ude00"\n    ],\n    "b": []\n}',
    );
  });
});

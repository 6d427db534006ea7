/**
 * Grading as the SWE-bench harness (v4.1.0) does it, as pure functions: the test log → status map
 * (`get_logs_eval`), the F2P/P2P report (`get_eval_tests_report`), the resolution
 * (`get_resolution_status`), the per-instance `report.json` (`get_eval_report`) and the run summary
 * (`reporting.make_run_report`), with zod schemas to read those files back. Mirrors
 * `swebench/harness/{grading,reporting}.py` at tag v4.1.0; see the reference §3.
 */
import {
  InstanceReportSchema,
  InstanceResultSchema,
  TestsStatusSchema,
  type InstanceReport,
  type InstanceResult,
} from "@graphplan/viewer";
import { z } from "zod";
import { emptyStatusMap, parserFor, type StatusMap } from "./parsers.js";
import {
  APPLY_PATCH_FAIL,
  END_TEST_OUTPUT,
  RESET_FAILED,
  START_TEST_OUTPUT,
  TESTS_ERROR,
  TESTS_TIMEOUT,
} from "./spec.js";

// --- The log --------------------------------------------------------------------------------------

/** Any of these in the log → nothing is graded ("not applied"). */
export const BAD_CODES: readonly string[] = [APPLY_PATCH_FAIL, RESET_FAILED, TESTS_ERROR, TESTS_TIMEOUT];

export interface LogsEval {
  readonly statusMap: StatusMap;
  /** Both markers present and no bad code (the report's `patch_successfully_applied`). */
  readonly found: boolean;
}

/** What Python's text-mode `open()` makes of the file: `\r\n` and lone `\r` become `\n`. */
function universalNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * `get_logs_eval` on the text of `test_output.txt`: bad codes or a missing marker → `{}` and not
 * found; otherwise the parser on the text between the first START marker and the next END marker,
 * or on the whole log when that gives an empty map. Newlines are read as Python's `open()` does.
 * Throws for a repository without a parser (the harness's `KeyError`) and where the parser raises.
 */
export function getLogsEval(log: string, repo: string): LogsEval {
  const parser = parserFor(repo);
  if (!parser) throw new Error(`no SWE-bench log parser for ${repo}`);
  const content = universalNewlines(log);
  const notFound: LogsEval = { statusMap: emptyStatusMap(), found: false };
  if (BAD_CODES.some((code) => content.includes(code))) return notFound;
  if (!(content.includes(START_TEST_OUTPUT) && content.includes(END_TEST_OUTPUT))) return notFound;
  const between = (content.split(START_TEST_OUTPUT)[1] ?? "").split(END_TEST_OUTPUT)[0] ?? "";
  const statusMap = parser(between);
  return { statusMap: Object.keys(statusMap).length > 0 ? statusMap : parser(content), found: true };
}

// --- Tests status and resolution ------------------------------------------------------------------

export interface TestOutcome {
  readonly success: string[];
  readonly failure: string[];
}

export interface TestsStatus {
  readonly FAIL_TO_PASS: TestOutcome;
  readonly PASS_TO_PASS: TestOutcome;
  readonly FAIL_TO_FAIL: TestOutcome;
  readonly PASS_TO_FAIL: TestOutcome;
}

/** `test_passed`: present with PASSED or XFAIL. */
export function testPassed(test: string, statusMap: StatusMap): boolean {
  return Object.hasOwn(statusMap, test) && (statusMap[test] === "PASSED" || statusMap[test] === "XFAIL");
}

/** `test_failed`: absent, or FAILED or ERROR. (SKIPPED is neither passed nor failed.) */
export function testFailed(test: string, statusMap: StatusMap): boolean {
  return !Object.hasOwn(statusMap, test) || statusMap[test] === "FAILED" || statusMap[test] === "ERROR";
}

function outcome(tests: readonly string[], statusMap: StatusMap): TestOutcome {
  const success: string[] = [];
  const failure: string[] = [];
  for (const test of tests) {
    if (testPassed(test, statusMap)) success.push(test);
    else if (testFailed(test, statusMap)) failure.push(test);
  }
  return { success, failure };
}

/** `get_eval_tests_report` (PASS_AND_FAIL, the only kind in Lite); F2F/P2F are always empty. */
export function testsStatus(statusMap: StatusMap, f2p: readonly string[], p2p: readonly string[]): TestsStatus {
  return {
    FAIL_TO_PASS: outcome(f2p, statusMap),
    PASS_TO_PASS: outcome(p2p, statusMap),
    FAIL_TO_FAIL: { success: [], failure: [] },
    PASS_TO_FAIL: { success: [], failure: [] },
  };
}

export type ResolutionStatus = "FULL" | "PARTIAL" | "NO";

/** success / (success + failure), 1 when both are empty (`compute_fail_to_pass` / `_pass_to_pass`). */
function ratio(result: TestOutcome): number {
  const total = result.success.length + result.failure.length;
  return total === 0 ? 1 : result.success.length / total;
}

/** `get_resolution_status` (the harness's values are `RESOLVED_` + these). */
export function resolutionStatus(report: Pick<TestsStatus, "FAIL_TO_PASS" | "PASS_TO_PASS">): ResolutionStatus {
  const f2p = ratio(report.FAIL_TO_PASS);
  const p2p = ratio(report.PASS_TO_PASS);
  if (f2p === 1 && p2p === 1) return "FULL";
  if (f2p < 1 && f2p > 0 && p2p === 1) return "PARTIAL";
  return "NO";
}

// --- The per-instance report.json -----------------------------------------------------------------

// Its schemas live in @graphplan/viewer, which reads the file back: described once.
export { InstanceReportSchema, InstanceResultSchema, TestsStatusSchema, type InstanceReport, type InstanceResult };

export interface InstanceReportInput {
  readonly instanceId: string;
  readonly patch: string | null | undefined;
  /** The text of `test_output.txt`; undefined (no log) grades as "not found". */
  readonly log: string | undefined;
  readonly repo: string;
  readonly f2p: readonly string[];
  readonly p2p: readonly string[];
}

/**
 * `get_eval_report` with `include_tests_status=True`, keys in the harness's order. A None patch
 * stops after `patch_is_None`; a log that is not "found" stops after `patch_exists`. (The harness
 * never grades without a log: a run with none raised before, wrote no report and counts as error.)
 */
export function instanceReport(input: InstanceReportInput): InstanceReport {
  const result: InstanceResult = {
    patch_is_None: false,
    patch_exists: false,
    patch_successfully_applied: false,
    resolved: false,
  };
  const report: InstanceReport = { [input.instanceId]: result };
  if (input.patch === null || input.patch === undefined) {
    result.patch_is_None = true;
    return report;
  }
  result.patch_exists = true;
  const { statusMap, found } =
    input.log === undefined ? { statusMap: emptyStatusMap(), found: false } : getLogsEval(input.log, input.repo);
  if (!found) return report;
  result.patch_successfully_applied = true;
  const status = testsStatus(statusMap, input.f2p, input.p2p);
  result.resolved = resolutionStatus(status) === "FULL";
  result.tests_status = status;
  return report;
}

// --- The run summary ------------------------------------------------------------------------------

export const RunSummarySchema = z.looseObject({
  total_instances: z.number().int(),
  submitted_instances: z.number().int(),
  completed_instances: z.number().int(),
  resolved_instances: z.number().int(),
  unresolved_instances: z.number().int(),
  empty_patch_instances: z.number().int(),
  error_instances: z.number().int(),
  completed_ids: z.array(z.string()),
  incomplete_ids: z.array(z.string()),
  empty_patch_ids: z.array(z.string()),
  submitted_ids: z.array(z.string()),
  resolved_ids: z.array(z.string()),
  unresolved_ids: z.array(z.string()),
  error_ids: z.array(z.string()),
  schema_version: z.number().int(),
  /** Written by v4.1.0 only when it had no docker client (an inverted `if`). */
  unstopped_instances: z.number().int().optional(),
  unstopped_containers: z.array(z.string()).optional(),
  unremoved_images: z.array(z.string()).optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

/**
 * What an instance's log directory holds: its `report.json` (parsed); `"invalid"` when the file
 * exists but is empty, not JSON or lacks `[id].resolved` (counted completed *and* error, as
 * upstream); `"error"` or no entry when there is no `report.json` (apply failure, timeout, crash).
 */
export type ReportOutcome = InstanceReport | "error" | "invalid";

export interface RunSummaryInput {
  /** The ids of the (full, possibly `--instance_ids`-filtered) dataset, in any order. */
  readonly datasetIds: readonly string[];
  /** Every prediction read from the predictions file, by instance id. */
  readonly predictions: ReadonlyMap<string, { readonly model_patch?: string | null | undefined }>;
  readonly reports: ReadonlyMap<string, ReportOutcome>;
}

/** Python's `sorted()` of strings: by code point (JavaScript's default sort is by UTF-16 unit). */
function pySorted(ids: Iterable<string>): string[] {
  return [...ids].sort((a, b) => {
    const x = [...a].map((c) => c.codePointAt(0) ?? 0);
    const y = [...b].map((c) => c.codePointAt(0) ?? 0);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
    return x.length - y.length;
  });
}

type Bucket = "incomplete" | "empty_patch" | "resolved" | "unresolved" | "error";

/** Where `make_run_report` files one dataset id; `completed` = a `report.json` exists. */
function classify(id: string, input: RunSummaryInput): { bucket: Bucket; completed: boolean } {
  const prediction = input.predictions.get(id);
  if (prediction === undefined) return { bucket: "incomplete", completed: false };
  const patch = prediction.model_patch;
  if (patch === "" || patch === null || patch === undefined) return { bucket: "empty_patch", completed: false };
  const report = input.reports.get(id);
  if (report === undefined || report === "error") return { bucket: "error", completed: false };
  const entry = report === "invalid" || !Object.hasOwn(report, id) ? undefined : report[id];
  if (entry === undefined) return { bucket: "error", completed: true };
  return { bucket: entry.resolved ? "resolved" : "unresolved", completed: true };
}

/**
 * `make_run_report` (local run, with a docker client): the summary file's object, fields in the
 * harness's order. `submitted_*` count every prediction, in the dataset or not.
 */
export function summarizeRun(input: RunSummaryInput): RunSummary {
  const buckets: Record<Bucket, Set<string>> = {
    incomplete: new Set(),
    empty_patch: new Set(),
    resolved: new Set(),
    unresolved: new Set(),
    error: new Set(),
  };
  const completed = new Set<string>();
  for (const id of input.datasetIds) {
    const { bucket, completed: done } = classify(id, input);
    buckets[bucket].add(id);
    if (done) completed.add(id);
  }
  return {
    total_instances: input.datasetIds.length,
    submitted_instances: input.predictions.size,
    completed_instances: completed.size,
    resolved_instances: buckets.resolved.size,
    unresolved_instances: buckets.unresolved.size,
    empty_patch_instances: buckets.empty_patch.size,
    error_instances: buckets.error.size,
    completed_ids: pySorted(completed),
    incomplete_ids: pySorted(buckets.incomplete),
    empty_patch_ids: pySorted(buckets.empty_patch),
    submitted_ids: pySorted(input.predictions.keys()),
    resolved_ids: pySorted(buckets.resolved),
    unresolved_ids: pySorted(buckets.unresolved),
    error_ids: pySorted(buckets.error),
    schema_version: 2,
  };
}

/** The summary's file name: `<model, "/" → "__">.<run_id>.json` (v4.1.0 writes it to the cwd). */
export function summaryFileName(modelNameOrPath: string, runId: string): string {
  return `${modelNameOrPath.replaceAll("/", "__")}.${runId}.json`;
}

// --- The files' text ------------------------------------------------------------------------------

/** Python's `json.dumps(value, indent=4)`: as JSON.stringify, with non-ASCII as `\uXXXX` (ensure_ascii). */
export function pythonJsonDumps(value: unknown): string {
  return JSON.stringify(value, null, 4).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The text of `report.json` as the harness writes it (`f.write(json.dumps(report, indent=4))`). */
export function instanceReportText(report: InstanceReport): string {
  return pythonJsonDumps(report);
}

/** The text of the summary file (`print(json.dumps(report, indent=4), file=f)`). */
export function runSummaryText(summary: RunSummary): string {
  return `${pythonJsonDumps(summary)}\n`;
}

/** `pnpm test`'s closing lines (bin/test-summary.mjs): every failure named, the totals, and the exit code CI reads. */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./temp.js";

const script = join(import.meta.dirname, "..", "bin", "test-summary.mjs");

/** A workspace package at `dir` with a `test` script (or none) and, when given, the JSON report vitest writes. */
function workspacePackage(root: string, dir: string, report?: object, test = true) {
  mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, dir, "package.json"), JSON.stringify({ scripts: test ? { test: "vitest run" } : {} }));
  if (report) writeFileSync(join(root, dir, ".vitest-result.json"), JSON.stringify(report));
}

const passing = (root: string, dir: string) => ({
  numPassedTests: 3,
  numFailedTests: 0,
  numPendingTests: 1,
  numTodoTests: 0,
  testResults: [
    {
      name: join(root, dir, "src/a.test.ts"),
      status: "passed",
      assertionResults: [{ fullName: "a works", status: "passed", failureMessages: [] }],
    },
  ],
});

const summarize = (root: string) => spawnSync(process.execPath, [script], { cwd: root, encoding: "utf8" });

describe("test-summary: the closing lines of `pnpm test`", () => {
  it("names every failed test with the first line of its error, each file that failed outside its tests, and each package without a report; exits 1", () => {
    const root = tempDir();
    workspacePackage(root, "packages/ok", passing(root, "packages/ok"));
    workspacePackage(root, "apps/bad", {
      numPassedTests: 1,
      numFailedTests: 2,
      numPendingTests: 0,
      testResults: [
        {
          name: join(root, "apps/bad/src/x.test.ts"),
          status: "failed",
          assertionResults: [
            { fullName: "x passes", status: "passed", failureMessages: [] },
            {
              fullName: "x > fails",
              status: "failed",
              failureMessages: ["\u001b[31mAssertionError: expected 1 to be 2\u001b[39m\n    at x.test.ts:3:5"],
            },
            {
              fullName: "x > times out",
              status: "failed",
              duration: 39410.5,
              failureMessages: ["Error: STACK_TRACE_ERROR\n    at task (chunk-artifact.js:1784:27)"],
            },
          ],
        },
        {
          name: join(root, "apps/bad/src/y.test.ts"),
          status: "failed",
          message: "Hook timed out in 10000ms.\nIf this is a long-running hook, pass a timeout value",
          assertionResults: [],
        },
      ],
    });
    workspacePackage(root, "benchmarks/silent");
    workspacePackage(root, "benchmarks/no-tests", undefined, false);

    const result = summarize(root);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      "FAILED apps/bad/src/x.test.ts > x > fails: AssertionError: expected 1 to be 2",
      "FAILED apps/bad/src/x.test.ts > x > times out (after 39.4 s): no message in Vitest's JSON report (a timeout gives none)",
      "FAILED apps/bad/src/y.test.ts (the file, outside its tests): Hook timed out in 10000ms.",
      "No test report from: benchmarks/silent",
    ]);
    // 3 + 1 passed; the two failed tests and the file that failed outside its tests; 1 skipped
    expect(result.stdout.trim()).toBe("4 passed, 3 failed, 1 skipped");
  });

  it("a run where every package reported and nothing failed: the totals only, exit 0", () => {
    const root = tempDir();
    workspacePackage(root, "packages/ok", passing(root, "packages/ok"));
    workspacePackage(root, "apps/also", passing(root, "apps/also"));
    const result = summarize(root);
    expect(result.stderr).toBe("");
    expect(result.stdout.trim()).toBe("6 passed, 0 failed, 2 skipped");
    expect(result.status).toBe(0);
  });

  it("no report at all (turbo ran nothing): exit 1, not a silent pass", () => {
    const root = tempDir();
    workspacePackage(root, "packages/none");
    const result = summarize(root);
    expect(result.stdout.trim()).toBe("0 passed, 0 failed, 0 skipped");
    expect(result.status).toBe(1);
  });
});

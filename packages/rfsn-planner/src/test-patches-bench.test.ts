/**
 * The `bench:test-patches` benchmark itself, short, so that CI keeps it running: a one-instance dataset
 * whose test patch adds a test with two assertions and changes an expected value; and its usage error.
 * The README's figures come from SWE-bench Lite's 378 test files.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "graphplan-test-patches-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
const bench = (args: string[]) =>
  spawnSync(TSX, [join(import.meta.dirname, "..", "bench", "test-patches.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });

const TEST_PATCH = `diff --git a/tests/test_calc.py b/tests/test_calc.py
--- a/tests/test_calc.py
+++ b/tests/test_calc.py
@@ -1,5 +1,10 @@
 from calc import add
 
 
 def test_add():
-    assert add(1, 1) == 2
+    assert add(1, 1) == 3
+
+
+def test_add_more():
+    assert add(2, 2) == 4
+    assert add(0, 5) == 5
`;

describe("bench:test-patches, short", () => {
  it("judges a dataset's test patches: each assertion's expected value changed is caught", () => {
    writeFileSync(
      join(root, "lite.jsonl"),
      `${JSON.stringify({ instance_id: "acme__calc-1", test_patch: TEST_PATCH, problem_statement: "add() is wrong" })}\n`,
    );
    const run = bench(["lite.jsonl"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("1 instances, 1 test files changed");
    expect(run.stdout).toContain("\nflagged (no task):\n");
    expect(run.stdout).toContain(
      "real assertions of the patches with their expected value changed: 3/3 caught as expected-value-changed with the problem statement as the task, 3/3 without a task",
    );
  }, 60_000);

  it("prints its usage and exits 2 on bad input", () => {
    for (const args of [[], ["missing.jsonl"]]) {
      const run = bench(args);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("usage: pnpm --filter @graphplan/rfsn-planner bench:test-patches DATASET.jsonl");
    }
  }, 60_000);
});

// Adds up the vitest JSON reports that `turbo run test` left in each package and prints the
// closing lines CI reads: every failed test or suite (file, name, the first line of its error),
// then "N passed, N failed". Exits non-zero when a package has no report or any test failed.
// `pnpm test` runs it whatever turbo's exit (turbo runs with --continue), so that a failing run's
// tail names every failure, not only the first package's.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
const failures = [];
const firstLine = (text) =>
  (text ?? "")
    .replace(/\x1b\[[0-9;]*m/g, "")
    .trim()
    .split("\n")[0]
    .slice(0, 300);
for (const group of ["packages", "apps", "benchmarks"]) {
  if (!existsSync(group)) continue;
  for (const name of readdirSync(group)) {
    const dir = join(group, name);
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    const scripts = JSON.parse(readFileSync(manifest, "utf8")).scripts ?? {};
    if (!scripts.test) continue;
    const report = join(dir, ".vitest-result.json");
    if (!existsSync(report)) {
      missing.push(dir);
      continue;
    }
    const result = JSON.parse(readFileSync(report, "utf8"));
    passed += result.numPassedTests;
    failed += result.numFailedTests;
    skipped += result.numPendingTests + (result.numTodoTests ?? 0);
    for (const file of result.testResults ?? []) {
      const where = relative(process.cwd(), file.name);
      const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
      for (const t of failedTests) {
        // Vitest's JSON report has no message for a timed-out test, only the placeholder `Error: STACK_TRACE_ERROR`:
        // its duration says more.
        const line = firstLine(t.failureMessages?.[0]);
        const ran = typeof t.duration === "number" ? ` (after ${(t.duration / 1000).toFixed(1)} s)` : "";
        const message =
          line === "Error: STACK_TRACE_ERROR" ? "no message in Vitest's JSON report (a timeout gives none)" : line;
        failures.push(`FAILED ${where} > ${t.fullName}${ran}: ${message}`);
      }
      // A suite that failed outside its tests (an import, a hook) has a message and maybe no failed test.
      if (file.status === "failed" && failedTests.length === 0) {
        failed += 1;
        failures.push(`FAILED ${where} (the file, outside its tests): ${firstLine(file.message)}`);
      }
    }
  }
}
for (const line of failures) console.error(line);
if (missing.length) console.error(`No test report from: ${missing.join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);

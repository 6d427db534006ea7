// Adds up the vitest JSON reports that `turbo run test` left in each package and prints the
// closing line CI reads: "N passed, N failed". Exits non-zero when a package has no report or
// any test failed.
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
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
  }
}
if (missing.length) console.error(`No test report from: ${missing.join(", ")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing.length > 0 || passed === 0 ? 1 : 0);

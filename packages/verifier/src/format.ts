/** A verification result as `graphplan verify` prints it (and the MCP server's verify_plan answers). */
import type { VerifyResult } from "./issues.js";

/** The human form: a verdict line, then errors and warnings, one per line. */
export function formatResult(result: VerifyResult): string {
  const lines = [
    result.passed
      ? `PASSED${result.warnings.length ? ` with ${result.warnings.length} warning${result.warnings.length === 1 ? "" : "s"}` : ""}`
      : `FAILED: ${result.errors.length} error${result.errors.length === 1 ? "" : "s"}, ${result.warnings.length} warning${result.warnings.length === 1 ? "" : "s"}`,
  ];
  for (const e of result.errors) lines.push(`error: ${e}`);
  for (const w of result.warnings) lines.push(`warning: ${w}`);
  return `${lines.join("\n")}\n`;
}

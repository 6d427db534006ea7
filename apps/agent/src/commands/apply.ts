/**
 * `graphplan apply PLAN.json [--root DIR] [--json]`: execute a plan on a directory, all or nothing.
 *
 * Exit codes: 0 when every step succeeded (the files are changed); 1 when a step or the commit failed
 * (every file is as it was); 2 when the input is unusable (plan file unreadable, not JSON, not a plan,
 * a path outside the root, a root that is not a directory).
 */
import { resolve } from "node:path";
import type { Command } from "commander";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import type { Plan } from "@graphplan/primitives";
import { Workspace, applyPlan, recover, stepCauseTag } from "@graphplan/runtime";
import { loadPlanGrammars, parsePlan, type PlanIssue } from "@graphplan/catalog";
import { renderIssue } from "@graphplan/verifier";
import type {
  ApplyError,
  ApplyResult,
  RecoverError,
  RecoverReport,
  StepReport,
  WorkspaceRootInvalid,
} from "@graphplan/runtime";
import { readPlanJson, requireVerified } from "./verify.js";

type ApplyCommandError = ApplyError | RecoverError | WorkspaceRootInvalid;

/**
 * The exit code of each error `apply` can end with: 2 for "fix the plan or the arguments", 1 for "the
 * apply failed". Keyed by every tag of the union, so a new error does not compile until it is sorted.
 */
const EXIT_CODE: { readonly [Tag in ApplyCommandError["_tag"]]: 1 | 2 } = {
  PlanRejected: 2,
  PathOutsideWorkspace: 2,
  ReservedPath: 2,
  AmbiguousPath: 2,
  WorkspaceRootInvalid: 2,
  FileNotFound: 1,
  NotUtf8Text: 1,
  WorkspaceIOError: 1,
  JournalPresent: 1,
  JournalCorrupt: 1,
  CommitFailed: 1,
};

export function applyCommand(program: Command): void {
  program
    .command("apply")
    .description("execute a plan on a directory: every step succeeds and the files change, or nothing changes")
    .argument("<plan>", "the plan, a JSON file (paths in it are relative to the root)")
    .option("--root <dir>", "the directory the plan edits", ".")
    .option("--json", "print the result as JSON")
    .option("--no-verify", "skip the verification that refuses a plan with errors before anything runs")
    .action(async (planPath: string, options: { root: string; json?: boolean; verify: boolean }, command: Command) => {
      const { plan, corrections } = await readPlan(planPath, command, options.root);
      for (const c of corrections)
        process.stderr.write(
          `corrected${c.step === null ? "" : ` step ${c.step + 1}`}: ${c.message.replace(/^corrected: /, "")}\n`,
        );
      if (options.verify) await requireVerified(plan, options.root, options.json, command);

      const program = Effect.gen(function* () {
        const recovered = yield* recover();
        const result = yield* applyPlan(plan);
        return { recovered, result };
      }).pipe(Effect.provide(Workspace.layer(options.root)));
      const outcome = await Effect.runPromise(Effect.result(program));

      if (Result.isFailure(outcome)) return reportError(outcome.failure, options.json, command);
      const { recovered, result } = outcome.success;
      if (recovered.interrupted || recovered.tempFiles.length > 0)
        process.stderr.write(`${recoveredLine(recovered)}\n`);
      if (options.json) process.stdout.write(`${JSON.stringify(resultJson(result, recovered), null, 2)}\n`);
      else process.stdout.write(result.steps.map(stepLine).join(""));
      if (!result.ok) {
        throw new Error(`step ${result.failure.step} (${result.failure.op}) failed; no file was changed`);
      }
      if (!options.json) {
        process.stdout.write(
          result.written.length === 0 ? "no file changed\n" : `changed ${result.written.join(", ")}\n`,
        );
      }
    });
}

/**
 * The plan in PLAN.json through the plan's front door (`parsePlan`): corrected where the intent is
 * certain (an absolute path under the root, an operator given as a template, ...; said on stderr),
 * or a one-line error naming the first problem and exit code 2 (`graphplan verify` lists them all).
 */
async function readPlan(
  path: string,
  command: Command,
  root: string,
): Promise<{ plan: Plan; corrections: readonly PlanIssue[] }> {
  const json = await readPlanJson(path, command);
  await loadPlanGrammars(json);
  const parsed = parsePlan(json, { root: resolve(root) });
  if (parsed.ok) return { plan: parsed.plan, corrections: parsed.warnings };
  const errors = parsed.issues.filter((i) => i.severity === "error");
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more: graphplan verify lists them all)` : "";
  return command.error(`error: ${path} is not a valid plan: ${renderIssue(errors[0]!)}${more}`, {
    exitCode: 2,
    code: "graphplan.invalidPlan",
  });
}

function reportError(error: ApplyCommandError, json: boolean | undefined, command: Command): never {
  if (json)
    process.stdout.write(
      `${JSON.stringify({ ok: false, error: { tag: error._tag, message: error.message } }, null, 2)}\n`,
    );
  if (EXIT_CODE[error._tag] === 2)
    return command.error(`error: ${error.message}`, { exitCode: 2, code: `graphplan.${error._tag}` });
  throw error;
}

function stepLine(report: StepReport): string {
  if (report.status === "ok") return `step ${report.step} ${report.op} ok\n`;
  if (report.status === "skipped") return `step ${report.step} ${report.op} skipped (an earlier step failed)\n`;
  return `step ${report.step} ${report.op} FAILED: ${report.error?.message ?? "unknown error"}\n`;
}

function recoveredLine(report: RecoverReport): string {
  const parts = [
    report.restored.length > 0 ? `restored ${report.restored.join(", ")}` : "",
    report.removed.length > 0 ? `removed ${report.removed.join(", ")}` : "",
    report.tempFiles.length > 0 ? `deleted temporary files ${report.tempFiles.join(", ")}` : "",
  ].filter(Boolean);
  return `recovered an interrupted apply${parts.length > 0 ? `: ${parts.join("; ")}` : " (no file had changed)"}`;
}

function resultJson(result: ApplyResult, recovered: RecoverReport) {
  return {
    ok: result.ok,
    recovered: recovered.interrupted || recovered.tempFiles.length > 0 ? recovered : null,
    steps: result.steps.map((report) => {
      if (!report.error) return { step: report.step, op: report.op, status: report.status };
      return {
        step: report.step,
        op: report.op,
        status: report.status,
        error: { tag: stepCauseTag(report.error.cause), message: report.error.message, locator: report.error.locator },
      };
    }),
    written: result.ok ? result.written : [],
    created: result.ok ? result.created : [],
    deleted: result.ok ? result.deleted : [],
  };
}

/**
 * Plan execution over in-memory files: steps in order, each operator checked and rolled back
 * on its own (a failed step leaves its files as they were), the plan all-or-nothing (a failed
 * plan returns the files it was given). Built on {@link PlanSession}: the same step-by-step
 * execution, on one incrementally re-parsed tree per file, that the verifier drives. Pure: no
 * fs, no clock. Grammars must be loaded (`await loadGrammars()` from @graphplan/graph) before
 * calling.
 */
import type { OperatorRedefined, StepFailed } from "./errors.js";
import type { Plan } from "./plan.js";
import { PlanSession, type FileMode, type RunOptions } from "./session.js";

export type { HandlerContext, HandlerResult, StepHandler, RunOptions } from "./session.js";
export { closestOperators, paramIssues } from "./validate.js";

export type StepResult =
  | {
      readonly step: number;
      readonly op: string;
      readonly ok: true;
      readonly changed: readonly string[];
      readonly output?: unknown;
    }
  | { readonly step: number; readonly op: string; readonly ok: false; readonly error: StepFailed };

export type RunResult =
  | {
      readonly ok: true;
      /** Every file as the plan leaves it: created ones added, deleted ones gone. */
      readonly files: Map<string, string>;
      readonly changed: readonly string[];
      /** Files given to the run that the plan deleted (delete_file, or rename_file away). */
      readonly deleted: readonly string[];
      /** The modes the plan gives files (`set_file_mode`), by path; a file absent keeps its mode. */
      readonly modes: ReadonlyMap<string, FileMode>;
      readonly results: readonly StepResult[];
    }
  | {
      readonly ok: false;
      /** Index of the failed step; -1 when the plan's own operators cannot be defined. */
      readonly failedStep: number;
      readonly error: StepFailed | OperatorRedefined;
      readonly results: readonly StepResult[];
      /** The files as given: nothing of the plan is applied. */
      readonly files: ReadonlyMap<string, string>;
    };

/**
 * Runs a plan over in-memory files. Steps run in order, each seeing the earlier ones' effects;
 * every operator checks its postconditions and leaves its file untouched on failure; the first
 * failed step stops the plan and the original files are returned (all-or-nothing). The plan is
 * a parsed one (its type says so): `parsePlan` of @graphplan/catalog reads it from JSON, with every problem said.
 */
export function runPlan(plan: Plan, files: ReadonlyMap<string, string>, options: RunOptions = {}): RunResult {
  const opened = PlanSession.open(plan, files, options);
  if (!opened.ok) return { ok: false, failedStep: -1, error: opened.error, results: [], files };
  const { session, steps } = opened;
  const results: StepResult[] = [];
  try {
    for (const [index, step] of steps.entries()) {
      const run = session.run(step, index);
      if (!run.ok) {
        results.push({ step: index, op: run.op, ok: false, error: run.error });
        return { ok: false, failedStep: index, error: run.error, results, files };
      }
      results.push({ step: index, op: run.op, ok: true, changed: run.changes.map((c) => c.file), output: run.output });
      session.commit();
    }
    return {
      ok: true,
      files: session.files(),
      changed: session.changed,
      deleted: session.deleted,
      modes: session.modes(),
      results,
    };
  } finally {
    session.dispose();
  }
}

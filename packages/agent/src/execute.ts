/**
 * Phase 5, EXECUTE: `applyPlan` of @graphplan/runtime. It is journaled and all or nothing (every
 * step runs in memory first; the files are written only when all succeeded, through a journal that
 * `recover` rolls back after a crash), so a failed plan leaves every file as it was: the design's (docs/design.md, Origins)
 * plan-level `git stash` rollback is not needed.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import type { Plan } from "@graphplan/primitives";
import { applyPlan, type ApplyOptions, type Workspace } from "@graphplan/runtime";
import type { ApplyRecord } from "./trajectory.js";

export function executePhase(plan: Plan, options: ApplyOptions = {}): Effect.Effect<ApplyRecord, never, Workspace> {
  return Effect.gen(function* () {
    const outcome = yield* Effect.result(applyPlan(plan, options));
    if (Result.isFailure(outcome)) return { ok: false, step: null, op: null, error: outcome.failure.message };
    const result = outcome.success;
    if (!result.ok)
      return { ok: false, step: result.failure.step, op: result.failure.op, error: result.failure.message };
    return { ok: true, written: [...result.written], created: [...result.created], deleted: [...result.deleted] };
  });
}

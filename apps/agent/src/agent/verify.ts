/**
 * Phase 4, VERIFY: `verifyPlan` of @graphplan/verifier against the files as they are now (the files
 * EXPLORE named and every file the plan names, read afresh through the Workspace), with their graph.
 */
import * as Effect from "effect/Effect";
import { planFiles, type Plan } from "@graphplan/primitives";
import type { Workspace } from "@graphplan/runtime";
import { verifyPlan, type VerifyResult } from "@graphplan/verifier";
import { graphOf, readFiles } from "./graph.js";

export function verifyPhase(plan: Plan, files: readonly string[]): Effect.Effect<VerifyResult, never, Workspace> {
  return Effect.gen(function* () {
    // A file the plan names that cannot be read is left out: the verifier reports it.
    const { files: texts } = yield* readFiles([...files, ...planFiles(plan)]);
    const graph = yield* graphOf(texts);
    return yield* Effect.promise(() => verifyPlan(plan, texts, graph));
  });
}

/**
 * Phase 4, VERIFY: `verifyPlan` of @graphplan/verifier on the plan as the model wrote it, against the files as they are now (read
 * afresh through the Workspace), with their graph: the files EXPLORE named, every file the plan
 * names, and every source file of the repository that imports one of the plan's files (so the
 * verifier's layer 6 can name them). The repository is listed once per run and graphed with the
 * run's GraphCache (see importers.ts).
 */
import * as Effect from "effect/Effect";
import { planFiles, type Plan } from "@graphplan/primitives";
import type { Workspace } from "@graphplan/runtime";
import { verifyAndParse, type VerifyResult } from "@graphplan/verifier";
import { cachedGraph, readFiles } from "./graph.js";
import { findImporters, listRepoFiles, type ImporterScan } from "./importers.js";
import type { Session } from "./session.js";

export interface VerifyOutcome {
  readonly result: VerifyResult;
  /** The plan as parsed (corrections made), to execute: present when the verification passed. */
  readonly plan?: Plan;
  /** The importers given to the verifier besides the listed and planned files. */
  readonly importers: ImporterScan;
}

export function verifyPhase(
  session: Session,
  plan: unknown,
  files: readonly string[],
): Effect.Effect<VerifyOutcome, never, Workspace> {
  return Effect.gen(function* () {
    // A file the plan names that cannot be read is left out: the verifier reports it.
    const planned = [...new Set(planFiles(plan))];
    const { files: texts } = yield* readFiles([...files, ...planned]);
    const repoFiles = yield* session.repoFiles(listRepoFiles(session.config.limits.max_repo_files));
    const timed = <A, E, R>(effect: Effect.Effect<A, E, R>) => session.graphing(effect);
    const found = yield* findImporters(repoFiles, planned, new Set(texts.keys()), session.graphCache, timed);
    for (const [path, text] of found.texts) texts.set(path, text);
    const graph = yield* timed(cachedGraph(texts, session.graphCache));
    // The verifier reads the plan through the one front door and gives it back typed when it passes: parsed once.
    // The repository's listing: what files not given may define is unknown to the verifier, not missing.
    const repoPaths = repoFiles.kind === "ok" ? repoFiles.paths : undefined;
    const { result, plan: parsed } = yield* Effect.promise(() =>
      verifyAndParse(plan, texts, graph, repoPaths ? { repoPaths } : {}),
    );
    return { result, importers: found.scan, ...(parsed ? { plan: parsed } : {}) };
  });
}

/**
 * Phase 1, EXPLORE: the step loop until the model names the files to change
 * (`READY_TO_PLAN: ["a.py", ...]`, each checked to be a readable file of the workspace), or until
 * `limits.max_explore_steps` replies were spent (→ fallback).
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { Workspace } from "@graphplan/runtime";
import type { LanguageModel, ModelError, Sandbox, SandboxFailed } from "@graphplan/runtime";
import { READY_MARKER } from "./config.js";
import type { LimitsExceeded } from "./errors.js";
import { parseAction, parseReadyToPlan } from "./parse.js";
import type { Session } from "./session.js";

export type ExploreOutcome =
  | { readonly kind: "ready"; readonly files: string[] }
  | { readonly kind: "fallback"; readonly reason: string };

/** Why each listed file cannot be planned on (missing, a directory, outside the root, not text); empty when all are fine. */
export function fileProblems(
  files: readonly string[],
): Effect.Effect<{ path: string; reason: string }[], never, Workspace> {
  return Effect.gen(function* () {
    const ws = yield* Workspace;
    const problems: { path: string; reason: string }[] = [];
    for (const path of files) {
      const read = yield* Effect.result(ws.read(path));
      if (Result.isSuccess(read)) continue;
      const error = read.failure;
      const reason =
        error._tag === "FileNotFound"
          ? "no such file (a file the change adds is not listed here: the plan makes it with create_file)"
          : error._tag === "PathOutsideWorkspace"
            ? "not inside the repository (use a path relative to its root, without ..)"
            : error._tag === "NotUtf8Text"
              ? "not a UTF-8 text file"
              : `cannot be read (${error.detail})`;
      problems.push({ path, reason });
    }
    return problems;
  });
}

export function explore(
  session: Session,
): Effect.Effect<ExploreOutcome, LimitsExceeded | ModelError | SandboxFailed, LanguageModel | Sandbox | Workspace> {
  return Effect.gen(function* () {
    const max = session.config.limits.max_explore_steps;
    for (let step = 1; step <= max; step++) {
      const reply = yield* session.query();
      const ready = parseReadyToPlan(reply, READY_MARKER);
      if (ready) {
        session.formatOk();
        if (!ready.ok) {
          session.prompt("ready_to_plan_invalid", { problems: [{ path: READY_MARKER, reason: ready.problem }] });
          continue;
        }
        const problems = yield* fileProblems(ready.files);
        if (problems.length === 0) return { kind: "ready", files: ready.files } as const;
        session.prompt("ready_to_plan_invalid", { problems });
        continue;
      }
      const action = parseAction(reply);
      if (action.kind === "format_error") {
        yield* session.formatError(() => session.prompt("format_error", { blocks: action.blocks }));
        continue;
      }
      session.formatOk();
      session.observe(yield* session.exec(action.command));
    }
    return {
      kind: "fallback",
      reason: `explore did not end with ${READY_MARKER} within max_explore_steps (${max})`,
    } as const;
  });
}

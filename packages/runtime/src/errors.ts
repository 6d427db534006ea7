/**
 * Tagged errors of the runtime. Each message says what was wrong and what to do about it.
 */
import { isStepError, type StepError } from "@graphplan/catalog";
import * as Data from "effect/Data";

/** A path that is absolute, contains `..`, or resolves (through a symlink) outside the workspace root. */
export class PathOutsideWorkspace extends Data.TaggedError("PathOutsideWorkspace")<{
  readonly path: string;
  readonly root: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `path "${this.path}" is not inside the workspace ${this.root} (${this.reason}); use a path relative to the workspace root without ".." that does not go through a symlink leading outside it`;
  }
}

/** The directory given as workspace root does not exist or is not a directory. */
export class WorkspaceRootInvalid extends Data.TaggedError("WorkspaceRootInvalid")<{
  readonly root: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `the workspace root ${this.root} is not a usable directory (${this.detail}); pass an existing directory`;
  }
}

/** A file the caller asked for does not exist in the workspace. */
export class FileNotFound extends Data.TaggedError("FileNotFound")<{
  readonly path: string;
  readonly root: string;
}> {
  override get message(): string {
    return `file "${this.path}" does not exist in the workspace ${this.root}; check the path (it is relative to the workspace root)`;
  }
}

/** A file that is not UTF-8 text: GraphPlan only edits text. */
export class NotUtf8Text extends Data.TaggedError("NotUtf8Text")<{
  readonly path: string;
}> {
  override get message(): string {
    return `file "${this.path}" is binary (not valid UTF-8 text); GraphPlan edits text files only, remove it from the plan`;
  }
}

/** Any other failure of the file system (or container) under the workspace. */
export class WorkspaceIOError extends Data.TaggedError("WorkspaceIOError")<{
  readonly operation: "read" | "write" | "exists" | "list" | "remove";
  readonly path: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `could not ${this.operation} "${this.path}": ${this.detail}`;
  }
}

/** A journal of an earlier, interrupted apply is present: it must be recovered before anything else is applied. */
export class JournalPresent extends Data.TaggedError("JournalPresent")<{
  readonly journal: string;
}> {
  override get message(): string {
    return `an interrupted apply left the journal "${this.journal}"; run recover first (the CLI does this on start) so the files it protects are restored`;
  }
}

/** A journal that cannot be read back: recovery refuses to guess. */
export class JournalCorrupt extends Data.TaggedError("JournalCorrupt")<{
  readonly journal: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `the journal "${this.journal}" cannot be read (${this.detail}); nothing was restored. Inspect it, restore the files it lists by hand if needed, then delete it`;
  }
}

/** A plan that names a file inside the journal directory. */
export class ReservedPath extends Data.TaggedError("ReservedPath")<{
  readonly path: string;
  readonly journalDir: string;
}> {
  override get message(): string {
    return `path "${this.path}" is inside "${this.journalDir}", which holds the apply journal; plans may not read or edit it`;
  }
}

/** A plan that spells one file two ways (`a.py` and `./a.py`): the edits of one spelling would overwrite the other's. */
export class AmbiguousPath extends Data.TaggedError("AmbiguousPath")<{
  readonly path: string;
  readonly other: string;
}> {
  override get message(): string {
    return `paths "${this.other}" and "${this.path}" name the same file; spell each file one way in a plan`;
  }
}

/**
 * Writing the changed files failed part-way. `rolledBack` says whether the files already written were
 * restored (then every file is as it was and the journal is gone); if not, the journal was kept and
 * `recover` restores them.
 */
export class CommitFailed extends Data.TaggedError("CommitFailed")<{
  readonly path: string;
  readonly cause: unknown;
  readonly rolledBack: boolean;
  readonly rollbackError?: unknown;
}> {
  override get message(): string {
    const why = errorText(this.cause);
    return this.rolledBack
      ? `writing "${this.path}" failed (${why}); every file written before it was restored, nothing changed`
      : `writing "${this.path}" failed (${why}) and restoring the files written before it failed too (${errorText(this.rollbackError)}); the journal was kept: run recover to restore them`;
  }
}

/** The plan runner refused the plan as a whole (a custom operator redefines one): nothing ran. */
export class PlanRejected extends Data.TaggedError("PlanRejected")<{
  readonly cause: Error;
}> {
  override get message(): string {
    return errorText(this.cause);
  }
}

/** A step of the plan failed: nothing was written. `locator` is the step's locator, when it has one. */
export class StepFailed extends Data.TaggedError("StepFailed")<{
  /** 1-based position of the step in the plan. */
  readonly step: number;
  readonly op: string;
  readonly locator: unknown;
  /** The error the step reported underneath; its message says what to fix. */
  readonly cause: StepCause;
}> {
  override get message(): string {
    return errorText(this.cause);
  }
}

/**
 * What a step failed with, under the runtime's {@link StepFailed}: the bridge from the pure packages'
 * errors into the runtime's. A tagged error of the pure packages (`StepError` of @graphplan/catalog:
 * switch over `_tag`, exhaustively), the workspace's `FileNotFound` for a file the plan names but the
 * workspace lacks, or — from a runner of the caller's own (`ApplyOptions.runPlan`) — any `Error`.
 */
export type StepCause = StepError | FileNotFound | Error;

/** The tag a report prints for what a step failed with: the tagged error's `_tag`, or the name of another runner's error. */
export function stepCauseTag(cause: StepCause): string {
  return isStepError(cause) || cause instanceof FileNotFound ? cause._tag : cause.name;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === "object" && "message" in error && typeof error.message === "string")
    return error.message;
  return String(error);
}

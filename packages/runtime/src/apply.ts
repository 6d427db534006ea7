/**
 * Executing a plan on a workspace, all or nothing.
 *
 * 1. Every path the plan names is checked (confined to the root, not inside the journal directory)
 *    before any file is read; then the files are read.
 * 2. The pure plan runner edits them in memory, step by step (each primitive keeps its file's old text
 *    when it fails). A failed step ends here: nothing was written.
 * 3. Commit: the journal (original bytes of every file about to change, which files are new) is written
 *    atomically; each changed file is written atomically; the journal is deleted. Deleting the journal
 *    is the commit point: a process killed before it is rolled back by `recover`, one killed after it
 *    has the complete result. A write failing in-process is rolled back at once. An `ephemeral`
 *    workspace (its files die with the process) gets no journal: there is nothing to recover.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { loadGrammarsFor } from "@graphplan/graph";
import {
  FileNotInPlan,
  StepFailed as PlanStepFailed,
  planFiles,
  planParts,
  stepLabel,
  stepLocator,
} from "@graphplan/primitives";
import { runFormalPlan } from "@graphplan/catalog";
import type { Plan, Step } from "@graphplan/primitives";
import {
  AmbiguousPath,
  CommitFailed,
  FileNotFound,
  JournalCorrupt,
  JournalPresent,
  type NotUtf8Text,
  PathOutsideWorkspace,
  PlanRejected,
  ReservedPath,
  StepFailed,
  type StepCause,
  type WorkspaceIOError,
  errorText,
} from "./errors.js";
import { DEFAULT_JOURNAL_DIR, JOURNAL_FILE, JournalSchema, fromBase64, toBase64 } from "./journal.js";
import type { Journal } from "./journal.js";
import { confine, isWithin } from "./paths.js";
import { TEMP_MARKER, Workspace, decodeText } from "./workspace.js";
import type { WorkspaceShape } from "./workspace.js";

/** What a pure plan runner answers (the shape of `runPlan` from `@graphplan/primitives`). */
export type PlanRunOutcome =
  | {
      readonly ok: true;
      readonly files: ReadonlyMap<string, string>;
      readonly results: ReadonlyArray<unknown>;
      readonly deleted?: ReadonlyArray<string>;
      /** The git modes the plan gives files (`set_file_mode`); a file absent keeps its mode. */
      readonly modes?: ReadonlyMap<string, "100644" | "100755">;
    }
  | {
      readonly ok: false;
      readonly failedStep: number;
      readonly error: Error;
      readonly results: ReadonlyArray<unknown>;
    };
export type PlanRunner = (plan: Plan, files: ReadonlyMap<string, string>) => PlanRunOutcome;

export interface StepReport {
  /** 1-based position in the plan. */
  readonly step: number;
  /** The op name, `template:<name>` or `fragment:<action>`. */
  readonly op: string;
  /** `skipped`: an earlier step failed, so this one did not run. */
  readonly status: "ok" | "failed" | "skipped";
  readonly error?: StepFailed;
}

export type ApplyResult =
  | {
      readonly ok: true;
      readonly steps: ReadonlyArray<StepReport>;
      /** Files written (created ones included), in plan order. Empty when the plan changed nothing. */
      readonly written: ReadonlyArray<string>;
      /** Files that did not exist before. */
      readonly created: ReadonlyArray<string>;
      /** Files the plan deleted (delete_file, rename_file away). */
      readonly deleted: ReadonlyArray<string>;
      /** Files whose mode the plan changed (`set_file_mode`), with the mode they have now. */
      readonly modes: ReadonlyArray<{ readonly path: string; readonly mode: "100644" | "100755" }>;
      /** The bytes before the apply of every written or deleted file that existed (what the journal held): an undo writes them back with {@link writeFiles}. */
      readonly originals: ReadonlyMap<string, Uint8Array>;
    }
  | { readonly ok: false; readonly steps: ReadonlyArray<StepReport>; readonly failure: StepFailed };

export type ApplyError =
  | PathOutsideWorkspace
  | FileNotFound
  | NotUtf8Text
  | WorkspaceIOError
  | JournalPresent
  | ReservedPath
  | AmbiguousPath
  | PlanRejected
  | CommitFailed;

export interface WriteInfo {
  readonly path: string;
  /** 0-based position among the files being written. */
  readonly index: number;
  readonly total: number;
}

export interface ApplyOptions {
  /** Directory (relative to the root) holding the journal. Default `.graphplan`. */
  readonly journalDir?: string;
  /**
   * The pure plan runner. Default: `runPlan` from `@graphplan/primitives` with the tier 1-3 handlers of
   * `@graphplan/catalog` (after loading the grammars the plan's files need).
   */
  readonly runPlan?: PlanRunner;
  /**
   * Called before each file write of the commit (after the journal is on disk). Tests use it to slow
   * the commit down or to break the file system between writes.
   */
  readonly onBeforeWrite?: (write: WriteInfo) => Effect.Effect<void>;
}

export interface RecoverOptions {
  readonly journalDir?: string;
}

export interface RecoverReport {
  /** Whether a journal was found (an apply had been interrupted). */
  readonly interrupted: boolean;
  /** Files put back to their original bytes (only those that differed). */
  readonly restored: ReadonlyArray<string>;
  /** Files the interrupted apply had created, deleted. */
  readonly removed: ReadonlyArray<string>;
  /** Leftover temporary files of atomic writes, deleted. */
  readonly tempFiles: ReadonlyArray<string>;
}

export type RecoverError = PathOutsideWorkspace | FileNotFound | WorkspaceIOError | JournalCorrupt;

/** The confined journal directory and file for `options`, or `PathOutsideWorkspace`. */
const journalOf = (ws: { readonly root: string }, options: { journalDir?: string } | undefined) => {
  const dir = options?.journalDir ?? DEFAULT_JOURNAL_DIR;
  const lexical = confine(dir);
  if (lexical.ok && lexical.path !== ".")
    return Effect.succeed({ dir: lexical.path, path: `${lexical.path}/${JOURNAL_FILE}` });
  const reason = lexical.ok ? "the journal directory cannot be the root" : lexical.reason;
  return Effect.fail(new PathOutsideWorkspace({ path: dir, root: ws.root, reason }));
};

const parentDirs = (path: string): string[] => {
  const parts = path.split("/").slice(0, -1);
  return parts.map((_, i) => parts.slice(0, i + 1).join("/"));
};

/** Execute `plan` on the workspace: every step succeeds and all changed files are written, or nothing changes. */
export function applyPlan(plan: Plan, options: ApplyOptions = {}): Effect.Effect<ApplyResult, ApplyError, Workspace> {
  return Effect.gen(function* () {
    const ws = yield* Workspace;
    const { dir: journalDir, path: journalPath } = yield* journalOf(ws, options);
    if (yield* ws.exists(journalPath)) return yield* new JournalPresent({ journal: journalPath });

    // 1. Check every path before reading any.
    const named = planFiles(plan);
    const existing = new Map<string, boolean>();
    for (const path of named) yield* checkPath(ws, path, journalDir, existing);
    const originals = new Map<string, Uint8Array>();
    const texts = new Map<string, string>();
    for (const path of named) {
      if (!existing.get(path)) continue; // the runner reports the step that needs it
      const bytes = yield* ws.readBytes(path);
      originals.set(path, bytes);
      texts.set(path, yield* decodeText(path, bytes));
    }

    // 2. Run the plan in memory.
    const steps = planParts(plan).steps;
    let runner = options.runPlan;
    if (!runner) {
      // runPlan is pure and synchronous: the grammars of the plan's files must be loaded first.
      // The plan's own paths too: a file it creates may be of a language no existing file has.
      yield* Effect.promise(() => loadGrammarsFor([...texts.keys(), ...named]));
      // Every tier runs by default: tier 1 surgery, tier 2 templates, tier 3 fragments.
      runner = (p, f) => runFormalPlan(p, f);
    }
    const outcome = runner(plan, texts);
    if (!outcome.ok && outcome.failedStep < 0) return yield* new PlanRejected({ cause: outcome.error });
    const missing = (file: unknown) =>
      typeof file === "string" && existing.get(file) === false
        ? new FileNotFound({ path: file, root: ws.root })
        : undefined;
    const reports = steps.map((step, index): StepReport => {
      const base = { step: index + 1, op: stepLabel(step) };
      if (outcome.ok || index < outcome.failedStep) return { ...base, status: "ok" };
      if (index > outcome.failedStep) return { ...base, status: "skipped" };
      return { ...base, status: "failed", error: stepFailed(base, step, outcome.error, missing) };
    });
    if (!outcome.ok) {
      const failure =
        reports[outcome.failedStep]?.error ??
        stepFailed({ step: outcome.failedStep + 1, op: "?" }, undefined, outcome.error, missing);
      return { ok: false as const, steps: reports, failure };
    }

    // 3. Commit the files whose text changed, the deletions (text null) and the modes that change.
    const changes: Array<{ path: string; text: string | null; executable?: boolean; wasExecutable?: boolean }> = [];
    for (const [path, text] of outcome.files) {
      if (texts.get(path) === text) continue;
      if (!existing.has(path)) {
        // A file the plan did not name (a runner's handler may write one): journal it like the others.
        yield* checkPath(ws, path, journalDir, existing);
        if (existing.get(path)) originals.set(path, yield* ws.readBytes(path));
      }
      changes.push({ path, text });
    }
    for (const path of outcome.deleted ?? []) if (originals.has(path)) changes.push({ path, text: null });
    const modes: Array<{ path: string; mode: "100644" | "100755" }> = [];
    for (const [path, mode] of outcome.modes ?? []) {
      const executable = mode === "100755";
      const was = originals.has(path) ? yield* ws.executable(path) : false;
      if (was === executable) continue;
      modes.push({ path, mode });
      const change = changes.find((c) => c.path === path);
      if (change) Object.assign(change, { executable, wasExecutable: was });
      else changes.push({ path, text: outcome.files.get(path) ?? "", executable, wasExecutable: was });
    }
    if (changes.length > 0) yield* commit(ws, changes, originals, journalDir, journalPath, options.onBeforeWrite);
    return {
      ok: true as const,
      steps: reports,
      written: changes.filter((c) => c.text !== null).map((c) => c.path),
      created: changes.filter((c) => c.text !== null && !originals.has(c.path)).map((c) => c.path),
      deleted: changes.filter((c) => c.text === null).map((c) => c.path),
      modes,
      originals: new Map(
        changes.flatMap((c) => (originals.has(c.path) ? [[c.path, originals.get(c.path)!] as const] : [])),
      ),
    };
  });
}

/** A file's new content for {@link writeFiles}: its bytes, or null to delete it. */
export interface FileWrite {
  readonly path: string;
  readonly bytes: Uint8Array | null;
  /** The file's executable bit after the write (left as it is when absent). */
  readonly executable?: boolean;
}

/**
 * Writes several files all or nothing, through the same journal as {@link applyPlan} (a crash is undone
 * by `recover`): each path confined to the root, its current bytes journaled, then the new bytes written
 * (or the file deleted). An undo of an apply writes the `originals` it returned this way.
 */
export function writeFiles(
  writes: ReadonlyArray<FileWrite>,
  options: Pick<ApplyOptions, "journalDir" | "onBeforeWrite"> = {},
): Effect.Effect<ReadonlyArray<string>, ApplyError, Workspace> {
  return Effect.gen(function* () {
    const ws = yield* Workspace;
    const { dir: journalDir, path: journalPath } = yield* journalOf(ws, options);
    if (yield* ws.exists(journalPath)) return yield* new JournalPresent({ journal: journalPath });
    const existing = new Map<string, boolean>();
    for (const { path } of writes) yield* checkPath(ws, path, journalDir, existing);
    const originals = new Map<string, Uint8Array>();
    const changes: Array<{
      path: string;
      text: string | Uint8Array | null;
      executable?: boolean;
      wasExecutable?: boolean;
    }> = [];
    for (const { path, bytes, executable } of writes) {
      const exists = existing.get(path) === true;
      if (exists) originals.set(path, yield* ws.readBytes(path));
      else if (bytes === null) continue; // deleting a file that is not there: nothing to do
      const mode =
        executable === undefined ? {} : { executable, wasExecutable: exists ? yield* ws.executable(path) : false };
      changes.push({ path, text: bytes, ...mode });
    }
    if (changes.length > 0) yield* commit(ws, changes, originals, journalDir, journalPath, options.onBeforeWrite);
    return changes.map((c) => c.path);
  });
}

/**
 * The runtime's report of a failed step. The primitives' `StepFailed` (what `runPlan` of
 * @graphplan/primitives gives) is unwrapped so the message is the primitive's, which
 * says what to fix, and its locator (which may carry more than the step's params) is kept. A runner's
 * `FileNotInPlan` for a file the plan names but the workspace lacks becomes the workspace's
 * `FileNotFound` (the runner only knows it was not given the file).
 */
function stepFailed(
  base: { step: number; op: string },
  step: Step | undefined,
  error: Error,
  missing: (file: unknown) => FileNotFound | undefined,
): StepFailed {
  let locator = step && stepLocator(step);
  let cause: StepCause = error;
  if (error instanceof PlanStepFailed) {
    if (error.locator !== undefined) locator = error.locator;
    cause = error.cause;
  }
  if (cause instanceof FileNotInPlan) cause = missing(cause.file) ?? cause;
  return new StepFailed({ ...base, locator, cause });
}

/** Confine `path`, refuse the journal directory and refuse two spellings of one file; record whether it exists. */
function checkPath(ws: WorkspaceShape, path: string, journalDir: string, existing: Map<string, boolean>) {
  return Effect.gen(function* () {
    const lexical = confine(path);
    if (!lexical.ok) return yield* new PathOutsideWorkspace({ path, root: ws.root, reason: lexical.reason });
    if (isWithin(lexical.path, journalDir)) return yield* new ReservedPath({ path, journalDir });
    for (const other of existing.keys()) {
      const o = confine(other);
      if (o.ok && o.path === lexical.path && other !== path) return yield* new AmbiguousPath({ path, other });
    }
    existing.set(path, yield* ws.exists(path));
  });
}

function commit(
  ws: WorkspaceShape,
  changes: ReadonlyArray<{
    path: string;
    text: string | Uint8Array | null;
    executable?: boolean;
    wasExecutable?: boolean;
  }>,
  originals: ReadonlyMap<string, Uint8Array>,
  journalDir: string,
  journalPath: string,
  onBeforeWrite: ApplyOptions["onBeforeWrite"],
) {
  return Effect.gen(function* () {
    // Directories the new files need, deepest first.
    const dirs: string[] = [];
    for (const { path } of changes) {
      if (originals.has(path)) continue;
      for (const dir of parentDirs(confineOrSelf(path)).reverse()) {
        if (dirs.includes(dir)) continue;
        if (yield* ws.exists(dir)) break;
        dirs.push(dir);
      }
    }
    dirs.sort((a, b) => b.split("/").length - a.split("/").length);
    const journal: Journal = {
      version: 1,
      files: changes.map(({ path, wasExecutable }) => {
        const original = originals.get(path);
        if (!original) return { path, created: true as const };
        return {
          path,
          original: toBase64(original),
          ...(wasExecutable !== undefined ? { executable: wasExecutable } : {}),
        };
      }),
      dirs,
    };
    // Files that die with the process need no journal: a crash leaves nothing to recover.
    const journaled = ws.ephemeral !== true;
    if (journaled) yield* ws.write(journalPath, JSON.stringify(journal));

    const written: string[] = [];
    const rollback = (failedPath: string, cause: unknown) =>
      Effect.gen(function* () {
        const undone = yield* Effect.result(
          Effect.gen(function* () {
            for (const path of written.reverse()) {
              const original = originals.get(path);
              const was = changes.find((c) => c.path === path)?.wasExecutable;
              if (original) yield* ws.writeBytes(path, original);
              else yield* ws.remove(path);
              if (original && was !== undefined) yield* ws.setExecutable(path, was);
            }
            for (const dir of dirs) yield* ws.remove(dir);
            if (!journaled) return;
            yield* ws.remove(journalPath);
            yield* ws.remove(journalDir); // only when empty
          }),
        );
        return yield* Result.isSuccess(undone)
          ? new CommitFailed({ path: failedPath, cause, rolledBack: true })
          : new CommitFailed({ path: failedPath, cause, rolledBack: false, rollbackError: undone.failure });
      });

    for (const [index, { path, text, executable }] of changes.entries()) {
      if (onBeforeWrite) yield* onBeforeWrite({ path, index, total: changes.length });
      // A deletion is journaled with the file's original, so recovery and rollback write it back.
      const wrote = yield* Effect.result(
        text === null
          ? Effect.asVoid(ws.remove(path))
          : Effect.andThen(
              typeof text === "string" ? ws.write(path, text) : ws.writeBytes(path, text),
              executable === undefined ? Effect.void : ws.setExecutable(path, executable),
            ),
      );
      if (Result.isFailure(wrote)) return yield* rollback(path, wrote.failure);
      written.push(path);
    }
    if (!journaled) return;
    // The commit point.
    const removed = yield* Effect.result(ws.remove(journalPath));
    if (Result.isFailure(removed)) return yield* rollback(journalPath, removed.failure);
    yield* Effect.ignore(ws.remove(journalDir)); // only when empty
  }).pipe(Effect.uninterruptible);
}

const confineOrSelf = (path: string): string => {
  const lexical = confine(path);
  return lexical.ok ? lexical.path : path;
};

/**
 * Undo an interrupted apply: if the journal exists, put every file it names back to its original bytes,
 * delete the files the apply created (and directories it created, when empty), delete leftover temporary
 * files and the journal. Safe to run at any time and to re-run after being interrupted itself.
 */
export function recover(options: RecoverOptions = {}): Effect.Effect<RecoverReport, RecoverError, Workspace> {
  return Effect.gen(function* () {
    const ws = yield* Workspace;
    const { dir: journalDir, path: journalPath } = yield* journalOf(ws, options);
    const tempFiles: string[] = [];
    const removeTemps = (path: string) =>
      Effect.gen(function* () {
        const slash = path.lastIndexOf("/");
        const dir = slash < 0 ? "." : path.slice(0, slash);
        if (!(yield* ws.exists(dir))) return;
        const prefix = `${path.slice(slash + 1)}${TEMP_MARKER}`;
        for (const entry of yield* ws.list(dir))
          if (entry.kind === "file" && entry.name.startsWith(prefix) && (yield* ws.remove(entry.path)))
            tempFiles.push(entry.path);
      });

    yield* removeTemps(journalPath);
    if (!(yield* ws.exists(journalPath))) {
      yield* ws.remove(journalDir); // only when empty (e.g. killed while writing the journal)
      return { interrupted: false, restored: [], removed: [], tempFiles };
    }

    const raw = yield* ws
      .read(journalPath)
      .pipe(
        Effect.catchTag("NotUtf8Text", () =>
          Effect.fail(new JournalCorrupt({ journal: journalPath, detail: "it is not UTF-8 text" })),
        ),
      );
    const journal = yield* Effect.try({
      try: () => JournalSchema.parse(JSON.parse(raw)),
      catch: (error) => new JournalCorrupt({ journal: journalPath, detail: errorText(error).split("\n")[0] ?? "" }),
    });
    const restored: string[] = [];
    const removed: string[] = [];
    for (const entry of journal.files) {
      if ("created" in entry) {
        if (yield* ws.remove(entry.path)) removed.push(entry.path);
      } else {
        const original = fromBase64(entry.original);
        const current = yield* Effect.result(ws.readBytes(entry.path));
        let restore = !Result.isSuccess(current) || !sameBytes(current.success, original);
        if (restore) yield* ws.writeBytes(entry.path, original);
        if (entry.executable !== undefined && (yield* ws.executable(entry.path)) !== entry.executable) {
          yield* ws.setExecutable(entry.path, entry.executable);
          restore = true;
        }
        if (restore) restored.push(entry.path);
      }
      yield* removeTemps(entry.path);
    }
    for (const dir of journal.dirs) yield* ws.remove(dir);
    yield* ws.remove(journalPath);
    yield* ws.remove(journalDir); // only when empty
    return { interrupted: true, restored, removed, tempFiles };
  });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

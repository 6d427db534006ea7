/**
 * The in-memory copy of the workspace that verification runs the plan on: a `PlanSession` of
 * @graphplan/primitives (the same step execution `runPlan` uses, on one incrementally re-parsed
 * tree per file), seen through {@link FileVersion}s that add a line index and a per-version memo for the
 * verifier's analyses. Each step's changes come back with their edits and tree-sitter's changed
 * ranges (which `containment` compares); nothing is parsed twice.
 */
import { detectFileLanguage, type LanguageId } from "@graphplan/graph";
import {
  lineStartsOf,
  PlanSession,
  type CodeChange,
  type ErrorSpan,
  type ParsedDoc,
  type SessionOptions,
  type Step,
  type TextChange,
} from "@graphplan/primitives";
import type { Point, Range, Tree } from "web-tree-sitter";

/** One version of one file: its text, its tree (the session's) and a line index. */
export class FileVersion {
  #lineStarts: readonly number[] | undefined;
  /** Per-version memo for analyses (module scope, definitions) keyed by the analysis name. */
  readonly memo = new Map<string, unknown>();

  constructor(
    readonly path: string,
    readonly language: LanguageId,
    readonly source: string,
    readonly tree: Tree,
  ) {}

  /** Offsets of the line starts (carried by the primitives from one version to the next). */
  get lineStarts(): readonly number[] {
    return (this.#lineStarts ??= lineStartsOf(this.tree, this.source));
  }

  get lineCount(): number {
    const starts = this.lineStarts;
    return this.source.endsWith("\n") ? starts.length - 1 : starts.length;
  }

  /** 1-based line of a string offset. */
  lineOf(index: number): number {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= index) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  position(index: number): Point {
    const row = this.lineOf(index) - 1;
    return { row, column: index - (this.lineStarts[row] ?? 0) };
  }

  /** Offset of the start of a 1-based line (the end of the text past the last line). */
  lineStart(line: number): number {
    return this.lineStarts[line - 1] ?? this.source.length;
  }
}

/**
 * What one step did to one file: primitives' {@link CodeChange} (its sorted edits in `before` coordinates,
 * tree-sitter's changed ranges, the ERROR/MISSING nodes of both versions, a file operation's `existence`) with
 * its versions seen as {@link FileVersion}s. The verifier keeps it ({@link Sim.commit}) or drops it ({@link Sim.rollback}).
 */
export interface FileChange
  extends Pick<CodeChange, "edits" | "changedRanges" | "errorsBefore" | "errorsAfter" | "existence"> {
  readonly before: FileVersion;
  readonly after: FileVersion;
}

/** What one step did to a file with no grammar (docs, changelogs, config): primitives' {@link TextChange}, text only, always kept. */
export interface TextFileChange extends Pick<TextChange, "edits" | "existence"> {
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

/** The files of the workspace as the plan leaves them so far. */
export class Sim {
  readonly #session: PlanSession;
  /** The FileVersion of each file's current version (the same object from one step to the next). */
  readonly #docs = new Map<string, FileVersion>();
  /** Files whose change of the pending step is kept. */
  readonly #keep = new Set<string>();
  /** Files some step changed, in the order first changed. */
  readonly touched = new Set<string>();
  /** The running step's changes of files with no grammar (kept with the step; see {@link runStep}). */
  textChanges: readonly TextFileChange[] = [];

  /** The repository's paths by directory, when the workspace holds only some of its files (see `VerifyOptions.repoPaths`). */
  readonly #listed = new Map<string, string[]>();
  readonly #listedPaths: ReadonlySet<string>;

  /** `options`: the handlers and custom operators steps may use (see `PlanSession`). Throws `OperatorRedefined`. */
  constructor(workspace: ReadonlyMap<string, string>, options: SessionOptions = {}, listed: Iterable<string> = []) {
    this.#session = new PlanSession(workspace, options);
    this.#listedPaths = new Set(listed);
    for (const path of this.#listedPaths) {
      const dir = path.slice(0, Math.max(0, path.lastIndexOf("/")));
      const inDir = this.#listed.get(dir);
      if (inDir) inDir.push(path);
      else this.#listed.set(dir, [path]);
    }
  }

  /** Whether the repository has `path` although the workspace was not given it (and no step deleted it). */
  unseen(path: string): boolean {
    return this.#listedPaths.has(path) && !this.#session.has(path) && this.#session.deletedBy(path) === undefined;
  }

  /**
   * Whether the repository has files ending with `extension` directly in `dir` that the workspace was
   * not given: what they declare is unknown, so a name they may define is not reported as missing.
   */
  unseenIn(dir: string, extension: string): boolean {
    return (this.#listed.get(dir) ?? []).some((path) => path.endsWith(extension) && this.unseen(path));
  }

  has(path: string): boolean {
    return this.#session.has(path);
  }

  /** The step (0-based) that deleted the file or renamed it away, if one did. */
  deletedBy(path: string): number | undefined {
    return this.#session.deletedBy(path);
  }

  /** Paths of every file in the workspace. */
  paths(): Iterable<string> {
    return this.#session.paths();
  }

  /** Current text of a file, without parsing it. */
  text(path: string): string | undefined {
    return this.#docs.get(path)?.source ?? this.#session.text(path);
  }

  /**
   * The one FileVersion of a parsed version. A file's current version is wrapped once and kept
   * (`current`): a step's `before` is then the very object later reads get from {@link doc}, so
   * {@link commit} can tell a change made on the current version from a stale one. (A step whose
   * file no check had read before it ran used to get a throwaway wrapper, a check after the run a
   * second one, and the commit refused its own step as stale.)
   */
  #wrap(parsed: ParsedDoc, current = false): FileVersion {
    const known = this.#docs.get(parsed.path);
    if (known && known.tree === parsed.tree) return known;
    const doc = new FileVersion(parsed.path, parsed.language, parsed.source, parsed.tree);
    if (current && !known) this.#docs.set(parsed.path, doc);
    return doc;
  }

  /** The current version of a file, parsed on first use; undefined when absent or of an unknown language. */
  doc(path: string): FileVersion | undefined {
    const known = this.#docs.get(path);
    if (known) return known;
    if (!this.#session.has(path) || !detectFileLanguage(path, this.#session.text(path) ?? "")) return undefined;
    return this.#wrap(this.#session.parsed(path), true);
  }

  /** All current file texts. */
  files(): Map<string, string> {
    const out = this.#session.files();
    for (const [path, doc] of this.#docs) out.set(path, doc.source);
    return out;
  }

  /**
   * Runs one plan step (numbered `index`) on the current versions. Returns one change per file it
   * changed; the caller keeps each ({@link commit}) or drops it ({@link rollback}), then calls
   * {@link endStep}. Throws the tagged error of the operator that failed (nothing is kept).
   */
  runStep(step: Step, index: number): FileChange[] {
    this.endStep();
    const result = this.#session.run(step, index);
    if (!result.ok) throw result.error.cause;
    // Files with no grammar have no code checks: their changes are kept as they are (the step's
    // own postconditions judged them), and reported through `textChanges`.
    const text: TextFileChange[] = [];
    for (const change of result.changes) {
      if (change.kind !== "text") continue;
      text.push({
        path: change.file,
        before: change.before.source,
        after: change.after.source,
        edits: change.edits,
        ...(change.existence ? { existence: change.existence } : {}),
      });
      this.#keep.add(change.file);
      this.touched.add(change.file);
    }
    this.textChanges = text;
    return result.changes.flatMap((change) =>
      change.kind !== "code"
        ? []
        : [
            {
              // A created file's `before` is empty and not a version of the workspace: not kept.
              before: this.#wrap(change.before, change.existence !== "created"),
              after: new FileVersion(change.file, change.language, change.after.source, change.after.tree),
              edits: change.edits,
              changedRanges: change.changedRanges,
              errorsBefore: change.errorsBefore,
              errorsAfter: change.errorsAfter,
              ...(change.existence ? { existence: change.existence } : {}),
            },
          ],
    );
  }

  /** Keeps a change of the running step: later reads see the file after it. */
  commit(change: FileChange): void {
    if (this.#docs.get(change.before.path) && this.#docs.get(change.before.path) !== change.before)
      throw new Error(`stale change for ${change.before.path}`);
    this.#keep.add(change.after.path);
    if (change.existence === "deleted") this.#docs.delete(change.after.path);
    else this.#docs.set(change.after.path, change.after);
    this.touched.add(change.after.path);
  }

  /** Drops a change of the running step (its file stays as it was). */
  rollback(change: FileChange): void {
    this.#keep.delete(change.after.path);
    if (this.#docs.get(change.after.path) === change.after) this.#docs.set(change.before.path, change.before);
  }

  /** Ends the running step: the kept changes become current, the others are freed. */
  endStep(): void {
    this.textChanges = [];
    if (!this.#session.pending) return;
    this.#session.commit(this.#keep);
    this.#keep.clear();
  }

  dispose(): void {
    this.#session.dispose();
    this.#docs.clear();
  }
}

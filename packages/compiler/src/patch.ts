/**
 * Unified diffs, through jsdiff: which files a gold patch touches, its post-image computed in
 * memory from the pre-image, the bytes it changes, and the `diff --git` patch of an execution.
 */
import { TaggedError } from "@graphplan/graph";
import { applyPatch, formatPatch, parsePatch, type StructuredPatch, structuredPatch } from "diff";

/** The patch could not be read, or does not apply to the pre-image. */
export class PatchError extends TaggedError("PatchError") {
  constructor(
    readonly file: string | undefined,
    readonly reason: string,
  ) {
    super(file ? `${file}: ${reason}` : reason);
  }
}

export interface FilePatch {
  /** Path before the change (`undefined` for a created file). */
  readonly oldPath: string | undefined;
  /** Path after the change (`undefined` for a deleted file). */
  readonly newPath: string | undefined;
  readonly patch: StructuredPatch;
  /** The mode the change gives the file, when it sets one: a mode change, or a new executable file. */
  readonly mode?: "100644" | "100755";
}

const MODES: ReadonlySet<string> = new Set(["100644", "100755"]);

function stripPrefix(name: string | undefined, prefix: "a/" | "b/"): string | undefined {
  if (name === undefined || name === "/dev/null") return undefined;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

/** The files of a unified diff, with `a/` and `b/` prefixes removed. */
export function parseUnifiedDiff(diff: string): FilePatch[] {
  // `git show` and `git format-patch` put the commit's header and message first: the diff starts at its first `diff --git`.
  const first = diff.startsWith("diff --git ") ? 0 : diff.indexOf("\ndiff --git ") + 1;
  if (first > 0) diff = diff.slice(first);
  let parsed: StructuredPatch[];
  try {
    parsed = parsePatch(diff);
  } catch (error) {
    throw new PatchError(undefined, `the patch is not a unified diff: ${(error as Error).message}`);
  }
  const modeChange = (p: StructuredPatch): boolean =>
    p.newMode !== undefined &&
    (p.isCreate ? p.newMode !== "100644" : p.oldMode !== undefined && p.oldMode !== p.newMode);
  const files: FilePatch[] = parsed
    .filter((p) => p.hunks.length > 0 || p.isCreate || p.isDelete || p.isRename || modeChange(p))
    .map((patch) => ({
      oldPath: patch.isCreate ? undefined : stripPrefix(patch.oldFileName, "a/"),
      newPath: patch.isDelete ? undefined : stripPrefix(patch.newFileName, "b/"),
      patch,
      ...(modeChange(patch) && !patch.isDelete ? { mode: patch.newMode as "100644" | "100755" } : {}),
    }));
  for (const file of files) {
    const mode = file.patch.newMode ?? file.patch.oldMode;
    if (mode !== undefined && !MODES.has(mode)) {
      throw new PatchError(
        file.newPath ?? file.oldPath,
        `mode ${mode} is not a regular file's (a symlink or a submodule): a plan changes regular files only`,
      );
    }
  }
  if (files.length === 0) throw new PatchError(undefined, "the patch changes no file");
  for (const file of files) {
    if (file.patch.isBinary) throw new PatchError(file.oldPath ?? file.newPath, "binary patches are not supported");
  }
  return files;
}

/** Paths whose pre-image is needed to apply the diff. */
export function preImagePaths(files: readonly FilePatch[]): string[] {
  return files.flatMap((f) => (f.oldPath ? [f.oldPath] : []));
}

/**
 * Applies the diff in memory. `pre` holds the pre-image of every path the diff reads; the result
 * holds the post-image of every path it writes (`null` for a deleted file).
 */
export function postImages(files: readonly FilePatch[], pre: ReadonlyMap<string, string>): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const file of files) {
    const path = (file.newPath ?? file.oldPath)!;
    if (!file.newPath) {
      out.set(path, null);
      continue;
    }
    // A rename leaves nothing at the old path.
    if (file.oldPath && file.oldPath !== file.newPath) out.set(file.oldPath, null);
    const source = file.oldPath ? pre.get(file.oldPath) : "";
    if (source === undefined) throw new PatchError(path, "no pre-image");
    const result = applyPatch(source, file.patch, { autoConvertLineEndings: false });
    if (result === false) throw new PatchError(path, "the patch does not apply to the pre-image");
    out.set(path, result);
  }
  return out;
}

/**
 * Bytes a diff changes: the length of every removed and every added line, newline included
 * (UTF-16 code units, the unit of the engine's edits).
 */
export function changedBytes(files: readonly FilePatch[]): number {
  let total = 0;
  for (const file of files)
    for (const hunk of file.patch.hunks)
      for (const line of hunk.lines) if (line[0] === "+" || line[0] === "-") total += line.length; // sign ≙ newline
  return total;
}

/** A file's mode before and after a change (git's `100644` / `100755`). */
export interface ModeChange {
  readonly from: string;
  readonly to: string;
}

/**
 * A `git apply`-able patch from `before` to `after` (every path in either map; `null` or absent =
 * the file does not exist on that side), with `diff --git a/.. b/..` headers and 3 lines of context;
 * `modes` adds the mode changes (`old mode`/`new mode`, or a new file's mode).
 */
export function gitDiff(
  before: ReadonlyMap<string, string | null>,
  after: ReadonlyMap<string, string | null>,
  modes: ReadonlyMap<string, ModeChange> = new Map(),
): string {
  const paths = [...new Set([...before.keys(), ...after.keys(), ...modes.keys()])].sort();
  const patches: StructuredPatch[] = [];
  for (const path of paths) {
    const oldText = before.get(path) ?? null;
    const newText = after.get(path) ?? null;
    const mode = modes.get(path);
    const modeChanged = mode !== undefined && mode.from !== mode.to && newText !== null;
    if (oldText === newText && !modeChanged) continue;
    const patch = structuredPatch(
      oldText === null ? "/dev/null" : `a/${path}`,
      newText === null ? "/dev/null" : `b/${path}`,
      oldText ?? "",
      newText ?? "",
      undefined,
      undefined,
      { context: 3 },
    );
    if (patch.hunks.length === 0 && !modeChanged) continue;
    patches.push({
      ...patch,
      ...(modeChanged && oldText === newText ? { oldFileName: `a/${path}`, newFileName: `b/${path}` } : {}),
      isGit: true,
      ...(oldText === null
        ? { isCreate: true, newMode: mode?.to ?? "100644" }
        : modeChanged
          ? { oldMode: mode.from, newMode: mode.to }
          : {}),
      ...(newText === null ? { isDelete: true, oldMode: mode?.from ?? "100644" } : {}),
    });
  }
  return patches.map((patch) => formatPatch(patch)).join("");
}

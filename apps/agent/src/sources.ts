/**
 * The effectful side of `graphplan graph`: turning the paths on the command line into
 * `{path, source}` pairs. Directories are walked by the runtime's `findSourceFiles`.
 */
import { readFile, stat } from "node:fs/promises";
import * as Data from "effect/Data";
import { posix } from "node:path";
import { findSourceFiles, SKIPPED_DIRECTORIES } from "@graphplan/runtime";
import { DOCUMENT_EXTENSIONS, SUPPORTED_EXTENSIONS, type SourceFile } from "@graphplan/graph";

/** A path on the command line that does not exist. */
export class PathNotFound extends Data.TaggedError("PathNotFound")<{ readonly path: string }> {
  override get message(): string {
    return `no such file or directory: ${this.path}`;
  }
}

/** Nothing could be read: the paths hold no supported source file, or none was readable. */
export class NoSourceFiles extends Data.TaggedError("NoSourceFiles")<{
  readonly paths: readonly string[];
  readonly errors: readonly string[];
}> {
  override get message(): string {
    const errors = this.errors;
    return errors.length
      ? `no file could be read (${errors[0]}${errors.length > 1 ? `, and ${errors.length - 1} more` : ""})`
      : `no supported source files in ${this.paths.join(" ")} (GraphPlan reads ${SUPPORTED_EXTENSIONS.join(" ")})`;
  }
}

/** The errors of `readSources`: bad input, told on one line with exit code 2. */
export type SourcesError = PathNotFound | NoSourceFiles;

/** True for the errors of `readSources` (as opposed to a bug). */
export const isSourcesError = (error: unknown): error is SourcesError =>
  error instanceof PathNotFound || error instanceof NoSourceFiles;

export interface Sources {
  readonly files: SourceFile[];
  /** One entry per file that exists but could not be read. */
  readonly errors: string[];
}

export { SKIPPED_DIRECTORIES };

/** The supported source files and documents (data files, Markdown, reST) under `dir`, as `dir/relative/path`, sorted. */
export async function walk(dir: string): Promise<string[]> {
  return (await findSourceFiles(dir, [...SUPPORTED_EXTENSIONS, ...DOCUMENT_EXTENSIONS])).map((relative) =>
    posix.join(dir, relative),
  );
}

/**
 * Reads the files named by `paths` (files are taken whatever their extension; directories are
 * walked). Throws `PathNotFound` for a path that does not exist and `NoSourceFiles` when nothing
 * was read; a file that exists but cannot be read becomes an entry in `errors`.
 */
export async function readSources(paths: readonly string[]): Promise<Sources> {
  const names: string[] = [];
  for (const path of paths) {
    const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ENOTDIR") throw new PathNotFound({ path });
      return undefined; // exists but cannot be inspected: reading it will report why
    });
    if (info?.isDirectory()) names.push(...(await walk(path)));
    else names.push(path);
  }
  const files: SourceFile[] = [];
  const errors: string[] = [];
  for (const path of new Set(names)) {
    try {
      files.push({ path, source: await readFile(path, "utf8") });
    } catch (error) {
      const { code, message } = error as NodeJS.ErrnoException;
      errors.push(`Cannot read ${path}: ${code ?? message}`);
    }
  }
  if (files.length === 0) throw new NoSourceFiles({ paths, errors });
  return { files, errors };
}

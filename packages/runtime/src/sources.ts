/** Finding the source files GraphPlan reads under a directory (tinyglobby does the walk). */
import { posix } from "node:path";
import { glob } from "tinyglobby";
import { SUPPORTED_EXTENSIONS } from "@graphplan/graph";

/** Directories that are never walked. */
export const SKIPPED_DIRECTORIES = ["node_modules", ".git"] as const;

const globOf = (extensions: readonly string[]): string => `**/*.{${extensions.map((ext) => ext.slice(1)).join(",")}}`;

/**
 * The supported source files under `dir` (any extension of `extensions`, by default `SUPPORTED_EXTENSIONS`, case-insensitive),
 * as paths relative to `dir`, sorted; hidden directories are walked, `SKIPPED_DIRECTORIES` and
 * directory symlinks are not.
 */
export async function findSourceFiles(
  dir: string,
  extensions: readonly string[] = SUPPORTED_EXTENSIONS,
): Promise<string[]> {
  const found = await glob(globOf(extensions), {
    cwd: dir,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    caseSensitiveMatch: false,
    expandDirectories: false,
    ignore: SKIPPED_DIRECTORIES.map((name) => `**/${name}/**`),
  });
  return found.sort().map((relative) => posix.normalize(relative));
}

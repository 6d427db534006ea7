/** The benchmark's input: every supported source file under a directory, read into memory. */
import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import { glob } from "tinyglobby";
import { SUPPORTED_EXTENSIONS, type SourceFile } from "@graphplan/graph";

export async function readTree(dir: string): Promise<SourceFile[]> {
  const found = await glob(`**/*.{${SUPPORTED_EXTENSIONS.map((ext) => ext.slice(1)).join(",")}}`, {
    cwd: dir,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    caseSensitiveMatch: false,
    expandDirectories: false,
    ignore: ["**/node_modules/**", "**/.git/**"],
  });
  found.sort();
  const files: SourceFile[] = [];
  for (const relative of found) {
    files.push({ path: relative, source: await readFile(posix.join(dir, relative), "utf8") });
  }
  return files;
}

/** Size in bytes as UTF-8, as on disk. */
export const bytesOf = (files: readonly SourceFile[]): number =>
  files.reduce((sum, file) => sum + Buffer.byteLength(file.source, "utf8"), 0);

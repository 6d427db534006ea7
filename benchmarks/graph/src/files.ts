/** The benchmark's input: every supported source file under a directory, read into memory. */
import { readFile } from "node:fs/promises";
import { posix } from "node:path";
import { findSourceFiles } from "@graphplan/runtime";
import type { SourceFile } from "@graphplan/graph";

export async function readTree(dir: string): Promise<SourceFile[]> {
  const found = await findSourceFiles(dir);
  const files: SourceFile[] = [];
  for (const relative of found) {
    files.push({ path: relative, source: await readFile(posix.join(dir, relative), "utf8") });
  }
  return files;
}

/** Size in bytes as UTF-8, as on disk. */
export const bytesOf = (files: readonly SourceFile[]): number =>
  files.reduce((sum, file) => sum + Buffer.byteLength(file.source, "utf8"), 0);

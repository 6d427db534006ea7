/**
 * Hand-written sample files, one per language the graph supports (`sample.py`, `Sample.java`,
 * ...): classes, functions, methods, imports and control flow for locators and primitives to work on.
 */
import { readdirSync, readFileSync } from "node:fs";

/** The directory holding the samples. */
export const SAMPLES_DIR = new URL("./samples/", import.meta.url);

/** The samples' file names, sorted. */
export const SAMPLE_FILES: readonly string[] = readdirSync(SAMPLES_DIR).sort();

/** The text of one sample, e.g. `sample("sample.py")`. */
export function sample(file: string): string {
  return readFileSync(new URL(file, SAMPLES_DIR), "utf8");
}

/**
 * The dataset: any JSONL whose lines carry SWE-bench's `repo`, `instance_id`, `base_commit` and
 * `patch` (other fields are kept and ignored). A line that is not JSON or misses a field is
 * reported for that line; the other lines are still read.
 */
import { readFile } from "node:fs/promises";
import { z } from "zod";

export const DatasetInstanceSchema = z.looseObject({
  repo: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "repo is `owner/name`")
    .describe("GitHub repository, owner/name"),
  instance_id: z.string().min(1).describe("Unique id of the instance, e.g. django__django-11099"),
  base_commit: z
    .string()
    .regex(/^[0-9a-f]{7,40}$/i, "base_commit is a hexadecimal commit id")
    .describe("The commit the patch applies to"),
  patch: z.string().min(1).describe("The gold patch: a unified diff with `diff --git` headers"),
});
export type DatasetInstance = z.infer<typeof DatasetInstanceSchema>;

/** One line of the dataset file: an instance, or why the line could not be read. */
export type DatasetLine =
  | { readonly ok: true; readonly line: number; readonly instance: DatasetInstance }
  | { readonly ok: false; readonly line: number; readonly instanceId: string | undefined; readonly error: string };

/** One non-blank line of a JSONL file checked against a schema: its value, or why it is not one. */
export type JsonLine<T> =
  | { readonly ok: true; readonly line: number; readonly value: T }
  | { readonly ok: false; readonly line: number; readonly instanceId: string | undefined; readonly error: string };

/**
 * JSONL text against `schema`, line by line (1-based `line`; blank lines skipped): a line that is
 * not JSON or does not match says so (`what` names the expected record, e.g. "dataset instance"),
 * with its `instance_id` when it has one. The other lines are still read.
 */
export function parseJsonLines<T>(text: string, schema: z.ZodType<T>, what: string): JsonLine<T>[] {
  const out: JsonLine<T>[] = [];
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      out.push({
        ok: false,
        line,
        instanceId: undefined,
        error: `line ${line} is not JSON: ${(error as Error).message}`,
      });
      return;
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) {
      out.push({ ok: true, line, value: parsed.data });
      return;
    }
    const id =
      value && typeof value === "object" && typeof (value as { instance_id?: unknown }).instance_id === "string"
        ? (value as { instance_id: string }).instance_id
        : undefined;
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "(line)"}: ${issue.message}`)
      .join("; ");
    out.push({ ok: false, line, instanceId: id, error: `line ${line} is not a ${what}: ${issues}` });
  });
  return out;
}

/** Parses JSONL text; blank lines are skipped, every other line gives one entry (1-based `line`). */
export function parseDataset(text: string): DatasetLine[] {
  return parseJsonLines(text, DatasetInstanceSchema, "dataset instance").map((entry) =>
    entry.ok ? { ok: true, line: entry.line, instance: entry.value } : entry,
  );
}

export async function readDataset(path: string): Promise<DatasetLine[]> {
  return parseDataset(await readFile(path, "utf8"));
}

/** `owner/name` → the directory name used under `--repos DIR`: `owner__name`. */
export function repoDirName(repo: string): string {
  return repo.replace("/", "__");
}

/**
 * The predictions `bench eval` grades, in any of the forms SWE-bench's harness reads: JSONL (what
 * `bench agent` writes), a JSON list, or a JSON object keyed by instance_id (mini-swe-agent's
 * `preds.json`). `model_patch` may be null or missing (graded as an empty patch, as the harness does).
 */
import { readFile } from "node:fs/promises";
import * as Data from "effect/Data";
import { z } from "zod";

export const EvalPredictionSchema = z.looseObject({
  instance_id: z.string().min(1, "instance_id is empty"),
  model_name_or_path: z.string().min(1, "model_name_or_path is empty"),
  model_patch: z
    .string()
    .nullish()
    .transform((patch) => patch ?? null),
});
export type EvalPrediction = z.infer<typeof EvalPredictionSchema>;

/** The predictions file cannot be used as it is. */
export class PredictionsInvalid extends Data.TaggedError("PredictionsInvalid")<{
  readonly path: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `--preds ${this.path}: ${this.detail}`;
  }
}

const describeIssues = (error: z.ZodError) =>
  error.issues.map((issue) => `${issue.path.join(".") || "(value)"}: ${issue.message}`).join("; ");

/** Parses the text of a predictions file (JSONL, a JSON list, or a JSON object keyed by instance_id), in file order. */
export function parsePredictions(path: string, text: string): EvalPrediction[] {
  const invalid = (detail: string) => new PredictionsInvalid({ path, detail });
  const trimmed = text.trimStart();
  let records: { where: string; value: unknown }[];
  if (trimmed.startsWith("[") || (trimmed.startsWith("{") && !isJsonLines(trimmed))) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw invalid(
        `not JSON (${(error as Error).message}); give JSONL (one prediction a line), a JSON list, or a JSON object keyed by instance_id`,
      );
    }
    records = Array.isArray(value)
      ? value.map((v, i) => ({ where: `item ${i}`, value: v }))
      : Object.entries(value as Record<string, unknown>).map(([key, v]) => ({
          where: `key ${JSON.stringify(key)}`,
          value: v,
        }));
  } else {
    records = [];
    text.split("\n").forEach((raw, i) => {
      if (raw.trim() === "") return;
      try {
        records.push({ where: `line ${i + 1}`, value: JSON.parse(raw) });
      } catch (error) {
        throw invalid(`line ${i + 1} is not JSON (${(error as Error).message})`);
      }
    });
  }
  const seen = new Set<string>();
  return records.map(({ where, value }) => {
    const parsed = EvalPredictionSchema.safeParse(value);
    if (!parsed.success)
      throw invalid(
        `${where} is not a prediction {instance_id, model_name_or_path, model_patch}: ${describeIssues(parsed.error)}`,
      );
    if (seen.has(parsed.data.instance_id))
      throw invalid(`${where}: instance ${parsed.data.instance_id} has a second prediction; keep one per instance`);
    seen.add(parsed.data.instance_id);
    return parsed.data;
  });
}

/** A `{...}` file whose first line is a whole JSON object is JSONL, not one object spread over lines. */
function isJsonLines(text: string): boolean {
  const first = text.split("\n", 1)[0]!;
  try {
    const value = JSON.parse(first) as unknown;
    return typeof value === "object" && value !== null && "instance_id" in value;
  } catch {
    return false;
  }
}

export async function loadPredictions(path: string): Promise<EvalPrediction[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PredictionsInvalid({
      path,
      detail:
        code === "ENOENT" ? "no such file; give the preds.jsonl that `bench agent` wrote" : (error as Error).message,
    });
  }
  const predictions = parsePredictions(path, text);
  if (predictions.length === 0) throw new PredictionsInvalid({ path, detail: "holds no prediction" });
  return predictions;
}

/** The directory name the harness gives a model's logs: `/` → `__`. */
export const modelDirName = (model: string): string => model.replaceAll("/", "__");

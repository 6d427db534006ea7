/**
 * `preds.jsonl`: SWE-bench's prediction format, one JSON object per line:
 * `{"instance_id", "model_name_or_path", "model_patch"}`, and after them GraphPlan's `usage` (the instance's calls,
 * dollars and tokens; the SWE-bench harness and sb-cli take only their three fields). Each finished instance is appended as one
 * whole line (a single write); at the start and at the end of a run the file is rewritten (a
 * temporary file renamed over it) with one line per instance, the last one written winning.
 */
import { appendFile, readFile, rename, writeFile } from "node:fs/promises";
import { UsageFiguresSchema } from "@graphplan/viewer";
import { z } from "zod";

export const PredictionSchema = z.object({
  instance_id: z.string().min(1),
  model_name_or_path: z.string(),
  /** The submitted patch; empty when the agent ended without one. */
  model_patch: z.string(),
  /** What the instance's run spent (absent in lines written before it was recorded). */
  usage: UsageFiguresSchema.optional(),
});
export type Prediction = z.infer<typeof PredictionSchema>;

export interface ReadPredictions {
  /** By instance id, in file order; a later line for an id replaces the earlier one. */
  readonly predictions: Map<string, Prediction>;
  /** Lines that are not a prediction (e.g. cut short by a crash), 1-based. */
  readonly badLines: number[];
}

/** The predictions in `path`; a missing file has none. */
export async function readPredictions(path: string): Promise<ReadPredictions> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { predictions: new Map(), badLines: [] };
    throw error;
  }
  const predictions = new Map<string, Prediction>();
  const badLines: number[] = [];
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      badLines.push(i + 1);
      return;
    }
    const parsed = PredictionSchema.safeParse(value);
    if (parsed.success) predictions.set(parsed.data.instance_id, parsed.data);
    else badLines.push(i + 1);
  });
  return { predictions, badLines };
}

/** The harness's fields first, in its order, then GraphPlan's. */
const line = (p: Prediction): string =>
  `${JSON.stringify({
    instance_id: p.instance_id,
    model_name_or_path: p.model_name_or_path,
    model_patch: p.model_patch,
    ...(p.usage ? { usage: p.usage } : {}),
  })}\n`;

/** Appends one prediction as one line, in one write. */
export async function appendPrediction(path: string, prediction: Prediction): Promise<void> {
  await appendFile(path, line(prediction));
}

/** Replaces the file with these predictions, one line each (written to a temporary file, then renamed). */
export async function writePredictions(path: string, predictions: Iterable<Prediction>): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, [...predictions].map(line).join(""));
  await rename(temp, path);
}

/**
 * What the verifier reports: structured issues, and the strings the seed's JSON carries.
 * Every issue names the step, the op, what was wrong and how to fix it; an LLM revising its
 * plan reads exactly these.
 */
import { z } from "zod";

/** The seed's verification layers. `plan` is the plan-integrity gate that runs before any step. */
export const LAYERS = ["plan", "0", "0b", "1", "2", "3", "4", "5", "6", "hierarchy"] as const;
export const LayerSchema = z.enum(LAYERS);
export type Layer = z.infer<typeof LayerSchema>;

/** The formal-transforms verification hierarchy (L5 is the preflight syntax layer, reported as layer 5). */
export const LEVELS = ["L1", "L2", "L3", "L4", "L6"] as const;
export const LevelSchema = z.enum(LEVELS);
export type Level = z.infer<typeof LevelSchema>;

export const SeveritySchema = z.enum(["error", "warning"]);
export type Severity = z.infer<typeof SeveritySchema>;

export const IssueSchema = z.object({
  /**
   * Index of the step in the plan array (0-based: `plan[step]`); null for plan-wide issues.
   * Rendered messages number steps from 1 (`Step 1` is `plan[0]`), as `graphplan apply` does.
   */
  step: z.number().int().nonnegative().nullable(),
  /** The step's op, template name or `fragment`; `plan` for plan-wide issues. */
  op: z.string(),
  layer: LayerSchema,
  level: LevelSchema.optional(),
  severity: SeveritySchema,
  /** What was wrong. */
  message: z.string(),
  /** How to fix it. */
  fix: z.string(),
  file: z.string().optional(),
  /** 1-based line in the file as it is when the step runs (after the earlier steps). */
  line: z.number().int().positive().optional(),
});
export type Issue = z.infer<typeof IssueSchema>;

/**
 * The code one step changed in the simulation, where its locators led: the whole lines it touched in
 * one file, as they were before the step and as the step left them (each cut at {@link PLACE_LINES}
 * lines). A step that changed several files has one place per file.
 */
export const StepPlaceSchema = z.object({
  /** Index of the step in the plan array (0-based). */
  step: z.number().int().nonnegative(),
  file: z.string(),
  /** 1-based line of the first changed line in the file as it was when the step ran, and in the result. */
  line: z.number().int().positive(),
  afterLine: z.number().int().positive(),
  before: z.string(),
  after: z.string(),
});
export type StepPlace = z.infer<typeof StepPlaceSchema>;

/** The most lines of one side of a {@link StepPlace}; longer ones end with a `… N more lines` line. */
export const PLACE_LINES = 40;

export const VerifyResultSchema = z.object({
  passed: z.boolean(),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
  issues: z.array(IssueSchema),
  /** Where each step that ran changed the code (absent in trajectories written before it existed). */
  places: z.array(StepPlaceSchema).optional(),
});
/** `{passed, errors, warnings}` as in the seed (rendered strings), the structured `issues`, and the steps' `places`. */
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

/**
 * `Step 3 (replace_code): Pattern not found in src/a.py — fix: copy the exact text ...`, where
 * `Step 3` is `plan[2]`: steps are numbered from 1 in messages (`issue.step` is the 0-based index).
 */
export function renderIssue(issue: Issue): string {
  const level = issue.level ? `[${issue.level}] ` : "";
  const head = issue.step === null ? `Plan` : `Step ${issue.step + 1} (${issue.op})`;
  return `${head}: ${level}${issue.message} — fix: ${issue.fix}`;
}

const layerOrder = (layer: Layer): number => LAYERS.indexOf(layer);

/** Builds the result from collected issues: ordered by step, then layer; passes when there is no error. */
export function toResult(issues: readonly Issue[], places: readonly StepPlace[] = []): VerifyResult {
  const sorted = issues
    .map((issue, i) => ({ issue, i }))
    .sort(
      (a, b) =>
        (a.issue.step ?? -1) - (b.issue.step ?? -1) || layerOrder(a.issue.layer) - layerOrder(b.issue.layer) || a.i - b.i,
    )
    .map(({ issue }) => issue);
  const errors = sorted.filter((i) => i.severity === "error");
  const warnings = sorted.filter((i) => i.severity === "warning");
  return {
    passed: errors.length === 0,
    errors: errors.map(renderIssue),
    warnings: warnings.map(renderIssue),
    issues: sorted,
    places: [...places],
  };
}

export interface RevisionPromptOptions {
  /** Which revision this is (1-based), shown to the model. */
  readonly attempt?: number;
  /** How many revisions are allowed in all (the seed's `max_plan_revisions`, 3 by default). */
  readonly maxAttempts?: number;
  /** Where the model writes the revised plan. */
  readonly planPath?: string;
}

/**
 * The text fed back to the LLM when a plan fails verification (the seed's revision loop): every
 * error, then every warning, each with its fix, and what to do next.
 */
export function revisionPrompt(result: VerifyResult, options: RevisionPromptOptions = {}): string {
  const { attempt, maxAttempts = 3, planPath = "/tmp/edit_plan.json" } = options;
  const lines: string[] = [];
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push(
    `Your plan had ${count(result.errors.length, "error")}${result.warnings.length ? ` and ${count(result.warnings.length, "warning")}` : ""}.` +
      (attempt !== undefined ? ` This is revision ${attempt} of ${maxAttempts}.` : ""),
  );
  lines.push("Steps are numbered from 1 in the order of the plan array (Step 1 is the first step); each step was checked against the files as the earlier steps leave them.");
  if (result.errors.length) {
    lines.push("", "Errors (the plan will not run until every one is fixed):");
    for (const e of result.errors) lines.push(`- ${e}`);
  }
  if (result.warnings.length) {
    lines.push("", "Warnings (the plan may run, but check each one):");
    for (const w of result.warnings) lines.push(`- ${w}`);
  }
  lines.push(
    "",
    `Revise the plan to fix every error above (keep the steps that had none unchanged) and write the complete revised plan to ${planPath}.`,
  );
  return lines.join("\n");
}

/** The whole lines `[start, end)` (string offsets) cover in `text`, as offsets `[from, to)` (to excludes the last line break). */
function wholeLines(text: string, start: number, end: number): { from: number; to: number } {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  // A change that ends with a line break ends on that line, not on the next one.
  const newline = text.indexOf("\n", end > from && text[end - 1] === "\n" ? end - 1 : Math.max(end, from));
  return { from, to: newline === -1 ? text.length : newline };
}

/** `text[from, to)` cut at {@link PLACE_LINES} lines, and the 1-based line of `from`. */
function excerpt(text: string, from: number, to: number): { line: number; text: string } {
  // A whole file's lines (a created file's) end at its last line, not after its final line break.
  const lines = text.slice(from, to).replace(/\n$/, "").split("\n");
  const cut = lines.length > PLACE_LINES ? [...lines.slice(0, PLACE_LINES), `… ${lines.length - PLACE_LINES} more lines`] : lines;
  return { line: text.slice(0, from).split("\n").length, text: cut.join("\n") };
}

/**
 * The place of one step's change to one file: the whole lines from its first to its last edit
 * (string offsets in `before`, sorted) as they were, and the same lines as the step left them (an
 * insertion shows the line it was anchored to on both sides).
 */
export function stepPlace(step: number, file: string, before: string, after: string, edits: readonly { start: number; end: number; text: string }[]): StepPlace | undefined {
  const first = edits[0];
  const last = edits[edits.length - 1];
  if (!first || !last) return undefined;
  const grown = edits.reduce((sum, e) => sum + e.text.length - (e.end - e.start), 0);
  const { from, to } = wholeLines(before, first.start, last.end);
  const old = excerpt(before, from, to);
  const now = excerpt(after, from, to + grown);
  return { step, file, line: old.line, afterLine: now.line, before: old.text, after: now.text };
}

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

export const VerifyResultSchema = z.object({
  passed: z.boolean(),
  errors: z.array(z.string()),
  warnings: z.array(z.string()),
  issues: z.array(IssueSchema),
});
/** `{passed, errors, warnings}` as in the seed (rendered strings), plus the structured `issues`. */
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
export function toResult(issues: readonly Issue[]): VerifyResult {
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

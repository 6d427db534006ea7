/**
 * What the verifier reports: structured issues, and the strings the design's JSON carries.
 * Every issue names the step, the op, what was wrong and how to fix it; an LLM revising its
 * plan reads exactly these.
 */
import { z } from "zod";

/**
 * The verifier's checks, one list in the order they run on a step (issues of one step are ordered
 * so). Each is named for what it checks; the numbers of the original design are given beside them (docs/design.md, Origins): the
 * agent design's layers 0–6 and the formal-transforms hierarchy L1–L6 (L5 is `syntax`).
 */
export const CHECKS = [
  /** The plan-integrity gate: a list of step objects, valid custom operators (before any step). */
  "plan",
  /** A known operator or template with valid params, as the catalog types them (layer 0). */
  "operator",
  /** The files a step names exist (or, for create_file, do not) when it runs (layer 0). */
  "files",
  /** `class_name` / `func_name` are in the graph (layer 0). */
  "symbols",
  /** Line params are inside the file when the step runs (layer 0). */
  "lines",
  /** Every locator resolves to one node; positional locators are flagged (layer 0b). */
  "locator",
  /** Quoted text exists, near matches, duplicates (layer 1). */
  "content",
  /** Line drift caused by earlier steps (layer 2). */
  "drift",
  /** A pattern matched inside a string or comment (layer 3). */
  "context",
  /** Rename occurrences and collisions (layer 4). */
  "rename",
  /** The step adds no syntax error (layer 5, L5). */
  "syntax",
  /** Files outside the plan that import what a step removes or renames (layer 6). */
  "importers",
  /** A replaced node keeps its kind (L1). */
  "kind",
  /** The edit stays inside its target (L2). */
  "containment",
  /** Names the new code uses are bound (L3). */
  "references",
  /** Names defined in other files are imported; new imports resolve (L4). */
  "imports",
  /** The new code is not a placeholder; the step changes something (L6). */
  "triviality",
] as const;
export const CheckSchema = z.enum(CHECKS);
export type Check = z.infer<typeof CheckSchema>;

/** The checks of the formal-transforms hierarchy, named in brackets in rendered messages. */
const HIERARCHY: ReadonlySet<Check> = new Set(["kind", "containment", "references", "imports", "triviality"]);

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
  /** Which check found it (see {@link CHECKS}). */
  check: CheckSchema,
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

/** What an issue written before the checks had names carried (`layer` 0–6, `hierarchy` with `level` L1–L6). */
const FORMER: Readonly<Record<string, Check>> = {
  plan: "plan",
  "0": "operator",
  "0b": "locator",
  "1": "content",
  "2": "drift",
  "3": "context",
  "4": "rename",
  "5": "syntax",
  "6": "importers",
  L1: "kind",
  L2: "containment",
  L3: "references",
  L4: "imports",
  L6: "triviality",
};

/**
 * An issue as stored, also one written before the checks had names (a trajectory of an earlier run):
 * its `layer`/`level` become the `check` (layer 0's several checks all read as `operator`).
 */
export const StoredIssueSchema = z.preprocess((value) => {
  if (!value || typeof value !== "object" || "check" in value) return value;
  const { layer, level, ...rest } = value as { layer?: unknown; level?: unknown };
  const check = FORMER[String(level ?? layer)];
  return check ? { ...rest, check } : value;
}, IssueSchema);

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
  issues: z.array(StoredIssueSchema),
  /** Where each step that ran changed the code (absent in trajectories written before it existed). */
  places: z.array(StepPlaceSchema).optional(),
});
/** `{passed, errors, warnings}` as in the design (rendered strings), the structured `issues`, and the steps' `places`. */
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

/**
 * `Step 3 (replace_code): Pattern not found in src/a.py — fix: copy the exact text ...`, where
 * `Step 3` is `plan[2]`: steps are numbered from 1 in messages (`issue.step` is the 0-based index).
 */
export function renderIssue(issue: Issue): string {
  const check = HIERARCHY.has(issue.check) ? `[${issue.check}] ` : "";
  const head = issue.step === null ? `Plan` : `Step ${issue.step + 1} (${issue.op})`;
  return `${head}: ${check}${issue.message} — fix: ${issue.fix}`;
}

const checkOrder = (check: Check): number => CHECKS.indexOf(check);

/** Builds the result from collected issues: ordered by step, then check; passes when there is no error. */
export function toResult(issues: readonly Issue[], places: readonly StepPlace[] = []): VerifyResult {
  const sorted = issues
    .map((issue, i) => ({ issue, i }))
    .sort(
      (a, b) =>
        (a.issue.step ?? -1) - (b.issue.step ?? -1) ||
        checkOrder(a.issue.check) - checkOrder(b.issue.check) ||
        a.i - b.i,
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
  /** How many revisions are allowed in all (the design's `max_plan_revisions`, 3 by default). */
  readonly maxAttempts?: number;
  /** Where the model writes the revised plan. */
  readonly planPath?: string;
}

/**
 * The text fed back to the LLM when a plan fails verification (the design's revision loop): every
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
  lines.push(
    "Steps are numbered from 1 in the order of the plan array (Step 1 is the first step); each step was checked against the files as the earlier steps leave them.",
  );
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
  const cut =
    lines.length > PLACE_LINES ? [...lines.slice(0, PLACE_LINES), `… ${lines.length - PLACE_LINES} more lines`] : lines;
  return { line: text.slice(0, from).split("\n").length, text: cut.join("\n") };
}

/**
 * The place of one step's change to one file: the whole lines from its first to its last edit
 * (string offsets in `before`, sorted) as they were, and the same lines as the step left them (an
 * insertion shows the line it was anchored to on both sides).
 */
export function stepPlace(
  step: number,
  file: string,
  before: string,
  after: string,
  edits: readonly { start: number; end: number; text: string }[],
): StepPlace | undefined {
  const first = edits[0];
  const last = edits[edits.length - 1];
  if (!first || !last) return undefined;
  const grown = edits.reduce((sum, e) => sum + e.text.length - (e.end - e.start), 0);
  const { from, to } = wholeLines(before, first.start, last.end);
  const old = excerpt(before, from, to);
  const now = excerpt(after, from, to + grown);
  return { step, file, line: old.line, afterLine: now.line, before: old.text, after: now.text };
}

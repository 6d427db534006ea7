/**
 * The GraphPlan plan carried by `edit_file` proposals, and what the planner reads out of one without running it:
 * the files it names and the code it adds or replaces (for scoring, bounds and the test-weakening check).
 */
import { parsePlan } from "@graphplan/catalog";
import { planFiles as primitivePlanFiles, planParts, type Plan, type WrittenPlan } from "@graphplan/primitives";
import { z } from "zod";
import type { DeepReadonly } from "./schemas.js";

export type { Plan };

/**
 * A proposal's `change`: read through the plan's one front door (`parsePlan` of @graphplan/catalog), so a
 * proposal carries a plan that would run — every step a known operator with valid params — or is refused
 * with parsePlan's issues (what is wrong, how to fix it). Corrections parsePlan makes are kept.
 * Code params are parsed as the kind they claim: load the plan's grammars first (`loadPlanGrammars`).
 */
export const PlanSchema = z
  .unknown()
  .transform((json, ctx): Plan => {
    const parsed = parsePlan(json);
    if (parsed.ok) return parsed.plan;
    for (const issue of parsed.issues.filter((i) => i.severity === "error")) {
      ctx.addIssue({
        code: "custom",
        message: `${issue.step === null ? "plan" : `step ${issue.step + 1} (${issue.op})`}: ${issue.message} — ${issue.fix}`,
        input: json,
      });
    }
    return z.NEVER;
  })
  .meta({
    description:
      "A GraphPlan plan: a non-empty list of steps ({op, params}, {template, params} or {fragment, action, locator})",
  });

/** Keys whose string values are code a step writes into a file. */
const NEW_CODE_KEYS = new Set([
  "replacement",
  "code",
  "before",
  "after",
  "body",
  "method_code",
  "new_code",
  "new_text",
  "new",
  "new_signature",
  "import_statement",
  "attribute_code",
  "content",
  "source",
  "text",
]);
/** Old-text / new-text key pairs of legacy find-and-replace steps. */
const REPLACE_PAIRS: ReadonlyArray<readonly [string, string]> = [
  ["pattern", "replacement"],
  ["old", "new"],
  ["old_code", "new_code"],
  ["old_text", "new_text"],
  ["old_signature", "new_signature"],
  ["search", "replace"],
];
const OLD_CODE_KEYS = new Set(REPLACE_PAIRS.map(([old]) => old));
/** Ops that remove code whose text the plan does not carry. */
const DELETE_OPS = new Set(["delete_node", "delete_lines"]);

/** What one step of a plan does, read statically. */
export interface StepEdit {
  readonly op: string;
  /** The first file the step names (params.file, locator.file), if any. */
  readonly file: string | null;
  /** Code the step writes. */
  readonly added: readonly string[];
  /** Text the step replaces, when the step carries it (legacy find-and-replace). */
  readonly removed: readonly string[];
  /** For delete ops: the name and kind of the deleted node, when the locator gives them. */
  readonly deleted: { readonly name: string | null; readonly kind: string | null } | null;
}

/** Every file a plan names, in order (`params.file`, `params.locator.file`, fragment locators). */
export function planFiles(plan: DeepReadonly<WrittenPlan>): string[] {
  return primitivePlanFiles(plan);
}

function firstFile(value: unknown): string | null {
  if (Array.isArray(value)) {
    for (const v of value) {
      const f = firstFile(v);
      if (f) return f;
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "file" && typeof v === "string" && v !== "all") return v;
      const f = firstFile(v);
      if (f) return f;
    }
  }
  return null;
}

function collectCode(value: unknown, added: string[], removed: string[]): void {
  if (Array.isArray(value)) {
    for (const v of value) collectCode(v, added, removed);
    return;
  }
  if (!value || typeof value !== "object") return;
  const record = value as Record<string, unknown>;
  for (const [k, v] of Object.entries(record)) {
    if (typeof v === "string") {
      if (OLD_CODE_KEYS.has(k)) removed.push(v);
      else if (NEW_CODE_KEYS.has(k)) added.push(v);
    } else collectCode(v, added, removed);
  }
}

function stepOp(step: Record<string, unknown>): string {
  for (const key of ["op", "template", "primitive"]) if (typeof step[key] === "string") return step[key];
  if ("fragment" in step) return `fragment:${typeof step["action"] === "string" ? step["action"] : "replace"}`;
  return "unknown";
}

function locatorOf(step: Record<string, unknown>): Record<string, unknown> | null {
  const params = step["params"];
  const loc = params && typeof params === "object" ? (params as Record<string, unknown>)["locator"] : step["locator"];
  return loc && typeof loc === "object" ? (loc as Record<string, unknown>) : null;
}

/** Reads each step of a plan (custom operator definitions included, as their templates write code too). */
export function planEdits(plan: DeepReadonly<WrittenPlan>): StepEdit[] {
  const { steps, operators } = planParts(plan as WrittenPlan); // read only
  const edits: StepEdit[] = [];
  const read = (step: Record<string, unknown>, fileHint: string | null): void => {
    const op = stepOp(step);
    const added: string[] = [];
    const removed: string[] = [];
    collectCode(step, added, removed);
    const loc = locatorOf(step);
    const deleted = DELETE_OPS.has(op)
      ? {
          name: typeof loc?.["name"] === "string" ? loc["name"] : null,
          kind: typeof loc?.["kind"] === "string" ? loc["kind"] : null,
        }
      : null;
    edits.push({ op, file: firstFile(step) ?? fileHint, added, removed, deleted });
  };
  for (const step of steps) read(step as Record<string, unknown>, null);
  for (const operator of operators) for (const step of operator.steps) read(step as Record<string, unknown>, null);
  return edits;
}

const lineCount = (s: string): number => (s.length === 0 ? 0 : s.replace(/\n$/, "").split("\n").length);

/**
 * Lines an edit adds plus lines it removes, estimated from the plan alone: written code counts its lines, replaced
 * text its lines, and a deletion without its text counts 1 (the gate measures exactly when given file changes).
 */
export function estimateChangedLines(plan: DeepReadonly<WrittenPlan>): number {
  let total = 0;
  for (const edit of planEdits(plan)) {
    for (const s of edit.added) total += lineCount(s);
    for (const s of edit.removed) total += lineCount(s);
    if (edit.deleted) total += 1;
  }
  return total;
}

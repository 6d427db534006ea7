/**
 * The gate: the authority that accepts or rejects a proposal. Pure — it reads the proposal, the context it is given
 * (phase, history, the simulated edit) and its own configuration, and returns a value.
 *
 * Checks, in order, stopping at the first that fails: schema → ordering → bounds → invariants (no test weakening).
 */
import { diffLines } from "diff";
import { z } from "zod";
import { estimateChangedLines, planEdits, planFiles } from "./plan.js";
import { isTestPath } from "./test-paths.js";
import { findStepWeakening, findWeakening } from "./weakening.js";
import {
  GateContextSchema,
  GateOptionsSchema,
  ProposalSchema,
  createProposal,
  type EditFileProposal,
  type GateContext,
  type GateOptions,
  type GateRejection,
  type GateResult,
  type Phase,
  type Proposal,
  type RejectionType,
  type Scope,
  type Violation,
} from "./schemas.js";

type ParsedContext = z.infer<typeof GateContextSchema>;
type ParsedOptions = z.infer<typeof GateOptionsSchema>;

function reject(
  type: RejectionType,
  proposalId: string | null,
  reason: string,
  extra: Partial<Pick<GateRejection, "violations" | "requiredPhase" | "measured" | "limits">> = {},
): GateRejection {
  return { _tag: "Rejected", type, reason, proposalId, violations: [], ...extra };
}

export class Gate {
  readonly options: Readonly<ParsedOptions>;

  constructor(options: GateOptions = {}) {
    this.options = GateOptionsSchema.parse(options);
  }

  /** Accepts the proposal (returning it validated and frozen) or returns a typed rejection. */
  validate(proposal: unknown, context: GateContext = {}): GateResult {
    const ctx = GateContextSchema.parse(context);
    const parsed = ProposalSchema.safeParse(proposal);
    if (!parsed.success) {
      const id = (proposal as { id?: unknown } | null)?.id;
      return reject("SCHEMA_VIOLATION", typeof id === "string" ? id : null, z.prettifyError(parsed.error), {
        violations: parsed.error.issues.map((issue) => ({
          rule: "schema",
          path: issue.path.map(String).join(".") || null,
          detail: issue.message,
        })),
      });
    }
    const accepted = createProposal(parsed.data);
    return (
      this.checkOrdering(accepted, ctx) ??
      (accepted.action_type === "edit_file"
        ? (this.checkBounds(accepted, ctx) ?? this.checkInvariants(accepted, ctx))
        : null) ?? { _tag: "Accepted", proposal: accepted }
    );
  }

  private checkOrdering(p: Proposal, ctx: ParsedContext): GateRejection | null {
    if (p.action_type === "edit_file") {
      if (!ctx.localized) {
        return reject("ORDERING_VIOLATION", p.id, "no edit before localization: read or search the code first", {
          requiredPhase: "LOCALIZE",
        });
      }
      if (ctx.phase !== undefined && ctx.phase !== "PATCH") {
        return reject("ORDERING_VIOLATION", p.id, `an edit is only proposed in PATCH, not in ${ctx.phase}`, {
          requiredPhase: "PATCH",
        });
      }
    }
    const expanding = p.action_type === "run_tests" && (p.scope === "broad" || ctx.phase === "EXPAND");
    if (expanding && !ctx.targetedPassed) {
      return reject("ORDERING_VIOLATION", p.id, "no broad test run before the targeted tests pass", {
        requiredPhase: "VERIFY" satisfies Phase,
      });
    }
    return null;
  }

  private checkBounds(p: EditFileProposal, ctx: ParsedContext): GateRejection | null {
    const measured = measureEdit(p, ctx.fileChanges);
    const limits = { files: this.options.maxFiles, lines: this.options.maxLines };
    if (measured.files <= limits.files && measured.lines <= limits.lines) return null;
    const over = [
      measured.files > limits.files ? `${measured.files} files (max ${limits.files})` : null,
      measured.lines > limits.lines ? `${measured.lines} changed lines (max ${limits.lines})` : null,
    ].filter(Boolean);
    return reject("BOUNDS_VIOLATION", p.id, `edit too large: ${over.join(", ")}`, { measured, limits });
  }

  private checkInvariants(p: EditFileProposal, ctx: ParsedContext): GateRejection | null {
    const { allowTestEdits, allowTestWeakening } = this.options.policy;
    if (allowTestWeakening) return null;
    const violations: Violation[] = [];
    const changes = ctx.fileChanges?.filter((c) => c.before !== c.after);
    const touched = new Set([...editedFiles(p), ...(changes ?? []).map((c) => c.path)]);
    if (!allowTestEdits) {
      for (const path of touched) {
        if (isTestPath(path)) violations.push({ rule: "test-file-edit", path, detail: "edits a test file" });
      }
    }
    if (changes) {
      for (const change of changes) violations.push(...findWeakening(change, ctx.task));
    } else {
      for (const edit of planEdits(p.change))
        violations.push(...findStepWeakening(edit, edit.file ?? p.target.path, ctx.task));
    }
    if (violations.length === 0) return null;
    const rules = [...new Set(violations.map((x) => x.rule))].join(", ");
    return reject("INVARIANT_VIOLATION", p.id, `weakens tests (${rules}); the policy does not allow it`, {
      violations,
    });
  }
}

/** The files an edit proposal names: its plan's files, or its target when the plan names none. */
export function editedFiles(p: EditFileProposal): string[] {
  const files = planFiles(p.change);
  return files.length > 0 ? files : [p.target.path];
}

/**
 * Files and changed lines (added + removed) of an edit: exact from file changes when given (line diffs), else
 * estimated from the plan.
 */
export function measureEdit(
  p: EditFileProposal,
  fileChanges?: ReadonlyArray<{ path: string; before: string; after: string }>,
): Scope {
  const changed = fileChanges?.filter((c) => c.before !== c.after);
  if (!changed) return { files: editedFiles(p).length, lines: estimateChangedLines(p.change) };
  const files = new Set([...editedFiles(p), ...changed.map((c) => c.path)]);
  let lines = 0;
  for (const c of changed) {
    for (const part of diffLines(c.before, c.after)) if (part.added || part.removed) lines += part.count;
  }
  return { files: files.size, lines };
}

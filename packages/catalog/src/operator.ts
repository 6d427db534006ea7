/**
 * A tier 1 (surgery) or tier 2 (template) operator: described once (name, use case,
 * description, zod params with kinds, node kinds in and out, languages, an example) and run as
 * edits over a {@link Workspace}.
 */
import type { z } from "zod";
import type { LanguageId } from "@graphplan/graph";
import type { FileEdits, Workspace } from "./workspace.js";

/** Use-case groups of the operator catalog, in prompt order (the design's use-case groups, docs/design.md, Origins; then primitives and legacy). */
export const USE_CASES = [
  "Adding Code",
  "Modifying Code",
  "Wrapping Code",
  "Restructuring",
  "AST Surgery",
  "Novel Code (fragments)",
  "Primitives",
  "Files (create, delete, rename)",
  "Text (any file: docs, changelogs, config)",
  "Data files (JSON, YAML, TOML)",
  "Legacy (still supported)",
] as const;
export type UseCase = (typeof USE_CASES)[number];

export interface FormalOperator {
  readonly name: string;
  readonly tier: 1 | 2;
  readonly useCase: UseCase;
  readonly description: string;
  /** Strict object of typed params (see `p` in params.ts). */
  readonly params: z.ZodObject;
  readonly languages: readonly LanguageId[];
  /** Node kinds the target may be. */
  readonly input: readonly string[];
  /** Node kind the operator produces. */
  readonly output: string;
  /** Valid params for a Python file (used in the prompt and in tests). */
  readonly example: Record<string, unknown>;
  /** Edits per file, computed from the step's texts. Params are already validated. */
  run(ws: Workspace, params: Record<string, unknown>): FileEdits;
}

export function defineOperator(op: FormalOperator): FormalOperator {
  return op;
}

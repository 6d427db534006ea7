import type { LanguageId } from "@graphplan/graph";
import type { FileVersion } from "../sim.js";

/** A use of a name in new code. */
export interface NameUse {
  readonly name: string;
  /** String offset in the file after the step. */
  readonly index: number;
  /** 1-based line in the file after the step. */
  readonly line: number;
}

/** What `references` and `imports` (L3/L4) need from a language's scope rules. */
export interface ScopeModel {
  readonly language: LanguageId;
  /**
   * Names used in `[start, end)` of `doc` that resolve to nothing: not bound in an enclosing
   * scope, not a builtin, not imported. `"unknown"` when the file makes that undecidable
   * (a wildcard import).
   */
  unresolved(doc: FileVersion, start: number, end: number): NameUse[] | "unknown";
  /** Names bound at the top level of the file (definitions, assignments, imports). */
  definedAtTopLevel(doc: FileVersion): ReadonlySet<string>;
  isBuiltin(name: string): boolean;
}

import type { Graph, LanguageId } from "@graphplan/graph";
import type { FileVersion, Sim } from "../sim.js";

/** A use of a name in new code. */
export interface NameUse {
  readonly name: string;
  /** String offset in the file after the step. */
  readonly index: number;
  /** 1-based line in the file after the step. */
  readonly line: number;
}

/** The workspace around a file: the plan's simulation so far and the graph of the files before the plan. */
export interface ScopeContext {
  readonly sim: Sim;
  readonly graph: Graph;
}

/** A problem with what new code imports (L4), found by a language's own import rules. */
export interface ImportProblem {
  readonly line: number;
  readonly message: string;
  readonly fix: string;
}

/** Graph kinds that are members of a class or type: no import brings them in. */
export const MEMBER_KINDS: ReadonlySet<string> = new Set(["method", "constructor", "field", "property"]);

/** What `references` and `imports` (L3/L4) need from a language's scope rules. */
export interface ScopeModel {
  readonly language: LanguageId;
  /**
   * Names used in `[start, end)` of `doc` that resolve to nothing: not bound in an enclosing
   * scope, not a builtin, not imported. `"unknown"` when the file makes that undecidable
   * (a wildcard import).
   */
  unresolved(doc: FileVersion, start: number, end: number, context: ScopeContext): NameUse[] | "unknown";
  /** Names bound at the top level of the file (definitions, assignments, imports). */
  definedAtTopLevel(doc: FileVersion): ReadonlySet<string>;
  isBuiltin(name: string): boolean;
  /** Whether another file's definition of this graph kind can be imported (a module's function, a type), not a member of a class. */
  importable(kind: string): boolean;
  /**
   * How to make `name`, defined in `file` (another file of the workspace), usable in `doc`: the
   * fix of an `imports` finding. Undefined when the language has no import to suggest.
   */
  importFix(name: string, file: string, doc: FileVersion, context: ScopeContext): string | undefined;
  /** Imports and qualified names written in `[start, end)` of `doc` that name nothing the workspace defines. */
  importProblems(doc: FileVersion, start: number, end: number, context: ScopeContext): ImportProblem[];
}

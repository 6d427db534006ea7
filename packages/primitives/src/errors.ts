/** Tagged errors of primitives, operators and plans. Each says what to fix. */
import { TaggedError } from "@graphplan/graph";
import type { Edit } from "./edits.js";

export interface SyntaxProblem {
  /** 1-based line in the edited text. */
  readonly line: number;
  readonly column: number;
  readonly kind: "ERROR" | "MISSING";
  readonly text: string;
}

/** The edit would add a syntax error (or break another postcondition); the file is left as it was. */
export class PostconditionFailed extends TaggedError("PostconditionFailed") {
  constructor(
    readonly file: string,
    readonly op: string,
    readonly reason: string,
    readonly syntaxErrors: readonly SyntaxProblem[] = [],
  ) {
    const where = syntaxErrors
      .slice(0, 5)
      .map(
        (e) =>
          `line ${e.line}:${e.column + 1} ${e.kind === "MISSING" ? `missing ${e.text}` : `unexpected ${JSON.stringify(e.text)}`}`,
      )
      .join("; ");
    super(`${op} on ${file}: ${reason}${where ? ` (${where})` : ""}. The file was left unchanged.`);
  }
}

export class InvalidParams extends TaggedError("InvalidParams") {
  constructor(
    readonly op: string,
    readonly issues: readonly string[],
  ) {
    super(`Invalid parameters for ${op}: ${issues.join("; ")}`);
  }
}

export class UnknownOperator extends TaggedError("UnknownOperator") {
  constructor(
    readonly op: string,
    /** Valid operator names, closest to `op` first. */
    readonly validOps: readonly string[],
  ) {
    super(
      `Unknown operator "${op}". Did you mean ${validOps
        .slice(0, 3)
        .map((o) => `"${o}"`)
        .join(", ")}? Valid operators: ${validOps.join(", ")}.`,
    );
  }
}

export class FileNotInPlan extends TaggedError("FileNotInPlan") {
  constructor(
    readonly file: string,
    readonly known: readonly string[],
  ) {
    super(
      `File ${JSON.stringify(file)} is not among the plan's files${known.length ? ` (${known.slice(0, 10).join(", ")}${known.length > 10 ? ", ..." : ""})` : ""}; use a path relative to the workspace root.`,
    );
  }
}

/** create_file or rename_file onto a path that exists (in the workspace, or made by an earlier step). */
export class FileExists extends TaggedError("FileExists") {
  constructor(
    readonly file: string,
    readonly op: string,
  ) {
    super(
      `${op}: ${JSON.stringify(file)} already exists; change it with the node operators (replace_node, insert_after_node, ...), or delete_file it first.`,
    );
  }
}

/** A step names a file that an earlier step deleted or renamed away. */
export class FileDeleted extends TaggedError("FileDeleted") {
  constructor(
    readonly file: string,
    /** The 0-based index of the step that deleted it; the message numbers it from 1. */
    readonly byStep: number,
  ) {
    super(
      `File ${JSON.stringify(file)} was deleted by step ${byStep + 1} (delete_file or rename_file); address the file by the path it has now, or drop the step.`,
    );
  }
}

export class UnsupportedLanguage extends TaggedError("UnsupportedLanguage") {
  constructor(readonly file: string) {
    super(
      `${file}: not a language GraphPlan parses, so node operators and locators cannot address it; change it with the text steps (replace_text, insert_text, append_text, write_file), or data steps for JSON, YAML and TOML.`,
    );
  }
}

/** A text step on a file that holds binary data (a NUL character): GraphPlan edits text only. */
export class BinaryFile extends TaggedError("BinaryFile") {
  constructor(
    readonly file: string,
    readonly op: string,
  ) {
    super(
      `${op}: ${file} is a binary file (it holds NUL bytes); GraphPlan edits text files only: leave it out of the plan, or delete_file it and create_file a text file.`,
    );
  }
}

/** A precondition of an operator that is not about locating a node. */
export class PreconditionFailed extends TaggedError("PreconditionFailed") {
  constructor(
    readonly file: string,
    readonly op: string,
    readonly reason: string,
  ) {
    super(`${op} on ${file}: ${reason}`);
  }
}

export interface SimilarLine {
  /** 1-based line where the similar text starts. */
  readonly line: number;
  readonly text: string;
  /** 0..1 */
  readonly score: number;
}

/** A legacy operator's pattern is not in the file, even approximately. */
export class PatternNotFound extends TaggedError("PatternNotFound") {
  constructor(
    readonly file: string,
    readonly op: string,
    readonly pattern: string,
    readonly similar: readonly SimilarLine[],
  ) {
    const preview = pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern;
    super(
      `${op}: pattern not found in ${file}: ${JSON.stringify(preview)}.${
        similar.length
          ? ` Most similar text: ${similar.map((s) => `line ${s.line} (${Math.round(s.score * 100)}%): ${JSON.stringify(s.text.length > 80 ? `${s.text.slice(0, 77)}...` : s.text)}`).join("; ")}. Copy the file's text exactly, or use an AST locator.`
          : " Use an AST locator instead of a text pattern."
      }`,
    );
  }
}

/**
 * A text pattern matches several places equally well (in its best layer): the operator refuses
 * to choose and lists them with their lines.
 */
export class PatternAmbiguous extends TaggedError("PatternAmbiguous") {
  constructor(
    readonly pattern: string,
    readonly layer: string,
    readonly places: readonly SimilarLine[],
    readonly count: number,
    readonly file = "",
    readonly op = "replace_code",
  ) {
    const preview = pattern.length > 60 ? `${pattern.slice(0, 57)}...` : pattern;
    super(
      `${op}: pattern ${JSON.stringify(preview)} matches ${count} places${file ? ` in ${file}` : ""} equally well (${layer === "similar" ? `${Math.round((places[0]?.score ?? 0) * 100)}% similar` : layer === "exact" ? "exactly" : `${layer} match`}): ${places
        .map((s) => `line ${s.line}: ${JSON.stringify(s.text.length > 60 ? `${s.text.slice(0, 57)}...` : s.text)}`)
        .join(
          "; ",
        )}${count > places.length ? "; ..." : ""}. Add the lines around the one you mean to the pattern so it matches one place, or use replace_node with a locator.`,
    );
  }

  /** The same error, naming the file and operator. */
  in(file: string, op: string): PatternAmbiguous {
    return new PatternAmbiguous(this.pattern, this.layer, this.places, this.count, file, op);
  }
}

export class LineOutOfRange extends TaggedError("LineOutOfRange") {
  constructor(
    readonly file: string,
    readonly op: string,
    readonly line: number,
    readonly lineCount: number,
  ) {
    super(
      `${op}: line ${line} is out of range for ${file} (1..${lineCount}); line numbers drift after earlier steps, prefer an AST locator.`,
    );
  }
}

/** A `$name` in a DSL step or condition that no parameter or bound variable defines. */
export class UnresolvedVariable extends TaggedError("UnresolvedVariable") {
  constructor(
    readonly variable: string,
    readonly known: readonly string[],
  ) {
    super(`Unknown variable $${variable}; defined here: ${known.map((k) => `$${k}`).join(", ") || "none"}.`);
  }
}

export class InvalidCondition extends TaggedError("InvalidCondition") {
  constructor(
    readonly condition: string,
    readonly detail: string,
  ) {
    super(
      `Invalid condition ${JSON.stringify(condition)}: ${detail}. Write e.g. "$found.count > 0" or "$x == 'name'".`,
    );
  }
}

export class OperatorRedefined extends TaggedError("OperatorRedefined") {
  constructor(readonly op: string) {
    super(
      `define_operators: "${op}" is already an operator (or defined twice); give the custom operator another name.`,
    );
  }
}

export class RecursionLimit extends TaggedError("RecursionLimit") {
  constructor(
    readonly op: string,
    readonly depth: number,
  ) {
    super(`Operator ${op} expands more than ${depth} levels deep (does a custom operator call itself?).`);
  }
}

/**
 * One step of a plan failed; `cause` is the tagged error underneath. `step` is the step's index
 * in the plan (0-based, as `failedStep`); the message numbers steps from 1 ("Step 1" is the
 * first step), as `graphplan apply` and the verifier's messages do.
 */
export class StepFailed extends TaggedError("StepFailed") {
  constructor(
    readonly step: number,
    readonly op: string,
    readonly locator: unknown,
    override readonly cause: Error,
  ) {
    super(`Step ${step + 1} (${op})${locator ? ` at ${JSON.stringify(locator)}` : ""}: ${cause.message}`);
  }
}

export type { Edit };

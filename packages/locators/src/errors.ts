/** Tagged locator errors. Each message says what was wrong and how to fix the locator. */
import { errorGuard, TaggedError } from "@graphplan/graph";
import type { Locator } from "./schema.js";
import { KeyNotFound, KeyPathInvalid } from "./keys.js";

/** A node the locator might have meant, offered when nothing matched. */
export interface Candidate {
  /** Normalized kind (or node type when no kind fits). */
  readonly kind: string;
  readonly name: string;
  /** 1-based line. */
  readonly line: number;
  /** Why it is offered: a similar name of the same kind, the same name under another kind, or outside the parent. */
  readonly reason: "similar_name" | "other_kind" | "outside_parent" | "field";
}

export interface Match {
  /** 1-based line. */
  readonly line: number;
  /** The first line of the node's text, trimmed (at most 80 characters). */
  readonly text: string;
}

const show = (locator: unknown): string => JSON.stringify(locator);

export class LocatorNotFound extends TaggedError("LocatorNotFound") {
  constructor(
    readonly file: string,
    readonly locator: Locator | Record<string, unknown>,
    readonly candidates: readonly Candidate[],
    /** What failed, when more precise than "no node matched" (a missing field, an index out of range). */
    readonly reason?: string,
  ) {
    const hint = candidates.length
      ? ` Did you mean: ${candidates.map((c) => `${c.kind} "${c.name}" (line ${c.line}${c.reason === "outside_parent" ? ", outside the given parent" : ""})`).join(", ")}?`
      : "";
    super(`No node in ${file} matches the locator ${show(locator)}${reason ? `: ${reason}` : ""}.${hint}`);
  }
}

export class LocatorAmbiguous extends TaggedError("LocatorAmbiguous") {
  constructor(
    readonly file: string,
    readonly locator: Locator | Record<string, unknown>,
    readonly matches: readonly Match[],
  ) {
    super(
      `The locator ${show(locator)} matches ${matches.length} nodes in ${file}; add "index" (0-based, -1 for the last) or a "parent" to choose one: ${matches
        .map((m, i) => `[${i}] line ${m.line}: ${m.text}`)
        .join("; ")}`,
    );
  }
}

export class InvalidQuery extends TaggedError("InvalidQuery") {
  constructor(
    readonly file: string,
    readonly query: string,
    readonly detail: string,
  ) {
    super(`Invalid S-expression query for ${file}: ${JSON.stringify(query)}: ${detail}`);
  }
}

export class UnknownKind extends TaggedError("UnknownKind") {
  constructor(
    readonly file: string,
    readonly kind: string,
    readonly language: string,
    /** Normalized kinds of the language, closest to `kind` first. */
    readonly validKinds: readonly string[],
  ) {
    super(
      `Unknown kind "${kind}" for ${language} (${file}): it is neither a normalized kind nor a ${language} node type. Valid kinds: ${validKinds.join(", ")}.`,
    );
  }
}

/** The locator is not a valid locator at all (fails the schema). */
export class InvalidLocator extends TaggedError("InvalidLocator") {
  constructor(
    readonly locator: unknown,
    readonly issues: readonly string[],
  ) {
    super(`Invalid locator ${show(locator)}: ${issues.join("; ")}`);
  }
}

export type LocatorError =
  | LocatorNotFound
  | LocatorAmbiguous
  | InvalidQuery
  | UnknownKind
  | InvalidLocator
  | KeyNotFound
  | KeyPathInvalid;

export const isLocatorError: (error: unknown) => error is LocatorError = errorGuard(
  LocatorNotFound,
  LocatorAmbiguous,
  InvalidQuery,
  UnknownKind,
  InvalidLocator,
  KeyNotFound,
  KeyPathInvalid,
);

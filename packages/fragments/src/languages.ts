/**
 * The languages a fragment is written in, each described once: what it has no form for, how it
 * reads a code property where that differs from the kind description, its own rules, and its
 * writer. Validation (validate.ts), serialization ({@link serialize}) and placement (edit.ts) read
 * this table; a language is added here, not by a branch in each of them.
 */
import type { Node } from "@graphplan/graph";
import type { CodeKind, CodeLanguage } from "./code.js";
import { GO } from "./go.js";
import { JAVA } from "./java.js";
import { javascript } from "./javascript.js";
import { indentLine } from "./place.js";
import type { Fragment, FragmentKind } from "./schema.js";
import { PYTHON } from "./serialize.js";
import type { FragmentIssue } from "./validate.js";

/**
 * Where a fragment goes, as far as it is known: in a class body (JavaScript, Java: a method, a
 * field), at the top of the file (Go: declarations only). undefined: not known yet (a plan checked
 * before its files are read); the rules that depend on it are left to the run.
 */
export interface Place {
  readonly inClass?: boolean | undefined;
  readonly topLevel?: boolean | undefined;
}

/** How a language reads one code property: as another code kind (and, with `code`, another text), or `"own"`: its {@link FragmentLanguage.issues} check it. */
export type Slot = { readonly kind: CodeKind; readonly code?: string } | "own";

export interface FragmentLanguage {
  /** Kinds the language has no form for: what to write instead. */
  readonly noForm?: Readonly<Partial<Record<FragmentKind, string>>>;
  /** How a code property reads where it differs from the kind description's code kind; undefined: as described. */
  readonly slot?: (kind: FragmentKind, property: string, value: unknown, place: Place) => Slot | undefined;
  /** The language's own rules on a fragment whose shape is valid (they check its children too). */
  readonly issues?: (fragment: Fragment, path: string, place: Place) => FragmentIssue[];
  /** The fragment's lines at its own level (nested lines carry `unit`s); trusts the shape. */
  readonly lines: (
    fragment: Fragment,
    unit: string,
    place: { readonly inClass: boolean; readonly topLevel: boolean },
  ) => string[];
  /** A string that may span lines: its continuation lines are kept as written when the code is indented. */
  readonly multilineString: RegExp;
  /** Where code placed at `anchor` stands, as far as the language's rules care; none: nowhere matters. */
  readonly place?: (anchor: Node) => Place;
}

export const FRAGMENT_LANGUAGE: Readonly<Record<CodeLanguage, FragmentLanguage>> = {
  python: PYTHON,
  javascript: javascript(false),
  typescript: javascript(true),
  tsx: javascript(true),
  java: JAVA,
  go: GO,
};

export interface SerializeOptions {
  /** One level of indentation (default four spaces); take it from the target file with `indentUnit`. */
  readonly unit?: string;
  /** The language to write (default Python): JavaScript, TypeScript, TSX, Java and Go are written with braces. */
  readonly language?: CodeLanguage;
  /** JavaScript/TypeScript/Java: the fragment goes in a class body (a function is a method, an assignment a field). */
  readonly inClass?: boolean;
  /** Go: the fragment goes at the top of the file (a declared variable is written with var). */
  readonly topLevel?: boolean;
}

/**
 * Serializes `fragment` in `options.language` (default Python). Every line starts with `indent`: a
 * string, or a number of levels of `options.unit`. No trailing newline. Empty Python bodies become
 * `pass`; empty blocks of the brace languages `{}`. Trusts the shape: validate first.
 */
export function serialize(fragment: Fragment, indent: string | number = 0, options: SerializeOptions = {}): string {
  const unit = options.unit ?? "    ";
  const prefix = typeof indent === "number" ? unit.repeat(indent) : indent;
  const language = FRAGMENT_LANGUAGE[options.language ?? "python"];
  return language
    .lines(fragment, unit, { inClass: options.inClass ?? false, topLevel: options.topLevel ?? false })
    .map((line) => indentLine(line, prefix, language.multilineString))
    .join("\n");
}

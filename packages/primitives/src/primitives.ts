/**
 * The AST-node primitives. Each mutator computes edits (values) from a parsed document; the
 * executor ({@link applyPrimitive}) applies them with {@link applyEdits} and checks the
 * postconditions. A mutator may offer alternatives (two readings of the indentation of the
 * given code): the first whose result passes the postconditions wins.
 */
import type { Node, Range, Tree } from "web-tree-sitter";
import { inStringOrComment, isHtmlTemplate, type LanguageId } from "@graphplan/graph";
import { reparseWithRanges } from "./reparse.js";
import {
  codeChildren,
  kindOfNode,
  nodeName,
  resolveLocator,
  resolveOne,
  resolveSome,
  sexpCaptureNames,
  sexpCaptures,
  type Locator,
} from "@graphplan/locators";
import { applyEdits, editedRanges, type Edit } from "./edits.js";
import { errorSpans, errorSpansAfter, newSyntaxErrors, preprocessorExplains, type ErrorSpan } from "./check.js";
import {
  indentUnit,
  lineEnd,
  lineIndent,
  lineStart,
  notesOf,
  placeCode,
  relativeToColumn,
  startsLine,
  trimBlankLines,
  withNotes,
} from "./indent.js";
import { cachedIndentProblems, indentProblemsAfter, pythonStructureProblems } from "./pyindent.js";
import { attachedStart, codeEndIndex, deletionRange, onlyCommentAfter, outerNode } from "./targets.js";
import { PostconditionFailed, PreconditionFailed } from "./errors.js";
import type {
  DeleteNodeParams,
  InsertNodeParams,
  LocateParams,
  ReplaceAllMatchingParams,
  ReplaceNodeParams,
  WrapNodeParams,
} from "./params.js";

/** A file to edit: its path (for messages), text and grammar. */
export interface Doc {
  readonly path: string;
  readonly source: string;
  readonly language: LanguageId;
}

/** A document with its current tree (owned by the caller). */
export interface ParsedDoc extends Doc {
  readonly tree: Tree;
}

/** The edits of one mutator call, most likely first. */
export type Alternatives = readonly (readonly Edit[])[];

const single = (edits: Edit[]): Alternatives => [edits];

/** The file's indentation unit, computed once and only when normalisation needs it. */
function unitOf(doc: Doc): () => string {
  let unit: string | undefined;
  return () => (unit ??= indentUnit(doc.source, doc.language));
}

// ---------------------------------------------------------------------------------------------
// Mutators

export function replaceNodeEdits(doc: ParsedDoc, params: ReplaceNodeParams): Alternatives {
  const node = resolveOne(doc.tree, doc.source, doc.language, params.locator);
  const replacement = trimBlankLines(params.replacement).code;
  const head = replacement.trimStart();
  let target = node;
  const outer = outerNode(node, doc.language);
  // A replacement that restates the wrapper (`@decorator`, `export`) replaces the wrapper too.
  if (
    outer.id !== node.id &&
    ((head.startsWith("@") && outer.type === "decorated_definition") ||
      (head.startsWith("export") && outer.type === "export_statement"))
  ) {
    target = outer;
  }
  const start = head.startsWith("@") || head.startsWith("#[") ? attachedStart(target, doc.language) : target.startIndex;
  const end = codeEndIndex(target, doc.language);
  const indent = lineIndent(doc.source, start);
  const column = start - lineStart(doc.source, start);
  return placeCode(replacement, indent, unitOf(doc), doc.language, column).map((p) =>
    withNotes([{ start, end, text: p.text }], p.notes),
  );
}

const PYTHON_DEFINITIONS = new Set(["function_definition", "class_definition", "decorated_definition"]);
const blankLinesBetween = (source: string, from: number, to: number): number =>
  Math.max(0, source.slice(from, to).split("\n").length - 2);

/**
 * The definitions that files of a language set apart with blank lines, and what code that starts
 * one looks like: Python's functions and classes, shell functions, CSS rule sets and at-rules.
 * `fallback` is the gap when the anchor has no neighbouring definition to copy (PEP 8's for Python).
 */
const SPACED_DEFINITIONS: Partial<
  Record<LanguageId, { types: ReadonlySet<string>; code: RegExp; fallback: (anchor: Node) => number }>
> = {
  python: {
    types: PYTHON_DEFINITIONS,
    code: /^(@|def\s|async\s+def\s|class\s)/,
    fallback: (anchor) => (anchor.parent?.type === "module" ? 2 : 1),
  },
  bash: { types: new Set(["function_definition"]), code: /^(function\s+\S|[\w.:-]+\s*\(\s*\))/, fallback: () => 0 },
  css: {
    types: new Set(["rule_set", "media_statement", "supports_statement", "keyframes_statement", "at_rule"]),
    code: /^[^{};]+\{/,
    fallback: () => 0,
  },
};

/**
 * Blank lines to set a definition apart when it is inserted beside another definition with no
 * separator given: as many as the file has between the anchor and its neighbouring definition, else
 * the language's fallback (PEP 8's for Python: two at the top level of a module, one inside a class
 * or function). 0 otherwise.
 */
function definitionGap(doc: ParsedDoc, anchor: Node, code: string): number {
  const spaced = SPACED_DEFINITIONS[doc.language];
  if (!spaced || !spaced.types.has(anchor.type) || !spaced.code.test(code)) return 0;
  const next = anchor.nextNamedSibling;
  if (next && spaced.types.has(next.type)) return blankLinesBetween(doc.source, anchor.endIndex, next.startIndex);
  const previous = anchor.previousNamedSibling;
  if (previous && spaced.types.has(previous.type))
    return blankLinesBetween(doc.source, previous.endIndex, anchor.startIndex);
  return spaced.fallback(anchor);
}

export function insertBeforeEdits(doc: ParsedDoc, params: InsertNodeParams): Alternatives {
  const node = resolveOne(doc.tree, doc.source, doc.language, params.locator);
  const anchor = outerNode(node, doc.language);
  const start = attachedStart(anchor, doc.language);
  const { code, leading } = trimBlankLines(params.code);
  const indent = lineIndent(doc.source, start);
  const separator = params.separator ?? "\n";
  if (separator.includes("\n") && startsLine(doc.source, start)) {
    const pos = lineStart(doc.source, start);
    const gap = params.separator === undefined ? definitionGap(doc, anchor, code) : 0;
    const sep = `${separator.endsWith("\n") ? separator : `${separator}\n`}${"\n".repeat(gap)}`;
    return placeCode(code, indent, unitOf(doc), doc.language).map((p) =>
      withNotes([{ start: pos, end: pos, text: `${"\n".repeat(leading)}${indent}${p.text}${sep}` }], p.notes),
    );
  }
  const tail = separator.endsWith("\n") ? indent : "";
  return placeCode(code, indent, unitOf(doc), doc.language).map((p) =>
    withNotes([{ start, end: start, text: `${p.text}${separator}${tail}` }], p.notes),
  );
}

export function insertAfterEdits(doc: ParsedDoc, params: InsertNodeParams): Alternatives {
  const node = resolveOne(doc.tree, doc.source, doc.language, params.locator);
  const anchor = outerNode(node, doc.language);
  const end = codeEndIndex(anchor, doc.language);
  const trimmed = trimBlankLines(params.code);
  const { code } = trimmed;
  const leading = trimmed.leading || (params.separator === undefined ? definitionGap(doc, anchor, code) : 0);
  const indent = lineIndent(doc.source, anchor.startIndex);
  const separator = params.separator ?? "\n";
  const pos =
    separator.startsWith("\n") && onlyCommentAfter(doc.tree, doc.source, doc.language, end)
      ? lineEnd(doc.source, end)
      : end;
  const lead = separator.endsWith("\n") ? `${"\n".repeat(leading)}${indent}` : "";
  return placeCode(code, indent, unitOf(doc), doc.language).map((p) =>
    withNotes([{ start: pos, end: pos, text: `${separator}${lead}${p.text}` }], p.notes),
  );
}

export function deleteNodeEdits(doc: ParsedDoc, params: DeleteNodeParams): Alternatives {
  const node = resolveOne(doc.tree, doc.source, doc.language, params.locator);
  return single(deleteEditsFor(doc, node));
}

/** The edits that delete `node`, with its wrappers, separator and line; used by delete_node and surgery. */
export function deleteEditsFor(doc: ParsedDoc, node: Node): Edit[] {
  const target = outerNode(node, doc.language);
  let start = attachedStart(target, doc.language);
  let end = codeEndIndex(target, doc.language);
  const parent = target.parent;
  // Python blocks may not be empty: the only statement of a block becomes `pass`.
  if (doc.language === "python" && parent?.type === "block" && codeChildren(parent, doc.language).length === 1) {
    return [{ start, end, text: "pass" }];
  }
  const next = target.nextSibling;
  const prev = target.previousSibling;
  if (next && !next.isNamed && next.type === ",") {
    end = next.endIndex;
    while (end < doc.source.length && (doc.source[end] === " " || doc.source[end] === "\t")) end++;
    const afterComma = doc.source.slice(next.endIndex, lineEnd(doc.source, next.endIndex));
    if (afterComma.trim() === "" && startsLine(doc.source, start)) end = next.endIndex;
  } else if (prev && !prev.isNamed && prev.type === ",") {
    start = prev.startIndex;
  }
  const range = deletionRange(doc.source, start, end);
  return [{ start: range.start, end: range.end, text: "" }];
}

const BLOCK_OPENER = /(:|\{|\(|\[|\bdo|\bthen|\bbegin|=>)\s*$/;
/** Ruby-style openers without punctuation (`if x`, `unless y`, `begin`). */
const KEYWORD_OPENER = /^\s*(if|unless|while|until|for|begin|case|def|class|module)\b(?!.*\bend\s*$)/;

export function wrapNodeEdits(doc: ParsedDoc, params: WrapNodeParams): Alternatives {
  const node = resolveOne(doc.tree, doc.source, doc.language, params.locator);
  const target = outerNode(node, doc.language);
  const start = attachedStart(target, doc.language);
  const end = codeEndIndex(target, doc.language);
  const indent = lineIndent(doc.source, start);
  const before = (params.before ?? "").replace(/\r\n/g, "\n");
  const after = (params.after ?? "").replace(/\r\n/g, "\n");
  let extra: string;
  if (typeof params.indent_body === "number") extra = " ".repeat(params.indent_body);
  else if (typeof params.indent_body === "string") extra = params.indent_body;
  else {
    const lastNonBlank =
      before
        .split("\n")
        .filter((l) => l.trim() !== "")
        .pop() ?? "";
    extra =
      before.endsWith("\n") && (BLOCK_OPENER.test(lastNonBlank) || KEYWORD_OPENER.test(lastNonBlank))
        ? indentUnit(doc.source, doc.language)
        : "";
  }
  const beforeTail = before.includes("\n") ? before.slice(before.lastIndexOf("\n") + 1) : "";
  const bodyPrefix = (/^[ \t]*$/.test(beforeTail) ? beforeTail : "") + extra;
  const rel = relativeToColumn(doc.source.slice(start, end), indent.length).split("\n");
  const body = rel.map((line, i) => (i === 0 ? extra + line : line.trim() === "" ? "" : bodyPrefix + line)).join("\n");
  const wrapped = `${before}${body}${after}`
    .split("\n")
    .map((line, i) => (i === 0 || line.trim() === "" ? (i === 0 ? line : "") : indent + line))
    .join("\n");
  return single([{ start, end, text: wrapped }]);
}

/** The matches replace_all_matching acts on: filtered, outermost only. */
export function replaceAllTargets(
  tree: Tree,
  source: string,
  language: LanguageId,
  locator: Locator,
  filter: string | undefined,
  some: boolean,
): Node[] {
  const all = some ? resolveSome(tree, source, language, locator) : resolveLocator(tree, source, language, locator);
  const kept = filter === "not_in_string_or_comment" ? all.filter((n) => !inStringOrComment(n, language)) : all;
  const outermost: Node[] = [];
  for (const n of [...kept].sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex)) {
    const last = outermost[outermost.length - 1];
    if (last && n.startIndex < last.endIndex) continue;
    outermost.push(n);
  }
  return outermost;
}

export function replaceAllMatchingEdits(doc: ParsedDoc, params: ReplaceAllMatchingParams): Alternatives {
  const targets = replaceAllTargets(doc.tree, doc.source, doc.language, params.locator, params.filter, true);
  if (targets.length === 0) {
    throw new PreconditionFailed(
      doc.path,
      "replace_all_matching",
      "every match is inside a string or comment; drop the filter or change the locator",
    );
  }
  const replacement = trimBlankLines(params.replacement).code;
  const fill = captureTemplate(doc, params.locator, replacement);
  return single(
    targets.map((n) => ({
      start: n.startIndex,
      end: codeEndIndex(n, doc.language),
      text: placeCode(fill(n), lineIndent(doc.source, n.startIndex), unitOf(doc), doc.language)[0]!.text,
    })),
  );
}

/** `$name` or `${name}` (for names with `.` or `-`, or followed by a letter) of a capture template; `$$` is a literal `$`. */
const TEMPLATE_VARIABLE = /\$\$|\$\{([A-Za-z_][\w.-]*)\}|\$([A-Za-z_]\w*)/g;

/**
 * The replacement for each target node. With an S-expression locator, `$name` in the replacement is the
 * text the query's capture `@name` matched in the match that produced the node (`$$` is `$`); a `$word`
 * that names no capture of the query is left as written (code may use `$`). Other locators: as written.
 */
function captureTemplate(
  doc: ParsedDoc,
  locator: ReplaceAllMatchingParams["locator"],
  replacement: string,
): (node: Node) => string {
  if (!("type" in locator) || locator.type !== "sexp" || !replacement.includes("$")) return () => replacement;
  const names = new Set(sexpCaptureNames(locator.file, doc.language, locator.query));
  if (![...replacement.matchAll(TEMPLATE_VARIABLE)].some((m) => m[0] === "$$" || names.has(m[1] ?? m[2]!)))
    return () => replacement;
  const captured = sexpCaptures(doc.tree, doc.language, locator);
  return (node) => {
    const texts = captured.get(node.id) ?? {};
    return replacement.replace(TEMPLATE_VARIABLE, (all, braced: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare;
      return name === undefined ? "$" : names.has(name) ? (texts[name] ?? "") : all;
    });
  };
}

// ---------------------------------------------------------------------------------------------
// Read-only primitives

export interface LocatedNode {
  readonly start_line: number;
  readonly end_line: number;
  readonly kind: string;
  readonly type: string;
  readonly name: string | null;
  readonly text_preview: string;
  /** UTF-16 offsets. */
  readonly start: number;
  readonly end: number;
}

export interface LocateOutput {
  readonly found: boolean;
  readonly count: number;
  readonly nodes: readonly LocatedNode[];
}

export interface RegionOutput {
  /** UTF-8 byte offsets (the design's (docs/design.md, Origins) fields). */
  readonly start_byte: number;
  readonly end_byte: number;
  /** UTF-16 offsets (what {@link Edit}s use). */
  readonly start: number;
  readonly end: number;
  readonly start_line: number;
  readonly end_line: number;
  readonly text: string;
}

const preview = (text: string): string => {
  const first = text.split("\n")[0] ?? "";
  return first.length > 80 ? `${first.slice(0, 77)}...` : first;
};

function describe(node: Node, language: LanguageId): LocatedNode {
  return {
    start_line: node.startPosition.row + 1,
    end_line: node.endPosition.row + 1,
    kind: kindOfNode(node, language),
    type: node.type,
    name: nodeName(node, language) ?? null,
    text_preview: preview(node.text),
    start: node.startIndex,
    end: node.endIndex,
  };
}

/** `{found, count, nodes}`: never fails for "no match" (use it in conditions); fails for a wrong kind or query. */
export function locateIn(doc: ParsedDoc, params: LocateParams): LocateOutput {
  const nodes = resolveLocator(doc.tree, doc.source, doc.language, params.locator);
  return { found: nodes.length > 0, count: nodes.length, nodes: nodes.map((n) => describe(n, doc.language)) };
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/** The region of exactly one node. */
export function locateRegionIn(doc: ParsedDoc, params: LocateParams): RegionOutput {
  const node = resolveOne(doc.tree, doc.source, doc.language, params.locator);
  const end = codeEndIndex(node, doc.language);
  const startByte = utf8Length(doc.source.slice(0, node.startIndex));
  const text = doc.source.slice(node.startIndex, end);
  return {
    start_byte: startByte,
    end_byte: startByte + utf8Length(text),
    start: node.startIndex,
    end,
    start_line: node.startPosition.row + 1,
    end_line: doc.source.slice(0, end).split("\n").length,
    text,
  };
}

// ---------------------------------------------------------------------------------------------
// Execution of one mutator on one document: choose the alternative, check postconditions.

export type MutatorName =
  | "replace_node"
  | "insert_before_node"
  | "insert_after_node"
  | "delete_node"
  | "wrap_node"
  | "replace_all_matching";
export const MUTATORS: readonly MutatorName[] = [
  "replace_node",
  "insert_before_node",
  "insert_after_node",
  "delete_node",
  "wrap_node",
  "replace_all_matching",
];

type MutatorParams =
  | ReplaceNodeParams
  | InsertNodeParams
  | DeleteNodeParams
  | WrapNodeParams
  | ReplaceAllMatchingParams;

/** In a file whose lines end with CRLF, the inserted line breaks are CRLF too. */
export function matchLineEndings(source: string, alternatives: Alternatives): Alternatives {
  const crlf = source.indexOf("\r\n");
  if (crlf < 0) return alternatives;
  const lf = source.replace(/\r\n/g, "").indexOf("\n");
  if (lf >= 0 && source.split("\r\n").length < source.split("\n").length / 2) return alternatives;
  return alternatives.map((edits) =>
    withNotes(
      edits.map((e) => ({ ...e, text: e.text.replace(/\r?\n/g, "\r\n") })),
      notesOf(edits),
    ),
  );
}

export function mutatorEdits(name: MutatorName, doc: ParsedDoc, params: MutatorParams): Alternatives {
  return matchLineEndings(doc.source, mutatorEditsLf(name, doc, params));
}

function mutatorEditsLf(name: MutatorName, doc: ParsedDoc, params: MutatorParams): Alternatives {
  switch (name) {
    case "replace_node":
      return replaceNodeEdits(doc, params as ReplaceNodeParams);
    case "insert_before_node":
      return insertBeforeEdits(doc, params as InsertNodeParams);
    case "insert_after_node":
      return insertAfterEdits(doc, params as InsertNodeParams);
    case "delete_node":
      return deleteNodeEdits(doc, params as DeleteNodeParams);
    case "wrap_node":
      return wrapNodeEdits(doc, params as WrapNodeParams);
    case "replace_all_matching":
      return replaceAllMatchingEdits(doc, params as ReplaceAllMatchingParams);
  }
}

/** The outcome of applying edits to a document: its new text and tree (owned by the caller). */
export interface Applied {
  readonly source: string;
  readonly tree: Tree;
  readonly edits: readonly Edit[];
  /** tree-sitter's changed ranges from the document's tree to `tree` (new offsets). */
  readonly changedRanges?: readonly Range[];
  /** The ERROR/MISSING nodes of `tree`. */
  readonly errors?: readonly ErrorSpan[];
}

/** A postcondition beyond "parses", checked on the new tree; returns a failure reason or undefined. */
export type ExtraCheck = (after: ParsedDoc, edits: readonly Edit[]) => string | undefined;

/**
 * Applies the first alternative whose result adds no syntax error (and passes `extra`).
 * `beforeErrors` are the errors of `doc.tree`. Throws `PostconditionFailed` (reporting the
 * first alternative's problems) when none passes. The caller owns the returned tree.
 */
export function applyChecked(
  doc: ParsedDoc,
  op: string,
  alternatives: Alternatives,
  extra?: ExtraCheck,
  beforeErrors?: readonly ErrorSpan[],
): Applied {
  const before = beforeErrors ?? errorSpans(doc.tree);
  let firstFailure: PostconditionFailed | undefined;
  for (const edits of alternatives) {
    const source = applyEdits(doc.source, edits);
    const { tree, changedRanges } = reparseWithRanges(doc.tree, doc.source, edits, source, doc.language);
    const errors = errorSpansAfter(before, tree, source, edits, changedRanges);
    const introduced = newSyntaxErrors(before, errors, edits);
    let failure: PostconditionFailed | undefined;
    // An HTML template's markup reads as errors to tree-sitter-html; a template is judged as text (`isHtmlTemplate`).
    // C/C++ conditionals may split code so that it reads as errors only as written (`preprocessorExplains`).
    if (
      introduced.length > 0 &&
      !(doc.language === "html" && isHtmlTemplate(source)) &&
      !preprocessorExplains(doc.language, doc.source, source, edits)
    ) {
      failure = new PostconditionFailed(doc.path, op, syntaxHint(op), introduced);
    } else if (
      doc.language === "python" &&
      (failure = indentationFailure(doc, op, source, edits) ?? structureFailure(doc, op, tree, edits))
    ) {
      // CPython's indentation rules, which tree-sitter does not enforce.
    } else if (extra) {
      const reason = extra({ ...doc, source, tree }, edits);
      if (reason) failure = new PostconditionFailed(doc.path, op, reason);
    }
    if (!failure) return { source, tree, edits, changedRanges, errors };
    tree.delete();
    firstFailure ??= failure;
  }
  throw firstFailure ?? new PostconditionFailed(doc.path, op, "no edit was produced");
}

/**
 * The result breaks CPython's indentation rules (which tree-sitter-python does not check) where
 * the file before did not: an edit may not make a Python file uncompilable. A file that already
 * had such problems may be edited as long as it gets no more of them.
 */
function indentationFailure(
  doc: ParsedDoc,
  op: string,
  source: string,
  edits: readonly Edit[],
): PostconditionFailed | undefined {
  const ranges = editedRanges(edits);
  if (ranges.length === 0) return undefined;
  const after = indentProblemsAfter(
    doc.source,
    source,
    ranges[0]!.start,
    ranges[ranges.length - 1]!.end,
    source.length - doc.source.length,
  );
  if (after.length === 0) return undefined;
  const before = cachedIndentProblems(doc.source);
  if (before.length > 0 && after.length <= before.length) return undefined;
  const first = after.find((p) => !before.some((b) => b.message === p.message && b.line === p.line)) ?? after[0]!;
  const lineText = source.split("\n")[first.line - 1] ?? "";
  return new PostconditionFailed(
    doc.path,
    op,
    `the result would not compile: line ${first.line}: ${first.message} (${JSON.stringify(lineText.trim().slice(0, 60))}); write the code's lines relative to its first line, at column 0, with the file's indentation unit (${JSON.stringify(indentUnit(doc.source, doc.language))})`,
  );
}

/** The new code puts a `break`/`continue` outside a loop or a `return`/`yield` outside a function: CPython would not compile the file. */
function structureFailure(
  doc: ParsedDoc,
  op: string,
  tree: Tree,
  edits: readonly Edit[],
): PostconditionFailed | undefined {
  const problem = pythonStructureProblems(
    tree.rootNode,
    editedRanges(edits).filter((r) => r.end > r.start),
  )[0];
  if (!problem) return undefined;
  return new PostconditionFailed(
    doc.path,
    op,
    `the result would not compile: line ${problem.line}: ${problem.message}; check that the locator names the node you mean (its parent, its index)`,
  );
}

function syntaxHint(op: string): string {
  switch (op) {
    case "delete_node":
    case "delete_lines":
      return "deleting it would leave a syntax error; delete the enclosing statement or node instead";
    case "wrap_node":
    case "wrap_block":
      return "the wrapped result does not parse; check that before/after are valid for this language and close what they open";
    default:
      return "the result would have a new syntax error; fix the code you are inserting";
  }
}

/** Postconditions specific to a mutator (beyond "parses"), given the document before. */
export function mutatorCheck(name: MutatorName, before: ParsedDoc, params: MutatorParams): ExtraCheck | undefined {
  if (name === "delete_node") {
    const locator = (params as DeleteNodeParams).locator;
    const node = resolveOne(before.tree, before.source, before.language, locator);
    const target = outerNode(node, before.language);
    const count = resolveLocator(before.tree, before.source, before.language, withoutIndex(locator)).length;
    const type = node.type;
    const text = node.text;
    const start = target.startIndex;
    return (after, edits) => {
      const now = resolveLocator(after.tree, after.source, after.language, withoutIndex(locator));
      if (now.length < count) return undefined;
      let mapped = start;
      for (const e of edits) if (e.start <= start) mapped += e.text.length - (Math.min(e.end, start) - e.start);
      const still = now.some((n) => n.type === type && n.text === text && Math.abs(n.startIndex - mapped) <= 1);
      return still ? "the node still exists after deletion" : undefined;
    };
  }
  if (name === "replace_all_matching") {
    const p = params as ReplaceAllMatchingParams;
    const locator = withoutIndex(p.locator);
    const count = replaceAllTargets(before.tree, before.source, before.language, locator, p.filter, false).length;
    const replaced = replaceAllTargets(before.tree, before.source, before.language, p.locator, p.filter, false).length;
    return (after) => {
      const remaining = replaceAllTargets(after.tree, after.source, after.language, locator, p.filter, false).length;
      return remaining > count - replaced
        ? `${remaining} node${remaining === 1 ? "" : "s"} still match${remaining === 1 ? "es" : ""} the locator after replacing (the replacement text matches it again)`
        : undefined;
    };
  }
  return undefined;
}

function withoutIndex(locator: Locator): Locator {
  const { index: _index, ...rest } = locator as Locator & { index?: number };
  return rest as Locator;
}

/**
 * Runs one mutator on a parsed document: edits, application, postconditions. Pure; throws
 * tagged errors (locator errors, `PreconditionFailed`, `PostconditionFailed`).
 */
export function runMutator(
  name: MutatorName,
  doc: ParsedDoc,
  params: MutatorParams,
  beforeErrors?: readonly ErrorSpan[],
): Applied {
  const alternatives = mutatorEdits(name, doc, params);
  return applyChecked(doc, name, alternatives, mutatorCheck(name, doc, params), beforeErrors);
}

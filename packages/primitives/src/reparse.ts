/**
 * Incremental re-parsing: the tree of the text after some edits, reusing the tree before them
 * (tree-sitter re-parses only what changed). Results equal a full parse.
 *
 * This is the one place GraphPlan tells tree-sitter about edits. Each edit is *described* to
 * tree-sitter as reaching over the whitespace around it and one character into the tokens on
 * either side (text that is the same before and after): tree-sitter-python's external scanner
 * (newlines, indentation) makes an edit whose boundary touches a newline or an indentation
 * token re-parse everything after it, ~30–50 ms on 5,000 lines; an edit bounded inside ordinary
 * tokens re-parses only the statement around it (~1–2 ms).
 */
import { Parser, type Point, type Range, type Tree } from "web-tree-sitter";
import { grammar, type LanguageId } from "@graphplan/graph";
import { sortEdits, type Edit } from "./edits.js";

const parsers = new Map<LanguageId, Parser>();

function parserFor(language: LanguageId): Parser {
  let parser = parsers.get(language);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(grammar(language));
    parsers.set(language, parser);
  }
  return parser;
}

/** A full parse of `source` with the shared parser of `language` (the caller owns the tree). */
export function parseFull(source: string, language: LanguageId): Tree {
  const tree = parserFor(language).parse(source);
  if (!tree) throw new Error(`tree-sitter returned no tree for a ${language} source of ${source.length} chars`);
  return tree;
}

/** Line starts of a text, for offset → point conversions. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The line starts of the text after `sorted` edits, from the line starts before them (no scan of
 * the whole new text): starts whose newline an edit replaced go, the edits' own newlines come in.
 */
export function shiftLineStarts(starts: readonly number[], sorted: readonly Edit[]): number[] {
  const out: number[] = [];
  let i = 0;
  let delta = 0;
  for (const edit of sorted) {
    while (i < starts.length && starts[i]! <= edit.start) out.push(starts[i++]! + delta);
    while (i < starts.length && starts[i]! <= edit.end) i++;
    const base = edit.start + delta;
    for (let k = edit.text.indexOf("\n"); k >= 0; k = edit.text.indexOf("\n", k + 1)) out.push(base + k + 1);
    delta += edit.text.length - (edit.end - edit.start);
  }
  while (i < starts.length) out.push(starts[i++]! + delta);
  return out;
}

/** Line starts of the text each tree was parsed from, carried from a tree to its re-parse. */
const startsOfTree = new WeakMap<Tree, readonly number[]>();

/**
 * Offsets where the lines of `source` start (`source` must be the text `tree` was parsed from):
 * kept per tree, and carried through each incremental re-parse without scanning the new text.
 */
export function lineStartsOf(tree: Tree, source: string): readonly number[] {
  let starts = startsOfTree.get(tree);
  if (!starts) {
    starts = lineStarts(source);
    startsOfTree.set(tree, starts);
  }
  return starts;
}

function pointAt(starts: readonly number[], index: number): Point {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return { row: lo, column: index - starts[lo]! };
}

function advance(start: Point, text: string): Point {
  const last = text.lastIndexOf("\n");
  if (last < 0) return { row: start.row, column: start.column + text.length };
  let rows = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) rows++;
  return { row: start.row + rows, column: text.length - last - 1 };
}

const isBlank = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 13;

/**
 * The edits as they are described to tree-sitter: each grown over the whitespace around it and
 * one character further on each side (never into a neighbouring edit), with the grown margins'
 * text added to its text. Applying them gives the same text as applying `sorted`.
 */
export function widenEdits(source: string, sorted: readonly Edit[]): Edit[] {
  const out: Edit[] = [];
  let floor = 0;
  for (let i = 0; i < sorted.length; i++) {
    const edit = sorted[i]!;
    const ceiling = sorted[i + 1]?.start ?? source.length;
    let start = edit.start;
    while (start > floor && isBlank(source.charCodeAt(start - 1))) start--;
    if (start > floor) start--;
    let end = edit.end;
    while (end < ceiling && isBlank(source.charCodeAt(end))) end++;
    if (end < ceiling) end++;
    out.push({ start, end, text: source.slice(start, edit.start) + edit.text + source.slice(edit.end, end) });
    floor = end;
  }
  return out;
}

/** A re-parse's tree and the ranges (new offsets) whose syntactic structure changed. */
export interface Reparsed {
  readonly tree: Tree;
  readonly changedRanges: readonly Range[];
}

/**
 * The tree of `newSource` (= `oldSource` with `edits` applied, offsets in `oldSource`), parsed
 * incrementally from `oldTree`, which is left untouched, with tree-sitter's changed ranges.
 * The caller owns the returned tree. `starts` may pass `lineStarts(oldSource)` when known.
 */
export function reparseWithRanges(
  oldTree: Tree,
  oldSource: string,
  edits: readonly Edit[],
  newSource: string,
  language: LanguageId,
  starts: readonly number[] = lineStartsOf(oldTree, oldSource),
): Reparsed {
  const copy = oldTree.copy();
  try {
    const sorted = sortEdits(edits);
    const widened = widenEdits(oldSource, sorted);
    // Last edit first: the coordinates of each edit are then those of the original text.
    for (let i = widened.length - 1; i >= 0; i--) {
      const edit = widened[i]!;
      const startPosition = pointAt(starts, edit.start);
      copy.edit({
        startIndex: edit.start,
        oldEndIndex: edit.end,
        newEndIndex: edit.start + edit.text.length,
        startPosition,
        oldEndPosition: pointAt(starts, edit.end),
        newEndPosition: advance(startPosition, edit.text),
      });
    }
    const tree = parserFor(language).parse(newSource, copy);
    if (!tree) throw new Error(`tree-sitter returned no tree for a ${language} source of ${newSource.length} chars`);
    startsOfTree.set(tree, shiftLineStarts(starts, sorted));
    return { tree, changedRanges: copy.getChangedRanges(tree) };
  } finally {
    copy.delete();
  }
}

/**
 * The tree of `newSource` (= `oldSource` with `edits` applied), parsed incrementally from
 * `oldTree`, which is left untouched. The caller owns the returned tree.
 */
export function reparse(
  oldTree: Tree,
  oldSource: string,
  edits: readonly Edit[],
  newSource: string,
  language: LanguageId,
): Tree {
  return reparseWithRanges(oldTree, oldSource, edits, newSource, language).tree;
}

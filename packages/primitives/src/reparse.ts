/**
 * Incremental re-parsing: the tree of the text after some edits, reusing the tree before them
 * (tree-sitter re-parses only what changed). Results equal a full parse.
 */
import { Parser, type Point, type Tree } from "web-tree-sitter";
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

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
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

/**
 * The tree of `newSource` (= `oldSource` with `edits` applied), parsed incrementally from
 * `oldTree`, which is left untouched. The caller owns the returned tree.
 */
export function reparse(oldTree: Tree, oldSource: string, edits: readonly Edit[], newSource: string, language: LanguageId): Tree {
  const copy = oldTree.copy();
  try {
    const starts = lineStarts(oldSource);
    // Last edit first: the coordinates of each edit are then those of the original text.
    for (const edit of sortEdits(edits).reverse()) {
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
    return tree;
  } finally {
    copy.delete();
  }
}

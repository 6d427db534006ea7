/** Incremental re-parsing after edits (web-tree-sitter's `Tree.edit` + `parse(text, oldTree)`). */
import { grammar, type LanguageId } from "@graphplan/graph";
import type { Edit } from "@graphplan/primitives";
import { Parser, type Point, type Tree } from "web-tree-sitter";

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

function pointAt(text: string, index: number): Point {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  let row = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < index; i = text.indexOf("\n", i + 1)) row++;
  return { row, column: index - lineStart };
}

function advance(start: Point, text: string): Point {
  const lines = text.split("\n");
  if (lines.length === 1) return { row: start.row, column: start.column + text.length };
  return { row: start.row + lines.length - 1, column: lines[lines.length - 1]!.length };
}

/**
 * The tree of `after`, parsed incrementally from `tree` (the tree of `before`), where `after` is
 * `before` with `edits` applied (offsets in `before`). `tree` is consumed: it is edited in place
 * and deleted; the caller owns the returned tree.
 */
export function reparse(tree: Tree, before: string, after: string, language: LanguageId, edits: readonly Edit[]): Tree {
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
    const startPosition = pointAt(before, edit.start);
    tree.edit({
      startIndex: edit.start,
      oldEndIndex: edit.end,
      newEndIndex: edit.start + edit.text.length,
      startPosition,
      oldEndPosition: pointAt(before, edit.end),
      newEndPosition: advance(startPosition, edit.text),
    });
  }
  const next = parserFor(language).parse(after, tree);
  tree.delete();
  if (!next) throw new Error(`tree-sitter returned no tree for a ${language} source of ${after.length} chars`);
  return next;
}

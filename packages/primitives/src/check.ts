/**
 * The "parses" postcondition: an edit may not add a syntax error. Errors that were in the file
 * before (mapped through the edits) are tolerated, so a file with an old error can still be
 * edited elsewhere.
 */
import type { Node, Tree } from "web-tree-sitter";
import { editedRanges, mapOffset, type Edit } from "./edits.js";
import type { SyntaxProblem } from "./errors.js";

export interface ErrorSpan {
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
  readonly kind: "ERROR" | "MISSING";
  readonly text: string;
}

/** ERROR and MISSING nodes of a tree (outermost ERROR nodes), in document order. */
export function errorSpans(tree: Tree, limit = 500): ErrorSpan[] {
  const out: ErrorSpan[] = [];
  if (!tree.rootNode.hasError) return out;
  const visit = (node: Node): void => {
    if (out.length >= limit) return;
    if (node.isMissing || node.type === "ERROR") {
      out.push({
        start: node.startIndex,
        end: node.endIndex,
        line: node.startPosition.row + 1,
        column: node.startPosition.column,
        kind: node.isMissing ? "MISSING" : "ERROR",
        text: node.isMissing ? node.type : node.text.slice(0, 40),
      });
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return out;
}

/**
 * The errors of `after` that the edits introduced. An error counts as old when an error of
 * the same kind started at the same place before the edits; when tree-sitter's recovery
 * reshapes old errors, the edit is still accepted if there are no more errors than before
 * and none touches the edited text.
 */
export function newSyntaxErrors(before: readonly ErrorSpan[], after: readonly ErrorSpan[], edits: readonly Edit[]): SyntaxProblem[] {
  if (after.length === 0) return [];
  const old = new Set<string>();
  for (const e of before) {
    const mapped = mapOffset(edits, e.start);
    if (mapped !== undefined) old.add(`${e.kind}:${mapped}`);
  }
  const fresh = after.filter((e) => !old.has(`${e.kind}:${e.start}`));
  if (fresh.length === 0) return [];
  const ranges = editedRanges(edits);
  const touches = (e: ErrorSpan) => ranges.some((r) => e.start <= r.end && r.start <= e.end);
  if (after.length <= before.length && !fresh.some(touches)) return [];
  return fresh.map(({ line, column, kind, text }) => ({ line, column, kind, text }));
}

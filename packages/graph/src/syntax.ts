/** Small, language-aware facts about syntax trees that every package above the graph needs. */
import type { Node, Point, Tree } from "web-tree-sitter";
import { LANGUAGES, type LanguageId } from "./languages.js";

export interface SyntaxError {
  /** 1-based line. */
  readonly line: number;
  /** 0-based column. */
  readonly column: number;
  /** `ERROR` for text the grammar could not place, `MISSING` for a token it had to invent. */
  readonly kind: "ERROR" | "MISSING";
  /** The offending text (or the missing token type), at most 40 characters. */
  readonly text: string;
}

/**
 * Every syntax error in the tree, outermost first, in document order. A node can hold an error
 * that no visible child shows (a missing hidden token, such as the newline between two Python
 * statements written on one line): it is reported as `MISSING` `(hidden token)` where two of
 * its children meet on one line, or at the node's start.
 */
export function syntaxErrors(tree: Tree, limit = 50): SyntaxError[] {
  const out: SyntaxError[] = [];
  const visit = (node: Node): void => {
    if (out.length >= limit) return;
    if (node.isMissing) {
      out.push({
        line: node.startPosition.row + 1,
        column: node.startPosition.column,
        kind: "MISSING",
        text: node.type,
      });
      return;
    }
    if (node.type === "ERROR") {
      out.push({
        line: node.startPosition.row + 1,
        column: node.startPosition.column,
        kind: "ERROR",
        text: node.text.slice(0, 40),
      });
      return;
    }
    if (!node.hasError) return;
    const before = out.length;
    const children = node.children.filter((child): child is Node => child !== null);
    for (const child of children) visit(child);
    if (out.length > before) return;
    const named = children.filter((child) => child.isNamed);
    const seam = named.findIndex((child, i) => i > 0 && child.startPosition.row === named[i - 1]!.endPosition.row);
    const at = seam > 0 ? named[seam]!.startPosition : node.startPosition;
    out.push({ line: at.row + 1, column: at.column, kind: "MISSING", text: "(hidden token)" });
  };
  visit(tree.rootNode);
  return out;
}

export interface NodeEnd {
  readonly endIndex: number;
  readonly endPosition: Point;
}

/**
 * Where a node really ends once trailing comments (and other extras: a Python line continuation
 * followed by a comment) are left out. tree-sitter puts the comments
 * that follow the last statement of a block inside the block, so a definition's node reaches
 * past its code; CPython's `ast` (and a reader) ends the definition at its last statement.
 * Edits that replace or delete a definition use this end so the comments after it survive.
 */
export function codeEnd(node: Node, language: LanguageId): NodeEnd {
  const comments = LANGUAGES[language].commentTypes;
  let current = node;
  for (;;) {
    let last: Node | null = current.lastChild;
    // Comments, and other tokens that are not code (a Python line continuation before a comment).
    while (last && (comments.includes(last.type) || last.isExtra)) last = last.previousSibling;
    if (!last) return { endIndex: current.endIndex, endPosition: current.endPosition };
    if (last.childCount === 0) return { endIndex: last.endIndex, endPosition: last.endPosition };
    current = last;
  }
}

/** True when `node` is, or lies inside, a string or comment of `language`. */
export function inStringOrComment(node: Node, language: LanguageId): "string" | "comment" | undefined {
  const spec = LANGUAGES[language];
  for (let n: Node | null = node; n; n = n.parent) {
    if (spec.commentTypes.includes(n.type)) return "comment";
    if (spec.stringTypes.includes(n.type)) return "string";
  }
  return undefined;
}

/**
 * The children of `node` from the first one that reaches `from` to the last one that starts
 * before `to` (with `inclusive`, touching counts), found by binary search over the child
 * indices: a node with many children (a module's statements) is not read child by child.
 * (`firstChildForIndex` + `nextSibling` would skip zero-width MISSING children, and
 * web-tree-sitter 0.25's `TreeCursor.gotoFirstChildForIndex` ignores its index.)
 */
export function childrenBetween(node: Node, from: number, to: number, inclusive: boolean): Node[] {
  const count = node.childCount;
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const end = node.child(mid)!.endIndex;
    if (inclusive ? end >= from : end > from) hi = mid;
    else lo = mid + 1;
  }
  const out: Node[] = [];
  for (let i = lo; i < count; i++) {
    const child = node.child(i)!;
    if (inclusive ? child.startIndex > to : child.startIndex >= to) break;
    out.push(child);
  }
  return out;
}

/** The field name under which `node` hangs from its parent (`condition`, `body`, ...), or null. */
export function fieldOf(node: Node): string | null {
  const parent = node.parent;
  if (!parent) return null;
  for (let i = 0; i < parent.childCount; i++) if (parent.child(i)?.id === node.id) return parent.fieldNameForChild(i);
  return null;
}

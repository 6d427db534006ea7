/** Ranges of text and the nodes that span them: the geometry the hierarchy checks share. */
import { childrenBetween, LANGUAGES, type LanguageId } from "@graphplan/graph";
import type { Node } from "web-tree-sitter";
import type { Edit } from "@graphplan/primitives";
import type { FileVersion } from "./sim.js";

export interface Span {
  readonly start: number;
  readonly end: number;
}

const isSpace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13 || code === 12;

/** The span without leading and trailing whitespace (an empty span stays where it was). */
export function trim(source: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && isSpace(source.charCodeAt(start))) start++;
  while (end > start && isSpace(source.charCodeAt(end - 1))) end--;
  return { start, end };
}

/** Where each edit's text lands in the new file. */
export function newSpans(edits: readonly Edit[]): Span[] {
  let delta = 0;
  return edits.map((edit) => {
    const start = edit.start + delta;
    delta += edit.text.length - (edit.end - edit.start);
    return { start, end: start + edit.text.length };
  });
}

/** Maps an offset of the old text to the new text (offsets inside a replaced range go to its start). */
export function mapOffset(edits: readonly Edit[], offset: number): number {
  let delta = 0;
  for (const edit of edits) {
    if (offset < edit.start) break;
    if (offset < edit.end) return edit.start + delta;
    delta += edit.text.length - (edit.end - edit.start);
  }
  return offset + delta;
}

/**
 * The span grown to whole lines, then over the blank lines next to it: "the lines of the edited
 * node". Deleting a definition may take the blank lines around it; that is still inside.
 */
export function lineRegion(doc: FileVersion, span: Span): Span {
  const source = doc.source;
  let start = source.lastIndexOf("\n", span.start - 1) + 1;
  let end = span.end > span.start && source.charCodeAt(span.end - 1) === 10 ? span.end : source.indexOf("\n", span.end);
  end = end < 0 ? source.length : Math.min(source.length, end + 1);
  // Blank lines above.
  for (;;) {
    if (start === 0) break;
    const prev = start >= 2 ? source.lastIndexOf("\n", start - 2) + 1 : 0;
    if (prev >= start || source.slice(prev, start).trim() !== "") break;
    start = prev;
  }
  // Blank lines below.
  for (;;) {
    if (end >= source.length) break;
    const next = source.indexOf("\n", end);
    const lineEnd = next < 0 ? source.length : next + 1;
    if (source.slice(end, lineEnd).trim() !== "") break;
    end = lineEnd;
  }
  return { start, end };
}

export function mergeSpans(spans: readonly Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Span[] = [];
  for (const span of sorted) {
    const last = out[out.length - 1];
    if (last && span.start <= last.end) out[out.length - 1] = { start: last.start, end: Math.max(last.end, span.end) };
    else out.push({ ...span });
  }
  return out;
}

export const within = (inner: Span, outer: readonly Span[]): boolean =>
  outer.some((o) => o.start <= inner.start && inner.end <= o.end);

/** The outermost node whose range is exactly `span`, if any. */
export function exactNode(root: Node, span: Span): Node | undefined {
  if (span.end <= span.start) return undefined;
  let node: Node | null = root.descendantForIndex(span.start, span.end - 1);
  while (node && (node.startIndex > span.start || node.endIndex < span.end)) node = node.parent;
  if (!node || node.startIndex !== span.start || node.endIndex !== span.end) return undefined;
  while (node.parent && node.parent.startIndex === span.start && node.parent.endIndex === span.end) node = node.parent;
  return node;
}

/** The smallest node strictly larger than `span` that contains it. */
export function container(root: Node, span: Span): Node {
  let node: Node | null = root.descendantForIndex(span.start, Math.max(span.start, span.end - 1));
  while (
    node &&
    (node.startIndex > span.start ||
      node.endIndex < span.end ||
      (node.startIndex === span.start && node.endIndex === span.end))
  ) {
    node = node.parent;
  }
  return node ?? root;
}

/**
 * The children of `node` (named and anonymous) that overlap `span`, in order; for a node with
 * many children (a module's statements) only the children around the span are read.
 */
export function childrenTouching(node: Node, span: Span): Node[] {
  if (node.childCount <= 16) {
    const out: Node[] = [];
    for (const child of node.children)
      if (child && child.endIndex > span.start && child.startIndex < span.end) out.push(child);
    return out;
  }
  return childrenBetween(node, span.start, span.end, false);
}

/**
 * The top-level nodes that make up `span`: the exact node when there is one, else the named
 * children of the container that lie inside the span (comments left out). `undefined` when a
 * child straddles the span's boundary.
 */
export function topNodes(root: Node, span: Span, language: LanguageId): Node[] | undefined {
  const exact = exactNode(root, span);
  if (exact) return [exact];
  const box = container(root, span);
  const comments = LANGUAGES[language].commentTypes;
  const out: Node[] = [];
  for (const child of childrenTouching(box, span)) {
    if (!child.isNamed) continue;
    if (child.startIndex < span.start || child.endIndex > span.end) return undefined;
    if (!comments.includes(child.type)) out.push(child);
  }
  return out;
}

/** Types of the ancestors of `node`, innermost first. */
export function ancestry(node: Node): string[] {
  const out: string[] = [];
  for (let n: Node | null = node; n; n = n.parent) out.push(n.type);
  return out;
}

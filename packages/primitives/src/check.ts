/**
 * The "parses" postcondition: an edit may not add a syntax error. Errors that were in the file
 * before (mapped through the edits) are tolerated, so a file with an old error can still be
 * edited elsewhere.
 */
import { blankMacros, childrenBetween, conditionalReadings, type LanguageId } from "@graphplan/graph";
import type { Node, Range, Tree } from "web-tree-sitter";
import { editedRanges, mapOffset, type Edit } from "./edits.js";
import { lineStarts, parseFull } from "./reparse.js";
import type { SyntaxProblem } from "./errors.js";

export interface ErrorSpan {
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly column: number;
  readonly kind: "ERROR" | "MISSING";
  readonly text: string;
}

const spanOf = (node: Node): ErrorSpan => ({
  start: node.startIndex,
  end: node.endIndex,
  line: node.startPosition.row + 1,
  column: node.startPosition.column,
  kind: node.isMissing ? "MISSING" : "ERROR",
  text: node.isMissing ? node.type : node.text.slice(0, 40),
});

/** ERROR and MISSING nodes of a tree (outermost ERROR nodes), in document order. */
export function errorSpans(tree: Tree, limit = 500): ErrorSpan[] {
  const out: ErrorSpan[] = [];
  if (!tree.rootNode.hasError) return out;
  const visit = (node: Node): void => {
    if (out.length >= limit) return;
    if (node.isMissing || node.type === "ERROR") {
      out.push(spanOf(node));
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return out;
}

interface Region {
  readonly start: number;
  readonly end: number;
}

/** Outermost ERROR/MISSING nodes under `node` that touch `region` (inclusive ends), into `out` by node id. */
function collectIn(node: Node, region: Region, out: Map<number, ErrorSpan>, limit: number): void {
  if (out.size >= limit || node.endIndex < region.start || node.startIndex > region.end) return;
  if (node.isMissing || node.type === "ERROR") {
    out.set(node.id, spanOf(node));
    return;
  }
  if (!node.hasError) return;
  for (const child of childrenBetween(node, region.start, region.end, true)) collectIn(child, region, out, limit);
}

/**
 * The ERROR and MISSING nodes of `tree` (the tree after `edits`), given the errors of the tree
 * before them, without walking the whole tree: outside the edited text and tree-sitter's changed
 * ranges the structure is the old one, so the old errors there are mapped through the edits; only
 * the error subtrees (`hasError`) that reach an edited or changed range are visited. Equal to
 * `errorSpans(tree)` (a property test checks it).
 */
export function errorSpansAfter(
  before: readonly ErrorSpan[],
  tree: Tree,
  newSource: string,
  edits: readonly Edit[],
  changedRanges: readonly Range[],
  limit = 500,
): ErrorSpan[] {
  if (!tree.rootNode.hasError) return [];
  const regions: Region[] = [
    ...editedRanges(edits),
    ...changedRanges.map((r) => ({ start: r.startIndex, end: r.endIndex })),
  ];
  const byNode = new Map<number, ErrorSpan>();
  for (const region of regions) collectIn(tree.rootNode, region, byNode, limit);
  const found = [...byNode.values()];
  const touches = (s: Region, r: Region): boolean => s.start <= r.end && r.start <= s.end;
  const out = [...found];
  let starts: number[] | undefined;
  for (const e of before) {
    const start = mapOffset(edits, e.start);
    const end = mapOffset(edits, e.end);
    if (start === undefined || end === undefined) continue;
    const moved = { start, end: Math.max(start, end) };
    if (regions.some((r) => touches(moved, r)) || found.some((f) => f.start <= moved.start && moved.end <= f.end))
      continue;
    starts ??= lineStarts(newSource);
    let row = 0;
    for (let lo = 0, hi = starts.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= start) {
        row = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    out.push({ ...e, start, end: moved.end, line: row + 1, column: start - starts[row]! });
  }
  return out.sort((x, y) => x.start - y.start || x.end - y.end).slice(0, limit);
}

/**
 * The errors of `after` that the edits introduced. An error counts as old when an error of
 * the same kind started at the same place before the edits; when tree-sitter's recovery
 * reshapes old errors, the edit is still accepted if there are no more errors than before
 * and none touches the edited text.
 */
export function newSyntaxErrors(
  before: readonly ErrorSpan[],
  after: readonly ErrorSpan[],
  edits: readonly Edit[],
): SyntaxProblem[] {
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

/**
 * C and C++: whether the preprocessor explains the syntax errors that `edits` (from `before` to
 * `after`) seem to add. In each of graph's `conditionalReadings` of the two sources (every
 * conditional's first branch, every one's last branch, the directives alone), read as written or
 * with its macros blanked, the edits must add no error, counting as old an error that repeats a
 * construct the file already failed to read: the same kind and text, no more of them than before
 * (code through a macro, such as zlib's `ZEXTERN uLong ZEXPORT f(...)`, moved or rewritten by the
 * edit), or a one-word `ERROR` of a text the file already had or after a word the file's one-word
 * `ERROR`s already follow (new code in the file's macro dialect: zlib's `local int f(void)` and
 * `local size_t g(void)`, `local` being `static`).
 * The readings are what a compiler sees, so an error none of them has is an artefact of reading a
 * split conditional as written; an error in code that any reading keeps is still caught
 * (docs/design.md, "C and C++: the preprocessor's readings"). Only called once the as-written check
 * has failed.
 */
export function preprocessorExplains(
  language: LanguageId,
  before: string,
  after: string,
  edits: readonly Edit[],
): boolean {
  if (language !== "c" && language !== "cpp") return false;
  const was = conditionalReadings(before);
  const now = conditionalReadings(after);
  if (!was || !now) return false;
  const adds = (from: string, to: string): boolean => {
    const a = parseFull(from, language);
    const b = parseFull(to, language);
    try {
      const old = errorSpans(a);
      const all = errorSpans(b);
      const introduced = new Set(newSyntaxErrors(old, all, edits).map((e) => `${e.line}:${e.column}`));
      if (introduced.size === 0) return false;
      const key = (e: ErrorSpan) => `${e.kind}:${e.text}`;
      const counts = (spans: readonly ErrorSpan[]) => {
        const out = new Map<string, number>();
        for (const e of spans) out.set(key(e), (out.get(key(e)) ?? 0) + 1);
        return out;
      };
      const had = counts(old);
      const has = counts(all);
      // A one-word ERROR after the word the file's own one-word ERRORs follow: code in the file's macro
      // dialect (zlib's `local int f(void)` and `local size_t g(void)`, `local` being `static`).
      const word = (e: ErrorSpan) => e.kind === "ERROR" && /^\w+$/.test(e.text);
      const prefix = (source: string, e: ErrorSpan) =>
        /(\w+)[ \t*]*$/.exec(source.slice(e.start - e.column, e.start))?.[1];
      const dialects = new Set(old.filter(word).map((e) => prefix(from, e)));
      dialects.delete(undefined);
      const dialect = (e: ErrorSpan) => word(e) && (had.has(key(e)) || dialects.has(prefix(to, e)));
      return all.some(
        (e) =>
          introduced.has(`${e.line}:${e.column}`) && (has.get(key(e)) ?? 0) > (had.get(key(e)) ?? 0) && !dialect(e),
      );
    } finally {
      a.delete();
      b.delete();
    }
  };
  return (["first", "last", "directives"] as const).every(
    (reading) =>
      !adds(was[reading], now[reading]) ||
      (reading !== "directives" && !adds(blankMacros(was[reading]), blankMacros(now[reading]))),
  );
}

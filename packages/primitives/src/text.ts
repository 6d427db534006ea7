/**
 * The text tier: edits of any text file (docs, changelogs, config, or code no node fits),
 * addressed by content — a snippet of the file or an anchor next to the new text — never by line
 * number. Pure: text in, edits out.
 *
 * Matching is layered (see docs/design.md, "The text tier"): exact first; then ignoring line
 * endings, runs of spaces and trailing whitespace; then with the snippet's indentation shifted;
 * and a merely similar text only when one place is clearly the closest. Every layer but the
 * exact one is reported as a correction, and a snippet that matches several places, or none, is
 * an error listing the nearest candidates with their lines.
 *
 * Where a correction was needed, the file's own bytes are kept on every line the step does not
 * mean to change: the edit is the line diff from `find` to `replace`, applied to the matched
 * lines, so a blank line, a trailing space or a CRLF the snippet left out is never lost or added.
 */
import { diffArrays } from "diff";
import { leadingWhitespace } from "./indent.js";
import { findPattern, mostSimilar, type MatchLayer, type TextMatch } from "./legacy.js";
import { BinaryFile, PatternAmbiguous, PatternNotFound, PreconditionFailed } from "./errors.js";
import type { Edit } from "./edits.js";
import type { AppendTextParams, InsertTextParams, ReplaceTextParams } from "./params.js";

/** How a snippet was found: `exact`, or the correction that found it. */
export interface TextPlace {
  readonly start: number;
  readonly end: number;
  readonly layer: MatchLayer;
  readonly score: number;
  /** 1-based line where the match starts. */
  readonly line: number;
}

/** What a text step did: its edits and, when the snippet was not in the file as written, the correction. */
export interface TextEdits {
  readonly edits: readonly Edit[];
  readonly place?: TextPlace;
  /** Said of a match that needed a correction (the step's output carries it to the model). */
  readonly correction?: string;
}

/** A similar match must beat every other place by this much similarity to count as unique. */
const SIMILAR_MARGIN = 0.05;

/** True when the text holds a NUL character: a binary file, which text steps refuse. */
export function isBinaryText(text: string): boolean {
  return text.includes("\u0000");
}

const lineOf = (source: string, offset: number): number => {
  let line = 1;
  for (let i = source.indexOf("\n"); i >= 0 && i < offset; i = source.indexOf("\n", i + 1)) line++;
  return line;
};

/**
 * The one place `snippet` occurs in `source`, by the layers above. Throws `PatternNotFound`
 * (with the most similar lines) or `PatternAmbiguous` (with every equally good place).
 */
export function findSnippet(source: string, snippet: string, file: string, op: string): TextPlace {
  let match: TextMatch | undefined;
  try {
    match = findPattern(source, snippet);
  } catch (error) {
    if (error instanceof PatternAmbiguous) throw error.in(file, op);
    throw error;
  }
  if (!match) throw new PatternNotFound(file, op, snippet, mostSimilar(source, snippet));
  const line = lineOf(source, match.start);
  if (match.layer === "similar") {
    // Unique means clearly the closest: a runner-up nearly as similar elsewhere is an ambiguity.
    const rivals = mostSimilar(source, snippet, 4).filter(
      (s) => s.line !== line && s.score >= match.score - SIMILAR_MARGIN,
    );
    if (rivals.length > 0) {
      const here = { line, text: source.slice(match.start, match.end).trim().split("\n")[0]!, score: match.score };
      throw new PatternAmbiguous(snippet, "similar", [here, ...rivals], rivals.length + 1, file, op);
    }
  }
  if (match.layer === "indentation" || match.layer === "similar") {
    // The snippet's lines are paired with the file's one to one: a blank line on one side only (a
    // stale copy that dropped or added one) would pair each line with its neighbour's.
    const wanted = trimmedLines(snippet);
    const got = source.slice(match.start, match.end).split("\n");
    if (wanted.length !== got.length || wanted.some((l, k) => (l.trim() === "") !== (got[k]!.trim() === ""))) {
      throw new PatternNotFound(file, op, snippet, mostSimilar(source, snippet));
    }
  }
  return { start: match.start, end: match.end, layer: match.layer, score: match.score, line };
}

/** A snippet's lines without its leading and trailing blank lines (as the line layers compare them). */
function trimmedLines(snippet: string): string[] {
  const lines = snippet.replace(/\r\n/g, "\n").split("\n");
  while (lines.length > 1 && lines[0]!.trim() === "") lines.shift();
  while (lines.length > 1 && lines[lines.length - 1]!.trim() === "") lines.pop();
  return lines;
}

/** How many blank lines `text` starts (`side` "head") or ends (`side` "tail") with, its last line break aside. */
function blankRun(text: string, side: "head" | "tail"): number {
  const lines = text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  if (lines.every((l) => l.trim() === "")) return 0;
  const ordered = side === "head" ? lines : [...lines].reverse();
  let n = 0;
  while (n < ordered.length && ordered[n]!.trim() === "") n++;
  return n;
}

/** `count` blank lines of `source` from `at` (a line start) on, or back from it: the offset past them, or `at` when they are not all there. */
function overBlankLines(source: string, at: number, count: number, direction: 1 | -1): number {
  let pos = at;
  for (let k = 0; k < count; k++) {
    if (direction === 1) {
      const nl = source.indexOf("\n", pos);
      if (nl < 0 || source.slice(pos, nl).trim() !== "") return at;
      pos = nl + 1;
    } else {
      if (pos === 0) return at;
      const prev = source.lastIndexOf("\n", pos - 2) + 1;
      if (source.slice(prev, pos - 1).trim() !== "") return at;
      pos = prev;
    }
  }
  return pos;
}

/** A correction as the step's output says it. */
function correctionOf(place: TextPlace): string | undefined {
  switch (place.layer) {
    case "exact":
      return undefined;
    case "whitespace":
      return `the text was not in the file as written; it matched at line ${place.line} once line endings and spaces were ignored`;
    case "indentation":
      return `the text was not in the file as written; it matched at line ${place.line} with its indentation shifted`;
    case "similar":
      return `the text was not in the file as written; the closest text, at line ${place.line} (similarity ${place.score.toFixed(2)}), was changed instead`;
  }
}

/** The file's line break: CRLF when most of its line breaks are. */
function lineBreakOf(source: string): "\n" | "\r\n" {
  const crlf = source.split("\r\n").length - 1;
  const all = source.split("\n").length - 1;
  return all > 0 && crlf * 2 > all ? "\r\n" : "\n";
}

/** Text written with `\n` line breaks, in the file's own line breaks (text already in CRLF stays as it is). */
function inFileBreaks(source: string, text: string): string {
  return lineBreakOf(source) === "\r\n" ? text.replace(/\r?\n/g, "\r\n") : text;
}

const splitLines = (text: string): string[] => text.split("\n");
// Lines of `find` and `replace` are in one frame (the model's): only trailing whitespace and CR are not a change; a
// change of spaces inside a line (re-aligned columns) is one, and must not be taken for a line they share.
const sameLine = (a: string, b: string): boolean => a.replace(/\s+$/, "") === b.replace(/\s+$/, "");

/**
 * The new text of the matched lines when the match needed a correction: the line diff from
 * `find` to `replace`, applied to the file's lines. A line `find` and `replace` share keeps the
 * file's bytes; a new line is shifted by the indentation the file's matched lines have over the
 * snippet's. `undefined` when the snippet's lines cannot be paired with the file's.
 */
function applyLineDiff(matched: string, find: string, replace: string, source: string): string | undefined {
  const fileLines = splitLines(matched);
  let findText = find.replace(/\r\n/g, "\n");
  let replaceText = replace.replace(/\r\n/g, "\n");
  // Whole lines given with their line break: the break is not part of the change.
  if (findText.endsWith("\n") && (replaceText.endsWith("\n") || replaceText === "")) {
    findText = findText.slice(0, -1);
    replaceText = replaceText.replace(/\n$/, "");
  }
  const trimBlank = (lines: string[]) => {
    let a = 0;
    let b = lines.length;
    while (b - a > 1 && lines[a]!.trim() === "") a++;
    while (b - a > 1 && lines[b - 1]!.trim() === "") b--;
    return { lines: lines.slice(a, b), head: a, tail: lines.length - b };
  };
  const f = trimBlank(splitLines(findText));
  if (f.lines.length !== fileLines.length) return undefined;
  const r = replaceText === "" ? [] : splitLines(replaceText);
  // Leading and trailing blank lines of `find` that `replace` also has are not part of the change
  // (the match leaves the quote's outer blank lines out; `replaceTextEdits` removes those `replace` drops).
  let rStart = 0;
  while (rStart < Math.min(f.head, r.length) && r[rStart]!.trim() === "") rStart++;
  let rEnd = r.length;
  while (rEnd > rStart && r.length - rEnd < f.tail && r[rEnd - 1]!.trim() === "") rEnd--;
  const rLines = r.slice(rStart, rEnd);
  const shiftFrom = leadingWhitespace(f.lines[0]!);
  const shiftTo = leadingWhitespace(fileLines[0]!);
  const shift = (line: string): string => {
    if (line.trim() === "" || shiftFrom === shiftTo) return line;
    if (line.startsWith(shiftFrom)) return shiftTo + line.slice(shiftFrom.length);
    // A line indented less than the snippet's first line (a closing bracket, a dedented block) keeps
    // its offset from it: forcing it to the first line's indentation would change its meaning.
    const own = leadingWhitespace(line);
    const width = Math.max(0, own.length + shiftTo.length - shiftFrom.length);
    return (shiftTo[0] ?? shiftFrom[0] ?? " ").repeat(width) + line.slice(own.length);
  };
  const out: string[] = [];
  let fi = 0;
  for (const part of diffArrays(f.lines, rLines, { comparator: sameLine })) {
    if (part.removed) fi += part.value.length;
    else if (part.added) for (const line of part.value) out.push(shift(line));
    else for (let k = 0; k < part.value.length; k++) out.push(fileLines[fi++]!);
  }
  if (lineBreakOf(source) === "\r\n") {
    const lastHasCr = fileLines[fileLines.length - 1]!.endsWith("\r");
    for (let i = 0; i < out.length; i++)
      if (!out[i]!.endsWith("\r") && (i < out.length - 1 || lastHasCr)) out[i] += "\r";
  }
  return out.join("\n");
}

function refuseBinary(source: string, file: string, op: string): void {
  if (isBinaryText(source)) throw new BinaryFile(file, op);
}

/** replace_text: the one place `find` occurs becomes `replace`. */
export function replaceTextEdits(source: string, p: ReplaceTextParams, op = "replace_text"): TextEdits {
  refuseBinary(source, p.file, op);
  if (p.find === p.replace) {
    throw new PreconditionFailed(
      p.file,
      op,
      `find and replace are the same text, so the step would change nothing. If the change is to whitespace or line endings, quote the lines exactly as the file has them (trailing spaces, CRLF); else write the new text in replace, or drop the step`,
    );
  }
  const place = findSnippet(source, p.find, p.file, op);
  const correction = correctionOf(place);
  const corrected = correction ? { correction } : {};
  if (place.layer === "exact") return exactReplacement(source, place, p.replace);
  const result = correctedReplacement(source, place, p);
  if (result.edits.every((e) => source.slice(e.start, e.end) === e.text)) {
    // The quote and the replacement differ only in what the correction ignored (trailing spaces, line
    // endings, indentation): applied, the step would silently do nothing.
    throw new PreconditionFailed(
      p.file,
      op,
      `the text matched at line ${place.line} only once ${IGNORED[place.layer]} ignored, and there the replacement changes nothing. If the change is to whitespace or line endings, quote the lines exactly as the file has them`,
    );
  }
  return { ...result, ...corrected };
}

const IGNORED: Record<Exclude<MatchLayer, "exact">, string> = {
  whitespace: "line endings and trailing spaces were",
  indentation: "indentation was",
  similar: "small differences were",
};

/** A corrected match replaced: only the lines the snippet's own diff changes (see `applyLineDiff`). */
function correctedReplacement(source: string, place: TextPlace, p: ReplaceTextParams): Omit<TextEdits, "correction"> {
  // A corrected match of whole lines changes only the lines the snippet's own diff changes.
  const lineStart = source.lastIndexOf("\n", place.start - 1) + 1;
  const nl = source.indexOf("\n", Math.max(place.end - 1, place.start));
  const lineEnd = nl < 0 ? source.length : nl;
  const wholeLines =
    source.slice(lineStart, place.start).trim() === "" && source.slice(place.end, lineEnd).trim() === "";
  const text = wholeLines ? applyLineDiff(source.slice(lineStart, lineEnd), p.find, p.replace, source) : undefined;
  if (text === undefined)
    return { edits: [{ start: place.start, end: place.end, text: inFileBreaks(source, p.replace) }], place };
  // The blank lines the snippet quoted around its lines (which the line layers leave out of the match)
  // go when the replacement does not keep them; every line deleted, its line break goes too.
  const after = Math.max(0, blankRun(p.find, "tail") - blankRun(p.replace, "tail"));
  const before = Math.max(0, blankRun(p.find, "head") - blankRun(p.replace, "head"));
  const start = overBlankLines(source, lineStart, before, -1);
  if (nl < 0) return { edits: [{ start, end: lineEnd, text }], place };
  const past = overBlankLines(source, lineEnd + 1, after, 1);
  // A quote that ends with its line break, replaced by text that does not, deletes that break (joining
  // the next line on, as the exact quote would): the line diff above covers the lines, not the break.
  const dropsBreak = /\n$/.test(p.find) && p.replace !== "" && !p.replace.endsWith("\n");
  return { edits: [{ start, end: text === "" || dropsBreak ? past : past - 1, text }], place };
}

/**
 * An exact match replaced verbatim — except a quote of whole lines that starts after its first line's
 * indentation, with a replacement of several lines written relative to it (a later line indented less
 * than the quoted line): those lines are indented like the quoted line, and the step says so.
 */
function exactReplacement(source: string, place: TextPlace, replace: string): TextEdits {
  const lineStart = source.lastIndexOf("\n", place.start - 1) + 1;
  const indent = source.slice(lineStart, place.start);
  const rest = replace.split("\n").slice(1);
  const toLineEnd =
    source[place.end - 1] === "\n" ||
    source[place.end] === "\n" ||
    source.startsWith("\r\n", place.end) ||
    place.end === source.length;
  const relative =
    indent !== "" && indent.trim() === "" && toLineEnd && rest.some((l) => l.trim() !== "" && !l.startsWith(indent));
  if (!relative) return { edits: [{ start: place.start, end: place.end, text: replace }], place };
  const [first, ...others] = replace.split("\n");
  const text = [first, ...others.map((l) => (l.trim() === "" ? l : indent + l))].join("\n");
  return {
    edits: [{ start: place.start, end: place.end, text }],
    place,
    correction: `the new lines were written relative to the quoted line (line ${place.line}) and were indented like it`,
  };
}

/** insert_text: `text` just before or after the one place `anchor` occurs. */
export function insertTextEdits(source: string, p: InsertTextParams, op = "insert_text"): TextEdits {
  refuseBinary(source, p.file, op);
  const place = findSnippet(source, p.anchor, p.file, op);
  const correction = correctionOf(place);
  let at = p.position === "before" ? place.start : place.end;
  // Whole lines inserted before an anchor quoted without its line's indentation go before that line,
  // not between the indentation and the anchor (which would move the anchor line to column 0).
  const lineStart = source.lastIndexOf("\n", place.start - 1) + 1;
  if (
    p.position === "before" &&
    p.text.endsWith("\n") &&
    place.start > lineStart &&
    source.slice(lineStart, place.start).trim() === ""
  )
    at = lineStart;
  // A corrected anchor matches whole lines; a text that is whole lines goes between lines.
  if (place.layer !== "exact" && p.text.endsWith("\n")) {
    if (p.position === "before") at = source.lastIndexOf("\n", place.start - 1) + 1;
    else {
      const nl = source.indexOf("\n", Math.max(place.end - 1, place.start));
      at = nl < 0 ? source.length : nl + 1;
    }
  }
  const text = place.layer === "exact" ? p.text : inFileBreaks(source, p.text);
  const needsBreak =
    at === source.length &&
    source.length > 0 &&
    !source.endsWith("\n") &&
    p.position === "after" &&
    place.layer !== "exact" &&
    p.text.endsWith("\n");
  return {
    edits: [{ start: at, end: at, text: needsBreak ? lineBreakOf(source) + text.replace(/\r?\n$/, "") : text }],
    place,
    ...(correction ? { correction } : {}),
  };
}

/** append_text: `text` at the very end of the file. */
export function appendTextEdits(source: string, p: AppendTextParams, op = "append_text"): TextEdits {
  refuseBinary(source, p.file, op);
  return { edits: [{ start: source.length, end: source.length, text: p.text }] };
}

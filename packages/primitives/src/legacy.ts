/**
 * The ten legacy operators of the design (string- and line-based), kept for plans that use them.
 * `add_method`, `add_import` and `add_class_attribute` are served by the composed operators
 * (same parameters); the other seven are here. Text patterns are matched in layers: exact,
 * whitespace-insensitive, indentation-preserving, then similarity above a threshold.
 */
import { diffArrays } from "diff";
import { distance } from "fastest-levenshtein";
import { codeEnd } from "@graphplan/graph";
import { resolveOne } from "@graphplan/locators";
import type { z } from "zod";
import type { Edit } from "./edits.js";
import {
  indentBlock,
  indentUnit,
  leadingWhitespace,
  lineIndent,
  normalizeCode,
  placeCode,
  placements,
} from "./indent.js";
import { LineOutOfRange, PatternAmbiguous, PatternNotFound, PreconditionFailed, type SimilarLine } from "./errors.js";
import type { Alternatives, ParsedDoc } from "./primitives.js";
import type {
  DeleteLinesParams,
  InsertCodeParams,
  ModifyFunctionSignatureParams,
  RenameSymbolParams,
  ReplaceCodeParams,
  ReplaceFunctionBodyParams,
  WrapBlockParams,
} from "./params.js";

export interface LegacyResult {
  readonly alternatives: Alternatives;
  readonly output: Record<string, unknown>;
}

export type MatchLayer = "exact" | "whitespace" | "indentation" | "similar";

export interface TextMatch {
  readonly start: number;
  readonly end: number;
  readonly layer: MatchLayer;
  /** 0..1 (1 for all but `similar`). */
  readonly score: number;
  /** The indentation of the matched text's first line minus the pattern's, for re-indenting the replacement (indentation and similar layers). */
  readonly indent?: string;
}

/** Line starts of a text (offsets). */
function lineOffsets(text: string): number[] {
  const out = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") out.push(i + 1);
  return out;
}

/**
 * Whitespace inside lines collapsed to one space and trailing whitespace dropped; line breaks
 * and indentation kept. With a map from normalized offsets to original ones.
 */
function collapse(text: string): { text: string; map: number[] } {
  let out = "";
  const map: number[] = [];
  let i = 0;
  let atLineStart = true;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === "\n") {
      out += ch;
      map.push(i);
      i++;
      atLineStart = true;
    } else if (ch === " " || ch === "\t" || ch === "\r") {
      const from = i;
      while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\r")) i++;
      if (i >= text.length || text[i] === "\n") continue; // trailing whitespace
      if (atLineStart) {
        for (let k = from; k < i; k++) {
          out += text[k];
          map.push(k);
        }
      } else {
        out += " ";
        map.push(from);
      }
    } else {
      out += ch;
      map.push(i);
      i++;
      atLineStart = false;
    }
  }
  map.push(text.length);
  return { text: out, map };
}

const similarity = (a: string, b: string): number => {
  const max = Math.max(a.length, b.length);
  return max === 0 ? 1 : 1 - distance(a, b) / max;
};

const normalizeLine = (line: string): string => line.trim().replace(/\s+/g, " ");

/**
 * Quotes of at least this many lines are compared line by line, and only at the windows their lines
 * vote for: comparing a whole file's quote character by character with every window of the file is
 * quadratic twice over (a 3,700-line quote took minutes), and a long quote is found by its lines anyway.
 */
const LONG_QUOTE = 20;

/**
 * The windows of `n` lines worth scoring against a long quote: a quote line found exactly at file line
 * `j` votes for the window starting at `j - k`; the most voted windows, best first.
 */
function votedWindows(lines: readonly string[], wanted: readonly string[], limit = 8): number[] {
  const n = wanted.length;
  const where = new Map<string, number[]>();
  lines.forEach((line, j) => {
    if (line === "") return;
    const at = where.get(line);
    if (at) at.push(j);
    else where.set(line, [j]);
  });
  const votes = new Map<number, number>();
  wanted.forEach((line, k) => {
    const at = line === "" ? undefined : where.get(line);
    // A line found everywhere (a closing brace) says nothing about where the quote is.
    if (!at || at.length > 64) return;
    for (const j of at) if (j - k >= 0 && j - k + n <= lines.length) votes.set(j - k, (votes.get(j - k) ?? 0) + 1);
  });
  return [...votes]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([i]) => i);
}

/**
 * How like each other two runs of normalized lines are, 0..1: one minus the edit cost over the longer
 * text's length, where the cost is found by a line diff (a changed line costs its character distance to
 * the line it replaces, an added or removed line its length). Gives up (0) past the edits a match above
 * `threshold` could have.
 */
function linesSimilarity(a: readonly string[], b: readonly string[], threshold: number): number {
  const size = (ls: readonly string[]) => ls.reduce((t, l) => t + l.length + 1, 0);
  const total = Math.max(size(a), size(b));
  if (total === 0) return 1;
  const parts = diffArrays([...a], [...b], {
    maxEditLength: Math.ceil(Math.max(a.length, b.length) * (1 - threshold) * 2) + 2,
  });
  if (!parts) return 0;
  let cost = 0;
  for (let k = 0; k < parts.length; k++) {
    const part = parts[k]!;
    if (!part.removed) {
      if (part.added) cost += size(part.value);
      continue;
    }
    const next = parts[k + 1];
    const added = next?.added ? next.value : [];
    if (next?.added) k++;
    const pairs = Math.min(part.value.length, added.length);
    for (let x = 0; x < pairs; x++) cost += distance(part.value[x]!, added[x]!);
    cost += size(part.value.slice(pairs)) + size(added.slice(pairs));
  }
  return Math.max(0, 1 - cost / total);
}

const WORD = /[A-Za-z0-9_$]/;

/**
 * True when a match of `pattern` at `start..end` of `source` neither starts nor ends inside a
 * token (an identifier or number cut in two), and a pattern of several lines starts its line
 * (only indentation before it).
 */
function atBoundaries(source: string, start: number, end: number, multiline: boolean): boolean {
  if (start > 0 && WORD.test(source[start - 1]!) && WORD.test(source[start] ?? "")) return false;
  if (end < source.length && end > start && WORD.test(source[end]!) && WORD.test(source[end - 1]!)) return false;
  if (multiline) {
    const lineStart = source.lastIndexOf("\n", start - 1) + 1;
    if (source.slice(lineStart, start).trim() !== "") return false;
  }
  return true;
}

const lineAt = (source: string, offset: number): number => {
  let line = 1;
  for (let i = source.indexOf("\n"); i >= 0 && i < offset; i = source.indexOf("\n", i + 1)) line++;
  return line;
};

/** Several places match a pattern equally well: the caller must choose (listed with their lines). */
function ambiguous(source: string, pattern: string, matches: readonly TextMatch[]): PatternAmbiguous {
  const places = matches.slice(0, 5).map((m) => ({
    line: lineAt(source, m.start),
    text: source.slice(m.start, m.end).trim().split("\n")[0]!,
    score: m.score,
  }));
  return new PatternAmbiguous(pattern, matches[0]!.layer, places, matches.length);
}

/**
 * Where a pattern that is not in the file as written was placed, for the messages of a step that
 * then failed there (the place, not the code, may be what is wrong): the primitives' error and the
 * verifier's say it the same way.
 */
export function closestMatchPlace(line: number, layer: MatchLayer, score: number | undefined): string {
  return `the pattern is not in the file as written; it was matched to the closest text, at line ${line} (${layer}${score === undefined ? "" : `, similarity ${score.toFixed(2)}`})`;
}

/**
 * Finds `pattern` in `source` in layers. `undefined` when no layer matches; then
 * {@link mostSimilar} says what was close. A match never starts or ends inside a token, and a
 * pattern of several lines matches from the start of a line. Throws {@link PatternAmbiguous}
 * (without the file; the caller adds it) when the best layer matches several places equally well.
 */
export function findPattern(source: string, pattern: string, threshold = 0.8): TextMatch | undefined {
  const multiline = pattern.trim().includes("\n");
  const exact: TextMatch[] = [];
  if (pattern !== "") {
    for (let at = source.indexOf(pattern); at >= 0; at = source.indexOf(pattern, at + 1)) {
      if (atBoundaries(source, at, at + pattern.length, multiline))
        exact.push({ start: at, end: at + pattern.length, layer: "exact", score: 1 });
    }
  }
  if (exact.length > 1) throw ambiguous(source, pattern, exact);
  if (exact.length === 1) return exact[0];

  const trimmed = pattern.trim();
  if (trimmed === "") return undefined;
  // Whitespace-insensitive: runs of spaces/tabs inside lines match any other run, trailing
  // whitespace is ignored; line breaks and indentation must agree.
  const hay = collapse(source);
  const needle = collapse(pattern.replace(/^\s*\n/, "").trimEnd()).text.trimStart();
  const loose: TextMatch[] = [];
  for (let at = hay.text.indexOf(needle); at >= 0 && needle !== ""; at = hay.text.indexOf(needle, at + 1)) {
    const start = hay.map[at]!;
    const endNorm = at + needle.length;
    const end = endNorm < hay.map.length - 1 ? hay.map[endNorm]! : source.length;
    // map[endNorm] is the first char after the match; back off trailing whitespace.
    let e = end;
    while (e > start && /\s/.test(source[e - 1]!)) e--;
    if (atBoundaries(source, start, e, multiline)) loose.push({ start, end: e, layer: "whitespace", score: 1 });
  }
  if (loose.length > 1) throw ambiguous(source, pattern, loose);
  if (loose.length === 1) return loose[0];

  // Indentation-preserving / similar: compare whole lines.
  const patternLines = pattern.replace(/\r\n/g, "\n").split("\n");
  while (patternLines.length > 1 && patternLines[0]!.trim() === "") patternLines.shift();
  while (patternLines.length > 1 && patternLines[patternLines.length - 1]!.trim() === "") patternLines.pop();
  const lines = source.split("\n");
  const offsets = lineOffsets(source);
  const n = patternLines.length;
  const wanted = patternLines.map(normalizeLine);
  const windowMatch = (i: number, layer: MatchLayer, score: number): TextMatch => {
    const last = i + n - 1;
    return {
      start: offsets[i]!,
      end: offsets[last]! + lines[last]!.length,
      layer,
      score,
      indent: leadingWhitespace(lines[i]!),
    };
  };
  const whole: TextMatch[] = [];
  for (let i = 0; i + n <= lines.length; i++) {
    let ok = true;
    for (let k = 0; k < n && ok; k++) ok = normalizeLine(lines[i + k]!) === wanted[k];
    if (ok) whole.push(windowMatch(i, "indentation", 1));
  }
  if (whole.length > 1) throw ambiguous(source, pattern, whole);
  if (whole.length === 1) return whole[0];
  const joined = wanted.join("\n");
  let best: { i: number; score: number }[] = [];
  const normalized = n >= LONG_QUOTE ? lines.map(normalizeLine) : [];
  const windows =
    n >= LONG_QUOTE
      ? votedWindows(normalized, wanted)
      : lines.slice(0, Math.max(0, lines.length - n + 1)).map((_, i) => i);
  for (const i of windows) {
    if (n >= LONG_QUOTE) {
      const score = linesSimilarity(normalized.slice(i, i + n), wanted, threshold);
      if (best.length === 0 || score > best[0]!.score + 1e-9) best = [{ i, score }];
      else if (Math.abs(score - best[0]!.score) <= 1e-9) best.push({ i, score });
      continue;
    }
    const window = lines
      .slice(i, i + n)
      .map(normalizeLine)
      .join("\n");
    if (Math.abs(window.length - joined.length) > joined.length * (1 - threshold) + 2) continue;
    const score = similarity(window, joined);
    if (best.length === 0 || score > best[0]!.score + 1e-9) best = [{ i, score }];
    else if (Math.abs(score - best[0]!.score) <= 1e-9) best.push({ i, score });
  }
  if (best.length === 0 || best[0]!.score < threshold) return undefined;
  if (best.length > 1)
    throw ambiguous(
      source,
      pattern,
      best.map((b) => windowMatch(b.i, "similar", b.score)),
    );
  return windowMatch(best[0]!.i, "similar", best[0]!.score);
}

/**
 * How like `pattern` (one line) some part of `line` is: the best similarity of `pattern` to a
 * stretch of `line` of about its length that starts at a token (a pattern quoted from mid-line,
 * `isinstance(i, str)` out of `if isinstance(i, str) and i:`).
 */
export function partialSimilarity(line: string, pattern: string): number {
  if (line.length <= pattern.length + 2) return similarity(line, pattern);
  let best = 0;
  for (let i = 0; i <= line.length - Math.floor(pattern.length / 2); i++) {
    if (i > 0 && /\w/.test(line[i - 1]!) && /\w/.test(line[i]!)) continue;
    for (const length of [pattern.length - 1, pattern.length, pattern.length + 1])
      best = Math.max(best, similarity(line.slice(i, i + length), pattern));
  }
  return best;
}

/** The (up to) three places of `source` most similar to `pattern`, for error messages (a one-line pattern may be part of a line). */
export function mostSimilar(source: string, pattern: string, count = 3): SimilarLine[] {
  const patternLines = pattern.trim().split("\n").map(normalizeLine);
  const n = Math.max(1, patternLines.length);
  const joined = patternLines.join("\n");
  const lines = source.split("\n");
  const scored: SimilarLine[] = [];
  if (n >= LONG_QUOTE) {
    // A long quote: the windows its lines vote for, compared line by line (see LONG_QUOTE).
    const normalized = lines.map(normalizeLine);
    for (const i of votedWindows(normalized, patternLines, Math.max(count, 8))) {
      scored.push({
        line: i + 1,
        text: lines
          .slice(i, i + n)
          .join("\n")
          .trim(),
        score: linesSimilarity(normalized.slice(i, i + n), patternLines, 0.5),
      });
    }
    return scored.sort((a, b) => b.score - a.score || a.line - b.line).slice(0, count);
  }
  for (let i = 0; i + n <= lines.length; i++) {
    const window = lines.slice(i, i + n);
    if (window.every((l) => l.trim() === "")) continue;
    const text = window.map(normalizeLine).join("\n");
    scored.push({
      line: i + 1,
      text: window.join("\n").trim(),
      score: n === 1 ? partialSimilarity(text, joined) : similarity(text, joined),
    });
  }
  return scored.sort((a, b) => b.score - a.score || a.line - b.line).slice(0, count);
}

/**
 * The replacements for a match, most likely first: the text as given for the exact layers; for
 * the line-based layers (which replace whole lines) the first line at the matched lines'
 * indentation and the rest read as relative or as already indented ({@link placeCode}).
 * The file's conventions are applied ({@link normalizeCode}: trailing whitespace, tabs), except
 * to a last line that does not end the matched line.
 */
function replacementsFor(
  doc: ParsedDoc,
  match: TextMatch,
  replacement: string,
  pattern: string,
): { texts: string[]; notes: readonly string[] } {
  const unit = (): string => indentUnit(doc.source, doc.language);
  const endsLine = /^[ \t]*(\r?\n|$)/.test(doc.source.slice(match.end));
  if (match.layer === "exact" || match.layer === "whitespace" || match.indent === undefined) {
    const normalized = normalizeCode(endsLine ? replacement : `${replacement}\u0000`, unit, doc.language);
    return { texts: [normalized.code.replace(/\u0000$/, "")], notes: normalized.notes };
  }
  const indent = match.indent;
  // The match covers the pattern's lines without its blank lines at either end, so as many are
  // taken off the replacement; the blank lines it has beyond those are what it adds, and stay.
  const [lead, trail] = blankEnds(replacement);
  const [patternLead, patternTrail] = blankEnds(pattern);
  const before = "\n".repeat(Math.max(0, lead - patternLead));
  const after = "\n".repeat(Math.max(0, trail - patternTrail));
  const placed = placeCode(replacement.replace(/^(?:[ \t]*\n)+/, "").replace(/\s+$/, ""), indent, unit, doc.language);
  // An empty replacement leaves the lines empty: the indentation alone would be trailing spaces.
  return {
    texts: placed.map((p) => before + (p.text === "" ? "" : indent + p.text) + after),
    notes: placed[0]?.notes ?? [],
  };
}

/** How many blank lines a text starts and ends with (a final line break does not end a blank line). */
function blankEnds(text: string): [number, number] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  if (lines.every((l) => l.trim() === "")) return [0, 0];
  let lead = 0;
  while (lines[lead]!.trim() === "") lead++;
  let trail = 0;
  while (lines[lines.length - 1 - trail]!.trim() === "") trail++;
  return [lead, Math.max(0, trail - 1)];
}

export function replaceCode(doc: ParsedDoc, p: z.infer<typeof ReplaceCodeParams>): LegacyResult {
  let match: TextMatch | undefined;
  try {
    match = findPattern(doc.source, p.pattern, p.similarity_threshold ?? 0.8);
  } catch (error) {
    if (error instanceof PatternAmbiguous) throw error.in(doc.path, "replace_code");
    throw error;
  }
  if (!match) throw new PatternNotFound(doc.path, "replace_code", p.pattern, mostSimilar(doc.source, p.pattern));
  const line = doc.source.slice(0, match.start).split("\n").length;
  const { texts, notes } = replacementsFor(doc, match, p.replacement, p.pattern);
  return {
    alternatives: texts.map((text) => [{ start: match.start, end: match.end, text }]),
    output: { match: match.layer, score: match.score, line, ...(notes.length ? { normalized: notes } : {}) },
  };
}

function lineBounds(
  doc: ParsedDoc,
  op: string,
  startLine: number,
  endLine: number,
): { start: number; end: number; lines: string[] } {
  const lines = doc.source.split("\n");
  const count = doc.source.endsWith("\n") ? lines.length - 1 : lines.length;
  if (startLine < 1 || startLine > count) throw new LineOutOfRange(doc.path, op, startLine, count);
  if (endLine < startLine || endLine > count) {
    if (endLine < startLine)
      throw new PreconditionFailed(doc.path, op, `start_line ${startLine} > end_line ${endLine}`);
    throw new LineOutOfRange(doc.path, op, endLine, count);
  }
  const offsets = lineOffsets(doc.source);
  const start = offsets[startLine - 1]!;
  const end = endLine < offsets.length ? offsets[endLine]! : doc.source.length;
  return { start, end, lines };
}

export function insertCode(doc: ParsedDoc, p: z.infer<typeof InsertCodeParams>): LegacyResult {
  const { start, end } = lineBounds(doc, "insert_code", p.anchor_line, p.anchor_line);
  const code = p.code.endsWith("\n") ? p.code : `${p.code}\n`;
  if (p.position === "before") return { alternatives: [[{ start, end: start, text: code }]], output: {} };
  const needsNewline = end === doc.source.length && !doc.source.endsWith("\n");
  return {
    alternatives: [[{ start: end, end, text: needsNewline ? `\n${code.replace(/\n$/, "")}` : code }]],
    output: {},
  };
}

export function deleteLines(doc: ParsedDoc, p: z.infer<typeof DeleteLinesParams>): LegacyResult {
  const { start, end } = lineBounds(doc, "delete_lines", p.start_line, p.end_line);
  return { alternatives: [[{ start, end, text: "" }]], output: { deleted: p.end_line - p.start_line + 1 } };
}

export function wrapBlock(doc: ParsedDoc, p: z.infer<typeof WrapBlockParams>): LegacyResult {
  const { start, end } = lineBounds(doc, "wrap_block", p.start_line, p.end_line);
  const block = doc.source.slice(start, end).replace(/\n$/, "");
  const indent = lineIndent(doc.source, start);
  const unit = indentUnit(doc.source, doc.language);
  const inner = block
    .split("\n")
    .map((l) => (l.trim() === "" ? "" : unit + l))
    .join("\n");
  const before = indentBlock(p.before_code.replace(/\n+$/, ""), indent);
  const after = p.after_code.trim() === "" ? "" : `\n${indentBlock(p.after_code.replace(/^\n+|\n+$/g, ""), indent)}`;
  const trailing = end > start && doc.source[end - 1] === "\n" ? "\n" : "";
  return { alternatives: [[{ start, end, text: `${before}\n${inner}${after}${trailing}` }]], output: {} };
}

export function renameSymbol(doc: ParsedDoc, p: z.infer<typeof RenameSymbolParams>): LegacyResult {
  const escaped = p.old_name.replace(/[$]/g, "\\$");
  const re = new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`, "g");
  const edits: Edit[] = [];
  for (const m of doc.source.matchAll(re))
    edits.push({ start: m.index, end: m.index + p.old_name.length, text: p.new_name });
  if (edits.length === 0)
    throw new PatternNotFound(doc.path, "rename_symbol", p.old_name, mostSimilar(doc.source, p.old_name));
  return { alternatives: [edits], output: { occurrences: edits.length } };
}

export function modifyFunctionSignature(
  doc: ParsedDoc,
  p: z.infer<typeof ModifyFunctionSignatureParams>,
): LegacyResult {
  const fn = resolveOne(doc.tree, doc.source, doc.language, { kind: "function", name: p.func_name, file: doc.path });
  const body = fn.childForFieldName("body");
  const headerEnd = body ? body.startIndex : fn.endIndex;
  const header = doc.source.slice(fn.startIndex, headerEnd);
  let match: TextMatch | undefined;
  try {
    match = findPattern(header, p.old_signature, 0.9);
  } catch (error) {
    if (error instanceof PatternAmbiguous) throw error.in(doc.path, "modify_function_signature");
    throw error;
  }
  if (!match)
    throw new PatternNotFound(
      doc.path,
      "modify_function_signature",
      p.old_signature,
      mostSimilar(header, p.old_signature),
    );
  const text =
    match.layer === "exact" || match.layer === "whitespace" || match.indent === undefined
      ? p.new_signature
      : indentBlock(p.new_signature, match.indent);
  return {
    alternatives: [[{ start: fn.startIndex + match.start, end: fn.startIndex + match.end, text }]],
    output: { match: match.layer },
  };
}

export function replaceFunctionBody(doc: ParsedDoc, p: z.infer<typeof ReplaceFunctionBodyParams>): LegacyResult {
  const body = resolveOne(doc.tree, doc.source, doc.language, {
    kind: "function",
    name: p.func_name,
    file: doc.path,
    field: "body",
  });
  const text = p.new_body.replace(/^\n+|\s+$/g, "");
  if (doc.language === "python") {
    // The block starts at its first statement; put the new statements at that indentation.
    const indent = lineIndent(doc.source, body.startIndex);
    const end = codeEnd(body, doc.language).endIndex;
    return {
      alternatives: placements(indentBlock(text, "").trimStart(), indent).map((t) => [
        { start: body.startIndex, end, text: t },
      ]),
      output: {},
    };
  }
  if (doc.language === "ruby") {
    const indent = lineIndent(doc.source, body.startIndex);
    return {
      alternatives: [[{ start: body.startIndex, end: body.endIndex, text: indentBlock(text, indent).trimStart() }]],
      output: {},
    };
  }
  if (text.trimStart().startsWith("{")) {
    return {
      alternatives: placements(text, lineIndent(doc.source, body.startIndex)).map((t) => [
        { start: body.startIndex, end: body.endIndex, text: t },
      ]),
      output: {},
    };
  }
  const outer = lineIndent(doc.source, body.startIndex);
  const unit = indentUnit(doc.source, doc.language);
  return {
    alternatives: [
      [{ start: body.startIndex, end: body.endIndex, text: `{\n${indentBlock(text, outer + unit)}\n${outer}}` }],
    ],
    output: {},
  };
}

type LegacyOp = (doc: ParsedDoc, params: never) => LegacyResult;

/** Legacy operators by name, each with the file it edits read from `params.file`. */
export const LEGACY: Readonly<Record<string, LegacyOp>> = {
  replace_code: replaceCode as LegacyOp,
  insert_code: insertCode as LegacyOp,
  delete_lines: deleteLines as LegacyOp,
  modify_function_signature: modifyFunctionSignature as LegacyOp,
  rename_symbol: renameSymbol as LegacyOp,
  wrap_block: wrapBlock as LegacyOp,
  replace_function_body: replaceFunctionBody as LegacyOp,
};

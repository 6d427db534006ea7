/**
 * Re-indentation of code written by a model: code given at column 0 (or with a common
 * indent) is moved to the indentation of the place it goes; the first line lands at the
 * node's start column.
 */

import { scanPython } from "./pyindent.js";

export const leadingWhitespace = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? "";
const isBlank = (line: string): boolean => line.trim() === "";

/** Offset of the first character of the line holding `index`. */
export function lineStart(source: string, index: number): number {
  return source.lastIndexOf("\n", index - 1) + 1;
}

/** Offset of the `\n` ending the line holding `index` (or the text's length). */
export function lineEnd(source: string, index: number): number {
  const end = source.indexOf("\n", index);
  return end < 0 ? source.length : end;
}

/** The indentation of the line holding `index`. */
export function lineIndent(source: string, index: number): string {
  const start = lineStart(source, index);
  return leadingWhitespace(source.slice(start, lineEnd(source, start)));
}

/** True when only whitespace precedes `index` on its line. */
export function startsLine(source: string, index: number): boolean {
  return source.slice(lineStart(source, index), index).trim() === "";
}

/** True when only whitespace follows `index` on its line. */
export function endsLine(source: string, index: number): boolean {
  return source.slice(index, lineEnd(source, index)).trim() === "";
}

/** The usual indentation unit of a language, for files with no indented line to learn it from. */
export const DEFAULT_INDENT: Readonly<Record<string, string>> = {
  go: "\t",
  ruby: "  ",
  javascript: "  ",
  typescript: "  ",
  tsx: "  ",
};

/**
 * The file's indentation unit: a tab, or the most common step between indented lines; the
 * language's usual unit (4 spaces if none) when no line is indented.
 */
export function indentUnit(source: string, language?: string): string {
  const counts = new Map<number, number>();
  let tabs = 0;
  let spaces = 0;
  let previous = 0;
  // One pass over the text (no split): this runs on every wrap of a large file.
  for (let i = 0; i <= source.length; ) {
    let end = source.indexOf("\n", i);
    if (end < 0) end = source.length;
    let j = i;
    let width = 0;
    for (; j < end; j++) {
      const c = source.charCodeAt(j);
      if (c === 32) width += 1;
      else if (c === 9) width += 4;
      else break;
    }
    const next = j < end ? source.charCodeAt(j) : -1;
    const blank = next < 0 || ((next <= 32 || next > 126) && isBlank(source.slice(i, end)));
    if (!blank) {
      if (j > i && source.charCodeAt(i) === 9) tabs++;
      else if (j > i) spaces++;
      const step = width - previous;
      if (step > 0) counts.set(step, (counts.get(step) ?? 0) + 1);
      previous = width;
    }
    i = end + 1;
  }
  if (tabs > spaces) return "\t";
  if (counts.size === 0) return (language && DEFAULT_INDENT[language]) || "    ";
  let best = 4;
  let bestCount = 0;
  for (const [step, count] of counts) {
    if (step > 8) continue;
    if (count > bestCount || (count === bestCount && step < best)) {
      best = step;
      bestCount = count;
    }
  }
  return " ".repeat(best);
}

function minIndent(lines: readonly string[]): number {
  let min = Infinity;
  for (const line of lines) if (!isBlank(line)) min = Math.min(min, leadingWhitespace(line).length);
  return min;
}

const dedent = (lines: readonly string[], n: number): string[] =>
  lines.map((line) => (isBlank(line) ? "" : line.slice(Math.min(n, leadingWhitespace(line).length))));

const prefixed = (lines: readonly string[], prefix: string): string[] =>
  lines.map((line) => (isBlank(line) ? "" : prefix + line));

/** Removes leading and trailing blank lines; reports how many leading newlines there were. */
export function trimBlankLines(code: string): { code: string; leading: number; trailing: number } {
  const lines = code.replace(/\r\n/g, "\n").split("\n");
  let leading = 0;
  while (lines.length > 1 && isBlank(lines[0]!)) {
    lines.shift();
    leading++;
  }
  let trailing = 0;
  while (lines.length > 1 && isBlank(lines[lines.length - 1]!)) {
    lines.pop();
    trailing++;
  }
  return { code: lines.join("\n"), leading, trailing };
}

/**
 * The ways to place `code` where its first line starts at a column whose line is indented by
 * `indent`; continuation lines get `indent` added. Most likely reading first:
 * - first line indented: the common indent is removed (the code was copied with its indentation);
 * - first line at column 0, the rest deeper than `indent`: the code was written with the
 *   file's absolute indentation after the first line, so the rest is kept as is (the relative
 *   reading is the alternative);
 * - otherwise the code is relative to column 0 (the absolute reading is the alternative when
 *   the rest starts exactly at `indent`).
 * Callers take the first alternative whose result parses without new errors.
 */
export function placements(code: string, indent: string): string[] {
  const lines = code.replace(/\r\n/g, "\n").split("\n");
  if (lines.length === 1) return [lines[0]!.trimStart()];
  const first = lines[0]!;
  const rest = lines.slice(1);
  const relative = (ls: string[]): string => {
    const [head, ...tail] = ls;
    return [head!, ...prefixed(tail, indent)].join("\n");
  };
  if (leadingWhitespace(first).length > 0) {
    const common = minIndent(lines);
    const [head, ...tail] = dedent(lines, common);
    return [relative([head!.trimStart(), ...tail])];
  }
  const restMin = minIndent(rest);
  const rel = relative([first, ...dedent(rest, 0)]);
  if (indent.length === 0 || restMin === Infinity || restMin < indent.length) return [rel];
  const absolute = [first, ...rest.map((l) => (isBlank(l) ? "" : l))].join("\n");
  return restMin > indent.length ? [absolute, rel] : [rel, absolute];
}

/** `code` relative to column 0 (common indent removed), every non-blank line prefixed with `indent`. */
export function indentBlock(code: string, indent: string): string {
  const lines = code.replace(/\r\n/g, "\n").split("\n");
  return prefixed(dedent(lines, minIndent(lines)), indent).join("\n");
}

/** Continuation lines of node text, made relative to the node's line indent. */
export function relativeToColumn(text: string, column: number): string {
  const [head, ...tail] = text.split("\n");
  return [head!, ...dedent(tail, column)].join("\n");
}

/** Code as written by a model, made to follow the file's conventions, and what was changed. */
export interface NormalizedCode {
  readonly code: string;
  /** One sentence per change (empty when the code already followed the conventions). */
  readonly notes: readonly string[];
}

/**
 * The file's conventions applied to `code` before it is placed: trailing whitespace removed
 * from every line, and the indentation written with the file's character — tabs in the code's
 * leading whitespace become the file's unit in a file indented with spaces, runs of the code's
 * own unit become tabs in a file indented with tabs. Lines that start inside a multi-line
 * string (Python) are the string's text and are left alone. `unit` is the file's indentation
 * unit (called only when the code's indentation might need it; without it only trailing
 * whitespace is removed).
 */
export function normalizeCode(code: string, unit: (() => string) | undefined, language?: string): NormalizedCode {
  const text = code.replace(/\r\n/g, "\n");
  const lines = text.split("\n");
  const scanned = language === "python" && /"""|'''/.test(text) ? scanPython(text) : undefined;
  // Lines of a bare string statement (a docstring) are not data: their trailing whitespace goes too.
  const docstring = (row: number): boolean => {
    const start = scanned?.stringStart.get(row);
    return start !== undefined && /^[rRuU]?("""|''')/.test(lines[start]!.trimStart());
  };
  const frozen = new Set([...(scanned?.inString ?? [])].filter((row) => !docstring(row)));
  const notes: string[] = [];
  let trailing = 0;
  const stripped = lines.map((line, row) => {
    if (frozen.has(row + 1)) return line;
    // The line where a multi-line string closes: only what follows the closing quotes is code.
    if (frozen.has(row)) return line.replace(/("""|''')[ \t]+$/, (_, q: string) => (trailing++, q));
    const trimmed = line.replace(/[ \t]+$/, "");
    if (trimmed !== line && trimmed !== "") trailing++;
    return trimmed;
  });
  if (trailing > 0)
    notes.push(`removed trailing whitespace from ${trailing} line${trailing === 1 ? "" : "s"} of the code`);
  const leads = stripped.map((line, row) => (frozen.has(row) || line === "" ? "" : leadingWhitespace(line)));
  const hasTab = leads.some((l) => l.includes("\t"));
  const hasSpace = leads.some((l) => l.includes(" "));
  let out = stripped;
  if (unit && (hasTab || hasSpace)) {
    const fileUnit = unit();
    if (fileUnit !== "\t" && hasTab) {
      out = stripped.map((line, row) =>
        leads[row]!.includes("\t") ? leads[row]!.replace(/\t/g, fileUnit) + line.slice(leads[row]!.length) : line,
      );
      notes.push(`wrote the code's tab indentation with the file's unit (${fileUnit.length} spaces)`);
    } else if (fileUnit === "\t" && hasSpace) {
      const codeUnit = indentUnit(stripped.filter((_, row) => !frozen.has(row)).join("\n"));
      const width = codeUnit === "\t" ? 4 : codeUnit.length;
      out = stripped.map((line, row) => {
        const lead = leads[row]!;
        if (!lead.includes(" ")) return line;
        const spaces = lead.replace(/\t/g, " ".repeat(width)).length;
        return "\t".repeat(Math.floor(spaces / width)) + " ".repeat(spaces % width) + line.slice(lead.length);
      });
      notes.push("wrote the code's space indentation with tabs, as the file is indented with tabs");
    }
  }
  return { code: out.join("\n"), notes };
}

/** A placement of code: its text and what normalisation and the indentation reading changed. */
export interface Placement {
  readonly text: string;
  readonly notes: readonly string[];
}

/**
 * {@link placements} after {@link normalizeCode}, each with the sentences that say what was
 * changed (a step's result reports those of the placement that was applied).
 */
export function placeCode(
  code: string,
  indent: string,
  unit: () => string,
  language?: string,
  column = indent.length,
): Placement[] {
  const normalized = normalizeCode(code, unit, language);
  let texts = placements(normalized.code, indent);
  const codeLines = normalized.code.split("\n");
  if (texts.length === 2 && closesFirstLineAt(codeLines, indent.length) && texts[0] !== texts[1]) {
    // The last line closes the bracket or string the first line opens, at the target's column:
    // it is the first line's partner, so the code was written with the file's indentation.
    texts = [texts[1]!, texts[0]!];
  } else if (language === "python" && texts.length === 2 && closesItself(codeLines[0]!)) {
    // Python: lines after a first line that opens no block, bracket or continuation cannot be
    // indented deeper than it, so the rest at the target's column is absolute, not relative.
    const rest = normalized.code
      .split("\n")
      .slice(1)
      .filter((l) => !isBlank(l));
    if (rest.length > 0 && Math.min(...rest.map((l) => leadingWhitespace(l).length)) === indent.length)
      texts = [texts[1]!, texts[0]!];
  }
  if (texts.length === 2 && texts[0] !== texts[1]) {
    // Continuation lines lined up under the character after an open bracket (PEP 8's visual
    // indent) say which reading was meant: the one where more of them line up.
    // The first line's brackets sit where the code starts, which for a node inside a line
    // (`logger.warning(` **`(...)`**) is past the line's indentation.
    const [first, second] = [bracketAligned(texts[0]!, column), bracketAligned(texts[1]!, column)];
    if (second > first) texts = [texts[1]!, texts[0]!];
    else if (second === first) {
      // Then closing brackets on lines of their own: PEP 8 puts one under the start of the line
      // that opened it, or of the statement's first line.
      const [a, b] = [closersAligned(texts[0]!, indent.length), closersAligned(texts[1]!, indent.length)];
      if (b > a) texts = [texts[1]!, texts[0]!];
    }
  }
  const lines = normalized.code.split("\n");
  const absolute =
    lines.length > 1 && leadingWhitespace(lines[0]!) === "" && texts.length > 1
      ? [lines[0]!, ...lines.slice(1).map((l) => (isBlank(l) ? "" : l))].join("\n")
      : undefined;
  return texts.map((text) => ({
    text,
    notes:
      text === absolute
        ? [
            ...normalized.notes,
            `read the code's lines after the first as already indented for the target (${JSON.stringify(indent)}), so they were not indented again`,
          ]
        : normalized.notes,
  }));
}

/**
 * How many lines of `text` (placed with its first line at `column`) start exactly one column
 * after a bracket an earlier line left open with code after it (`f(a,` / `  b)` lined up under
 * `a`). Strings are skipped roughly; a bracket that ends its line (a hanging indent) aligns nothing.
 */
export function bracketAligned(text: string, column: number): number {
  const open: { column: number; hanging: boolean }[] = [];
  let aligned = 0;
  text.split("\n").forEach((line, row) => {
    const base = row === 0 ? column : 0;
    const lead = row === 0 ? 0 : leadingWhitespace(line).length;
    const top = open.at(-1);
    if (row > 0 && top && !top.hanging && !isBlank(line) && lead === top.column + 1) aligned++;
    const code = line.replace(/("|')(?:\\.|(?!\1).)*\1/g, (m) => " ".repeat(m.length)).replace(/#.*$/, "");
    for (let i = 0; i < code.length; i++) {
      const c = code[i]!;
      if ("([{".includes(c)) open.push({ column: base + i, hanging: code.slice(i + 1).trim() === "" });
      else if (")]}".includes(c)) open.pop();
    }
  });
  return aligned;
}

/**
 * How many lines of `text` (its first line on a line indented by `indent` columns) start with a
 * closing bracket at the column where the line that opened that bracket starts, or at `indent`
 * (under the statement's first line). Strings and comments are skipped roughly.
 */
export function closersAligned(text: string, indent: number): number {
  const open: number[] = [];
  const leads: number[] = [];
  let aligned = 0;
  text.split("\n").forEach((line, row) => {
    const lead = row === 0 ? indent : leadingWhitespace(line).length;
    leads.push(lead);
    const code = line.replace(/("|')(?:\\.|(?!\1).)*\1/g, (m) => " ".repeat(m.length)).replace(/#.*$/, "");
    const body = code.trimStart();
    for (let i = 0; i < body.length; i++) {
      const c = body[i]!;
      if ("([{".includes(c)) open.push(row);
      else if (")]}".includes(c)) {
        const opener = open.pop();
        if (i === 0 && row > 0 && opener !== undefined && opener < row && (lead === leads[opener] || lead === indent))
          aligned++;
      }
    }
  });
  return aligned;
}

/**
 * The first line ends by opening a bracket or a triple-quoted string and the last non-blank line
 * starts by closing it, at `column`.
 */
function closesFirstLineAt(lines: readonly string[], column: number): boolean {
  if (column === 0 || lines.length < 2) return false;
  const first = lines[0]!.replace(/#.*$/, "").trimEnd();
  const last = [...lines].reverse().find((l) => !isBlank(l));
  if (!last || last === lines[0]) return false;
  const head = last.trimStart();
  const quotes = (first.match(/"""|'''/g) ?? []).length % 2 === 1;
  if (quotes) return /^("""|''')/.test(head) && leadingWhitespace(last).length === column;
  // The line where the brackets the first line leaves open close (strings skipped roughly).
  const net = (line: string): number => {
    let d = 0;
    for (const c of line.replace(/#.*$/, "").replace(/("|')(?:\\.|(?!\1).)*\1/g, ""))
      d += "([{".includes(c) ? 1 : ")]}".includes(c) ? -1 : 0;
    return d;
  };
  let depth = net(first);
  if (depth <= 0) return false;
  for (const line of lines.slice(1)) {
    depth += net(line);
    if (depth <= 0) return /^[)\]}]/.test(line.trimStart()) && leadingWhitespace(line).length === column;
  }
  return false;
}

/** A Python line that is complete by itself: no block opener, open bracket or backslash at its end. */
function closesItself(line: string): boolean {
  const code = line.replace(/#.*$/, "").trimEnd();
  if (code === "") return line.trim().startsWith("#");
  if (/[:\\,([{]$/.test(code)) return false;
  let depth = 0;
  for (const c of code.replace(/("|')(?:\\.|(?!\1).)*\1/g, "")) {
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) depth--;
  }
  return depth === 0 && !/^("""|''')/.test(code.replace(/^[rRbBuUfF]+/, ""));
}

const NOTES = new WeakMap<object, readonly string[]>();

/** Attaches what normalisation changed to an alternative's edit list. */
export function withNotes<T extends object>(edits: T, notes: readonly string[]): T {
  if (notes.length > 0) NOTES.set(edits, notes);
  return edits;
}

/** What normalisation changed for this edit list (empty when nothing). */
export const notesOf = (edits: object): readonly string[] => NOTES.get(edits) ?? [];

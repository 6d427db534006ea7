/**
 * Re-indentation of code written by a model: code given at column 0 (or with a common
 * indent) is moved to the indentation of the place it goes; the first line lands at the
 * node's start column.
 */

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

const prefixed = (lines: readonly string[], prefix: string): string[] => lines.map((line) => (isBlank(line) ? "" : prefix + line));

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

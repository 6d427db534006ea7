/**
 * CPython's indentation rules, which tree-sitter-python does not enforce (it parses an
 * "unexpected indent" without an error node): the tokenizer's INDENT/DEDENT stack with its two
 * measures (tabs to multiples of 8, and tabs as one column, which must agree: TabError), the
 * parser's "unexpected indent" (an indented line that does not follow a block opener) and
 * "expected an indented block" (a block opener not followed by an indented line), and
 * "unindent does not match any outer indentation level", and a clause (`else`, `elif`, `except`,
 * `finally`) that does not follow its statement at the same indentation. Lines inside brackets, strings and
 * after a backslash continue the logical line and are exempt, as in CPython; blank and
 * comment-only lines are ignored. Also reported: strings left open (a one-quote string at the
 * end of its line, a triple-quoted string at the end of the file).
 */

import type { Node } from "web-tree-sitter";

export interface IndentProblem {
  /** 1-based line. */
  readonly line: number;
  readonly message: string;
}

export interface PythonLines {
  readonly problems: IndentProblem[];
  /** 0-based lines that start inside a multi-line string (their text is the string's). */
  readonly inString: Set<number>;
  /** For each line of {@link inString}, the 0-based line where its string opened. */
  readonly stringStart: Map<number, number>;
  /** Offsets of the lines where a scan may start afresh (top-level statements; ascending). */
  readonly safe: number[];
  /** Where a scan with `stopAt` stopped (undefined when it reached the end). */
  readonly stoppedAt?: number;
}

const TAB = 9;
const SPACE = 32;
const FORMFEED = 12;

const OPERATOR_CHARS = new Set([..."+-*/%&|^~<>=.@"].map((c) => c.charCodeAt(0)));
const OPERATOR_WORDS = new Set(["and", "or", "not", "in", "is", "if", "else", "lambda"]);

/**
 * The binary operator a logical line ends with (`and`, `+`, `=`, ...), which CPython rejects
 * although tree-sitter may accept it; undefined when the line ends with an operand (`...`,
 * `import *` and a `*` / `**` parameter marker excepted).
 */
function danglingOperator(source: string, lineStart: number, lastAt: number): string | undefined {
  const c = source.charCodeAt(lastAt);
  if (OPERATOR_CHARS.has(c)) {
    if (c === 46 && source.startsWith("...", lastAt - 2)) return undefined;
    if (c === 46 && /(^|[^A-Za-z0-9_])[0-9][0-9_]*\.$/.test(source.slice(Math.max(lineStart, lastAt - 40), lastAt + 1)))
      return undefined; // `3.`, a float
    if (c === 42 /* * */ && /\bimport\s*\*$/.test(source.slice(lineStart, lastAt + 1))) return undefined;
    let k = lastAt;
    while (k > lineStart && OPERATOR_CHARS.has(source.charCodeAt(k - 1))) k--;
    return source.slice(k, lastAt + 1);
  }
  if (c < 97 || c > 122) return undefined;
  let k = lastAt;
  while (k > lineStart && /[A-Za-z0-9_]/.test(source[k - 1]!)) k--;
  const word = source.slice(k, lastAt + 1);
  return OPERATOR_WORDS.has(word) && (k === lineStart || !/[A-Za-z0-9_.]/.test(source[k - 1]!)) ? word : undefined;
}

/** The lower-case word at `at` (up to 8 letters; "" when none). */
function wordAt(source: string, at: number, end: number): string {
  let k = at;
  while (k < end && k - at < 9) {
    const c = source.charCodeAt(k);
    if (c < 97 || c > 122) break;
    k++;
  }
  return source.slice(at, k);
}

/** The statements a clause may follow at the same indentation. */
const CLAUSES: Readonly<Record<string, readonly string[]>> = {
  elif: ["if", "elif"],
  else: ["if", "elif", "for", "while", "try", "except"],
  except: ["try", "except"],
  finally: ["try", "except", "else"],
};

/** Scans Python source with the tokenizer's rules for lines, strings, brackets and indentation. */
export interface ScanOptions {
  /** At most this many problems (default 20). */
  readonly limit?: number;
  /** Start at this offset, a line that {@link PythonLines.safe} lists (default 0), which is line `fromLine` (0-based). */
  readonly from?: number;
  readonly fromLine?: number;
  /** Stop at the first safe line for which this is true (the rest of the text scans as before). */
  readonly stopAt?: (offset: number) => boolean;
}

/** Long on purpose: one pass over the characters that mirrors CPython's tokenizer (strings, brackets, continuation lines, indentation stack) with its state in local variables; split into functions, that state would be passed through each. */
export function scanPython(source: string, options: ScanOptions = {}): PythonLines {
  const limit = options.limit ?? 20;
  const safe: number[] = [];
  let stoppedAt: number | undefined;
  const problems: IndentProblem[] = [];
  const inString = new Set<number>();
  const stringStart = new Map<number, number>();
  const stack = [0];
  /** The first word of the last statement at each level of {@link stack}. */
  const words = [""];
  const altStack = [0];
  let depth = 0;
  /** The quote of an open triple-quoted string ('"""' or "'''"). */
  let triple: string | undefined;
  let tripleLine = 0;
  let continued = false;
  /** The last significant character of the previous logical line was ':'. */
  let opener = false;
  let openerLine = 0;
  let line = options.fromLine ?? 0;
  const n = source.length;
  let i = options.from ?? 0;
  const report = (at: number, message: string): void => {
    if (problems.length < limit) problems.push({ line: at + 1, message });
  };
  while (i <= n && problems.length < limit) {
    let end = source.indexOf("\n", i);
    if (end < 0) end = n;
    let j = i;
    if (triple !== undefined) {
      inString.add(line);
      stringStart.set(line, tripleLine);
    }
    // Indentation of a new logical line.
    if (triple === undefined && depth === 0 && !continued) {
      let col = 0;
      let alt = 0;
      for (; j < end; j++) {
        const c = source.charCodeAt(j);
        if (c === SPACE) {
          col++;
          alt++;
        } else if (c === TAB) {
          col = (Math.floor(col / 8) + 1) * 8;
          alt++;
        } else if (c === FORMFEED) {
          col = 0;
          alt = 0;
        } else break;
      }
      const c = j < end ? source.charCodeAt(j) : -1;
      const blank = c === -1 || c === 35 /* # */ || c === 13 || (c === 92 /* \ */ && j + 1 >= end);
      if (!blank) {
        // A statement at column 0 outside any string or bracket, after a line that opens no
        // block, and not a clause: the state here is the same whatever came before (a restart point).
        if (col === 0 && stack.length === 1 && !opener && !CLAUSES[wordAt(source, j, end)]) {
          if (options.stopAt && i > (options.from ?? 0) && options.stopAt(i)) {
            stoppedAt = i;
            break;
          }
          safe.push(i);
        }
        const top = stack[stack.length - 1]!;
        const altTop = altStack[altStack.length - 1]!;
        if (col > top) {
          if (!opener)
            report(
              line,
              "unexpected indent (this line is indented deeper than the line before, which does not open a block with ':')",
            );
          else if (alt <= altTop) report(line, "inconsistent use of tabs and spaces in indentation (TabError)");
          stack.push(col);
          altStack.push(alt);
          words.push("");
        } else {
          if (opener)
            report(
              openerLine,
              `expected an indented block after line ${openerLine + 1}, which ends with ':' (the next statement, line ${line + 1}, is not indented deeper)`,
            );
          if (col === top) {
            if (alt !== altTop) report(line, "inconsistent use of tabs and spaces in indentation (TabError)");
          } else {
            while (stack.length > 1 && col < stack[stack.length - 1]!) {
              stack.pop();
              altStack.pop();
              words.pop();
            }
            if (col !== stack[stack.length - 1]) report(line, "unindent does not match any outer indentation level");
            else if (alt !== altStack[altStack.length - 1])
              report(line, "inconsistent use of tabs and spaces in indentation (TabError)");
          }
        }
        opener = false;
        // A clause (else, elif, except, finally) continues the statement before it at its column.
        let word = wordAt(source, j, end);
        if (word === "async") {
          let k = j + 5;
          while (k < end && (source.charCodeAt(k) === SPACE || source.charCodeAt(k) === TAB)) k++;
          word = wordAt(source, k, end);
        }
        const allowed = CLAUSES[word];
        if (allowed && !allowed.includes(words[words.length - 1]!)) {
          const next = source.charCodeAt(j + word.length);
          if (next === SPACE || next === TAB || next === 58 /* : */ || next === 40 /* ( */) {
            report(
              line,
              `invalid syntax: '${word}' does not follow ${allowed
                .filter((w) => w !== "else" || word === "finally")
                .map((w) => `'${w}'`)
                .join(" or ")} at the same indentation`,
            );
          }
        }
        words[words.length - 1] = word;
      } else {
        // A blank or comment-only line: no indentation, no tokens.
        i = end + 1;
        line++;
        continue;
      }
    }
    continued = false;
    let last = -1; // last significant character of the line (outside strings and comments)
    let lastAt = -1; // its offset
    while (j < end) {
      if (triple !== undefined) {
        // Inside a string (triple-quoted, or one-quote continued by a backslash-newline): find its end.
        let found = -1;
        let k = j;
        for (; k < end; k++) {
          if (source.charCodeAt(k) === 92) {
            k++;
            continue;
          }
          if (source.startsWith(triple, k)) {
            found = k;
            break;
          }
        }
        if (found < 0) {
          if (triple.length === 1 && !(k > end || endsWithBackslash(source, i, end))) {
            report(line, "unterminated string literal");
            triple = undefined;
          }
          j = end;
          break;
        }
        j = found + triple.length;
        triple = undefined;
        last = 34;
        lastAt = j - 1;
        continue;
      }
      const c = source.charCodeAt(j);
      if (c === 35) break; // comment
      if (c === 34 || c === 39) {
        const q = source[j]!;
        triple = source.startsWith(q + q + q, j) ? q + q + q : q;
        tripleLine = line;
        j += triple.length;
        continue;
      }
      if (c === 40 || c === 91 || c === 123) depth++;
      else if (c === 41 || c === 93 || c === 125) depth = Math.max(0, depth - 1);
      if (c === 92 && (j + 1 >= end || (j + 2 === end && source.charCodeAt(j + 1) === 13))) {
        continued = true;
        j = end;
        break;
      }
      if (c !== SPACE && c !== TAB && c !== 13 && c !== FORMFEED) {
        last = c;
        lastAt = j;
      }
      j++;
    }
    if (triple === undefined && depth === 0 && !continued && last !== -1) {
      opener = last === 58; // ':'
      if (opener) openerLine = line;
      else if (lastAt >= 0) {
        const dangling = danglingOperator(source, i, lastAt);
        if (dangling)
          report(
            line,
            `invalid syntax: the statement ends with ${JSON.stringify(dangling)}, an operator without its right operand (outside brackets a statement ends at the line's end)`,
          );
      }
    }
    if (end >= n) break;
    i = end + 1;
    line++;
  }
  if (stoppedAt === undefined) {
    if (triple !== undefined)
      report(
        tripleLine,
        triple.length === 3 ? "unterminated triple-quoted string literal" : "unterminated string literal",
      );
    if (opener)
      report(
        openerLine,
        `expected an indented block after line ${openerLine + 1}, which ends with ':' (the file ends)`,
      );
  }
  return { problems, inString, stringStart, safe, stoppedAt };
}

/** True when the line `start..end` ends with a backslash (before an optional CR). */
function endsWithBackslash(source: string, start: number, end: number): boolean {
  let e = end;
  if (e > start && source.charCodeAt(e - 1) === 13) e--;
  if (e <= start || source.charCodeAt(e - 1) !== 92) return false;
  // An even run of backslashes is escaped backslashes, not a continuation.
  let n = 0;
  while (e - 1 - n >= start && source.charCodeAt(e - 1 - n) === 92) n++;
  return n % 2 === 1;
}

/** The indentation problems CPython would report in `source` (empty when it tokenizes). */
export function pythonIndentProblems(source: string): IndentProblem[] {
  return scanPython(source).problems;
}

interface Scan {
  readonly problems: readonly IndentProblem[];
  readonly safe: readonly number[];
}

const cache = new Map<string, Scan>();

function remember(source: string, scan: Scan): Scan {
  if (cache.size >= 8) cache.delete(cache.keys().next().value!);
  cache.set(source, scan);
  return scan;
}

function fullScan(source: string): Scan {
  return cache.get(source) ?? remember(source, scanPython(source));
}

/** {@link pythonIndentProblems}, remembering the last few texts (a step checks the text before and after). */
export function cachedIndentProblems(source: string): readonly IndentProblem[] {
  return fullScan(source).problems;
}

/** Index of the last element of ascending `list` that is <= `value` (-1 when none). */
function lastAtMost(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! <= value) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const countLines = (source: string, end: number): number => {
  let n = 0;
  for (let k = source.indexOf("\n"); k >= 0 && k < end; k = source.indexOf("\n", k + 1)) n++;
  return n;
};

/**
 * The indentation problems of `after`, the text `before` became through edits that changed
 * `after`'s range `start..end` (new offsets) and shifted what follows by `delta`. When `before`
 * had none, only the top-level statements around the change are scanned: from the last restart
 * point before it to the first one after it that was a restart point of `before` too (the rest
 * scans as before, with no problem). The result is remembered for the next step.
 */
export function indentProblemsAfter(
  before: string,
  after: string,
  start: number,
  end: number,
  delta: number,
): readonly IndentProblem[] {
  const hit = cache.get(after);
  if (hit) return hit.problems;
  const old = fullScan(before);
  if (old.problems.length > 0) return fullScan(after).problems;
  const k = lastAtMost(old.safe, start);
  const from = k >= 0 ? old.safe[k]! : 0;
  const oldSafe = new Set(old.safe);
  const window = scanPython(after, {
    from,
    fromLine: countLines(after, from),
    stopAt: (offset) => offset >= end && oldSafe.has(offset - delta),
  });
  const stop = window.stoppedAt;
  const safe = [...old.safe.slice(0, Math.max(0, k)), ...window.safe];
  if (stop !== undefined)
    for (let m = lastAtMost(old.safe, stop - delta); m >= 0 && m < old.safe.length; m++)
      safe.push(old.safe[m]! + delta);
  return remember(after, { problems: window.problems, safe }).problems;
}

export interface StructureProblem {
  readonly line: number;
  readonly message: string;
}

const LOOPS = new Set(["for_statement", "while_statement"]);
const JUMPS = ["break_statement", "continue_statement", "return_statement", "yield", "assignment"];

/**
 * What CPython's compiler rejects in the statements of `ranges` (new-text offsets) although
 * the grammar accepts them: `break`/`continue` outside a loop (a loop's `else` clause is outside
 * it), `return`/`yield` outside a function. Looks only at the nodes inside the ranges.
 */
export function pythonStructureProblems(
  root: Node,
  ranges: readonly { start: number; end: number }[],
): StructureProblem[] {
  const problems: StructureProblem[] = [];
  for (const range of ranges) {
    const startNode = root.descendantForIndex(range.start, Math.max(range.start, range.end));
    // Widen to a statement that holds the whole range, so its jumps are all seen.
    let scope: Node | null = startNode;
    while (scope && scope.parent && (scope.startIndex > range.start || scope.endIndex < range.end))
      scope = scope.parent;
    if (!scope) continue;
    // Only the nodes that overlap the range (a module-level insertion must not walk the module).
    const last = Math.max(range.start, range.end - 1);
    const from = (root.descendantForIndex(range.start, range.start) ?? root).startPosition;
    const to = (root.descendantForIndex(last, last) ?? root).endPosition;
    const nodes: Node[] = [];
    for (const node of scope.descendantsOfType(JUMPS, from, to))
      if (node && node.endIndex >= range.start && node.startIndex <= range.end) nodes.push(node);
    // The statement around the range too (an edit inside an assignment's target).
    for (let a: Node | null = scope; a && a.type !== "block" && a.type !== "module"; a = a.parent)
      if (JUMPS.includes(a.type)) nodes.push(a);
    for (const node of nodes) {
      const message = jumpProblem(node);
      if (message) problems.push({ line: node.startPosition.row + 1, message });
    }
  }
  return problems;
}

function jumpProblem(node: Node): string | undefined {
  if (node.type === "assignment") {
    const left = node.childForFieldName("left");
    return left && (left.type === "list_splat_pattern" || left.type === "list_splat")
      ? "starred assignment target must be in a list or tuple"
      : undefined;
  }
  const loopJump = node.type === "break_statement" || node.type === "continue_statement";
  const word = node.type === "yield" ? "yield" : node.type.replace("_statement", "");
  let child: Node = node;
  for (let p = node.parent; p; child = p, p = p.parent) {
    if (p.type === "function_definition" || p.type === "lambda")
      return loopJump ? `'${word}' not properly in loop` : undefined;
    if (p.type === "class_definition")
      return loopJump ? `'${word}' not properly in loop` : `'${word}' outside function`;
    if (loopJump && LOOPS.has(p.type) && child.type !== "else_clause" && p.childForFieldName("body")?.id === child.id)
      return undefined;
  }
  return loopJump ? `'${word}' not properly in loop` : `'${word}' outside function`;
}

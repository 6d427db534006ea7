/**
 * C and C++ as a compiler sees them: one branch of each preprocessor conditional.
 *
 * `#if`/`#ifdef`/`#ifndef` … `#elif`/`#else` … `#endif` may split a declaration or a statement in a
 * way no grammar reads as written (tree-sitter-c and -cpp report errors where the code compiles):
 *
 *     if (fd == -1)
 *         state->fd = open(path, flags);
 *     #ifdef WIDECHAR
 *     else if (fd == -2)
 *         _wsopen_s(&state->fd, path, flags);
 *     #endif
 *     else
 *         state->fd = fd;
 *
 * `conditionalReadings` gives readings of a source in which each such error either goes away or is
 * real (design: docs/design.md, "C and C++: the preprocessor's readings"):
 * - `first`: every conditional's first branch kept;
 * - `last`: every conditional's last branch kept (a conditional without `#else` has an empty last
 *   branch, so its code is dropped);
 * - `directives`: the preprocessor lines alone, so that the conditionals' own syntax (balance,
 *   conditions) is still read.
 * What a reading drops becomes spaces (line breaks kept): offsets, lines and columns are the
 * source's, so errors and edits map one to one.
 */

export interface ConditionalReadings {
  readonly first: string;
  readonly last: string;
  readonly directives: string;
}

type LineKind = "if" | "elif" | "else" | "endif" | "directive" | "code";

interface SourceLine {
  /** The line with its line break. */
  readonly text: string;
  readonly kind: LineKind;
  /** The first line of its directive (false on a `\` continuation line). */
  readonly head: boolean;
}

const CONDITIONAL = /^\s*#\s*(ifdef|ifndef|if|elifdef|elifndef|elif|else|endif)\b/;

function kindOf(text: string): LineKind {
  const word = CONDITIONAL.exec(text)?.[1];
  if (!word) return /^\s*#/.test(text) ? "directive" : "code";
  if (word.startsWith("elif")) return "elif";
  return word === "else" || word === "endif" ? word : "if";
}

/** The source's lines, each code or a directive's line (a continuation line takes its directive's kind). */
function sourceLines(source: string): SourceLine[] {
  const out: SourceLine[] = [];
  let continued: LineKind | undefined;
  for (const text of source.split(/(?<=\n)/)) {
    const kind = continued ?? kindOf(text);
    out.push({ text, kind, head: continued === undefined });
    continued = kind !== "code" && /\\\r?\n?$/.test(text) ? kind : undefined;
  }
  return out;
}

interface Conditional {
  /** Indices (in `sourceLines`) of the `#if`, each `#elif`/`#else`, and the `#endif`. */
  readonly marks: number[];
  hasElse: boolean;
}

const blank = (text: string): string => text.replace(/[^\r\n]/g, " ");

/**
 * The readings of `source` (see the module's comment; without conditionals, `first` and `last` are
 * the source), or undefined when its conditionals do not balance (then no reading is closer to the
 * compiler's than the source as written).
 */
export function conditionalReadings(source: string): ConditionalReadings | undefined {
  const lines = sourceLines(source);
  const stack: Conditional[] = [];
  // For each line, the conditionals around it and the branch of each it sits in, outermost first.
  const within: { readonly conditional: Conditional; readonly branch: number }[][] = [];
  const around = () => stack.map((conditional) => ({ conditional, branch: conditional.marks.length - 1 }));
  for (const [i, line] of lines.entries()) {
    if (line.head && line.kind === "if") {
      within.push(around());
      stack.push({ marks: [i], hasElse: false });
    } else if (line.head && (line.kind === "elif" || line.kind === "else" || line.kind === "endif")) {
      const top = stack[stack.length - 1];
      if (!top || (top.hasElse && line.kind !== "endif")) return undefined;
      top.marks.push(i);
      if (line.kind === "else") top.hasElse = true;
      if (line.kind === "endif") stack.pop();
      within.push(around());
    } else within.push(around());
  }
  if (stack.length > 0) return undefined;
  let first = "";
  let last = "";
  let directives = "";
  for (const [i, { text, kind }] of lines.entries()) {
    const conditional = kind !== "code" && kind !== "directive";
    const keptFirst = !conditional && within[i]!.every((w) => w.branch === 0);
    // A conditional's last branch runs from its `#else` (the mark before `#endif`) to the `#endif`.
    const keptLast =
      !conditional && within[i]!.every(({ conditional: c, branch }) => c.hasElse && branch === c.marks.length - 2);
    first += keptFirst ? text : blank(text);
    last += keptLast ? text : blank(text);
    directives += kind === "code" ? blank(text) : text;
  }
  return { first, last, directives };
}

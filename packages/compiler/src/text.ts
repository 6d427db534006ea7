/**
 * The text tier of the compiler: a file's change as text steps (replace_text, insert_text,
 * append_text, write_file), for files with no grammar and for the changes of code files that no
 * structural step reproduces. Each step quotes the file exactly, with just enough whole lines
 * around the change to occur once, and is run with the engine before it is accepted; a change
 * that no quoted step reproduces (none should) is written as the whole file, so the result is
 * exact by construction.
 */
import { diffArrays } from "diff";
import { dataFileCheck } from "@graphplan/catalog";
import { PlanSession, type Edit, type RunOptions, type Step, type StepHandler } from "@graphplan/primitives";

/** A text step with the edits it made when it was run. */
export interface TextStep {
  readonly step: Step;
  readonly edits: readonly Edit[];
}

/** Lines with their line breaks (the last one may have none). */
function linesOf(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", at)) {
    out.push(text.slice(at, nl + 1));
    at = nl + 1;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

/** How many places `needle` occurs at (overlapping ones too), stopping at 2. */
function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0 && count < 2; at = haystack.indexOf(needle, at + 1)) count++;
  return count;
}

/** One hunk of a line diff: lines `[from, to)` of the old text become `added`. */
interface Hunk {
  readonly from: number;
  readonly to: number;
  readonly added: readonly string[];
}

function hunksOf(before: readonly string[], after: readonly string[]): Hunk[] {
  const hunks: Hunk[] = [];
  let line = 0;
  let open: { from: number; to: number; added: string[] } | undefined;
  for (const part of diffArrays([...before], [...after])) {
    if (!part.added && !part.removed) {
      if (open) hunks.push(open);
      open = undefined;
      line += part.value.length;
      continue;
    }
    open ??= { from: line, to: line, added: [] };
    if (part.removed) {
      line += part.value.length;
      open.to = line;
    } else open.added.push(...part.value);
  }
  if (open) hunks.push(open);
  return hunks;
}

/** Runs one step on one file; its text and edits, or undefined when it fails or gives other text. */
function run(
  step: Step,
  file: string,
  source: string,
  expected: string,
  handlers: Readonly<Record<string, StepHandler>> | undefined,
): TextStep | undefined {
  // The same postconditions as a plan's run: a data file must still load after each step.
  const files = runStep(step, file, source, { checkText: dataFileCheck, ...(handlers ? { handlers } : {}) });
  if (files?.get(file) !== expected) return undefined;
  return { step, edits: minimalEdit(source, expected) };
}

/**
 * Runs one step the compiler built on one file, as a plan's run runs it (`runPlan` is this session run to the
 * end): every file afterwards, or undefined when the step fails. A built step is typed, not read from JSON, so
 * it runs through the session's step API; the plan the compiler returns is read through `parsePlan` by whoever
 * runs it.
 */
export function runStep(
  step: Step,
  file: string,
  source: string,
  options: RunOptions = {},
): Map<string, string> | undefined {
  const session = new PlanSession(new Map([[file, source]]), options);
  try {
    if (!session.run(step).ok) return undefined;
    session.commit();
    return session.files();
  } finally {
    session.dispose();
  }
}

/** The smallest single edit turning `a` into `b` (common prefix and suffix left out). */
export function minimalEdit(a: string, b: string): Edit[] {
  if (a === b) return [];
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  return [{ start, end: endA, text: b.slice(start, endB) }];
}

/**
 * The step for one hunk on the current lines: a replacement quoting the removed lines, an insertion
 * next to an anchor of unchanged lines, or an append; context lines are added, nearest first, until
 * the quoted text occurs once.
 */
function hunkStep(file: string, lines: readonly string[], hunk: Hunk): Step | undefined {
  const source = lines.join("");
  const added = hunk.added.join("");
  const removed = lines.slice(hunk.from, hunk.to).join("");
  if (hunk.from === hunk.to && hunk.from === lines.length && source.length > 0)
    return { op: "append_text", params: { file, text: added } };
  for (let before = 0, after = 0; hunk.from - before >= 0 && hunk.to + after <= lines.length; ) {
    const head = lines.slice(hunk.from - before, hunk.from).join("");
    const tail = lines.slice(hunk.to, hunk.to + after).join("");
    const find = head + removed + tail;
    if (find !== "" && find.trim() !== "" && occurrences(source, find) === 1) {
      if (removed === "" && after > 0 && before === 0)
        return { op: "insert_text", params: { file, anchor: tail, position: "before", text: added } };
      if (removed === "" && before > 0 && after === 0)
        return { op: "insert_text", params: { file, anchor: head, position: "after", text: added } };
      return { op: "replace_text", params: { file, find, replace: head + added + tail } };
    }
    // Grow on the side that has lines left, alternating (after first: an insertion anchors on what follows it).
    const canAfter = hunk.to + after < lines.length;
    const canBefore = hunk.from - before > 0;
    if (!canAfter && !canBefore) break;
    if (canAfter && (after <= before || !canBefore)) after++;
    else before++;
  }
  return undefined;
}

/**
 * Text steps that turn `before` into `after`, each checked by running it. `handlers` are the
 * catalog's (so a code file's steps meet the same postconditions as in a plan).
 */
export function textSteps(
  file: string,
  before: string,
  after: string,
  handlers?: Readonly<Record<string, StepHandler>>,
): TextStep[] {
  if (before === after) return [];
  const whole = (source: string): TextStep[] => {
    const step: Step = { op: "write_file", params: { path: file, content: after } };
    const done = run(step, file, source, after, handlers);
    return done ? [done] : [{ step, edits: [{ start: 0, end: source.length, text: after }] }];
  };
  if (before === "") return whole(before);
  const out: TextStep[] = [];
  let lines = linesOf(before);
  // Hunks in file order; each one's lines moved by what the earlier ones added or removed.
  let shift = 0;
  for (const { from, to, added } of hunksOf(lines, linesOf(after))) {
    const hunk = { from: from + shift, to: to + shift, added };
    const next = [...lines.slice(0, hunk.from), ...added, ...lines.slice(hunk.to)];
    const source = lines.join("");
    const step = hunkStep(file, lines, hunk);
    const done = step && run(step, file, source, next.join(""), handlers);
    if (!done) return [...out, ...whole(source)];
    out.push(done);
    lines = next;
    shift += added.length - (to - from);
  }
  return lines.join("") === after ? out : [...out, ...whole(lines.join(""))];
}

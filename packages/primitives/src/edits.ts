/** Edits are values: a UTF-16 range of the old text and the text that replaces it. */
import { TaggedError } from "@graphplan/graph";

export interface Edit {
  /** UTF-16 offset (JS string index; web-tree-sitter's `startIndex`) where the replaced range starts. */
  readonly start: number;
  /** UTF-16 offset where it ends (exclusive). `start === end` inserts. */
  readonly end: number;
  readonly text: string;
}

/** Two edits of one application touch the same text. */
export class OverlappingEdits extends TaggedError("OverlappingEdits") {
  constructor(
    readonly first: Edit,
    readonly second: Edit,
  ) {
    super(
      `Edits overlap: [${first.start}, ${first.end}) and [${second.start}, ${second.end}); split or merge them so each piece of text is edited once.`,
    );
  }
}

/** An edit's range is not inside the text it is applied to. */
export class EditOutOfRange extends TaggedError("EditOutOfRange") {
  constructor(
    readonly edit: Edit,
    readonly length: number,
  ) {
    super(`Edit [${edit.start}, ${edit.end}) is outside the text (length ${length}).`);
  }
}

/** Edits sorted by position; insertions at the same offset keep their given order. */
export function sortEdits(edits: readonly Edit[]): Edit[] {
  return edits
    .map((edit, order) => ({ edit, order }))
    .sort((a, b) => a.edit.start - b.edit.start || a.edit.end - b.edit.end || a.order - b.order)
    .map((x) => x.edit);
}

/**
 * THE function that applies edits. All offsets refer to `source` as given (not to the text
 * after earlier edits). Throws `OverlappingEdits` when two ranges share text, and
 * `EditOutOfRange` for a range outside `source`. Several insertions at one offset are applied
 * in the order given.
 */
export function applyEdits(source: string, edits: readonly Edit[]): string {
  if (edits.length === 0) return source;
  const sorted = sortEdits(edits);
  let previous: Edit | undefined;
  for (const edit of sorted) {
    if (
      !Number.isInteger(edit.start) ||
      !Number.isInteger(edit.end) ||
      edit.start < 0 ||
      edit.end < edit.start ||
      edit.end > source.length
    ) {
      throw new EditOutOfRange(edit, source.length);
    }
    if (previous && edit.start < previous.end) throw new OverlappingEdits(previous, edit);
    previous = edit;
  }
  const parts: string[] = [];
  let cursor = 0;
  for (const edit of sorted) {
    parts.push(source.slice(cursor, edit.start), edit.text);
    cursor = edit.end;
  }
  parts.push(source.slice(cursor));
  return parts.join("");
}

/**
 * Where an offset of the old text lands in the new text, or `undefined` when the edits
 * replaced it. Offsets at an edit's boundary move with the text after it.
 */
export function mapOffset(edits: readonly Edit[], offset: number): number | undefined {
  let delta = 0;
  for (const edit of sortEdits(edits)) {
    if (offset < edit.start) break;
    if (offset < edit.end) return undefined;
    if (offset === edit.start && edit.start === edit.end) {
      delta += edit.text.length;
      continue;
    }
    delta += edit.text.length - (edit.end - edit.start);
  }
  return offset + delta;
}

/** The ranges of the new text that the edits wrote. */
export function editedRanges(edits: readonly Edit[]): { start: number; end: number }[] {
  let delta = 0;
  return sortEdits(edits).map((edit) => {
    const start = edit.start + delta;
    delta += edit.text.length - (edit.end - edit.start);
    return { start, end: start + edit.text.length };
  });
}

/**
 * One list of edits (offsets in the original text) with the effect of `first` followed by
 * `second` (offsets in the text after `first`); `result` is the text after both. Edits that
 * touch or overlap are merged; text outside every returned edit is untouched by both.
 */
export function composeEdits(first: readonly Edit[], second: readonly Edit[], result: string): Edit[] {
  const a = sortEdits(first);
  const b = sortEdits(second);
  // A's edits where their text lands after `first`, with the shift of the text before each.
  const landed: { edit: Edit; start: number; end: number; shift: number }[] = [];
  let shift = 0;
  for (const edit of a) {
    const start = edit.start + shift;
    landed.push({ edit, start, end: start + edit.text.length, shift });
    shift += edit.text.length - (edit.end - edit.start);
  }
  const total = shift;
  /** An offset of the middle text in the original text; inside (or touching) an edit of `first`, that edit's boundary. */
  const back = (offset: number, side: "start" | "end"): number => {
    for (const x of landed) {
      if (offset < x.start) return offset - x.shift;
      if (offset <= x.end) return side === "start" ? x.edit.start : x.edit.end;
    }
    return offset - total;
  };
  const groups = [
    ...a.map((e) => ({ start: e.start, end: e.end, delta: e.text.length - (e.end - e.start) })),
    ...b.map((e) => ({
      start: back(e.start, "start"),
      end: back(e.end, "end"),
      delta: e.text.length - (e.end - e.start),
    })),
  ].sort((x, y) => x.start - y.start || x.end - y.end);
  const merged: { start: number; end: number; delta: number }[] = [];
  for (const g of groups) {
    const last = merged[merged.length - 1];
    if (last && g.start <= last.end) {
      last.end = Math.max(last.end, g.end);
      last.delta += g.delta;
    } else merged.push({ ...g });
  }
  const out: Edit[] = [];
  let delta = 0;
  for (const g of merged) {
    const start = g.start + delta;
    out.push({ start: g.start, end: g.end, text: result.slice(start, g.end + delta + g.delta) });
    delta += g.delta;
  }
  return out;
}

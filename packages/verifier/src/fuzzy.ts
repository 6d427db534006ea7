/**
 * Near-match search for text an LLM quoted from a file (the design's (docs/design.md, Origins) `_fuzzy_find`): the window of
 * lines most similar to the pattern, with a similarity ratio in [0, 1].
 */
import { distance } from "fastest-levenshtein";
import { partialSimilarity } from "@graphplan/primitives";

export interface NearMatch {
  /** 1 - Levenshtein distance / length of the longer text. */
  readonly ratio: number;
  /** The text of the file that matched best. */
  readonly text: string;
  /** 1-based line where it starts. */
  readonly line: number;
}

const similarity = (a: string, b: string): number => {
  const longer = Math.max(a.length, b.length);
  return longer === 0 ? 1 : 1 - distance(a, b) / longer;
};

const squash = (text: string): string => text.replace(/\s+/g, " ").trim();

/**
 * The most similar window of `content` to `pattern`. Windows have the pattern's line count
 * (±1); candidate start lines come from the file lines most like two anchors of the pattern, its
 * first non-blank line and its longest line (a first line such as `"""` or `try:` is like
 * hundreds of lines of a file; the longest is the most telling), so the cost stays near-linear
 * in the file size.
 */
export function nearMatch(content: string, pattern: string, candidates = 12): NearMatch | undefined {
  const lines = content.split("\n");
  const patternLines = pattern.split("\n");
  const firstIndex = patternLines.findIndex((l) => l.trim() !== "");
  if (firstIndex < 0 || lines.length === 0) return undefined;
  const longestIndex = patternLines.reduce(
    (best, l, i) => (l.trim().length > patternLines[best]!.trim().length ? i : best),
    firstIndex,
  );
  const single = patternLines.filter((l) => l.trim() !== "").length === 1;
  const starts = new Set<number>();
  for (const anchor of new Set([firstIndex, longestIndex])) {
    const wanted = patternLines[anchor]!.trim();
    const scored: { line: number; score: number }[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.trim();
      if (!line) continue;
      // A cheap bound first: lines whose length differs a lot cannot be similar.
      const longer = Math.max(line.length, wanted.length);
      if (!single && Math.abs(line.length - wanted.length) / longer > 0.6) continue;
      if (single && line.length < wanted.length * 0.4) continue;
      scored.push({ line: i, score: single ? partialSimilarity(line, wanted) : similarity(line, wanted) });
    }
    scored.sort((a, b) => b.score - a.score || a.line - b.line);
    for (const { line } of scored.slice(0, candidates)) starts.add(Math.max(0, line - anchor));
  }
  const target = squash(pattern);
  let best: NearMatch | undefined;
  for (const start of [...starts].sort((a, b) => a - b)) {
    for (const span of [patternLines.length, patternLines.length - 1, patternLines.length + 1]) {
      if (span < 1 || start + span > lines.length) continue;
      const text = lines.slice(start, start + span).join("\n");
      const ratio = single && span === 1 ? partialSimilarity(squash(text), target) : similarity(squash(text), target);
      if (!best || ratio > best.ratio) best = { ratio, text, line: start + 1 };
    }
  }
  return best;
}

/** A short one-line preview of a text for messages. */
export function preview(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}

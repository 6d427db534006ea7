/**
 * A plan in pages of whole steps: each page's text is a valid JSON array (one step per line), never a step
 * cut in the middle, so a model can read, edit or pass on any page as it is.
 */

/** Characters of a page's JSON (a step longer than this is a page of its own). */
export const PAGE_CHARS = 30_000;

/** `steps` as a JSON array, one step per line. */
export const stepsJson = (steps: readonly unknown[]): string =>
  steps.length === 0 ? "[]" : `[\n${steps.map((step) => JSON.stringify(step)).join(",\n")}\n]`;

/** The pages of `steps`, as index ranges [from, to): each page's {@link stepsJson} is at most `maxChars` long unless one step alone is longer; at least one page. */
export function stepPages(steps: readonly unknown[], maxChars = PAGE_CHARS): { from: number; to: number }[] {
  const pages: { from: number; to: number }[] = [];
  const brackets = "[\n\n]".length;
  let from = 0;
  let size = brackets;
  for (let i = 0; i < steps.length; i++) {
    const length = JSON.stringify(steps[i]).length + (i > from ? ",\n".length : 0);
    if (i > from && size + length > maxChars) {
      pages.push({ from, to: i });
      from = i;
      size = brackets + length - ",\n".length;
    } else size += length;
  }
  pages.push({ from, to: steps.length });
  return pages;
}

import { expect, test } from "vitest";
import fc from "fast-check";
import { applyEdits, composeEdits, type Edit } from "./edits.js";

const edit = (length: number) =>
  fc
    .array(fc.tuple(fc.nat(length), fc.nat(5), fc.constantFrom("", "a", "bc", "\n", "xyz\n")), { maxLength: 4 })
    .map((raw) => {
      const out: Edit[] = [];
      for (const [at, len, text] of raw.sort((a, b) => a[0] - b[0])) {
        const start = Math.max(at, out.length ? out[out.length - 1]!.end : 0);
        if (start > length) continue;
        out.push({ start, end: Math.min(length, start + len), text });
      }
      return out;
    });

test("composed edits take the original text straight to the text after both lists", () => {
  const source = "0123456789abcdefghij\nklmnop";
  fc.assert(
    fc.property(
      edit(source.length).chain((first) => {
        const middle = applyEdits(source, first);
        return edit(middle.length).map((second) => ({ first, middle, second }));
      }),
      ({ first, middle, second }) => {
        const result = applyEdits(middle, second);
        const composed = composeEdits(first, second, result);
        expect(applyEdits(source, composed)).toBe(result);
        // Sorted and disjoint.
        for (let i = 1; i < composed.length; i++) expect(composed[i]!.start).toBeGreaterThan(composed[i - 1]!.end);
      },
    ),
    { numRuns: 500, seed: 3 },
  );
});

test("edits far apart stay separate; an edit of inserted text merges into it", () => {
  const source = "aaaa bbbb cccc";
  const first = [{ start: 0, end: 4, text: "AA" }];
  const middle = applyEdits(source, first); // "AA bbbb cccc"
  const second = [{ start: 8, end: 12, text: "C" }];
  expect(composeEdits(first, second, applyEdits(middle, second))).toEqual([
    { start: 0, end: 4, text: "AA" },
    { start: 10, end: 14, text: "C" },
  ]);
  const inside = [{ start: 1, end: 2, text: "x" }];
  expect(composeEdits(first, inside, applyEdits(middle, inside))).toEqual([{ start: 0, end: 4, text: "Ax" }]);
});

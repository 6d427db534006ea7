import { beforeAll, expect, test } from "vitest";
import fc from "fast-check";
import { loadGrammars, parse } from "@graphplan/graph";
import { applyEdits, type Edit } from "./edits.js";
import { lineStarts, reparse, shiftLineStarts } from "./reparse.js";

beforeAll(() => loadGrammars(["python"]));

const SOURCE = "def f(a):\n    x = 'é中' + a\n    return x\n\nclass C:\n    y = 2\n";

test("incremental re-parse gives the same tree as a full parse", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(
          fc.nat(SOURCE.length),
          fc.nat(6),
          fc.constantFrom("", "z", "\n", "    w = 1\n", "é", "(", "def g():\n    pass\n"),
        ),
        { maxLength: 3 },
      ),
      (raw) => {
        // Non-overlapping edits.
        const edits: Edit[] = [];
        for (const [at, len, text] of raw.sort((a, b) => a[0] - b[0])) {
          const start = Math.max(at, edits.length ? edits[edits.length - 1]!.end : 0);
          const end = Math.min(SOURCE.length, start + len);
          if (start > SOURCE.length) continue;
          edits.push({ start, end, text });
        }
        const next = applyEdits(SOURCE, edits);
        const old = parse(SOURCE, "python");
        const full = parse(next, "python");
        const incremental = reparse(old, SOURCE, edits, next, "python");
        try {
          expect(incremental.rootNode.toString()).toBe(full.rootNode.toString());
          expect(old.rootNode.text).toBe(SOURCE);
        } finally {
          old.delete();
          full.delete();
          incremental.delete();
        }
      },
    ),
    { numRuns: 200, seed: 7 },
  );
});

test("line starts carried through edits equal the line starts of the new text", () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.nat(SOURCE.length), fc.nat(8), fc.constantFrom("", "z", "\n", "\n\n", "a\nb", "    w = 1\n")),
        { maxLength: 4 },
      ),
      (raw) => {
        const edits: Edit[] = [];
        for (const [at, len, text] of raw.sort((a, b) => a[0] - b[0])) {
          const start = Math.max(at, edits.length ? edits[edits.length - 1]!.end : 0);
          if (start > SOURCE.length) continue;
          edits.push({ start, end: Math.min(SOURCE.length, start + len), text });
        }
        expect(shiftLineStarts(lineStarts(SOURCE), edits)).toEqual(lineStarts(applyEdits(SOURCE, edits)));
      },
    ),
    { numRuns: 500, seed: 5 },
  );
});

import { beforeAll, expect, test } from "vitest";
import fc from "fast-check";
import { loadGrammars, parse, type LanguageId } from "@graphplan/graph";
import { applyEdits, type Edit } from "./edits.js";
import { errorSpans, errorSpansAfter } from "./check.js";
import { reparseWithRanges } from "./reparse.js";

beforeAll(() => loadGrammars(["python", "javascript"]));

const SOURCES: readonly [LanguageId, string][] = [
  ["python", "def f(a):\n    x = 'é中' + a\n    return x\n\nclass C:\n    y = 2\n"],
  ["python", "def f(a):\n    x = (1 +\n    return x\n\n\ndef g():\n    return [1, 2\n\nclass C:\n    y = 2\n"],
  ["javascript", "function f(a) {\n  const x = a + ;\n  return x;\n}\n\nclass C {\n  m() { return 1; }\n}\n"],
];

const INSERTS = ["", "z", "\n", "    w = 1\n", "é", "(", ")", "{", "}", ":", "def g():\n    pass\n", "return", " + "];

/** Non-overlapping edits from raw (offset, length, text) triples. */
function editsOf(source: string, raw: readonly [number, number, string][]): Edit[] {
  const edits: Edit[] = [];
  for (const [at, len, text] of [...raw].sort((a, b) => a[0] - b[0])) {
    const start = Math.max(at % (source.length + 1), edits.length ? edits[edits.length - 1]!.end : 0);
    if (start > source.length) continue;
    edits.push({ start, end: Math.min(source.length, start + len), text });
  }
  return edits;
}

test("the errors after an edit, found from the old errors and the changed ranges, are the new tree's errors", () => {
  fc.assert(
    fc.property(
      fc.nat(SOURCES.length - 1),
      fc.array(fc.tuple(fc.nat(200), fc.nat(6), fc.constantFrom(...INSERTS)), { minLength: 1, maxLength: 3 }),
      (which, raw) => {
        const [language, source] = SOURCES[which]!;
        const edits = editsOf(source, raw);
        const next = applyEdits(source, edits);
        const old = parse(source, language);
        const { tree, changedRanges } = reparseWithRanges(old, source, edits, next, language);
        try {
          expect(errorSpansAfter(errorSpans(old), tree, next, edits, changedRanges)).toEqual(errorSpans(tree));
        } finally {
          old.delete();
          tree.delete();
        }
      },
    ),
    { numRuns: 300, seed: 11 },
  );
});

test("an error-free result has no errors and an introduced error is found inside the edit", () => {
  const source = "def f():\n    return 1\n";
  const old = parse(source, "python");
  const edits = [{ start: 13, end: 21, text: "return )" }];
  const next = applyEdits(source, edits);
  const { tree, changedRanges } = reparseWithRanges(old, source, edits, next, "python");
  try {
    expect(errorSpansAfter([], tree, next, edits, changedRanges)).toMatchObject([
      { kind: "ERROR", start: 13, line: 2, column: 4 },
    ]);
  } finally {
    old.delete();
    tree.delete();
  }
});

import { describe, expect, it } from "vitest";
import { nearMatch } from "./fuzzy.js";

const FILE = [
  "import os",
  "",
  "def run(self, items):",
  "    for item in self.items:",
  "        process(item)",
  "    return len(items)",
  "",
].join("\n");

describe("near matches (check content)", () => {
  it("finds text that differs only in whitespace at ratio 1, on its line", () => {
    const near = nearMatch(FILE, "for item in  self.items:\n  process(item)");
    expect(near).toMatchObject({ ratio: 1, line: 4 });
  });

  it("scores a hallucinated variant above 0.8 and unrelated text below", () => {
    expect(nearMatch(FILE, "for itm in self.items:\n        process(itm)")!.ratio).toBeGreaterThan(0.8);
    expect(nearMatch(FILE, "while queue:\n    queue.pop()")!.ratio).toBeLessThan(0.8);
  });

  it("finds a docstring or block whose first line is like many others, by its most telling line", () => {
    // Twenty functions whose docstrings all open with `"""` on its own line; the pattern quotes the
    // last one with one word misspelt.
    const file = Array.from(
      { length: 20 },
      (_, i) =>
        `def f${i}(x):\n    """\n    Return x plus ${i}, rounded to the nearest value ${i}.\n    """\n    return x + ${i}\n`,
    ).join("\n");
    const near = nearMatch(file, '"""\n    Return x plus 19, rounded to the nearst value 19.\n    """');
    expect(near).toMatchObject({ line: 116 }); // the 20th function (6 lines each) opens its docstring on its 2nd line
    expect(near!.ratio).toBeGreaterThan(0.9);
  });

  it("finds a one-line pattern quoted from the middle of a line", () => {
    const file = [
      "def f(items):",
      "    for i in items:",
      "        if isinstance(i, str) and i:",
      "            yield i",
      "    inst(i, st)",
    ].join("\n");
    expect(nearMatch(file, "isinstanc(i, str)")).toMatchObject({ line: 3 });
    expect(nearMatch(file, "isinstanc(i, str)")!.ratio).toBeGreaterThan(0.9);
  });
});

import { describe, expect, it } from "vitest";
import { didYouMean, nearMatch } from "./fuzzy.js";

const FILE = ["import os", "", "def run(self, items):", "    for item in self.items:", "        process(item)", "    return len(items)", ""].join("\n");

describe("near matches (layer 1)", () => {
  it("finds text that differs only in whitespace at ratio 1, on its line", () => {
    const near = nearMatch(FILE, "for item in  self.items:\n  process(item)");
    expect(near).toMatchObject({ ratio: 1, line: 4 });
  });

  it("scores a hallucinated variant above 0.8 and unrelated text below", () => {
    expect(nearMatch(FILE, "for itm in self.items:\n        process(itm)")!.ratio).toBeGreaterThan(0.8);
    expect(nearMatch(FILE, "while queue:\n    queue.pop()")!.ratio).toBeLessThan(0.8);
  });

  it("suggests a close name and nothing for a far one", () => {
    expect(didYouMean("helpr", ["helper", "main", "Service"])).toBe("helper");
    expect(didYouMean("xyz", ["helper", "main"])).toBeUndefined();
  });
});

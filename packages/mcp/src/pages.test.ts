import { describe, expect, it } from "vitest";
import { stepPages, stepsJson } from "./pages.js";

const step = (i: number, size: number) => ({
  op: "replace_text",
  params: { file: `f${i}.txt`, text: "x".repeat(size) },
});

describe("stepPages", () => {
  it("fills each page with whole steps up to the size, in order, every step once", () => {
    const steps = Array.from({ length: 40 }, (_, i) => step(i, 50 + ((i * 37) % 200)));
    const pages = stepPages(steps, 1_000);
    expect(pages.length).toBeGreaterThan(5);
    expect(pages.flatMap((p) => steps.slice(p.from, p.to))).toEqual(steps);
    for (const [i, p] of pages.entries()) {
      const text = stepsJson(steps.slice(p.from, p.to));
      expect(text.length).toBeLessThanOrEqual(1_000);
      expect(JSON.parse(text)).toEqual(steps.slice(p.from, p.to));
      // Full: the next step would not have fitted.
      if (i < pages.length - 1) expect(stepsJson(steps.slice(p.from, p.to + 1)).length).toBeGreaterThan(1_000);
    }
  });

  it("gives a step longer than a page a page of its own, whole", () => {
    const steps = [step(0, 10), step(1, 5_000), step(2, 10)];
    expect(stepPages(steps, 1_000)).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
    ]);
  });

  it("has one page for an empty plan", () => {
    expect(stepPages([], 1_000)).toEqual([{ from: 0, to: 0 }]);
    expect(stepsJson([])).toBe("[]");
  });
});

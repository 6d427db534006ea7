import { describe, expect, it } from "vitest";
import { quantile, table } from "./figures.js";

describe("the summaries' figures", () => {
  it("takes nearest-rank quantiles", () => {
    expect(quantile([], 0.5)).toBeNull();
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)).toBe(9);
  });

  it("pads the keys of a table to one width", () => {
    expect(
      table([
        ["a", "1"],
        ["longer", "2"],
      ]),
    ).toBe("a       1\nlonger  2");
  });
});

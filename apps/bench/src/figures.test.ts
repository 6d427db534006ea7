import { describe, expect, it } from "vitest";
import { causeRows, quantile, table } from "./figures.js";

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

  it("lists groups by cause, the largest first, with at most five ids each", () => {
    const ids = ["a", "b", "c", "d", "e", "f"];
    expect(table(causeRows({ "mismatch: x": ["z"], "exec_error: crash": ids }))).toBe(
      "  exec_error: crash  6  a, b, c, d, e, ...\n  mismatch: x        1  z",
    );
  });
});

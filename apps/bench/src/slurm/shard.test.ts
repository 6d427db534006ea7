import { describe, expect, it } from "vitest";
import { parseShard, shardOf } from "./shard.js";

describe("--shard i/N", () => {
  it("splits the selection into N contiguous parts whose sizes differ by at most one and that together are the selection", () => {
    const ids = Array.from({ length: 10 }, (_, i) => `i${i}`);
    const parts = [0, 1, 2].map((index) => shardOf(ids, { index, count: 3 }));
    expect(parts.map((p) => p.length)).toEqual([4, 3, 3]);
    expect(parts.flat()).toEqual(ids);
    expect(shardOf(ids, parseShard("1/3"))).toEqual(["i4", "i5", "i6"]);
  });

  it("gives empty parts when there are more shards than instances", () => {
    expect([0, 1, 2, 3].map((index) => shardOf(["a", "b"], { index, count: 4 }))).toEqual([["a"], ["b"], [], []]);
  });

  it("refuses what is not i/N with 0 ≤ i < N, naming the form", () => {
    for (const bad of ["3/3", "1", "-1/2", "a/b", "0/0"])
      expect(() => parseShard(bad)).toThrow(/^--shard takes i\/N with 0 ≤ i < N/);
  });
});

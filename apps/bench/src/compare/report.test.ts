/**
 * `compareArms` and `formatComparison` on two small fixed arms, figures known by hand: each arm's tokens and
 * dollars (one trajectory written before tokens were totalled, its replies summed), and the paired spend — per
 * instance A − B, the totals' ratios A / B, on how many instances each arm cost less.
 */
import { describe, expect, it } from "vitest";
import type { Trajectory } from "@graphplan/agent";
import type { CompareSpec } from "@graphplan/viewer";
import { trajectoryWith } from "../agent/fixtures/trajectory.js";
import { trajectoryEntry } from "../agent/report.js";
import { compareArms, formatComparison, type ArmRun } from "./report.js";

const arm = (label: "graphplan" | "baseline", trajectories: readonly Trajectory[]): ArmRun => {
  const byId = new Map(trajectories.map((t) => [t.instance.id!, t]));
  return {
    spec: { label, strategy: label, config: null },
    entries: trajectories.map((t) => trajectoryEntry(t, "o/r", 1000)),
    verdicts: new Map([...byId.keys()].map((id) => [id, "resolved" as const])),
    trajectory: (id) => byId.get(id),
    wallMs: 2000,
  };
};

// A on x: 10,000 in (6,000 read, 2,000 written: 2,000 uncached), 500 out, $0.30. A on y, an older trajectory:
// its replies, 4,000 + 6,000 in (1,000 read: 9,000 uncached), 200 + 300 out, $0.20.
const A = arm("graphplan", [
  trajectoryWith("x", {
    modelCalls: 3,
    costUsd: 0.3,
    inputTokens: 10_000,
    outputTokens: 500,
    cacheReadTokens: 6000,
    cacheWriteTokens: 2000,
  }),
  trajectoryWith("y", { modelCalls: 2, costUsd: 0.2 }, [
    { usage: { inputTokens: 4000, outputTokens: 200, cacheReadTokens: 1000 }, costUsd: 0.05 },
    { usage: { inputTokens: 6000, outputTokens: 300 }, costUsd: 0.15 },
  ]),
]);
// B on x: 20,000 in (14,000 read: 6,000 uncached), 1,000 out, $0.60; on y: 5,000 in, none cached, 100 out, $0.10.
const B = arm("baseline", [
  trajectoryWith("x", {
    modelCalls: 6,
    costUsd: 0.6,
    inputTokens: 20_000,
    outputTokens: 1000,
    cacheReadTokens: 14_000,
    cacheWriteTokens: 0,
  }),
  trajectoryWith("y", {
    modelCalls: 1,
    costUsd: 0.1,
    inputTokens: 5000,
    outputTokens: 100,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  }),
]);
const SPEC: CompareSpec = { arms: [A.spec, B.spec], provider: "anthropic", model: "m", dataset: "/d.jsonl" };

describe("the comparison's spend", () => {
  it("gives each arm its instances' tokens and dollars summed, an older trajectory's from its replies", () => {
    const r = compareArms(A, B);
    expect(r.arms[0]).toMatchObject({
      model_calls: 5,
      input_tokens: 20_000,
      cache_read_tokens: 7000,
      cache_write_tokens: 2000,
      output_tokens: 1000,
    });
    expect(r.arms[0].cost_usd).toBeCloseTo(0.5, 12);
    expect(r.arms[1]).toMatchObject({
      model_calls: 7,
      input_tokens: 25_000,
      cache_read_tokens: 14_000,
      cache_write_tokens: 0,
      output_tokens: 1100,
    });
    expect(r.per_instance[1]!.arms[0]).toMatchObject({
      model_calls: 2,
      cost_usd: 0.2,
      input_tokens: 10_000,
      cache_read_tokens: 1000,
      cache_write_tokens: 0,
      output_tokens: 500,
    });
  });

  it("pairs the arms: per instance A − B, the totals' ratios A / B, and on how many instances each cost less", () => {
    const r = compareArms(A, B);
    const [x, y] = r.per_instance.map((p) => p.difference!);
    expect(x).toMatchObject({
      input_tokens: -10_000,
      uncached_input_tokens: -4000,
      cache_read_tokens: -8000,
      cache_write_tokens: 2000,
      output_tokens: -500,
    });
    expect(x!.cost_usd).toBeCloseTo(-0.3, 12);
    expect(y).toMatchObject({
      input_tokens: 5000,
      uncached_input_tokens: 4000,
      cache_read_tokens: 1000,
      cache_write_tokens: 0,
      output_tokens: 400,
    });
    expect(y!.cost_usd).toBeCloseTo(0.1, 12);
    // Totals: A 20,000 in (11,000 uncached), 7,000 read, 2,000 written, 1,000 out, $0.50; B 25,000 (11,000), 14,000, 0, 1,100, $0.70.
    const q = r.spend_ratio!;
    expect(q.input_tokens).toBe(0.8);
    expect(q.uncached_input_tokens).toBe(1);
    expect(q.cache_read_tokens).toBe(0.5);
    expect(q.cache_write_tokens).toBeNull();
    expect(q.output_tokens).toBeCloseTo(1000 / 1100, 12);
    expect(q.cost_usd).toBeCloseTo(0.5 / 0.7, 12);
    expect(r.cheaper).toEqual({ a: 1, b: 1, same: 0 });

    const text = formatComparison(SPEC, r);
    expect(text).toMatch(/^tokens in +20k +25k$/m);
    expect(text).toMatch(/^ {2}of it cache reads +7k \(35%\) +14k \(56%\)$/m);
    expect(text).toMatch(/^ {2}of it cache writes +2k \(10%\) +0 \(0%\)$/m);
    expect(text).toMatch(/^tokens out +1k +1\.1k$/m);
    expect(text).toMatch(/^cost +\$0\.5000 +\$0\.7000$/m);
    expect(text).toMatch(/^graphplan \/ baseline: input ×0\.80 \(uncached ×1\.00\), output ×0\.91, dollars ×0\.71$/m);
    expect(text).toMatch(
      /^per instance: graphplan cost less on 1, baseline on 1, the same on 0 \(each instance's graphplan − baseline in compare\.json\)$/m,
    );
  });

  it("says when the arms cannot be told apart by dollars, and has no ratio where B spent nothing", () => {
    const free = (label: "graphplan" | "baseline") =>
      arm(label, [
        trajectoryWith("x", { modelCalls: 1, costUsd: 0 }),
        trajectoryWith("y", { modelCalls: 1, costUsd: 0 }),
      ]);
    const r = compareArms(free("graphplan"), free("baseline"));
    expect(r.cheaper).toEqual({ a: 0, b: 0, same: 2 });
    expect(r.spend_ratio!.cost_usd).toBeNull();
    const text = formatComparison(SPEC, r);
    expect(text).toMatch(
      /^graphplan \/ baseline: input – \(uncached –\), output –, dollars – \(–: baseline's is 0\)$/m,
    );
    expect(text).toMatch(/^per instance: the same dollars on all 2$/m);
  });
});

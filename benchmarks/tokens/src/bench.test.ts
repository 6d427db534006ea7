/** The benchmark's arithmetic on trajectories built by hand (the benchmark itself needs images and clones). */
import { describe, expect, it } from "vitest";
import type { Trajectory } from "@graphplan/agent";
import { billedInput, dollarsAt, prefixReads, runTotals } from "./figures.js";

const call = (inputTokens: number, cacheReadTokens: number, cacheWriteTokens: number) => ({
  role: "assistant" as const,
  content: "",
  phase: "explore" as const,
  usage: { inputTokens, outputTokens: 10, cacheReadTokens, cacheWriteTokens },
});
const trajectory = (messages: ReturnType<typeof call>[], byPhase: Trajectory["totals"]["byPhase"] = {}): Trajectory =>
  ({
    messages,
    totals: {
      modelCalls: messages.length,
      costUsd: 0,
      inputTokens: messages.reduce((n, m) => n + m.usage.inputTokens, 0),
      outputTokens: 10 * messages.length,
      cacheReadTokens: messages.reduce((n, m) => n + m.usage.cacheReadTokens, 0),
      cacheWriteTokens: messages.reduce((n, m) => n + m.usage.cacheWriteTokens, 0),
      byPhase,
    },
  }) as unknown as Trajectory;

describe("prefixReads", () => {
  it("counts a request that read its whole predecessor, and skips predecessors too short to cache", () => {
    const t = trajectory([call(500, 0, 0), call(2000, 0, 2000), call(2500, 2000, 500), call(3000, 1800, 1200)]);
    // The first request (500 tokens) wrote nothing; the third read all of the second; the fourth read less than the third.
    expect(prefixReads(t)).toEqual({ exact: 1, of: 2 });
  });
});

describe("billed input and dollars", () => {
  it("weights cache reads 0.1x and writes 1.25x, and prices them at the model's list cache prices", () => {
    const totals = runTotals([trajectory([call(10_000, 8_000, 1_000)])]).all;
    expect(billedInput(totals)).toBeCloseTo(1_000 + 800 + 1_250, 9);
    // Claude Sonnet 5: $2 input, $0.20 cache read, $2.50 cache write, $10 output per million.
    expect(dollarsAt("claude-sonnet-5", totals, true)).toBeCloseTo(
      (1_000 * 2 + 8_000 * 0.2 + 1_000 * 2.5 + 10 * 10) / 1e6,
      12,
    );
    expect(dollarsAt("claude-sonnet-5", totals, false)).toBeCloseTo((10_000 * 2 + 10 * 10) / 1e6, 12);
    expect(() => dollarsAt("acme-1", totals, true)).toThrow("no list price for acme-1");
  });

  it("sums phases over instances", () => {
    const phase = {
      modelCalls: 1,
      costUsd: 0.5,
      inputTokens: 100,
      outputTokens: 1,
      cacheReadTokens: 50,
      cacheWriteTokens: 0,
    };
    const { byPhase } = runTotals([trajectory([], { plan: phase }), trajectory([], { plan: phase, review: phase })]);
    expect(byPhase.get("plan")).toEqual({
      ...phase,
      modelCalls: 2,
      costUsd: 1,
      inputTokens: 200,
      outputTokens: 2,
      cacheReadTokens: 100,
    });
    expect(byPhase.get("review")?.modelCalls).toBe(1);
  });
});

/** The summary of `bench agent`: the harness's overhead per instance, beside the graph, and its parts; its tokens. */
import { describe, expect, it } from "vitest";
import { trajectoryWith } from "./fixtures/trajectory.js";
import {
  AgentReportEntrySchema,
  blankEntry,
  formatAgentSummary,
  formatTokens,
  spentLine,
  summarizeAgent,
  tokenCount,
  trajectoryEntry,
  type AgentReportEntry,
} from "./report.js";

const ran = (id: string, ms: number, parts: Partial<AgentReportEntry>): AgentReportEntry =>
  blankEntry(id, "Submitted", { ms, ...parts });

describe("the agent run's summary", () => {
  it("takes the overhead as the time neither the model nor its commands took, and prints it with and without the graphs", () => {
    const entries = [
      ran("a", 3000, { model_ms: 1000, command_ms: 500, setup_ms: 200, teardown_ms: 10, graph_ms: 900 }), // overhead 1500, beside the graph 600
      ran("b", 2000, { model_ms: 800, command_ms: 400, setup_ms: 300, teardown_ms: 0, graph_ms: 100 }), // 800, 700
      ran("c", 2500, { model_ms: 500, command_ms: 300, setup_ms: 100, teardown_ms: 20, graph_ms: 1200 }), // 1700, 500
      // Not counted: carried over from an earlier run, and one the agent never ran (no model time).
      ran("d", 9000, { model_ms: 0, command_ms: 0, resumed: true }),
      blankEntry("e", "input_error"),
    ];
    const summary = summarizeAgent(entries, 10_000);
    expect(summary).toMatchObject({
      overheadMedianMs: 1500,
      overheadBesideGraphMedianMs: 600,
      setupMedianMs: 200,
      teardownMedianMs: 10,
      graphMedianMs: 900,
    });
    const table = formatAgentSummary(summary);
    expect(table).toMatch(/^harness overhead per instance, median\s+1\.50 s/m);
    expect(table).toMatch(/^ {2}beside the graph, median\s+0\.60 s/m);
    expect(table).toMatch(/^ {2}of it: environment up \/ down \/ graphs\s+0\.20 s \/ 0\.01 s \/ 0\.90 s/m);
  });

  it("prints no overhead when no instance ran", () => {
    const summary = summarizeAgent([blankEntry("e", "input_error")], 5);
    expect(summary.overheadMedianMs).toBeNull();
    expect(formatAgentSummary(summary)).not.toContain("overhead");
  });
});

describe("the agent run's tokens", () => {
  it("gives each instance its trajectory's calls, dollars and tokens, and the run their exact sums, in one line", () => {
    const a = trajectoryWith("a", {
      costUsd: 0.5,
      modelCalls: 4,
      inputTokens: 1_000_000,
      outputTokens: 20_000,
      cacheReadTokens: 840_000,
      cacheWriteTokens: 30_000,
    });
    const b = trajectoryWith("b", {
      costUsd: 0.25,
      modelCalls: 2,
      inputTokens: 200_000,
      outputTokens: 15_000,
      cacheReadTokens: 168_000,
      cacheWriteTokens: 6000,
    });
    const entries = [trajectoryEntry(a, "o/r", 10), trajectoryEntry(b, "o/r", 10), blankEntry("c", "input_error")];
    expect(entries[0]).toMatchObject({
      model_calls: 4,
      cost_usd: 0.5,
      input_tokens: 1_000_000,
      output_tokens: 20_000,
      cache_read_tokens: 840_000,
      cache_write_tokens: 30_000,
    });
    expect(entries[2]).toMatchObject({
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    const summary = summarizeAgent(entries, 1000);
    expect(summary).toMatchObject({
      modelCalls: 6,
      costUsd: 0.75,
      inputTokens: 1_200_000,
      outputTokens: 35_000,
      cacheReadTokens: 1_008_000,
      cacheWriteTokens: 36_000,
    });
    // 1,008,000 of 1,200,000 read from the cache: 84%; 36,000 written: 3%.
    expect(formatAgentSummary(summary)).toMatch(/^tokens\s+1\.2M in \(84% cache reads, 3% cache writes\), 35k out$/m);
    expect(spentLine(summary)).toBe("total cost $0.7500 · tokens: 1.2M in (84% cache reads, 3% cache writes), 35k out");
  });

  it("sums an old trajectory's replies when its totals have no tokens, and counts 0 where the replies have none", () => {
    const old = trajectoryWith("old", { costUsd: 0.03, modelCalls: 2 }, [
      { role: "user", content: "task" },
      { usage: { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 600 }, costUsd: 0.01 },
      { usage: { inputTokens: 2000, outputTokens: 70 }, costUsd: 0.02 },
    ]);
    expect(trajectoryEntry(old, "o/r", 1)).toMatchObject({
      model_calls: 2,
      cost_usd: 0.03,
      input_tokens: 3000,
      output_tokens: 120,
      cache_read_tokens: 600,
      cache_write_tokens: 0,
    });
    const none = trajectoryWith("none", { costUsd: 0, modelCalls: 1 }, [{}]);
    expect(trajectoryEntry(none, "o/r", 1)).toMatchObject({ model_calls: 1, input_tokens: 0, output_tokens: 0 });
    expect(formatTokens(summarizeAgent([trajectoryEntry(none, "o/r", 1)], 1))).toBe("0 in, 0 out");
  });

  it("reads an entry of an earlier report.json written without tokens as 0 tokens", () => {
    const before: Record<string, unknown> = { ...blankEntry("a", "Submitted", { model_calls: 3, cost_usd: 0.1 }) };
    for (const key of ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"]) delete before[key];
    expect(AgentReportEntrySchema.parse(before)).toMatchObject({
      model_calls: 3,
      cost_usd: 0.1,
      input_tokens: 0,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
  });

  it("writes token counts short: 950, 1.2k, 35k, 1M, 1.2M, 12M", () => {
    expect([950, 1000, 1200, 9949, 35_000, 999_499, 999_500, 1_234_567, 12_345_678].map(tokenCount)).toEqual([
      "950",
      "1k",
      "1.2k",
      "9.9k",
      "35k",
      "999k",
      "1M",
      "1.2M",
      "12M",
    ]);
  });
});

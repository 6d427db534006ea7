/** The summary of `bench agent`: the harness's overhead per instance, beside the graph, and its parts. */
import { describe, expect, it } from "vitest";
import { blankEntry, formatAgentSummary, summarizeAgent, type AgentReportEntry } from "./report.js";

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

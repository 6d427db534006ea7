import { describe, expect, it } from "vitest";
import { emptyEntry, formatSummary, summarize, type ReportEntry } from "./report.js";

const entry = (id: string, patch: Partial<ReportEntry>): ReportEntry => ({ ...emptyEntry(id), ...patch });

describe("the summary", () => {
  it("counts exact plans, legacy-free plans, tiers and failures by cause", () => {
    const entries = [
      entry("a", {
        steps: 2,
        tiers: { "0": 1, "2": 1 },
        amplification: 1,
        ops: { replace_node: 1, "template:add_import": 1 },
        locator_kinds: { constructor: 1, toString: 1 },
      }),
      entry("b", { steps: 1, tiers: { legacy: 1 }, legacy_steps: 1, amplification: 3 }),
      entry("c", { status: "compile_error", cause: "no_exact_step" }),
      entry("d", { status: "input_error", cause: "missing_commit" }),
    ];
    const s = summarize(entries, 1234, 2);
    expect(s.exact).toBe(2);
    expect(s.legacyFree).toBe(1);
    expect(s.legacyFreeShare).toBe(0.25);
    expect(s.tiers).toEqual({ "0": 1, "2": 1, legacy: 1 });
    // Kind names that are also Object.prototype members count like any other.
    expect(s.locatorKinds).toEqual({ constructor: 1, toString: 1 });
    expect(s.amplificationMedian).toBe(1);
    expect(s.amplificationP90).toBe(3);
    expect(s.failures).toEqual({ "compile_error: no_exact_step": ["c"], "input_error: missing_commit": ["d"] });
    const table = formatSummary(s);
    expect(table).toMatch(/exact\s+2\/4 \(50\.0%\)/);
    expect(table).toMatch(/plans free of legacy ops\s+1\/4 \(25\.0%\)/);
    expect(table).toMatch(/tier 2 \(templates\)\s+1 \(33\.3%\)/);
    expect(table).toMatch(/compile_error: no_exact_step\s+1\s+c/);
    expect(table).toMatch(/total time\s+1\.2 s \(2 workers\)/);
  });
});

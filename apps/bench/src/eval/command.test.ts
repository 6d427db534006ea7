import { describe, expect, it } from "vitest";
import { evalEventPrinter, formatEvalResult } from "./command.js";
import { summarizeRun } from "./grading.js";
import type { EvalResult } from "./run.js";

const result = (warnings: string[]): EvalResult => ({
  summary: summarizeRun({ datasetIds: ["a__b-1"], predictions: new Map(), reports: new Map() }),
  summaryPath: "/out/gold.run.json",
  outcomes: [{ instance_id: "a__b-1", status: "error", reason: "the patch does not apply", ms: 0 }],
  skipped: [],
  warnings,
});

describe("bench eval's output", () => {
  it("lists the run's warnings after its errors, one a line", () => {
    const text = formatEvalResult(result(["engine unix:///x: a connect to 10.255.255.1:80 was answered in 3 ms"]));
    expect(text.split("\n").slice(-4)).toEqual([
      "errors:",
      "  a__b-1: the patch does not apply",
      "warnings:",
      "  engine unix:///x: a connect to 10.255.255.1:80 was answered in 3 ms",
    ]);
    expect(formatEvalResult(result([]))).not.toContain("warnings:");
  });

  it("prints a network check's warning on the progress display, and nothing for a network that is as the tests need", () => {
    const printed: string[] = [];
    const progress = { print: (line: string) => printed.push(line) } as unknown as Parameters<
      typeof evalEventPrinter
    >[0];
    const show = evalEventPrinter(progress);
    show({ type: "network", engine: "e", image: "i", probe: { kind: "unanswered" } });
    show({ type: "network", engine: "e", image: "i", probe: { kind: "answered", ms: 3 } });
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^warning: engine e: a connect to 10\.255\.255\.1:80 from i was answered in 3 ms;/);
  });
});

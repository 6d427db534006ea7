import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public API", () => {
  it("exports a deliberate list of names", () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        "Gate",
        "GateContextSchema",
        "GateOptionsSchema",
        "GatePolicySchema",
        "MetaPlanner",
        "ProposalPlanner",
        "ProposalSchema",
        "ScoringEngine",
        "ScoringWeightsSchema",
        "StateTracker",
        "counterIds",
        "createProposal",
        "extractEvidence",
        "extractExceptionType",
        "extractTracebackFile",
        "extractTracebackFrames",
        "isTestPath",
        "logicalClock",
        "parseFailingTests",
        "parsePytestNodeids",
        "parseTestSummary",
      ].sort(),
    );
  });

  it("closes deep imports: the exports map has only the package root", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { exports: object };
    expect(Object.keys(pkg.exports)).toEqual(["."]);
  });
});

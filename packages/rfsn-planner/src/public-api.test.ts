import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("public API", () => {
  it("exports what the agent uses: the gate, the meta-planner, createProposal and parseTestSummary", () => {
    expect(Object.keys(api).sort()).toEqual(["Gate", "MetaPlanner", "createProposal", "parseTestSummary"].sort());
  });

  it("closes deep imports: the exports map has only the package root", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { exports: object };
    expect(Object.keys(pkg.exports)).toEqual(["."]);
  });
});

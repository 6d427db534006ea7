import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { PlanVerifier, verifyPlan } from "@graphplan/verifier";
import { generateModule, generatePlan } from "./generate.js";
import { summarize } from "./stats.js";

describe("the verify benchmark's inputs", () => {
  it("generates a module of exactly the asked number of lines, and a plan cycling six ops", () => {
    const module = generateModule(5000, 18);
    expect(module.source.split("\n")).toHaveLength(5001);
    expect(module.source.endsWith("\n")).toBe(true);
    const plan = generatePlan("big.py", module, 100);
    expect(plan).toHaveLength(100);
    expect(plan.slice(0, 6).map((s) => s["op"])).toEqual([
      "replace_node",
      "insert_after_node",
      "add_method",
      "replace_all_matching",
      "wrap_node",
      "delete_node",
    ]);
  });

  it("makes a plan that verifies without errors or warnings (a small one, in CI)", async () => {
    const module = generateModule(700, 4);
    const plan = generatePlan("big.py", module, 18);
    const files = new Map([["big.py", module.source]]);
    const graph = await buildGraph([{ path: "big.py", source: module.source }]);
    const result = await verifyPlan(plan, files, graph);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const verifier = new PlanVerifier(plan, files, graph);
    let steps = 0;
    while (verifier.next()) steps++;
    expect(steps).toBe(18);
  });

  it("summarizes a sample: median, nearest-rank p90, max", () => {
    expect(summarize([5, 1, 4, 2, 3])).toEqual({ median: 3, p90: 5, max: 5 });
    expect(summarize([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])).toEqual({ median: 5.5, p90: 9, max: 10 });
  });

  it("runs the benchmark itself, short: one run of a 12-step plan on 300 lines, and exits 2 with its usage on bad input", () => {
    const tsx = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
    const bench = (args: string[]) =>
      spawnSync(tsx, ["--conditions=source", join(import.meta.dirname, "main.ts"), ...args], {
        encoding: "utf8",
        timeout: 120_000,
      });
    const run = bench(["--lines", "300", "--steps", "12", "--runs", "1"]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("module: 300 lines, 9 classes, 36 definitions; plan: 12 steps");
    expect(run.stdout).toMatch(/^run 1: total \d+ ms .*; errors 0, warnings 0$/m);
    for (const args of [
      ["--runs", "x"],
      ["--lines", "100", "--steps", "12"],
    ]) {
      const bad = bench(args);
      expect(bad.status, args.join(" ")).toBe(2);
      expect(bad.stderr).toContain("usage: pnpm --filter @graphplan/bench-verify bench");
    }
  }, 180_000);
});

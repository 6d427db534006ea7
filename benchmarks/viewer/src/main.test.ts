/**
 * The benchmark itself, short, so that CI keeps it running: a run of 3 instances opened once in Chromium
 * (`bash .ci/chromium-setup.sh`), and its usage error. The README's figures come from the full run.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
const bench = (args: string[]) =>
  spawnSync(TSX, ["--conditions=source", join(import.meta.dirname, "main.ts"), ...args], {
    encoding: "utf8",
    timeout: 170_000,
  });

describe("the viewer benchmark, short", () => {
  it("writes a run of 3 instances, serves it and opens it once in Chromium, printing every figure", () => {
    const run = bench(["--instances", "3", "--rounds", "1"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^run: 3 instances, [\d.]+ MB of trajectories/m);
    expect(run.stdout).toMatch(/^page: navigation to all 3 rows on screen: +median \d+ ms, max \d+ ms/m);
    expect(run.stdout).toMatch(/^page: one instance opened \(row click to its plan shown\): +median \d+ ms/m);
  });

  it("prints its usage and exits 2 on bad input", () => {
    const run = bench(["--instances", "2", "--rounds", "3"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: pnpm -s bench [--instances 300] [--rounds 5]");
  });
});

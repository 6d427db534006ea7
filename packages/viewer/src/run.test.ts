/** Reading a run from disk: the layouts GraphPlan writes, one row per instance, errors that say what to give. */
import { mkdtemp, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotARun, RunNotFound, RunReader } from "./run.js";
import { CACHED, runInstanceIds, writeRun } from "./testing.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "graphplan-viewer-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a run on disk", () => {
  it("gives a bench run directory one row per instance, with its evaluation, and totals that add up", async () => {
    const ids = await writeRun(dir, { instances: 21, evaluated: true });
    const index = await (await RunReader.open(dir)).index();
    expect(index.rows.map((r) => r.id)).toEqual([...ids].sort());
    const byId = new Map(index.rows.map((r) => [r.id, r]));
    // writeRun: instance 0 submitted and resolved; 1 submitted, unresolved; 4 failed (not evaluated); 6 an evaluation error.
    // writeRun: 3 model calls of 5,200 + i input and 310 output tokens each, the first writing 4,096 to the cache, the others reading them.
    expect(byId.get(ids[0]!)).toMatchObject({
      status: "Submitted",
      evaluation: "resolved",
      outcome: "resolved",
      revisions: 1,
      steps: 3,
      inputTokens: 3 * 5200,
      cacheReadTokens: 2 * CACHED,
      cacheWriteTokens: CACHED,
      outputTokens: 3 * 310,
      phase: "submit",
      repo: "sympy/sympy",
    });
    expect(byId.get(ids[1]!)).toMatchObject({ evaluation: "unresolved", outcome: "submitted, unresolved" });
    expect(byId.get(ids[4]!)).toMatchObject({ status: "Failed", evaluation: null, outcome: "Failed in execute" });
    expect(byId.get(ids[6]!)).toMatchObject({ evaluation: "error", outcome: "submitted, evaluation error" });
    expect(index.totals.instances).toBe(21);
    expect(index.totals.resolved).toBe(index.rows.filter((r) => r.evaluation === "resolved").length);
    expect(index.totals.outcomes.reduce((s, o) => s + o.count, 0)).toBe(21);
    expect(index.totals.costUsd).toBeCloseTo(21 * 0.0369, 6);
    expect(index.totals).toMatchObject({
      inputTokens: 3 * (21 * 5200 + (20 * 21) / 2),
      cacheReadTokens: 21 * 2 * CACHED,
      cacheWriteTokens: 21 * CACHED,
      outputTokens: 21 * 930,
    });
  });

  it("gives an instance's spend per phase, and for a trajectory written before tokens were totalled sums its replies", async () => {
    const ids = await writeRun(dir, { instances: 6 });
    const reader = await RunReader.open(dir);
    // Instance 5 has no token totals and no byPhase (writeRun): the same figures, from its replies.
    for (const [i, id] of [0, 5].map((i) => [i, ids[i]!] as const)) {
      const detail = (await reader.instance(id))!;
      expect(detail.trajectory!.totals.byPhase === undefined).toBe(i === 5);
      expect(detail.row).toMatchObject({ inputTokens: 3 * (5200 + i), cacheReadTokens: 2 * CACHED, outputTokens: 930 });
      expect(detail.phases).toEqual([
        {
          phase: "explore",
          modelCalls: 1,
          costUsd: 0.0123,
          inputTokens: 5200 + i,
          outputTokens: 310,
          cacheReadTokens: 0,
          cacheWriteTokens: CACHED,
        },
        {
          phase: "plan",
          modelCalls: 2,
          costUsd: 0.0246,
          inputTokens: 2 * (5200 + i),
          outputTokens: 620,
          cacheReadTokens: 2 * CACHED,
          cacheWriteTokens: 0,
        },
      ]);
    }
    // Replies without usage (a provider that reported none): 0, not a failure.
    const file = join(dir, ids[5]!, "trajectory.json");
    const t = JSON.parse(await readFile(file, "utf8")) as { messages: { usage?: unknown }[] };
    for (const m of t.messages) delete m.usage;
    await writeFile(file, JSON.stringify(t));
    const bare = (await reader.instance(ids[5]!))!;
    expect(bare.row).toMatchObject({ status: "Submitted", inputTokens: 0, cacheReadTokens: 0, outputTokens: 0 });
    expect(bare.phases.map((p) => [p.phase, p.modelCalls, p.inputTokens, p.outputTokens])).toEqual([
      ["explore", 1, 0, 0],
      ["plan", 2, 0, 0],
    ]);
  });

  it("reads a bench eval run alone (no trajectories) and a single trajectory file", async () => {
    const ids = await writeRun(dir, { instances: 4, evaluated: true });
    const evalRun = await (await RunReader.open(join(dir, "eval", "graphplan"))).index();
    expect(evalRun.rows.map((r) => [r.id, r.status, r.evaluation])).toEqual(
      [
        [ids[0], "no trajectory", "resolved"],
        [ids[1], "no trajectory", "unresolved"],
        [ids[2], "no trajectory", "unresolved"],
        [ids[3], "no trajectory", "resolved"],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const single = await (await RunReader.open(join(dir, ids[3]!, "trajectory.json"))).index();
    expect(single.rows.map((r) => [r.id, r.status])).toEqual([[ids[3], "Submitted"]]);
  });

  it("gives one instance's trajectory and test results on demand, the test output cut to its end", async () => {
    const [first] = await writeRun(dir, { instances: 1, evaluated: true });
    const output = join(dir, "eval", "graphplan", "claude-sonnet-4-5", first!, "test_output.txt");
    await writeFile(output, `${"x".repeat(300_000)}\n=== 1 passed ===\n`);
    const reader = await RunReader.open(dir);
    const detail = await reader.instance(first!);
    expect(detail?.trajectory?.plans).toHaveLength(2);
    expect(detail?.evaluation?.result?.resolved).toBe(true);
    expect(detail?.evaluation?.testOutput?.endsWith("=== 1 passed ===\n")).toBe(true);
    expect(detail?.evaluation?.testOutputLength).toBe((await readFile(output, "utf8")).length);
    expect(detail?.evaluation?.testOutput?.length).toBeLessThan(300_000);
    expect(await reader.instance("nope__nope-1")).toBeUndefined();
  });

  it("sees instances added while it is open and trajectories that changed (a live run)", async () => {
    await writeRun(dir, { instances: 2 });
    const reader = await RunReader.open(dir);
    expect((await reader.index()).rows).toHaveLength(2);
    await writeRun(dir, { instances: 3 });
    const [, , third] = runInstanceIds(3);
    const file = join(dir, third!, "trajectory.json");
    const t = JSON.parse(await readFile(file, "utf8")) as { exitStatus: string };
    t.exitStatus = "Running";
    await writeFile(file, JSON.stringify(t));
    const rows = (await reader.index()).rows;
    expect(rows).toHaveLength(3);
    expect(rows.find((r) => r.id === third)?.status).toBe("Running");
  });

  it("marks a trajectory that does not parse as unreadable instead of failing the run", async () => {
    const [first] = await writeRun(dir, { instances: 2 });
    await writeFile(join(dir, first!, "trajectory.json"), "{ half a file");
    const reader = await RunReader.open(dir);
    expect((await reader.index()).rows.find((r) => r.id === first)?.status).toBe("unreadable");
    expect((await reader.instance(first!))?.trajectoryError).toMatch(/trajectory\.json/);
  });

  it("refuses a missing path, a directory with no run and a file that is no trajectory, saying what to give", async () => {
    await expect(RunReader.open(join(dir, "missing"))).rejects.toBeInstanceOf(RunNotFound);
    await mkdir(join(dir, "empty", "sub"), { recursive: true });
    const empty = await RunReader.open(join(dir, "empty")).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(NotARun);
    expect((empty as NotARun).message).toMatch(/holds no trajectory\.json .*; give a bench agent/);
    await writeFile(join(dir, "preds.json"), JSON.stringify({ instance_id: "x" }));
    const notTrajectory = await RunReader.open(join(dir, "preds.json")).catch((e: unknown) => e);
    expect(notTrajectory).toBeInstanceOf(NotARun);
    expect((notTrajectory as NotARun).message).toMatch(/not a GraphPlan trajectory \(format:/);
  });
});

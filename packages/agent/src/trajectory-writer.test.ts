import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TrajectorySchema, type Trajectory } from "./trajectory.js";
import { TrajectoryWriter } from "./trajectory-writer.js";

/** A trajectory with `messages` messages, `Running` unless `final`. */
function trajectory(messages: number, final = false): Trajectory {
  return TrajectorySchema.parse({
    format: "graphplan-trajectory/1",
    instance: { id: "shop-1", task: "fix the total" },
    config: { name: "default", limits: { step_limit: 10 } },
    model: "scripted:model",
    sandbox: "local:/repo",
    workspace: "/repo",
    messages: Array.from({ length: messages }, (_, i) => ({
      role: "user",
      content: `message ${i}`,
      phase: "explore",
      at: "2026-01-01T00:00:00.000Z",
    })),
    transitions: [],
    files: null,
    plans: [],
    submissions: [],
    exitStatus: final ? "Submitted" : "Running",
    exitReason: final ? "submitted" : "the run is going on",
    patch: "",
    totals: { costUsd: 0, modelCalls: messages },
  });
}

describe("TrajectoryWriter", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    vi.useFakeTimers();
    dir = mkdtempSync(join(tmpdir(), "trajectory-writer-"));
    path = join(dir, "out", "trajectory.json");
  });
  afterEach(() => {
    vi.useRealTimers();
    rmSync(dir, { recursive: true, force: true });
  });
  const onDisk = () => TrajectorySchema.parse(JSON.parse(readFileSync(path, "utf8")));

  it("writes the first update at once, whole (no temporary file left), creating the directory", () => {
    new TrajectoryWriter(path, 1000).update(trajectory(1));
    expect(onDisk().messages).toHaveLength(1);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });

  it("writes at most once an interval: an update inside it is written, the latest one, when the interval ends", () => {
    const writer = new TrajectoryWriter(path, 1000);
    writer.update(trajectory(1));
    writer.update(trajectory(2));
    writer.update(trajectory(3));
    expect(onDisk().messages).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(onDisk().messages).toHaveLength(3);
  });

  it("finish writes the final trajectory at once, and no pending or later update overwrites it", () => {
    const writer = new TrajectoryWriter(path, 1000);
    writer.update(trajectory(1));
    writer.update(trajectory(2));
    writer.finish(trajectory(3, true));
    writer.update(trajectory(4));
    vi.advanceTimersByTime(5000);
    writer.close();
    expect(onDisk()).toMatchObject({ exitStatus: "Submitted", messages: { length: 3 } });
  });

  it("close, in a finally, writes the update still pending: an interrupted run keeps its last state", () => {
    const writer = new TrajectoryWriter(path, 1000);
    writer.update(trajectory(1));
    writer.update(trajectory(2));
    writer.close();
    expect(onDisk()).toMatchObject({ exitStatus: "Running", messages: { length: 2 } });
    writer.update(trajectory(3));
    vi.advanceTimersByTime(5000);
    expect(onDisk().messages).toHaveLength(2);
  });
});

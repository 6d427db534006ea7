/**
 * `pnpm --filter @graphplan/bench bench:slurm` itself, short, so that CI keeps it running: the merge of 300
 * synthetic instances, then one instance on the real Slurm of `.ci/slurm-setup.sh` and podman; and its usage
 * error. The README's figures come from the 3-instance run.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { onPath } from "./client.js";

const app = join(import.meta.dirname, "..", "..");
const bench = (args: string[]) =>
  spawnSync(
    process.execPath,
    [join(app, "node_modules/tsx/dist/cli.mjs"), "--conditions=source", "src/slurm/slurm.bench.ts", ...args],
    { cwd: app, encoding: "utf8", timeout: 280_000 },
  );

describe("bench:slurm, short", () => {
  it("prints the merge time of 300 instances and, on Slurm, the latency to the first instance and the overhead per instance", () => {
    const run = bench(["1"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^merge of 300 instances from 10 shards \(bench run: preds, report, trajectories, evaluation\): [\d.]+ s \(agent part [\d.]+ s\)$/m,
    );
    if (!onPath("sbatch")) return void expect(run.stdout).toMatch(/^Slurm figures skipped: no sbatch on PATH/m);
    expect(run.stdout).toMatch(
      /^submission to first instance \(sbatch's answer to the first instance's start in its task\): [\d.]+ s, of it Slurm's until the task started [\d.]+ s$/m,
    );
    expect(run.stdout).toMatch(
      /^1 instances one at a time, without Slurm: [\d.]+ s; with --slurm --shards 1: [\d.]+ s$/m,
    );
    expect(run.stdout).toMatch(/^overhead of Slurm per instance: -?[\d.]+ s/m);
  }, 300_000);

  it("prints its usage and exits 2 on a bad N", () => {
    const run = bench(["0"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: pnpm --filter @graphplan/bench bench:slurm [N]");
  });
});

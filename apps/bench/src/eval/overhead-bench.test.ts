/**
 * `pnpm --filter @graphplan/bench bench:eval` itself, short, so that CI keeps it running: one instance
 * built by the eval tests' fixture on podman (unix:///tmp/podman.sock, `bash .ci/podman-setup.sh`), graded,
 * its figures printed; and its usage error. The README's figure comes from the 10-instance run.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const app = join(import.meta.dirname, "..", "..");
const bench = (args: string[]) =>
  spawnSync(join(app, "node_modules", ".bin", "tsx"), ["--conditions=source", "src/eval/overhead.bench.ts", ...args], {
    cwd: app,
    encoding: "utf8",
    timeout: 280_000,
  });

describe("bench:eval, short", () => {
  it("grades one instance on podman and prints every stage, the overhead and the whole instance", () => {
    const run = bench(["1"]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^bench eval overhead, 1 instances, one container at a time, engine unix:\/\/\/tmp\/podman\.sock, load average [\d.]+$/m,
    );
    for (const stage of ["image", "start", "copy", "apply", "grade", "cleanup", "tests"])
      expect(run.stdout).toMatch(new RegExp(`^  ${stage} +[\\d.]+ s median, [\\d.]+ s p90$`, "m"));
    expect(run.stdout).toMatch(
      /^overhead \(whole instance − tests\): [\d.]+ s median, [\d.]+ s p90 {2}\(target ≤ 2 s median: (met|missed)\)$/m,
    );
  }, 300_000);

  it("prints its usage and exits 2 on a bad N", () => {
    const run = bench(["0"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: pnpm --filter @graphplan/bench bench:eval [N]");
  });
});

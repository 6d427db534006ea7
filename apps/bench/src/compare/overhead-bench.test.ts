/**
 * `pnpm --filter @graphplan/bench bench:compare` itself, short, so that CI keeps it running: two instances
 * built by the eval tests' fixture on podman (unix:///tmp/podman.sock, `bash .ci/podman-setup.sh`), the two
 * plain runs and the comparison, its figures printed; and its usage error. The README's figures come from
 * the run on six real Lite instances.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalFixture, HOST, removeImages, type EvalFixture } from "../eval/fixtures/instances.js";

const app = join(import.meta.dirname, "..", "..");
const bench = (args: string[]) =>
  spawnSync(
    join(app, "node_modules", ".bin", "tsx"),
    ["--conditions=source", "src/compare/overhead.bench.ts", ...args],
    { cwd: app, encoding: "utf8", timeout: 580_000 },
  );

let fx: EvalFixture;
let root: string;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "graphplan-bench-compare-fixture-"));
  fx = await evalFixture(root, `b${randomUUID().slice(0, 8)}`, 2);
}, 300_000);
afterAll(async () => {
  if (fx) await removeImages(fx);
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("bench:compare, short", () => {
  it("runs the two plain bench runs and the comparison on the same instances and prints their times, the overhead and the report", () => {
    const repoMap = join(root, "repos.json");
    writeFileSync(repoMap, JSON.stringify({ "pallets/flask": join(fx.root, "calc") }));
    const run = bench([
      "--dataset",
      fx.dataset,
      "--repo-map",
      repoMap,
      "--instances",
      fx.ids.join(","),
      "--namespace",
      "none",
      "--tag",
      fx.tag,
      "--docker-host",
      HOST,
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^bench compare overhead, 2 instances, --provider replay, load average [\d.]+( → [\d.]+){3}$/m,
    );
    expect(run.stdout).toMatch(
      // The replay is billed by the stand-in as Claude Sonnet 5 would bill its requests.
      /^ {2}bench run --strategy graphplan +[\d.]+ s {2}\(resolved 2 of 2 \(100\.0% of 2\) · total cost \$0\.\d{4} · tokens: [\d.]+k? in \(\d+% cache reads(, \d+% cache writes)?\), [\d.]+k? out\)$/m,
    );
    expect(run.stdout).toMatch(/^ {2}bench run --strategy baseline +[\d.]+ s {2}\(resolved 2 of 2 /m);
    expect(run.stdout).toMatch(/^overhead of the comparison: −?[\d.-]+ s \(−?[\d.-]+% of the two runs\)$/m);
    expect(run.stdout).toMatch(/^McNemar's exact test: p = 1 \(0 vs 0 discordant pairs\)/m);
  }, 600_000);

  it("prints its usage and exits 2 without its options", () => {
    const run = bench(["--dataset", "x.jsonl"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: pnpm --filter @graphplan/bench bench:compare -- --dataset FILE.jsonl");
  });
});

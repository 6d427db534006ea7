/**
 * `mergeEval` on shard directories written as `bench eval --shard i/N` leaves them: what every shard's
 * network check said reaches the merged run (its network.json and the warnings the submitter prints).
 * `mergeAgent` on two shards' agent outputs: each instance's tokens and dollars reach the merged report,
 * its summary and preds.jsonl.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@graphplan/testkit";
import { describe, expect, it } from "vitest";
import type { EvalOptions } from "../eval/run.js";
import { networkChecksFile, type NetworkCheck } from "../eval/network.js";
import { blankEntry, type AgentReport } from "../agent/report.js";
import { mergeAgent, mergeEval, mergeOptions, shardDir } from "./merge.js";

const RUN_ID = "merged";

/** A dataset of two requests-shaped instances, graded with `--preds gold`. */
function setup(): { out: string; options: EvalOptions } {
  const out = tempDir("graphplan-merge-");
  const dataset = join(out, "dataset.jsonl");
  const line = (n: number) =>
    JSON.stringify({
      repo: "psf/requests",
      instance_id: `psf__requests-${n}`,
      base_commit: "0".repeat(40),
      version: "2.10",
      patch: "diff --git a/a.py b/a.py\n",
      test_patch: "diff --git a/t.py b/t.py\n",
      FAIL_TO_PASS: "[]",
      PASS_TO_PASS: "[]",
    });
  writeFileSync(dataset, `${line(1)}\n${line(2)}\n`);
  const options = mergeOptions({ preds: "gold", dataset, runId: RUN_ID, outDir: out });
  return { out, options };
}

function writeShardChecks(out: string, index: number, checks: NetworkCheck[]): void {
  const dir = shardDir(out, index);
  mkdirSync(join(dir, RUN_ID), { recursive: true });
  writeFileSync(networkChecksFile(dir, RUN_ID), JSON.stringify(checks));
}

describe("mergeEval", () => {
  it("keeps every shard's network checks in the merged run and returns the warnings of those that did not time out", async () => {
    const { out, options } = setup();
    const quiet: NetworkCheck = { engine: "unix:///node-a.sock", image: "img-1", probe: { kind: "unanswered" } };
    const loud: NetworkCheck = { engine: "unix:///node-b.sock", image: "img-2", probe: { kind: "answered", ms: 3 } };
    writeShardChecks(out, 0, [quiet]);
    writeShardChecks(out, 1, [loud]);

    const merged = await mergeEval(options, 2, (i) => shardDir(out, i));

    expect(JSON.parse(readFileSync(networkChecksFile(out, RUN_ID), "utf8"))).toEqual([quiet, loud]);
    expect(merged.warnings).toHaveLength(1);
    expect(merged.warnings[0]).toContain("engine unix:///node-b.sock: a connect to 10.255.255.1:80 from img-2");
    expect(merged.summary.total_instances).toBe(2);
  });

  it("returns no warning and writes no network.json when no shard checked the network", async () => {
    const { out, options } = setup();
    mkdirSync(join(shardDir(out, 0), RUN_ID), { recursive: true });

    const merged = await mergeEval(options, 2, (i) => shardDir(out, i));

    expect(merged.warnings).toEqual([]);
    expect(() => readFileSync(networkChecksFile(out, RUN_ID))).toThrow(/ENOENT/);
  });

  it("leaves out a shard's network.json that is not a list of checks, rather than failing the merge", async () => {
    const { out, options } = setup();
    const dir = shardDir(out, 0);
    mkdirSync(join(dir, RUN_ID), { recursive: true });
    writeFileSync(networkChecksFile(dir, RUN_ID), '{"not": "checks"}');
    writeShardChecks(out, 1, [
      { engine: "e", image: "i", probe: { kind: "refused", detail: "Network is unreachable" } },
    ]);

    const merged = await mergeEval(options, 2, (i) => shardDir(out, i));

    expect(merged.warnings).toEqual([expect.stringContaining("failed at once (Network is unreachable)")]);
  });
});

describe("mergeAgent", () => {
  it("keeps each instance's calls, dollars and tokens in the merged report and preds.jsonl, and sums them", async () => {
    const out = tempDir("graphplan-merge-agent-");
    const usage = (n: number) => ({
      model_calls: n,
      cost_usd: n / 10,
      input_tokens: 10_000 * n,
      output_tokens: 100 * n,
      cache_read_tokens: 8000 * n,
      cache_write_tokens: 500 * n,
    });
    const ids = ["a__a-1", "b__b-2"];
    ids.forEach((id, index) => {
      const dir = shardDir(out, index);
      mkdirSync(dir, { recursive: true });
      const report: AgentReport = {
        format: "graphplan-bench-agent/1",
        dataset: "d.jsonl",
        created: "2026-11-30T00:00:00.000Z",
        model: "m",
        config: "default",
        strategy: "graphplan",
        sandbox: "local",
        interrupted: false,
        summary: {},
        instances: [blankEntry(id, "Submitted", usage(index + 1))],
      };
      writeFileSync(join(dir, "report.json"), JSON.stringify(report));
      const prediction = {
        instance_id: id,
        model_name_or_path: "graphplan/m",
        model_patch: "",
        usage: usage(index + 1),
      };
      writeFileSync(join(dir, "preds.jsonl"), `${JSON.stringify(prediction)}\n`);
    });

    const merged = await mergeAgent(out, ids, 2, 10);

    expect(merged.entries.map((e) => [e.input_tokens, e.cache_read_tokens, e.output_tokens])).toEqual([
      [10_000, 8000, 100],
      [20_000, 16_000, 200],
    ]);
    expect(merged.summary).toMatchObject({
      modelCalls: 3,
      inputTokens: 30_000,
      outputTokens: 300,
      cacheReadTokens: 24_000,
      cacheWriteTokens: 1500,
    });
    expect(merged.table).toMatch(/^tokens\s+30k in \(80% cache reads, 5% cache writes\), 300 out$/m);
    const lines = readFileSync(merged.predsPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { usage: unknown });
    expect(lines.map((l) => l.usage)).toEqual([usage(1), usage(2)]);
  });
});

/**
 * `pnpm --filter @graphplan/bench bench:slurm [N]`: what `--slurm` costs, printed as figures.
 *  1. Merge time for 300 instances: synthetic outputs of a `bench run` split into 10 shards (preds, report,
 *     a 20 kB trajectory and a patch per instance, an evaluation log tree with a report.json per instance),
 *     merged as the submitter merges them (agent, then evaluation). Needs nothing but the disk.
 *  2. On the real Slurm of `.ci/slurm-setup.sh` and podman (/tmp/podman.sock), N (default 3) small instances
 *     built here, `bench agent --in-image --provider replay` one instance at a time, once without Slurm and once
 *     with `--slurm --shards 1`, one after the other: the submission-to-first-instance latency (from sbatch's
 *     answer to the first instance's start: its end in the task's log minus its own time) and the overhead of
 *     Slurm per instance (the difference of the two wall times ÷ N). Skipped, saying so, without sbatch.
 * Outputs go under apps/bench/.slurm-bench/ (not /tmp: --slurm refuses node-local directories), removed at the end.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { blankEntry, summarizeAgent, type AgentReport } from "../agent/report.js";
import { evalFixture, removeImages } from "../eval/fixtures/instances.js";
import { onPath } from "./client.js";
import { mergeAgent, mergeEval, mergeOptions, shardDir } from "./merge.js";
import { shardOf } from "./shard.js";

const args = process.argv.slice(2).filter((a) => a !== "--");
const count = Number(args[0] ?? 3);
if (args.length > 1 || !Number.isInteger(count) || count < 1) {
  process.stderr.write(
    "usage: pnpm --filter @graphplan/bench bench:slurm [N]   (N instances for the Slurm figures, ≥ 1; default 3)\n",
  );
  process.exit(2);
}
const app = join(import.meta.dirname, "..", "..");
mkdirSync(join(app, ".slurm-bench"), { recursive: true });
const root = mkdtempSync(join(app, ".slurm-bench", "run-"));

/** Synthetic shard outputs of `bench run` for `n` instances in `shards` shards; the dataset they are of. */
function syntheticShards(out: string, n: number, shards: number): { ids: string[]; dataset: string } {
  const ids = Array.from({ length: n }, (_, i) => `acme__calc-${10000 + i}`);
  const dataset = join(out, "dataset.jsonl");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    dataset,
    ids
      .map((id) =>
        JSON.stringify({
          repo: "pallets/flask",
          instance_id: id,
          base_commit: "0".repeat(40),
          version: "2.0",
          test_patch: "",
          problem_statement: "x",
          FAIL_TO_PASS: '["t::a"]',
          PASS_TO_PASS: '["t::b"]',
        }),
      )
      .join("\n") + "\n",
  );
  const model = "graphplan/replay:gold";
  const patch = `diff --git a/calc/ops.py b/calc/ops.py\n--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n`;
  for (let index = 0; index < shards; index++) {
    const dir = shardDir(out, index);
    const part = shardOf(ids, { index, count: shards });
    const entries = part.map((id) =>
      blankEntry(id, "Submitted", {
        repo: "pallets/flask",
        model_calls: 4,
        patch_bytes: patch.length,
        patch_files: 1,
        patch_added: 1,
        patch_removed: 1,
        ms: 5000,
      }),
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "preds.jsonl"),
      part.map((id) => JSON.stringify({ instance_id: id, model_name_or_path: model, model_patch: patch })).join("\n") +
        "\n",
    );
    const report: AgentReport = {
      format: "graphplan-bench-agent/1",
      dataset,
      created: new Date().toISOString(),
      model,
      config: "default",
      strategy: "graphplan",
      sandbox: "image",
      interrupted: false,
      summary: { ...summarizeAgent(entries, 1) },
      instances: entries,
    };
    writeFileSync(join(dir, "report.json"), JSON.stringify(report, null, 2));
    for (const id of part) {
      mkdirSync(join(dir, id), { recursive: true });
      writeFileSync(join(dir, id, "trajectory.json"), JSON.stringify({ id, messages: "x".repeat(20_000) }));
      writeFileSync(join(dir, id, "model.patch"), patch);
      const logDir = join(dir, "eval", "graphplan", model.replaceAll("/", "__"), id);
      mkdirSync(logDir, { recursive: true });
      const status = {
        FAIL_TO_PASS: { success: ["t::a"], failure: [] },
        PASS_TO_PASS: { success: ["t::b"], failure: [] },
        FAIL_TO_FAIL: { success: [], failure: [] },
        PASS_TO_FAIL: { success: [], failure: [] },
      };
      writeFileSync(
        join(logDir, "report.json"),
        JSON.stringify({
          [id]: {
            patch_is_None: false,
            patch_exists: true,
            patch_successfully_applied: true,
            resolved: true,
            tests_status: status,
          },
        }),
      );
      writeFileSync(join(logDir, "test_output.txt"), "PASSED t::a\n".repeat(200));
      writeFileSync(join(logDir, "patch.diff"), patch);
    }
  }
  return { ids, dataset };
}

async function mergeFigure(): Promise<void> {
  const out = join(root, "merge");
  const { ids, dataset } = syntheticShards(out, 300, 10);
  const started = performance.now();
  const agent = await mergeAgent(out, ids, 10, 0);
  const agentMs = performance.now() - started;
  const graded = await mergeEval(
    mergeOptions({ preds: agent.predsPath, dataset, runId: "graphplan", outDir: join(out, "eval"), instances: ids }),
    10,
    (i) => join(shardDir(out, i), "eval"),
  );
  const totalMs = performance.now() - started;
  if (agent.entries.length !== 300 || graded.summary.resolved_instances !== 300)
    throw new Error(
      `the merge lost instances: ${agent.entries.length} entries, ${graded.summary.resolved_instances} resolved`,
    );
  process.stdout.write(
    `merge of 300 instances from 10 shards (bench run: preds, report, trajectories, evaluation): ${(totalMs / 1000).toFixed(2)} s (agent part ${(agentMs / 1000).toFixed(2)} s)\n`,
  );
}

interface Timed {
  readonly ms: number;
  readonly status: number | null;
  readonly stderr: string;
}

/** The CLI from its sources, timed; `watch` is called every 50 ms while it runs. */
function timedBench(argv: readonly string[], watch?: () => void): Promise<Timed> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [join(app, "node_modules/tsx/dist/cli.mjs"), "--conditions=source", "src/cli.ts", ...argv],
      { cwd: app, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = watch ? setInterval(watch, 50) : undefined;
    child.on("exit", (status) => {
      if (timer) clearInterval(timer);
      resolve({ ms: performance.now() - started, status, stderr });
    });
  });
}

async function slurmFigures(): Promise<void> {
  if (!onPath("sbatch")) {
    process.stdout.write(
      "Slurm figures skipped: no sbatch on PATH (`bash .ci/slurm-setup.sh` as root starts a single-node Slurm)\n",
    );
    return;
  }
  const fx = await evalFixture(root, `sb${process.pid}`, count);
  try {
    const repoMap = join(root, "repo-map.json");
    writeFileSync(repoMap, JSON.stringify({ "pallets/flask": join(root, "calc") }));
    const base = (out: string) => [
      "agent",
      "--dataset",
      fx.dataset,
      "--repo-map",
      repoMap,
      "--provider",
      "replay",
      "--in-image",
      "--namespace",
      "none",
      "--tag",
      fx.tag,
      "--docker-host",
      "unix:///tmp/podman.sock",
      "--out",
      out,
      "-q",
    ];
    const plain = await timedBench(base(join(root, "plain")));
    if (plain.status !== 0) throw new Error(`bench agent failed: ${plain.stderr}`);
    const out = join(root, "slurm");
    let submittedAt: number | undefined;
    let firstStart: number | undefined;
    let taskStart: number | undefined;
    const log = join(out, "shards", "0", "bench.log");
    const sharded = await timedBench([...base(out), "--slurm", "--shards", "1"], () => {
      if (submittedAt === undefined && existsSync(join(out, "slurm", "job.json"))) submittedAt = performance.now();
      if (firstStart !== undefined || !existsSync(log)) return;
      const text = readFileSync(log, "utf8");
      if (taskStart === undefined && text.startsWith("bench --slurm: task")) taskStart = performance.now();
      const match = /^\[1\/\d+\] \S+ \S+ .* (\d+) ms/m.exec(text);
      if (match) firstStart = performance.now() - Number(match[1]);
    });
    if (sharded.status !== 0) throw new Error(`bench agent --slurm failed: ${sharded.stderr}`);
    process.stdout.write(
      [
        `submission to first instance (sbatch's answer to the first instance's start in its task): ${(((firstStart ?? Number.NaN) - (submittedAt ?? Number.NaN)) / 1000).toFixed(2)} s, of it Slurm's until the task started ${(((taskStart ?? Number.NaN) - (submittedAt ?? Number.NaN)) / 1000).toFixed(2)} s`,
        `${count} instances one at a time, without Slurm: ${(plain.ms / 1000).toFixed(1)} s; with --slurm --shards 1: ${(sharded.ms / 1000).toFixed(1)} s`,
        `overhead of Slurm per instance: ${((sharded.ms - plain.ms) / count / 1000).toFixed(2)} s (the fixed cost of submission, scheduling, the task's start and the merge, spread over ${count})`,
      ].join("\n") + "\n",
    );
  } finally {
    await removeImages(fx);
  }
}

try {
  await mergeFigure();
  await slurmFigures();
  process.stdout.write(`(load average ${loadavg()[0]!.toFixed(2)}, ${new Date().toISOString()})\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}

/**
 * `bench ... --slurm` on a REAL Slurm (the single-node cluster of `.ci/slurm-setup.sh`: slurmctld and
 * slurmd on loopback, 2 CPUs) with a REAL container engine (podman on /tmp/podman.sock), on the small
 * SWE-bench-style instances the eval tests build (eval/fixtures/instances.ts), agent by `--provider replay`.
 * Skipped, saying so, only where there is no sbatch on PATH.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ContainerEngine } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentReportSchema, type AgentReportEntry } from "../agent/report.js";
import { evalFixture, HOST, removeImages, SETUP_HINT, type EvalFixture } from "../eval/fixtures/instances.js";
import { onPath } from "./client.js";
import { readJob } from "./job.js";

const SBATCH = onPath("sbatch");
const app = join(import.meta.dirname, "..", "..");
const tsxCli = join(app, "node_modules/tsx/dist/cli.mjs");
/** Outputs live in the repository's folder, not /tmp: --slurm refuses node-local directories. */
const SHARED = join(app, ".slurm-test");

interface Ran {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The bench CLI as a user runs it (node, tsx, the sources), asynchronously: Slurm runs beside it. */
function bench(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  onStart?: (child: ReturnType<typeof spawn>) => void,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsxCli, "--conditions=source", "src/cli.ts", ...args], {
      cwd: app,
      env: { ...process.env, DOCKER_HOST: HOST, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
    onStart?.(child);
  });
}

const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
const report = (out: string) => AgentReportSchema.parse(readJson(join(out, "report.json")));
const byId = (entries: readonly AgentReportEntry[]) => new Map(entries.map((e) => [e.instance_id, e]));
const preds = (out: string) =>
  new Map(
    readFileSync(join(out, "preds.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { instance_id: string; model_patch: string; model_name_or_path: string })
      .map((p) => [p.instance_id, p]),
  );
/** Containers of this fixture's images still on the engine. */
const containersLeft = (tag: string) =>
  spawnSync("podman", ["--url", HOST, "ps", "-a", "--format", "{{.Image}} {{.Names}}"], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((l) => l.includes(`:${tag} `));
/** Names of the jobs Slurm knows (bench names them `bench-<command>-<basename of OUT>`). */
const jobNames = () =>
  spawnSync("squeue", ["-h", "--states=all", "-o", "%j"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
/** How many times each instance's agent ran to a submitted patch, over every attempt of every shard (their logs). */
const completions = (out: string) => {
  const counts = new Map<string, number>();
  for (const shard of readdirSync(join(out, "shards"))) {
    const log = join(out, "shards", shard, "bench.log");
    if (!existsSync(log)) continue;
    for (const match of readFileSync(log, "utf8").matchAll(/^\[\d+\/\d+\] (\S+) Submitted (?!\(done before\))/gm))
      counts.set(match[1]!, (counts.get(match[1]!) ?? 0) + 1);
  }
  return counts;
};

let fx: EvalFixture;
let root: string;
let repoMap: string;

describe.skipIf(!SBATCH)(
  SBATCH
    ? "bench --slurm on a real Slurm and podman"
    : "bench --slurm (skipped: no sbatch on PATH; `bash .ci/slurm-setup.sh` as root starts a single-node Slurm)",
  () => {
    beforeAll(async () => {
      await Effect.runPromise(ContainerEngine.make({ host: HOST }).ping).catch((e: Error) =>
        Promise.reject(new Error(`bench --slurm's tests need a container engine: ${e.message}; ${SETUP_HINT}`)),
      );
      mkdirSync(SHARED, { recursive: true });
      root = mkdtempSync(join(SHARED, "run-"));
      fx = await evalFixture(root, `s${randomUUID().slice(0, 8)}`, 3);
      repoMap = join(root, "repo-map.json");
      writeFileSync(repoMap, JSON.stringify({ "pallets/flask": join(root, "calc") }));
    });
    afterAll(async () => {
      if (fx) await removeImages(fx);
      if (root) rmSync(root, { recursive: true, force: true });
    });

    const agentArgs = (out: string) => [
      "--dataset",
      fx.dataset,
      "--repo-map",
      repoMap,
      "--provider",
      "replay",
      "--namespace",
      "none",
      "--tag",
      fx.tag,
      "--out",
      out,
    ];

    it("bench run --slurm in 3 shards writes the preds, report and evaluation a single-machine run writes, instance by instance", async () => {
      const single = join(root, "single");
      const sharded = join(root, "sharded");
      const one = await bench(["run", ...agentArgs(single), "--timeout", "60", "-w", "2"]);
      expect(one.status, one.stderr).toBe(0);
      const many = await bench([
        "run",
        ...agentArgs(sharded),
        "--timeout",
        "60",
        "--slurm",
        "--shards",
        "3",
        "--slurm-cpus",
        "1",
      ]);
      expect(many.status, many.stderr).toBe(0);
      expect(many.stderr).toMatch(/^submitted job \d+: tasks 0,1,2 of 3 shards \(3 instances\)/m);
      // The replay model is billed as the config's model: the merged run's dollars and tokens end its last line.
      expect(many.stdout).toMatch(
        /^resolved 3 of 3 · total cost \$\d+\.\d{4} · tokens: \S+ in \(\d+% cache reads(, \d+% cache writes)?\), \S+ out$/m,
      );
      // Each shard ran its own part: one instance each.
      for (const [i, id] of fx.ids.entries())
        expect([...preds(join(sharded, "shards", String(i))).keys()]).toEqual([id]);

      expect(preds(sharded)).toEqual(preds(single));
      const comparable = (e: AgentReportEntry) => ({
        status: e.status,
        exit_reason: e.exit_reason,
        phases: e.phases,
        model_calls: e.model_calls,
        cost_usd: e.cost_usd,
        input_tokens: e.input_tokens,
        output_tokens: e.output_tokens,
        cache_read_tokens: e.cache_read_tokens,
        cache_write_tokens: e.cache_write_tokens,
        files: e.files,
        plans: e.plans,
        valid_plans: e.valid_plans,
        submissions: e.submissions,
        patch_bytes: e.patch_bytes,
        patch_files: e.patch_files,
        patch_added: e.patch_added,
        patch_removed: e.patch_removed,
      });
      const [a, b] = [byId(report(single).instances), byId(report(sharded).instances)];
      expect([...b.keys()].sort()).toEqual([...fx.ids]);
      for (const id of fx.ids) expect(comparable(b.get(id)!), id).toEqual(comparable(a.get(id)!));
      const tokens = (r: ReturnType<typeof report>) =>
        ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"].map((k) => r.summary[k]);
      expect(tokens(report(sharded))).toEqual(tokens(report(single)));
      expect(report(sharded)).toMatchObject({
        model: report(single).model,
        sandbox: report(single).sandbox,
        interrupted: false,
      });
      for (const id of fx.ids)
        expect(readdirSync(join(sharded, id)).sort(), id).toEqual(readdirSync(join(single, id)).sort());

      const summary = "eval/graphplan__replay:gold.graphplan.json";
      expect(readJson(join(sharded, summary))).toEqual(readJson(join(single, summary)));
      expect(readJson(join(sharded, summary))).toMatchObject({ resolved_instances: 3 });
      for (const id of fx.ids) {
        const file = `eval/graphplan/graphplan__replay:gold/${id}/report.json`;
        expect(readJson(join(sharded, file)), id).toEqual(readJson(join(single, file)));
      }
      expect(containersLeft(fx.tag)).toEqual([]);
    }, 300_000);

    it("bench eval --slurm in 2 shards grades every prediction into the harness's layout and one summary", async () => {
      const out = join(root, "eval");
      const result = await bench([
        "eval",
        "--preds",
        "gold",
        "--dataset",
        fx.dataset,
        "--run-id",
        "sl",
        "--namespace",
        "none",
        "--tag",
        fx.tag,
        "--out",
        out,
        "--timeout",
        "60",
        "--slurm",
        "--shards",
        "2",
      ]);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^resolved +3$/m);
      expect(readJson(join(out, "gold.sl.json"))).toMatchObject({
        total_instances: 3,
        completed_instances: 3,
        resolved_ids: [...fx.ids],
      });
      for (const id of fx.ids)
        expect(readJson(join(out, "sl", "gold", id, "report.json"))[id]).toMatchObject({ resolved: true });
      expect(containersLeft(fx.tag)).toEqual([]);
    });

    it("after one array task is scancelled mid-run, the same command runs only what has no final result: every instance ends submitted, none twice, no container left", async () => {
      const out = join(root, "cancelled");
      const args = ["agent", ...agentArgs(out), "--in-image", "--slurm", "--shards", "2", "--slurm-cpus", "1"];
      let cancelled = false;
      const first = await bench(args, {}, () => {
        const poll = setInterval(() => {
          // Shard 0 (two instances) finished its first one and is running the second: cancel that task alone.
          const log = join(out, "shards", "0", "bench.log");
          if (cancelled || !existsSync(log) || !/^\[1\/2\] \S+ Submitted/m.test(readFileSync(log, "utf8"))) return;
          cancelled = true;
          clearInterval(poll);
          void readJob(out).then((job) => spawnSync("scancel", [`${job!.jobs.at(-1)!.id}_0`]));
        }, 200);
      });
      expect(cancelled).toBe(true);
      expect(first.status).toBe(1);
      expect(first.stderr).toMatch(/task 0 CANCELLED.*run the same command again/);
      expect(containersLeft(fx.tag)).toEqual([]);
      const [done] = [...preds(out).keys()];
      expect(preds(out).size).toBe(2); // shard 0's first instance and shard 1's
      expect(report(out).instances.filter((e) => e.status !== "Submitted")).toHaveLength(1);

      const again = await bench(args);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/^submitted job \d+: tasks 0 of 2 shards/m); // shard 1 was final: not submitted again
      const final = report(out);
      expect(final.instances.map((e) => [e.instance_id, e.status])).toEqual(fx.ids.map((id) => [id, "Submitted"]));
      expect(byId(final.instances).get(done!)?.resumed).toBe(true);
      expect(completions(out)).toEqual(new Map(fx.ids.map((id) => [id, 1])));
      expect(containersLeft(fx.tag)).toEqual([]);
    }, 300_000);

    it("a task whose container engine is unreachable fails; its instances are harness errors, and the same command with the engine back runs them", async () => {
      const out = join(root, "no-engine");
      const args = ["agent", ...agentArgs(out), "--instances", fx.ids[0]!, "--in-image", "--slurm", "--shards", "1"];
      const down = await bench(args, { DOCKER_HOST: "unix:///tmp/graphplan-no-engine.sock" });
      expect(down.status).toBe(1);
      expect(down.stderr).toMatch(/task 0 FAILED \(exit 2\)/);
      expect(readFileSync(join(out, "shards", "0", "bench.log"), "utf8")).toMatch(
        /^error: .*graphplan-no-engine\.sock/m,
      );
      expect(report(out).instances).toMatchObject([
        { instance_id: fx.ids[0], status: "harness_error", cause: "slurm_task" },
      ]);
      expect(preds(out).size).toBe(0);

      const back = await bench(args);
      expect(back.status, back.stderr).toBe(0);
      expect(report(out).instances).toMatchObject([{ instance_id: fx.ids[0], status: "Submitted" }]);
    });

    it("--detach exits once submitted; bench status shows the tasks, bench cancel stops them leaving no container, and status then merges", async () => {
      const out = join(root, "detached");
      const args = ["agent", ...agentArgs(out), "--instances", fx.ids[0]!, "--in-image", "--slurm", "--shards", "1"];
      const submitted = await bench([...args, "--detach"]);
      expect(submitted.status, submitted.stderr).toBe(0);
      expect(submitted.stdout).toMatch(/^job \d+ submitted; `bench status .*detached` follows it/);
      const status = await bench(["status", out]);
      expect(status.status, status.stderr).toBe(0);
      // A loaded machine may finish the one-instance job before `bench status` (a cold CLI start) asks, or its
      // instance while the task, still RUNNING, writes the rest of its output.
      expect(status.stdout).toMatch(
        /^job \d+ \(bench agent, 1 shards, submitted .*\)\ntasks: (?:[01] pending · [01] running · 0 ended\ninstances with a final result: [01] of 1\n {2}task 0 {2}(PENDING|RUNNING)|0 pending · 0 running · 1 ended\ninstances with a final result: 1 of 1\n {2}task 0 {2}COMPLETED \(exit 0\))$/m,
      );
      // Cancelled once the instance's container runs (or before the task started: then there is nothing to clean).
      for (
        let i = 0;
        i < 300 && containersLeft(fx.tag).length === 0 && !existsSync(join(out, "shards", "0", "exit"));
        i++
      )
        await new Promise((r) => setTimeout(r, 100));
      const cancelled = await bench(["cancel", out]);
      expect(cancelled.status, cancelled.stderr).toBe(0);
      expect(cancelled.stdout).toMatch(
        /^job \d+ cancelled: task 0 (CANCELLED|COMPLETED); the same command resumes it$/m,
      );
      expect(containersLeft(fx.tag)).toEqual([]);
      const after = await bench(["status", out]);
      expect(after.status, after.stderr).toBe(0);
      expect(after.stdout).toMatch(/^tasks: 0 pending · 0 running · 1 ended$/m);
      expect(existsSync(join(out, "report.json"))).toBe(true);
      expect(report(out).instances.map((e) => e.instance_id)).toEqual([fx.ids[0]]);
    });

    it("bad input: one line naming the problem and the fix, exit 2, nothing submitted and nothing written", async () => {
      const out = join(root, "bad");
      const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
        [
          ["agent", ...agentArgs(out), "--slurm", "--shards", "2"],
          { PATH: "/nonexistent" },
          /^error: --slurm: no sbatch on PATH; run on a Slurm login node/,
        ],
        [
          ["agent", ...agentArgs(out), "--slurm", "--shards", "2", "--slurm-partition", "nope"],
          {},
          /^error: --slurm-partition nope: Slurm has no such partition; `sinfo -s` lists them$/,
        ],
        [
          ["agent", ...agentArgs("tmp/out"), "--slurm", "--shards", "2"],
          {},
          /^error: --out tmp\/out: a relative path means a different directory on each node; give an absolute path on a filesystem every node mounts/,
        ],
        [
          ["agent", ...agentArgs("/tmp/graphplan-slurm-out"), "--slurm", "--shards", "2"],
          {},
          /^error: --out \/tmp\/graphplan-slurm-out: \/tmp is each node's own disk, so the tasks' outputs would not reach this machine; give an absolute path/,
        ],
        [["agent", ...agentArgs(out), "--slurm"], {}, /^error: --slurm needs --shards N/],
      ];
      // Independent cases, run at once: each is a cold start of the CLI.
      const results = await Promise.all(cases.map(([args, env]) => bench(args, env)));
      for (const [i, [args, , line]] of cases.entries()) {
        const result = results[i]!;
        expect.soft(result.status, args.join(" ")).toBe(2);
        expect.soft(result.stderr.trim()).toMatch(line);
        expect.soft(result.stderr.trim().split("\n")).toHaveLength(1);
      }
      expect(existsSync(out)).toBe(false);
      expect(existsSync(join(app, "tmp/out"))).toBe(false);
      expect(existsSync("/tmp/graphplan-slurm-out")).toBe(false);
      expect(jobNames().filter((name) => /^bench-agent-(bad|out|graphplan-slurm-out)$/.test(name))).toEqual([]);
    });
  },
);

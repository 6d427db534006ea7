/**
 * `runAgentBench` end to end on a real git repository (the calc project, bare under `--repos`, or
 * as-is through `--repo-map`) with the scripted model and the local sandbox: outputs, resume and
 * redo, input errors, and that no worktree or temporary directory is left behind, whether an
 * instance succeeds, fails or is interrupted.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TrajectorySchema, type Trajectory } from "@graphplan/agent";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { describe, expect, it } from "vitest";
import { gitApplyCheck } from "../git.js";
import {
  bash,
  CALC_REPLIES,
  calcFixture,
  git,
  script,
  SOLVED_ID,
  SUBMIT,
  TASK,
  tempDir,
  tempRoot,
  UNKNOWN_COMMIT_ID,
  UNKNOWN_REPO_ID,
  worktrees,
  type Fixture,
} from "./fixtures/bench.js";
import { runAgentBench, type AgentBenchOptions } from "./harness.js";
import { PredictionSchema } from "./preds.js";
import { AgentReportSchema } from "./report.js";

const CALC_SCRIPT = JSON.parse(readFileSync(CALC_REPLIES, "utf8")) as string[];
const PHASES_SOLVED = ["explore", "graph", "plan", "verify", "execute", "review", "submit"];

function options(fx: Fixture, out: string, wt: string, extra: Partial<AgentBenchOptions> = {}): AgentBenchOptions {
  return {
    dataset: fx.dataset,
    reposDir: fx.reposDir,
    outDir: out,
    model: { provider: "scripted", script: CALC_REPLIES },
    sandbox: { sandbox: "local", workdir: "/repo" },
    tempRoot: wt,
    ...extra,
  };
}

const bench = (o: AgentBenchOptions) => Effect.runPromise(runAgentBench(o));
const preds = (out: string) =>
  readFileSync(join(out, "preds.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => PredictionSchema.parse(JSON.parse(l)));
const report = (out: string) => AgentReportSchema.parse(JSON.parse(readFileSync(join(out, "report.json"), "utf8")));
const trajectory = (out: string, id: string): Trajectory =>
  TrajectorySchema.parse(JSON.parse(readFileSync(join(out, id, "trajectory.json"), "utf8")));

describe("bench agent", () => {
  it("solves the instance (explore → plan → verify → execute → review → submit), reports the others as input errors, and leaves no worktree behind", async () => {
    const fx = calcFixture();
    const before = worktrees(fx.bare);
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    const result = await bench(options(fx, out, wt));

    // preds.jsonl: one line, for the instance that ran; its patch applies to the base commit and fixes the project.
    const lines = preds(out);
    expect(lines.map((p) => p.instance_id)).toEqual([SOLVED_ID]);
    const [pred] = lines;
    expect(pred!.model_name_or_path).toBe("graphplan/scripted:model");
    expect(pred!.model_patch).toMatch(/^diff --git a\/calc\/stats\.py b\/calc\/stats\.py\n/);
    expect(pred!.model_patch).toContain("\n-    return total / 2\n+    return total / len(values)\n");
    expect(await gitApplyCheck(fx.bare, fx.commit, pred!.model_patch)).toBeUndefined();
    const patchFile = join(tempDir(), "model.patch");
    writeFileSync(patchFile, pred!.model_patch);
    git(fx.source, "apply", "--check", patchFile);
    git(fx.source, "apply", patchFile);
    expect(execFileSync("python3", ["check.py"], { cwd: fx.source, encoding: "utf8" })).toBe("ok\n");
    expect(readFileSync(join(out, SOLVED_ID, "model.patch"), "utf8")).toBe(pred!.model_patch);

    // The trajectory.
    const t = trajectory(out, SOLVED_ID);
    expect(t.exitStatus).toBe("Submitted");
    expect(t.instance).toEqual({ id: SOLVED_ID, task: TASK });
    expect(t.patch).toBe(pred!.model_patch);
    expect(t.transitions.map((tr) => tr.to)).toEqual(PHASES_SOLVED);
    expect(t.files).toEqual(["calc/stats.py"]);
    expect(t.workspace.startsWith(`${wt}/graphplan-bench-agent-`)).toBe(true);
    expect(t.sandbox).toBe(`local:${t.workspace}`);
    // The local sandbox shares the host's /tmp: the prompts name this instance's own plan file, beside its worktree.
    const planPrompt = t.messages.find((m) => m.role === "user" && m.content.includes("edit_plan.json"))!;
    expect(planPrompt.content).toContain(`the file ${t.workspace}.edit_plan.json`);
    expect(planPrompt.content).not.toContain("/tmp/edit_plan.json");
    // The check script ran in the worktree, on the fixed code.
    expect(t.messages.some((m) => m.role === "user" && m.content.includes("<output>\nok\n</output>"))).toBe(true);

    // report.json, and the result handed back.
    const r = report(out);
    expect(r.interrupted).toBe(false);
    expect(r.model).toBe("scripted:model");
    expect(r.instances.map((e) => [e.instance_id, e.status, e.cause])).toEqual([
      [SOLVED_ID, "Submitted", undefined],
      [UNKNOWN_COMMIT_ID, "input_error", "missing_commit"],
      [UNKNOWN_REPO_ID, "input_error", "unknown_repository"],
    ]);
    expect(r.instances[0]).toMatchObject({
      repo: "acme/calc",
      model_calls: 5,
      cost_usd: 0,
      phases: PHASES_SOLVED,
      fell_back: false,
      files: ["calc/stats.py"],
      plans: 1,
      valid_plans: 1,
      submissions: 1,
      patch_bytes: Buffer.byteLength(pred!.model_patch),
      patch_files: 1,
      patch_added: 1,
      patch_removed: 1,
    });
    expect(r.instances[0]!.cleanup_problems).toBeUndefined();
    // The instance's time, split: the model, its commands, and the harness's parts (worktree up and down, graphs).
    const { ms, model_ms, command_ms, setup_ms, teardown_ms, graph_ms } = r.instances[0]!;
    for (const part of [model_ms, command_ms, setup_ms, teardown_ms, graph_ms])
      expect(part).toEqual(expect.any(Number));
    expect(model_ms! + command_ms! + setup_ms! + teardown_ms! + graph_ms!).toBeLessThanOrEqual(ms);
    expect(r.instances[1]!.error).toContain("0123456789abcdef0123456789abcdef01234567");
    expect(r.instances[2]!.error).toContain(join(fx.reposDir, "acme__nowhere"));
    expect(r.summary).toMatchObject({
      instances: 3,
      submittedPatches: 1,
      modelCalls: 5,
      byStatus: { Submitted: 1, input_error: 2, Failed: 0 },
    });
    expect(result.entries).toEqual(r.instances);
    expect(result.table).toMatch(/^instances\s+3$/m);
    expect(result.table).toMatch(/^ {2}Submitted\s+1$/m);
    expect(result.table).toMatch(/^submitted patches\s+1$/m);
    expect(result.table).toMatch(/^total cost\s+\$0\.0000$/m);
    expect(result.table).toMatch(/^tokens\s+0 in, 0 out$/m);

    // Clean: the repository's worktrees are as before, the temporary directories are gone.
    expect(worktrees(fx.bare)).toBe(before);
    expect(readdirSync(wt)).toEqual([]);
    expect(existsSync(t.workspace)).toBe(false);
  });

  it("resumes: instances already in preds.jsonl are skipped (their report entries kept); --redo runs them again", async () => {
    const fx = calcFixture();
    const before = worktrees(fx.bare);
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    await bench(options(fx, out, wt));
    const predsText = readFileSync(join(out, "preds.jsonl"), "utf8");
    const trajectoryText = readFileSync(join(out, SOLVED_ID, "trajectory.json"), "utf8");

    // An earlier run killed in the middle of a line: that line is dropped (and reported) when the file is rewritten.
    appendFileSync(join(out, "preds.jsonl"), '{"instance_id": "acme__calc-2", "model_');

    // A script that would not solve it: were the instance run again, its outputs would change.
    const other = script([SUBMIT]);
    const resumed = await bench(options(fx, out, wt, { model: { provider: "scripted", script: other } }));
    expect(resumed.droppedPredLines).toEqual([2]);
    expect(readFileSync(join(out, "preds.jsonl"), "utf8")).toBe(predsText);
    expect(readFileSync(join(out, SOLVED_ID, "trajectory.json"), "utf8")).toBe(trajectoryText);
    expect(resumed.entries.map((e) => [e.instance_id, e.status, e.resumed])).toEqual([
      [SOLVED_ID, "Submitted", true],
      [UNKNOWN_COMMIT_ID, "input_error", undefined],
      [UNKNOWN_REPO_ID, "input_error", undefined],
    ]);
    expect(resumed.entries[0]).toMatchObject({ model_calls: 5, phases: PHASES_SOLVED, patch_files: 1 });
    expect(report(out).summary).toMatchObject({ resumed: 1, modelCalls: 5 });

    const redone = await bench(options(fx, out, wt, { model: { provider: "scripted", script: other }, redo: true }));
    expect(redone.entries[0]).toMatchObject({
      instance_id: SOLVED_ID,
      status: "Failed",
      model_calls: 1,
      patch_bytes: 0,
    });
    expect(redone.entries[0]!.resumed).toBeUndefined();
    expect(redone.entries[0]!.exit_reason).toMatch(/^ModelScriptExhausted/);
    const lines = preds(out);
    expect(lines).toEqual([
      {
        instance_id: SOLVED_ID,
        model_name_or_path: "graphplan/scripted:model",
        model_patch: "",
        usage: {
          model_calls: 1,
          cost_usd: 0,
          input_tokens: 0,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
        },
      },
    ]);
    expect(trajectory(out, SOLVED_ID).exitStatus).toBe("Failed");
    expect(readFileSync(join(out, SOLVED_ID, "model.patch"), "utf8")).toBe("");

    expect(worktrees(fx.bare)).toBe(before);
    expect(readdirSync(wt)).toEqual([]);
  });

  it("shares one model across the instances: the second instance gets the replies after the first one's", async () => {
    const fx = calcFixture();
    const dataset = join(fx.root, "two.jsonl");
    const again = {
      repo: "acme/calc",
      instance_id: "acme__calc-again",
      base_commit: fx.commit,
      problem_statement: TASK,
    };
    writeFileSync(dataset, `${readFileSync(fx.dataset, "utf8").split("\n")[0]}\n${JSON.stringify(again)}\n`);
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    const result = await bench(
      options(fx, out, wt, { dataset, model: { provider: "scripted", script: script([...CALC_SCRIPT, SUBMIT]) } }),
    );
    expect(result.entries.map((e) => [e.instance_id, e.status, e.model_calls])).toEqual([
      [SOLVED_ID, "Submitted", 5],
      ["acme__calc-again", "Failed", 1],
    ]);
    // Built per instance, the model would have replayed the first reply (a grep) to the second one.
    const second = trajectory(out, "acme__calc-again");
    expect(second.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([SUBMIT]);
    expect(second.workspace).not.toBe(trajectory(out, SOLVED_ID).workspace);
    expect(readdirSync(wt)).toEqual([]);
  });

  it("runs on a non-bare repository given with --repo-map, leaving its work tree, index and branch as they were", async () => {
    const fx = calcFixture();
    const before = worktrees(fx.source);
    const head = git(fx.source, "symbolic-ref", "HEAD");
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    const result = await bench(
      options(fx, out, wt, { reposDir: undefined, repoMap: { "acme/calc": fx.source }, instances: [SOLVED_ID] }),
    );
    expect(result.entries.map((e) => e.status)).toEqual(["Submitted"]);
    expect(await gitApplyCheck(fx.source, fx.commit, preds(out)[0]!.model_patch)).toBeUndefined();
    expect(git(fx.source, "status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(git(fx.source, "symbolic-ref", "HEAD")).toBe(head);
    expect(worktrees(fx.source)).toBe(before);
    expect(readdirSync(wt)).toEqual([]);
  });

  it("reports unknown --instances ids and unusable dataset lines per instance and runs nothing for them", async () => {
    const fx = calcFixture();
    const dataset = join(fx.root, "bad.jsonl");
    writeFileSync(
      dataset,
      [
        "{not json",
        JSON.stringify({ repo: "acme/calc", instance_id: "acme__calc-7", base_commit: fx.commit }),
        JSON.stringify({
          repo: "acme/calc",
          instance_id: "../escape",
          base_commit: fx.commit,
          problem_statement: TASK,
        }),
        readFileSync(fx.dataset, "utf8").split("\n")[0],
      ].join("\n"),
    );
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    const all = await bench(
      options(fx, out, wt, { dataset, instances: ["acme__calc-7", "../escape", "acme__calc-404", "line-1"] }),
    );
    expect(all.entries.map((e) => [e.instance_id, e.status, e.cause])).toEqual([
      ["line-1", "input_error", "bad_line"],
      ["acme__calc-7", "input_error", "bad_line"],
      ["../escape", "input_error", "bad_line"],
      ["acme__calc-404", "input_error", "unknown_instance"],
    ]);
    expect(all.entries[1]!.error).toContain("problem_statement");
    expect(all.entries[2]!.error).toContain("instance_id");
    expect(all.summary.modelCalls).toBe(0);
    expect(readFileSync(join(out, "preds.jsonl"), "utf8")).toBe("");
    expect(existsSync(join(fx.root, "escape"))).toBe(false);
    expect(readdirSync(out).sort()).toEqual(["preds.jsonl", "report.json"]);
  });

  it("removes the worktree when the sandbox cannot start (a failure after the worktree was made)", async () => {
    const fx = calcFixture();
    const before = worktrees(fx.bare);
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    const saved = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${join(tempDir(), "no-engine.sock")}`;
    try {
      const result = await bench(
        options(fx, out, wt, {
          instances: [SOLVED_ID],
          sandbox: { sandbox: "docker", image: "graphplan-no-such-image:none", workdir: "/testbed" },
        }),
      );
      expect(result.entries.map((e) => [e.status, e.cause])).toEqual([["harness_error", "SandboxUnavailable"]]);
      expect(result.entries[0]!.error).toContain("no-engine.sock");
    } finally {
      if (saved === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = saved;
    }
    expect(readFileSync(join(out, "preds.jsonl"), "utf8")).toBe("");
    expect(worktrees(fx.bare)).toBe(before);
    expect(readdirSync(wt)).toEqual([]);
  });

  it("removes the worktree and kills the running command when the run is interrupted (Ctrl-C), and still writes report.json", async () => {
    const fx = calcFixture();
    const before = worktrees(fx.bare);
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    const marker = `sleep 31.${process.pid}`;
    const controller = new AbortController();
    const running = Effect.runPromiseExit(
      runAgentBench(
        options(fx, out, wt, { model: { provider: "scripted", script: script([bash(`touch started && ${marker}`)]) } }),
      ),
      { signal: controller.signal },
    );
    // Wait until the agent's command runs inside the worktree.
    const started = Date.now();
    while (!readdirSync(wt).some((d) => existsSync(join(wt, d, "started")))) {
      if (Date.now() - started > 20_000) throw new Error("the command never started");
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(worktrees(fx.bare)).not.toBe(before);
    const abortedAt = Date.now();
    controller.abort();
    const exit = await running;
    expect(Date.now() - abortedAt).toBeLessThan(10_000);
    expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true);

    expect(worktrees(fx.bare)).toBe(before);
    expect(readdirSync(wt)).toEqual([]);
    expect(() => execFileSync("pgrep", ["-f", marker])).toThrow(); // pgrep exits 1: no such process
    const r = report(out);
    expect(r.interrupted).toBe(true);
    expect(r.instances).toEqual([]);
    expect(readFileSync(join(out, "preds.jsonl"), "utf8")).toBe("");
  });

  it("fails before running anything when the input is unusable", async () => {
    const fx = calcFixture();
    const wt = tempRoot();
    const cases: Array<[Partial<AgentBenchOptions>, RegExp]> = [
      [{ dataset: join(fx.root, "missing.jsonl") }, /^cannot read the dataset .*missing\.jsonl/],
      [{ model: { provider: "scripted" } }, /--provider scripted needs --script FILE/],
      [{ model: {} }, /^name the model/],
      [{ configPath: join(fx.root, "missing.yaml") }, /cannot read the agent config/],
      [
        { reposDir: undefined },
        /^give --repos DIR and\/or --repo-map FILE \(or --in-image, to run each instance in its instance image\)$/,
      ],
      [{ sandbox: { sandbox: "local", image: "x", workdir: "/repo" } }, /^--image goes with --sandbox docker$/],
      [{ sandbox: { sandbox: "docker", image: "x", workdir: "repo" } }, /^--workdir must be an absolute path/],
    ];
    for (const [extra, message] of cases) {
      const out = join(tempDir(), "out");
      const exit = await Effect.runPromiseExit(runAgentBench(options(fx, out, wt, extra)));
      expect(Exit.isFailure(exit)).toBe(true);
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined;
      expect((error as { _tag?: string })._tag).toBe("AgentBenchInputInvalid");
      expect((error as Error).message).toMatch(message);
      expect(existsSync(out)).toBe(false);
    }
    expect(statSync(wt).isDirectory() && readdirSync(wt)).toEqual([]);
  });
});

describe("bench agent --provider replay", () => {
  it("replays each instance's reference patch through the agent's phases and submits a patch with the same effect, with no model", async () => {
    const fx = calcFixture();
    // The reference patch: the fix, as a commit on a branch of the source repository.
    git(fx.source, "checkout", "-q", "-b", "fix");
    const stats = join(fx.source, "calc/stats.py");
    writeFileSync(stats, readFileSync(stats, "utf8").replace("return total / 2", "return total / len(values)"));
    git(fx.source, "commit", "-q", "-am", "fix");
    const gold = git(fx.source, "diff", fx.commit, "HEAD");
    const dataset = join(tempDir(), "gold.jsonl");
    writeFileSync(
      dataset,
      `${JSON.stringify({ repo: "acme/calc", instance_id: SOLVED_ID, base_commit: fx.commit, problem_statement: TASK, patch: gold })}\n`,
    );
    const out = join(tempDir(), "out");
    const result = await bench({ ...options(fx, out, tempRoot()), dataset, model: { provider: "replay" } });
    expect(result.entries).toMatchObject([
      { instance_id: SOLVED_ID, status: "Submitted", phases: PHASES_SOLVED, model_calls: 4 },
    ]);
    // Billed as the config's model would bill it: the entry, its preds.jsonl line and the summary carry the trajectory's totals.
    const t = trajectory(out, SOLVED_ID);
    const [entry] = result.entries;
    expect(entry).toMatchObject({
      cost_usd: t.totals.costUsd,
      input_tokens: t.totals.inputTokens,
      output_tokens: t.totals.outputTokens,
      cache_read_tokens: t.totals.cacheReadTokens,
      cache_write_tokens: t.totals.cacheWriteTokens,
    });
    expect(entry!.input_tokens).toBeGreaterThan(0);
    expect(entry!.cache_read_tokens).toBeGreaterThan(0);
    expect(result.summary).toMatchObject({ inputTokens: entry!.input_tokens, outputTokens: entry!.output_tokens });
    expect(result.table).toMatch(/^tokens\s+\S+ in \(\d+% cache reads(, \d+% cache writes)?\), \S+ out$/m);
    const [prediction] = preds(out);
    expect(prediction?.usage).toEqual({
      model_calls: 4,
      cost_usd: entry!.cost_usd,
      input_tokens: entry!.input_tokens,
      output_tokens: entry!.output_tokens,
      cache_read_tokens: entry!.cache_read_tokens,
      cache_write_tokens: entry!.cache_write_tokens,
    });
    expect(prediction?.model_name_or_path).toBe("graphplan/replay:gold");
    expect(prediction?.model_patch).toContain("+    return total / len(values)");
    expect(await gitApplyCheck(fx.bare, fx.commit, prediction!.model_patch)).toBeUndefined();
    expect(trajectory(out, SOLVED_ID).messages[2]?.content).toContain("git status --short");
  });

  it("says why an instance cannot be replayed (no reference patch) and goes on", async () => {
    const fx = calcFixture();
    const out = join(tempDir(), "out");
    const result = await bench({
      ...options(fx, out, tempRoot()),
      instances: [SOLVED_ID],
      model: { provider: "replay" },
    });
    expect(result.entries).toMatchObject([
      { instance_id: SOLVED_ID, status: "harness_error", cause: "ReplayUnavailable" },
    ]);
    expect(result.entries[0]?.error).toMatch(/^the replay model cannot replay acme__calc-1: /);
  });
});

describe("bench agent with a persistent graph cache", () => {
  it("parses the repository's files in the first run and takes them from the cache in the next", async () => {
    const fx = calcFixture();
    const cache = join(tempDir(), "graph-cache");
    const first = join(tempDir(), "out");
    await bench({ ...options(fx, first, tempRoot()), instances: [SOLVED_ID], graphCacheDir: cache });
    const second = join(tempDir(), "out");
    await bench({ ...options(fx, second, tempRoot()), instances: [SOLVED_ID], graphCacheDir: cache });
    const parsed = (out: string) => trajectory(out, SOLVED_ID).plans[0]?.importers?.parsed;
    expect(parsed(first)).toBeGreaterThan(0);
    expect(parsed(second)).toBe(0);
    expect(readdirSync(cache).length).toBeGreaterThan(0);
  });
});

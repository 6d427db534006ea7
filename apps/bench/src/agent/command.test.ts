/** `bench agent` as a user runs it: the CLI spawned with tsx (exit codes, output, Ctrl-C). */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { TrajectorySchema } from "@graphplan/agent";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CALC_REPLIES, bash, calcFixture, script, SOLVED_ID, tempDir, tempRoot, worktrees } from "./fixtures/bench.js";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules/.bin/tsx");
/** The worktrees' temporary directories in the child's TMPDIR (tsx keeps its cache there too). */
const worktreeDirs = (dir: string) => readdirSync(dir).filter((name) => name.startsWith("graphplan-bench-agent-"));

function bench(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...rest } = process.env;
  return spawnSync(tsx, ["--conditions=source", "src/cli.ts", "agent", ...args], {
    cwd: app,
    encoding: "utf8",
    env: { ...rest, ...env },
  });
}

describe("bench agent (command line)", () => {
  it("runs the instances, prints the summary table and exits 0", () => {
    const fx = calcFixture();
    const out = join(tempDir(), "out");
    const wt = tempRoot();
    const result = bench(
      [
        "--dataset",
        fx.dataset,
        "--repos",
        fx.reposDir,
        "--out",
        out,
        "--provider",
        "scripted",
        "--script",
        CALC_REPLIES,
      ],
      { TMPDIR: wt },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^instances +3\n {2}Submitted +1\n {2}LimitsExceeded +0\n {2}Failed +0\n {2}input_error +2\nsubmitted patches +1\n/,
    );
    expect(result.stdout).toContain(`preds: ${join(out, "preds.jsonl")}\nreport: ${join(out, "report.json")}\n`);
    expect(result.stderr.split("\n").filter(Boolean)).toEqual([
      expect.stringMatching(
        /^\[1\/3\] acme__calc-1 Submitted 5 calls 0 in 0 out \$0\.0000 \d+ ms · 0 running · 1 submitted · \$0\.00 · ETA \d+s$/,
      ),
      expect.stringMatching(/^\[2\/3\] acme__calc-2 input_error \(missing_commit\) 0 calls/),
      expect.stringMatching(/^\[3\/3\] acme__nowhere-3 input_error \(unknown_repository\) 0 calls .* ETA 0s$/),
    ]);
    expect(readdirSync(out).sort()).toEqual([SOLVED_ID, "preds.jsonl", "report.json"]);
    expect(worktreeDirs(wt)).toEqual([]);
  });

  it("exits 2 with one line on stderr for bad input, writing nothing", () => {
    const fx = calcFixture();
    const out = join(tempDir(), "out");
    const cases: Array<[string[], string]> = [
      [["--dataset", fx.dataset, "--repos", fx.reposDir], "error: required option '--out <dir>' not specified"],
      [
        ["--dataset", fx.dataset, "--repos", fx.reposDir, "--out", out, "--provider", "claude"],
        "error: option '--provider <name>' argument 'claude' is invalid. Allowed choices are anthropic, openai, scripted, replay.",
      ],
      [
        ["--dataset", fx.dataset, "--out", out, "--provider", "scripted", "--script", CALC_REPLIES],
        "error: give --repos DIR and/or --repo-map FILE",
      ],
      [
        [
          "--dataset",
          fx.dataset,
          "--repos",
          "/nonexistent",
          "--out",
          out,
          "--provider",
          "scripted",
          "--script",
          CALC_REPLIES,
        ],
        "error: --repos /nonexistent: no such directory",
      ],
      [
        [
          "--dataset",
          join(out, "nope.jsonl"),
          "--repos",
          fx.reposDir,
          "--out",
          out,
          "--provider",
          "scripted",
          "--script",
          CALC_REPLIES,
        ],
        "error: cannot read the dataset",
      ],
      [
        [
          "--dataset",
          fx.dataset,
          "--repos",
          fx.reposDir,
          "--out",
          out,
          "--provider",
          "scripted",
          "--script",
          CALC_REPLIES,
          "--slice",
          "1-2",
        ],
        "error: --slice 1-2: give START:END",
      ],
      [
        [
          "--dataset",
          fx.dataset,
          "--repos",
          fx.reposDir,
          "--out",
          out,
          "--provider",
          "scripted",
          "--script",
          CALC_REPLIES,
          "--filter",
          "acme__nothing",
        ],
        "error: no instance of",
      ],
      [
        [
          "--dataset",
          fx.dataset,
          "--repos",
          fx.reposDir,
          "--out",
          out,
          "--provider",
          "anthropic",
          "--model",
          "claude-sonnet-4-5",
        ],
        "error: no API key: the environment variable ANTHROPIC_API_KEY",
      ],
    ];
    for (const [args, line] of cases) {
      const result = bench(args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.split("\n").filter(Boolean)).toHaveLength(1);
      expect(result.stderr.startsWith(line)).toBe(true);
      expect(existsSync(out)).toBe(false);
    }
  });

  it("keeps a whole, timestamped trajectory on disk while the instance runs, so a killed run (SIGKILL) still has it", async () => {
    const fx = calcFixture();
    const out = join(tempDir(), "out");
    const wt = tempRoot();
    const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...env } = process.env;
    const child = spawn(
      tsx,
      [
        "--conditions=source",
        "src/cli.ts",
        "agent",
        "--dataset",
        fx.dataset,
        "--repos",
        fx.reposDir,
        "--out",
        out,
        "--provider",
        "scripted",
        "--script",
        script([bash("ls"), bash("touch started && sleep 30")]),
      ],
      { cwd: app, env: { ...env, TMPDIR: wt }, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<unknown>((resolve) => child.on("exit", resolve));
    const started = Date.now();
    while (!worktreeDirs(wt).some((d) => existsSync(join(wt, d, "started")))) {
      if (Date.now() - started > 30_000) throw new Error("the command never started");
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1200)); // past the writer's one-second interval
    child.kill("SIGKILL");
    await exited;
    const t = TrajectorySchema.parse(JSON.parse(readFileSync(join(out, SOLVED_ID, "trajectory.json"), "utf8")));
    expect(t.exitStatus).toBe("Running");
    expect(t.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual([
      bash("ls"),
      bash("touch started && sleep 30"),
    ]);
    expect(t.messages.every((m) => m.at !== undefined)).toBe(true);
    for (const dir of worktreeDirs(wt)) execFileSync("rm", ["-rf", join(wt, dir)]);
    execFileSync("git", ["-C", fx.bare, "worktree", "prune"]);
  });

  it("on Ctrl-C (SIGINT) removes the worktree, writes report.json and exits 130", async () => {
    const fx = calcFixture();
    const before = worktrees(fx.bare);
    const out = join(tempDir(), "out");
    const wt = tempRoot();
    const { ANTHROPIC_API_KEY: _a, OPENAI_API_KEY: _o, ...env } = process.env;
    const child = spawn(
      tsx,
      [
        "--conditions=source",
        "src/cli.ts",
        "agent",
        "--dataset",
        fx.dataset,
        "--repos",
        fx.reposDir,
        "--out",
        out,
        "--provider",
        "scripted",
        "--script",
        script([bash("touch started && sleep 30")]),
      ],
      { cwd: app, env: { ...env, TMPDIR: wt }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const started = Date.now();
    while (!worktreeDirs(wt).some((d) => existsSync(join(wt, d, "started")))) {
      if (Date.now() - started > 30_000) throw new Error(`the command never started: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill("SIGINT");
    const code = await exited;
    expect(stderr).toContain("interrupted; the worktree was removed and report.json written");
    expect(code).toBe(130);
    expect(worktrees(fx.bare)).toBe(before);
    expect(worktreeDirs(wt)).toEqual([]);
    expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8"))).toMatchObject({
      interrupted: true,
      instances: [],
    });
  });
});

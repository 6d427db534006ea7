/** `graphplan run`: in-process through `run` (exit codes as the CLI returns them), and once spawned for real. */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runInProcess } from "./fixtures/in-process.js";
import { git, read, SHOP_REPLIES, shopRepo, status, tempDir } from "@graphplan/agent/testing";
import { TrajectorySchema } from "@graphplan/agent";
import { runCommand } from "./run.js";

const app = join(import.meta.dirname, "..", "..");
const REPLIES = SHOP_REPLIES;
const TASK = "Cart.total() ignores the quantity of each item; it must return the sum of price * quantity.";

const graphplan = (...args: string[]) => runInProcess([runCommand], ["run", ...args]);

function script(replies: unknown[]): string {
  const path = join(tempDir(), "replies.json");
  writeFileSync(path, JSON.stringify(replies));
  return path;
}

const outputOf = (out: string) => ({
  trajectory: TrajectorySchema.parse(JSON.parse(readFileSync(join(out, "trajectory.json"), "utf8"))),
  patch: readFileSync(join(out, "patch.diff"), "utf8"),
});

describe("graphplan run", () => {
  it("runs the agent, writes trajectory.json and patch.diff, prints one line and exits 0", async () => {
    const repo = shopRepo();
    const out = join(tempDir(), "out");
    const result = await graphplan(
      "--repo",
      repo,
      "--task-text",
      TASK,
      "--provider",
      "scripted",
      "--script",
      REPLIES,
      "--output",
      out,
      "--instance-id",
      "shop-1",
    );
    // Each phase as it happens, with why, and the model's commands, on stderr.
    const phases = result.stderr
      .split("\n")
      .filter((l) => l.startsWith("["))
      .map((l) => l.slice(1, l.indexOf("]")));
    expect(phases).toEqual(["explore", "graph", "plan", "verify", "execute", "review", "submit"]);
    expect(result.stderr).toMatch(/^\[explore\] start\n {2}\$ /);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")).toHaveLength(2);
    expect(result.stdout).toMatch(
      /^Submitted: patch of 1 file \(\+1 -1\); 5 model calls, \$0\.0000; phases explore>graph>plan>verify>execute>review>submit; repo .*; wrote .*trajectory\.json and patch\.diff\n$/,
    );
    const { trajectory, patch } = outputOf(out);
    expect(patch).toBe(trajectory.patch);
    expect(patch).toContain("+        return sum(price * quantity for _name, price, quantity in self.items)");
    expect(trajectory.instance).toEqual({ id: "shop-1", task: TASK });
    expect(trajectory.config.name).toBe("default");
    expect(trajectory.model).toBe("scripted:model");
    expect(trajectory.sandbox).toMatch(/^local:/);
    // The check script ran for real on the fixed code.
    expect(trajectory.messages.find((m) => m.content.includes("<output>\nok\n</output>"))).toBeDefined();
  });

  it("reads the task from a file and a partial config from --config", async () => {
    const repo = shopRepo();
    const dir = tempDir();
    writeFileSync(join(dir, "task.md"), TASK);
    writeFileSync(join(dir, "agent.yaml"), "review: false\nlimits:\n  step_limit: 10\n");
    const replies = JSON.parse(readFileSync(REPLIES, "utf8")) as string[];
    const out = join(dir, "out");
    const result = await graphplan(
      "--repo",
      repo,
      "--task",
      join(dir, "task.md"),
      "--config",
      join(dir, "agent.yaml"),
      "--provider",
      "scripted",
      "--script",
      script(replies.slice(0, 3)),
      "--output",
      out,
    );
    expect(result.code).toBe(0);
    const { trajectory } = outputOf(out);
    expect(trajectory.config).toMatchObject({ name: join(dir, "agent.yaml"), limits: { step_limit: 10 } });
    expect(trajectory.transitions.map((t) => t.to)).toEqual([
      "explore",
      "graph",
      "plan",
      "verify",
      "execute",
      "submit",
    ]);
    expect(trajectory.instance.task).toBe(TASK);
  });

  it("exits 1, still writing the trajectory, when the run ends without a submission", async () => {
    const repo = shopRepo();
    const dir = tempDir();
    writeFileSync(join(dir, "agent.yaml"), "limits:\n  step_limit: 2\n");
    const out = join(dir, "out");
    const result = await graphplan(
      "--repo",
      repo,
      "--task-text",
      TASK,
      "--config",
      join(dir, "agent.yaml"),
      "--provider",
      "scripted",
      "--script",
      script(["```bash\nls\n```", "```bash\nls\n```", "```bash\nls\n```"]),
      "--output",
      out,
      "--quiet",
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^LimitsExceeded: the run reached limits\.step_limit \(2 model calls\)/);
    expect(result.stderr).toBe("graphplan: the run ended with LimitsExceeded; see trajectory.json\n");
    expect(outputOf(out)).toMatchObject({ trajectory: { exitStatus: "LimitsExceeded" }, patch: "" });
  });

  it("refuses a dirty repository unless --allow-dirty, and then keeps the user's change", async () => {
    const repo = shopRepo();
    writeFileSync(join(repo, "README.md"), "# shop, edited by the user\n");
    const out = join(tempDir(), "out");
    const args = ["--repo", repo, "--task-text", TASK, "--provider", "scripted", "--script", REPLIES, "--output", out];
    const refused = await graphplan(...args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `error: ${repo} has uncommitted changes (README.md); commit or stash them first, or pass --allow-dirty (the patch will then include them)\n`,
    );
    expect(existsSync(out)).toBe(false);

    const allowed = await graphplan(...args, "--allow-dirty");
    expect(allowed.code).toBe(0);
    expect(read(repo, "README.md")).toBe("# shop, edited by the user\n");
    expect(status(repo)).toBe(" M README.md\n M shop/cart.py\n");
    expect(outputOf(out).patch).toContain("+# shop, edited by the user");
  });

  it("exits 2 with one line for every kind of bad input", async () => {
    const repo = shopRepo();
    const plain = tempDir();
    const fresh = tempDir();
    git(fresh, "init", "-q");
    mkdirSync(join(repo, "sub"));
    const dir = tempDir();
    writeFileSync(join(dir, "bad.yaml"), "limits:\n  step_limit: -1\n");
    writeFileSync(
      join(dir, "model.yaml"),
      "model:\n  provider: anthropic\n  model: claude-x\n  apiKeyEnv: GRAPHPLAN_TEST_NO_SUCH_KEY\n",
    );
    const scripted = ["--provider", "scripted", "--script", REPLIES];
    const cases: [string[], RegExp][] = [
      [["--repo", repo, ...scripted], /^error: give the task with exactly one of --task FILE and --task-text TEXT$/],
      [
        ["--repo", repo, "--task", "t.md", "--task-text", "x", ...scripted],
        /^error: give the task with exactly one of/,
      ],
      [
        ["--repo", repo, "--task", join(dir, "none.md"), ...scripted],
        /^error: cannot read the task file .*none\.md: ENOENT/,
      ],
      [
        ["--repo", plain, "--task-text", TASK, ...scripted],
        /^error: .* is not usable as the repository: it is not inside a git work tree; run `git init`/,
      ],
      [
        ["--repo", join(repo, "sub"), "--task-text", TASK, ...scripted],
        /^error: .* is not usable as the repository: it is inside the git work tree .*; pass its top level/,
      ],
      [
        ["--repo", fresh, "--task-text", TASK, ...scripted],
        /^error: .* is not usable as the repository: it has no commit yet/,
      ],
      [
        ["--repo", join(dir, "nope"), "--task-text", TASK, ...scripted],
        /^error: .*nope is not usable as the repository: ENOENT/,
      ],
      [
        ["--repo", repo, "--task-text", TASK, "--config", join(dir, "bad.yaml"), ...scripted],
        /^error: the agent config .*bad\.yaml is invalid: limits\.step_limit: /,
      ],
      [["--repo", repo, "--task-text", TASK], /^error: name the model: --provider anthropic\|openai --model NAME/],
      [
        ["--repo", repo, "--task-text", TASK, "--provider", "scripted"],
        /^error: --provider scripted needs --script FILE/,
      ],
      [
        ["--repo", repo, "--task-text", TASK, "--provider", "scripted", "--script", join(dir, "bad.yaml")],
        /^error: the script .* is not JSON/,
      ],
      [
        ["--repo", repo, "--task-text", TASK, "--provider", "scripted", "--script", script([1, 2])],
        /^error: the script .* must be a non-empty JSON array of strings/,
      ],
      [
        ["--repo", repo, "--task-text", TASK, "--provider", "bogus"],
        /^error: option '--provider <name>' argument 'bogus' is invalid/,
      ],
      [
        ["--repo", repo, "--task-text", TASK, ...scripted, "--sandbox", "docker"],
        /^error: --sandbox docker needs --image IMAGE/,
      ],
      [
        ["--repo", repo, "--task-text", TASK, ...scripted, "--image", "x"],
        /^error: --image goes with --sandbox docker/,
      ],
      [
        ["--repo", repo, "--task-text", TASK, "--config", join(dir, "model.yaml")],
        /^error: no API key: the environment variable GRAPHPLAN_TEST_NO_SUCH_KEY/,
      ],
      [["--task-text", TASK], /^error: required option '--repo <dir>' not specified$/],
    ];
    for (const [args, expected] of cases) {
      const result = await graphplan(...args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(result.stderr.trimEnd()).toMatch(expected);
    }
    expect(status(repo)).toBe(""); // nothing was touched (an empty directory is no change to git)
  });

  it("runs as a user runs it (the README example)", () => {
    const repo = shopRepo();
    const out = join(tempDir(), "out");
    const result = spawnSync(
      join(app, "node_modules/.bin/tsx"),
      [
        "--conditions=source",
        "src/cli.ts",
        "run",
        "--repo",
        repo,
        "--task-text",
        TASK,
        "--provider",
        "scripted",
        "--script",
        REPLIES,
        "--output",
        out,
      ],
      { cwd: app, encoding: "utf8" },
    );
    expect(result.stderr).toMatch(/\[submit\] .*\n$/);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Submitted: patch of 1 file \(\+1 -1\)/);
    expect(outputOf(out).trajectory.exitStatus).toBe("Submitted");
  });

  it("leaves a whole, valid trajectory when it is killed mid-run (written as it grows, atomically)", async () => {
    const repo = shopRepo();
    const out = join(tempDir(), "out");
    // A slow, deterministic model: every reply runs a command that takes a second, far more replies than the test waits for.
    const slow = script(
      Array.from({ length: 60 }, (_, i) => `Step ${i}.\n\n\`\`\`bash\nsleep 1; echo step ${i}\n\`\`\``),
    );
    const child = spawn(
      join(app, "node_modules/.bin/tsx"),
      [
        "--conditions=source",
        "src/cli.ts",
        "run",
        "--repo",
        repo,
        "--task-text",
        TASK,
        "--provider",
        "scripted",
        "--script",
        slow,
        "--output",
        out,
        "--quiet",
      ],
      {
        cwd: app,
        stdio: "ignore",
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    const path = join(out, "trajectory.json");
    // Wait until the run has got through a few of its commands, then kill it without a chance to clean up.
    const outputs = () => (existsSync(path) ? (readFileSync(path, "utf8").match(/<output>/g) ?? []).length : 0);
    for (let waited = 0; outputs() < 3 && waited < 120_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");

    const trajectory = TrajectorySchema.parse(JSON.parse(readFileSync(path, "utf8")));
    expect(trajectory.exitStatus).toBe("Running");
    expect(trajectory.finishedAt).toBeUndefined();
    expect(trajectory.messages.filter((m) => m.content.includes("<output>")).length).toBeGreaterThanOrEqual(3);
    expect(trajectory.messages.some((m) => m.content.includes("step 0"))).toBe(true);
    expect(existsSync(join(out, "patch.diff"))).toBe(false);
  }, 180_000);
});

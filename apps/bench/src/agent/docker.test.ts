/**
 * `bench agent --sandbox docker` against a REAL engine: podman serving the Docker API on
 * /tmp/podman.sock with the local image graphplan-busybox:test, both from `bash .ci/podman-setup.sh`
 * (as root), like the runtime's docker tests. Without them this test fails (it never skips).
 * The image has no git, so the agent cannot submit; what is tested is the harness: the worktree
 * mounted at --workdir with its git directory reachable, one container per instance, and every
 * container and worktree removed afterwards.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TrajectorySchema } from "@graphplan/agent";
import * as Effect from "effect/Effect";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bash, calcFixture, script, SOLVED_ID, SUBMIT, TASK, tempDir, tempRoot, worktrees } from "./fixtures/bench.js";
import { runAgentBench } from "./harness.js";

const SOCKET = "/tmp/podman.sock";
const IMAGE = "graphplan-busybox:test";
const SETUP =
  "run `bash .ci/podman-setup.sh` as root (podman serving the Docker API on /tmp/podman.sock, and the image graphplan-busybox:test)";

const containerExists = (id: string): boolean => {
  try {
    execFileSync("podman", ["container", "exists", id], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
};

let saved: string | undefined;
beforeEach(() => {
  if (!existsSync(SOCKET)) throw new Error(`no container engine at ${SOCKET}: ${SETUP}`);
  saved = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = `unix://${SOCKET}`;
});
afterEach(() => {
  if (saved === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = saved;
});

describe("bench agent --sandbox docker", () => {
  it("runs each instance in its own container over the mounted worktree and removes containers and worktrees", async () => {
    const fx = calcFixture();
    const dataset = join(fx.root, "two.jsonl");
    const again = {
      repo: "acme/calc",
      instance_id: "acme__calc-again",
      base_commit: fx.commit,
      problem_statement: TASK,
    };
    writeFileSync(dataset, `${readFileSync(fx.dataset, "utf8").split("\n")[0]}\n${JSON.stringify(again)}\n`);
    const config = join(fx.root, "agent.yaml");
    writeFileSync(config, "limits:\n  max_explore_steps: 1\n  step_limit: 2\n");
    const look = bash(`ls calc && ls "$(sed -n 's/^gitdir: //p' .git)"`);
    const before = worktrees(fx.bare);
    const wt = tempRoot();
    const out = join(tempDir(), "out");
    const result = await Effect.runPromise(
      runAgentBench({
        dataset,
        reposDir: fx.reposDir,
        outDir: out,
        configPath: config,
        model: { provider: "scripted", script: script([look, SUBMIT, look, SUBMIT]) },
        sandbox: { sandbox: "docker", image: IMAGE, workdir: "/testbed" },
        tempRoot: wt,
      }),
    );
    expect(result.entries.map((e) => [e.instance_id, e.status, e.cause ?? e.error])).toEqual([
      [SOLVED_ID, "LimitsExceeded", undefined],
      ["acme__calc-again", "LimitsExceeded", undefined],
    ]);
    const containers: string[] = [];
    for (const id of [SOLVED_ID, "acme__calc-again"]) {
      const t = TrajectorySchema.parse(JSON.parse(readFileSync(join(out, id, "trajectory.json"), "utf8")));
      const match = /^docker:graphplan-busybox:test@([0-9a-f]+)$/.exec(t.sandbox);
      expect(match, t.sandbox).not.toBeNull();
      containers.push(match![1]!);
      // The worktree's files at the workdir, and its git directory (named by its host path in .git) mounted too.
      const observation = t.messages[3]!.content;
      expect(observation).toContain("<returncode>0</returncode>");
      expect(observation).toMatch(/__init__\.py\nstats\.py\n/);
      expect(observation).toMatch(/\ncommondir\n/);
      // The image has no git: the submission is refused for that reason.
      expect(t.submissions.map((s) => s.problems.join(" "))).toEqual([expect.stringContaining("git: not found")]);
    }
    expect(new Set(containers).size).toBe(2);
    for (const id of containers) expect(containerExists(id), `container ${id} is still there`).toBe(false);
    expect(worktrees(fx.bare)).toBe(before);
    expect(readdirSync(wt)).toEqual([]);
  });
});

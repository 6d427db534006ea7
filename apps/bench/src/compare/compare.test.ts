/**
 * `bench compare` end to end, as a user runs it: the CLI spawned, eight small SWE-bench-style instances
 * built on a REAL engine (podman on /tmp/podman.sock, the eval tests' fixture), each arm's agent inside
 * the instance images and its patches graded by the instances' own tests.
 *
 * Stand-in models whose outcome is known in advance: arm A (graphplan, a config allowing no plan
 * revision) plans the fix on instances 1–6, a wrong fix on 7, and on 8 a plan that fails
 * verification, then a wrong shell edit in the fallback loop; arm B (baseline) edits the fix with sed
 * on 1–3 and 7 and a wrong one on 4–6 and 8. So A resolves 1–6 and B 1–3 and 7. The replay arms
 * resolve everything (p = 1), and resume after Ctrl-C in the second arm. Bad input: command.test.ts.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { get as httpGet } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContainerEngine } from "@graphplan/runtime";
import { tempDir } from "@graphplan/testkit";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_RUN_LABEL } from "../agent/in-image.js";
import {
  evalFixture,
  fixtureArgs,
  HOST,
  removeImages,
  requireEngine,
  type EvalFixture,
} from "../eval/fixtures/instances.js";
import { EVAL_RUN_LABEL } from "../eval/instance.js";
import { CompareReportSchema, type CompareReport } from "@graphplan/viewer";
import { bootstrapDifference } from "./stats.js";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules/.bin/tsx");
const bash = (command: string, thought = "Next step.") => `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``;
const json = (value: unknown) => `THOUGHT: The plan.\n\n\`\`\`json\n${JSON.stringify(value)}\n\`\`\``;
const SUBMIT = bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "Done.");
const plan = (body: string, name = "add") => [
  {
    op: "replace_node",
    params: {
      locator: { kind: "function", name, file: "calc/ops.py" },
      replacement: `def ${name}(a, b):\n    return ${body}`,
    },
  },
];
const sed = (body: string) =>
  bash(`sed -i '0,/return a - b/s//return ${body}/' calc/ops.py && head -2 calc/ops.py`, "Edit add().");

/** Arm A's replies, instance by instance (the scripted model hands them out in order; -w 1). */
const A_REPLIES = Array.from({ length: 8 }, (_, i) => {
  const start = [bash("cat calc/ops.py"), 'THOUGHT: add() is wrong.\n\nREADY_TO_PLAN: ["calc/ops.py"]'];
  if (i < 6) return [...start, json(plan("a + b")), SUBMIT];
  if (i === 6) return [...start, json(plan("a * b")), SUBMIT];
  return [...start, json(plan("a + b", "nosuch")), sed("a * b"), SUBMIT];
}).flat();
const B_REPLIES = Array.from({ length: 8 }, (_, i) => [sed(i < 3 || i === 6 ? "a + b" : "a * b"), SUBMIT]).flat();

let fx: EvalFixture;
let root: string;
beforeAll(async () => {
  await requireEngine("bench compare");
  root = mkdtempSync(join(tmpdir(), "graphplan-compare-fixture-"));
  fx = await evalFixture(root, `c${randomUUID().slice(0, 8)}`, 8);
}, 300_000);
afterAll(async () => {
  if (fx) await removeImages(fx);
  if (root) rmSync(root, { recursive: true, force: true });
});

/** This file's evaluation run id: its containers are told apart from other runs' on the same engine. */
const RUN_ID = `compare-${randomUUID().slice(0, 8)}`;
const common = () => fixtureArgs(fx, RUN_ID);
const cli = (args: readonly string[]) =>
  spawnSync(tsx, ["--conditions=source", "src/cli.ts", "compare", ...args], { cwd: app, encoding: "utf8" });
const readReport = (out: string): CompareReport =>
  CompareReportSchema.parse(JSON.parse(readFileSync(join(out, "compare.json"), "utf8")));
/** Every file under `dir` with its modification time and size: what "not run again" compares. */
const snapshot = (dir: string): Record<string, string> => {
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else files[path] = `${st.mtimeMs}:${st.size}`;
    }
  };
  walk(dir);
  return files;
};

/** Names of the agent's containers (label graphplan.agent.run) of these instances, from the engine's Docker API. */
function agentContainersOf(ids: readonly string[]): Promise<string[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [AGENT_RUN_LABEL] }));
  return new Promise((resolveNames, reject) => {
    const request = httpGet(
      { socketPath: HOST.replace(/^unix:\/\//, ""), path: `/containers/json?all=1&filters=${filters}` },
      (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => {
          const names = (JSON.parse(body) as { Names: string[] }[]).flatMap((c) =>
            c.Names.map((n) => n.replace(/^\//, "")),
          );
          resolveNames(
            names.filter((name) => ids.some((id) => name.startsWith(`graphplan-agent.${id.toLowerCase()}.`))),
          );
        });
      },
    );
    request.on("error", reject);
  });
}

describe("bench compare (command line, podman)", () => {
  it("runs both arms on the same instances and reports the paired table, McNemar's p and the bootstrap interval computed by hand", () => {
    const scriptedOut = join(tempDir(), "cmp");
    const dir = tempDir();
    const [a, b, configA] = [join(dir, "a.json"), join(dir, "b.json"), join(dir, "a.yaml")];
    writeFileSync(a, JSON.stringify(A_REPLIES));
    writeFileSync(b, JSON.stringify(B_REPLIES));
    writeFileSync(configA, "limits:\n  max_plan_revisions: 0\n");
    const result = cli([
      "--arms",
      "graphplan,baseline",
      "--arms-config",
      `${configA},-`,
      "--provider",
      "scripted",
      "--script",
      `${a},${b}`,
      "--out",
      scriptedOut,
      ...common(),
    ]);
    expect(result.stderr).not.toMatch(/^error/m);
    expect(result.status, result.stderr).toBe(0);

    const report = readReport(scriptedOut);
    const r = report.results!;
    const ids = fx.ids;
    const resolvedBy = (arm: 0 | 1) => r.per_instance.filter((p) => p.arms[arm].resolved).map((p) => p.instance_id);
    expect(resolvedBy(0)).toEqual(ids.slice(0, 6));
    expect(resolvedBy(1)).toEqual([...ids.slice(0, 3), ids[6]]);
    // By hand: both 1–3, only A 4–6, only B 7, neither 8; p = 2·P(Bin(4, ½) ≤ 1) = 10/16; 6/8 − 4/8 = +0.25.
    expect(r.paired).toEqual({ both: 3, onlyA: 3, onlyB: 1, neither: 1 });
    expect(r.mcnemar_p).toBeCloseTo(0.625, 12);
    expect(r.difference).toBe(0.25);
    // The interval is the seeded bootstrap of these eight pairs; its low end is the exact ideal-bootstrap 2.5% quantile, −2/8 (stats.test.ts).
    expect(r.interval).toEqual(
      bootstrapDifference(r.per_instance.map((p) => ({ a: p.arms[0].resolved, b: p.arms[1].resolved }))),
    );
    expect(r.interval!.low).toBe(-0.25);

    const [armA, armB] = r.arms;
    expect(armA).toMatchObject({
      label: "graphplan",
      strategy: "graphplan",
      config: configA,
      resolved: 6,
      resolve_rate: 0.75,
      endings: { submitted: 7, fallback: 1, limit: 0, failed: 0 },
      model_calls: 33,
    });
    expect(armA.graphplan).toEqual({
      planned: 8,
      verified_first_time: 7,
      revisions: 0,
      fallbacks_by_phase: { verify: 1 },
    });
    expect(armB).toMatchObject({
      label: "baseline",
      strategy: "baseline",
      config: null,
      resolved: 4,
      endings: { submitted: 8, fallback: 0, limit: 0, failed: 0 },
      model_calls: 16,
      graphplan: null,
    });
    expect(r.per_instance[7]!.arms[0]).toMatchObject({
      eval: "unresolved",
      agent: "Submitted",
      ending: "fallback",
      trajectory: `graphplan/${ids[7]}/trajectory.json`,
    });
    // Every trajectory the report links to is there, under DIR/<arm>/.
    for (const p of r.per_instance)
      for (const arm of p.arms) expect(statSync(join(scriptedOut, arm.trajectory!)).isFile()).toBe(true);

    // stdout: the arms side by side, the paired table, the interval and the p-value.
    expect(result.stdout).toMatch(/^resolved +6 \(75\.0%\) +4 \(50\.0%\)$/m);
    expect(result.stdout).toMatch(/^graphplan resolved +both 3 +only graphplan 3$/m);
    expect(result.stdout).toMatch(/^graphplan not +only baseline 1 +neither 1$/m);
    expect(result.stdout).toMatch(
      /difference in resolve rate \(graphplan − baseline\): \+25\.0 points, 95% bootstrap interval \[−25\.0, \+(62\.5|75\.0)\] points \(10000 resamples, seed 42\)/,
    );
    expect(result.stdout).toMatch(/^McNemar's exact test: p = 0\.625 \(3 vs 1 discordant pairs\)$/m);
    expect(result.stdout).toMatch(/^fallbacks by phase +verify 1 +-$/m);
    // The scripted models report no tokens and cost nothing: no arm is cheaper, and no ratio can be taken.
    expect(result.stdout).toMatch(/^tokens in +0 +0$/m);
    expect(result.stdout).toMatch(
      /^graphplan \/ baseline: input – \(uncached –\), output –, dollars – \(–: baseline's is 0\)$/m,
    );
    expect(result.stdout).toMatch(/^per instance: the same dollars on all 8$/m);
  }, 600_000);

  it("with --provider replay both arms resolve every instance (p = 1); Ctrl-C in the second arm, then the same command resumes it without running the first again", async () => {
    const out = join(tempDir(), "replay");
    const repoMap = join(tempDir(), "repos.json");
    writeFileSync(repoMap, JSON.stringify({ "pallets/flask": join(fx.root, "calc") }));
    const args = [
      "--arms",
      "graphplan,baseline",
      "--provider",
      "replay",
      "--repo-map",
      repoMap,
      "--out",
      out,
      ...common(),
    ];
    // Interrupted once the second arm's agent has finished its first instance.
    const child = spawn(tsx, ["--conditions=source", "src/cli.ts", "compare", ...args], { cwd: app });
    let stderr = "";
    const code = await new Promise<number | null>((resolveExit) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/^\[\d+\/\d+\] baseline agent: /m.test(stderr) && !child.killed) child.kill("SIGINT");
      });
      child.on("exit", (c) => resolveExit(c));
    });
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(/interrupted; no container is left; run the same command again to resume/);
    expect(readReport(out).results).toBeNull();
    const firstArm = snapshot(join(out, "graphplan"));
    const baselinePreds = readFileSync(join(out, "baseline", "preds.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(baselinePreds.length).toBeGreaterThanOrEqual(1);
    expect(baselinePreds.length).toBeLessThan(8);

    const again = cli(args);
    expect(again.status, again.stderr).toBe(0);
    const r = readReport(out).results!;
    expect(r.arms.map((arm) => arm.resolved)).toEqual([8, 8]);
    expect(r.paired).toEqual({ both: 8, onlyA: 0, onlyB: 0, neither: 0 });
    expect(r.mcnemar_p).toBe(1);
    expect(r.interval).toMatchObject({ low: 0, high: 0 });
    expect(again.stdout).toMatch(
      /^McNemar's exact test: p = 1 \(0 vs 0 discordant pairs\): no instance tells the arms apart$/m,
    );
    // The replay models are billed as the config's model: each arm's tokens are its instances' summed, and the
    // paired figures are the arms' own, subtracted per instance and divided in total.
    for (const [k, arm] of r.arms.entries()) {
      expect(arm.input_tokens).toBeGreaterThan(0);
      expect(arm.input_tokens).toBe(r.per_instance.reduce((n, p) => n + p.arms[k]!.input_tokens, 0));
    }
    for (const p of r.per_instance) {
      expect(p.difference!.input_tokens).toBe(p.arms[0].input_tokens - p.arms[1].input_tokens);
      expect(p.difference!.output_tokens).toBe(p.arms[0].output_tokens - p.arms[1].output_tokens);
    }
    expect(r.spend_ratio!.input_tokens).toBeCloseTo(r.arms[0].input_tokens / r.arms[1].input_tokens, 12);
    expect(again.stdout).toMatch(/^graphplan \/ baseline: input ×\d+\.\d\d \(uncached \S+\), output ×\d+\.\d\d, /m);
    // The baseline arm applied the reference patch with a shell command; the graphplan arm sent the compiled plan.
    const [gp, base] = r.per_instance[0]!.arms;
    const baseline = readFileSync(join(out, base.trajectory!), "utf8");
    expect(baseline).toContain("git apply --verbose - <<'GRAPHPLAN_PATCH'");
    expect(JSON.parse(readFileSync(join(out, gp.trajectory!), "utf8")).plans).toHaveLength(1);
    // The first arm was not run again: its agent's instances were all carried over, its trajectories untouched.
    const agentA = JSON.parse(readFileSync(join(out, "graphplan", "report.json"), "utf8")) as {
      instances: { resumed?: boolean }[];
    };
    expect(agentA.instances.every((e) => e.resumed === true)).toBe(true);
    const trajectoriesA = Object.entries(firstArm).filter(([path]) => path.endsWith("trajectory.json"));
    expect(trajectoriesA).toHaveLength(8);
    for (const [path, stamp] of trajectoriesA) expect(snapshot(join(out, "graphplan"))[path]).toBe(stamp);
    // The baseline's instances done before Ctrl-C were carried over too.
    const agentB = JSON.parse(readFileSync(join(out, "baseline", "report.json"), "utf8")) as {
      instances: { resumed?: boolean }[];
    };
    expect(agentB.instances.filter((e) => e.resumed === true).length).toBe(baselinePreds.length);
  }, 600_000);

  it("leaves no agent or eval container behind", async () => {
    const engine = ContainerEngine.make({ host: HOST });
    // The agent's containers are named graphplan-agent.<instance id>.<run>: none of this fixture's instances (other runs may use the engine).
    expect(await agentContainersOf(fx.ids)).toEqual([]);
    expect(await Effect.runPromise(engine.containersLabelled({ [EVAL_RUN_LABEL]: RUN_ID }))).toEqual([]);
  });
});

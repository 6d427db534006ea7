/**
 * `bench eval` end to end on a REAL container engine (podman serving the Docker API on
 * /tmp/podman.sock) with small SWE-bench-style instances built by the tests (fixtures/instances.ts):
 * grading, outputs in the harness's layout, resume, Ctrl-C, bad input. Without the engine these
 * tests fail, naming `bash .ci/podman-setup.sh`.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { ContainerEngine, ContainerFailed, EngineUnavailable, type ContainerEngineShape } from "@graphplan/runtime";
import { tempDir } from "@graphplan/testkit";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { evalFixture, HOST, removeImages, SETUP_HINT, type EvalFixture } from "./fixtures/instances.js";
import { EVAL_RUN_LABEL } from "./instance.js";
import { networkChecksFile } from "./network.js";
import { runEvaluation, type EvalEvent, type EvalOptions } from "./run.js";
import { EvalInstanceSchema, evalScript, specFor } from "./spec.js";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules/.bin/tsx");
/** Unique per test file run: concurrent runs of these tests on one engine never see each other's containers. */
const RUN_ID = `test-${randomUUID().slice(0, 8)}`;

let fx: EvalFixture;
let fixtureRoot: string;

beforeAll(async () => {
  const engine = ContainerEngine.make({ host: HOST });
  await Effect.runPromise(engine.ping).catch((error: Error) =>
    Promise.reject(new Error(`bench eval's tests need a container engine: ${error.message}; ${SETUP_HINT}`)),
  );
  const { mkdtempSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  fixtureRoot = mkdtempSync(join(tmpdir(), "graphplan-eval-fixture-"));
  fx = await evalFixture(fixtureRoot, `t${randomUUID().slice(0, 8)}`, 5);
});

afterAll(async () => {
  if (fx) await removeImages(fx);
  const { rmSync } = await import("node:fs");
  if (fixtureRoot) rmSync(fixtureRoot, { recursive: true, force: true });
});

const options = (preds: string, out: string, extra: Partial<EvalOptions> = {}): EvalOptions => ({
  preds,
  dataset: fx.dataset,
  runId: RUN_ID,
  outDir: out,
  engines: [{ host: HOST, workers: 2 }],
  timeoutS: 60,
  namespace: null,
  tag: fx.tag,
  pull: false,
  runEmpty: false,
  rerun: false,
  ...extra,
});

const containersOf = (runId: string) =>
  Effect.runPromise(ContainerEngine.make({ host: HOST }).containersLabelled({ [EVAL_RUN_LABEL]: runId }));
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

describe("bench eval on podman", () => {
  it("grades gold as resolved, a wrong fix as unresolved, an empty patch as empty_patch, a patch that does not apply and a test run past the timeout as errors", async () => {
    const [gold, wrong, empty, broken, slow] = fx.ids as [string, string, string, string, string];
    const out = tempDir();
    const preds = fx.preds({
      [gold]: fx.patches.gold,
      [wrong]: fx.patches.wrong,
      [empty]: "",
      [broken]: fx.patches.broken,
      [slow]: fx.patches.slow,
    });
    const result = await Effect.runPromise(runEvaluation(options(preds, out, { timeoutS: 8 })));

    expect(result.summary).toMatchObject({
      total_instances: 5,
      submitted_instances: 5,
      completed_instances: 2,
      resolved_instances: 1,
      unresolved_instances: 1,
      empty_patch_instances: 1,
      error_instances: 2,
      resolved_ids: [gold],
      unresolved_ids: [wrong],
      empty_patch_ids: [empty],
      error_ids: [broken, slow].sort(),
      schema_version: 2,
    });
    expect(result.summaryPath).toBe(join(out, `acme__model-1.${RUN_ID}.json`));
    expect(readJson(result.summaryPath)).toEqual(result.summary);

    const dir = (id: string) => join(out, RUN_ID, "acme__model-1", id);
    expect(readdirSync(dir(gold)).sort()).toEqual([
      "eval.sh",
      "patch.diff",
      "report.json",
      "run_instance.log",
      "test_output.txt",
    ]);
    expect(readJson(join(dir(gold), "report.json"))).toEqual({
      [gold]: {
        patch_is_None: false,
        patch_exists: true,
        patch_successfully_applied: true,
        resolved: true,
        tests_status: {
          FAIL_TO_PASS: { success: ["tests/test_ops.py::test_add"], failure: [] },
          PASS_TO_PASS: { success: ["tests/test_ops.py::test_sub"], failure: [] },
          FAIL_TO_FAIL: { success: [], failure: [] },
          PASS_TO_FAIL: { success: [], failure: [] },
        },
      },
    });
    expect(readJson(join(dir(wrong), "report.json"))[wrong]).toMatchObject({
      resolved: false,
      tests_status: { FAIL_TO_PASS: { success: [], failure: ["tests/test_ops.py::test_add"] } },
    });
    expect(readFileSync(join(dir(gold), "patch.diff"), "utf8")).toBe(fx.patches.gold);
    const instance = EvalInstanceSchema.parse(JSON.parse(readFileSync(fx.dataset, "utf8").split("\n")[0]!));
    expect(readFileSync(join(dir(gold), "eval.sh"), "utf8")).toBe(
      evalScript(instance, specFor("pallets/flask", "2.0")!, {
        activate: ["export PYTHONPATH=/testbed"],
        install: ": the repository is on PYTHONPATH",
      }),
    );
    const output = readFileSync(join(dir(gold), "test_output.txt"), "utf8");
    expect(output).toContain("+ : '>>>>> Start Test Output'");
    expect(output).toMatch(/^PASSED tests\/test_ops\.py::test_add$/m);

    expect(existsSync(join(dir(broken), "report.json"))).toBe(false);
    expect(readFileSync(join(dir(broken), "run_instance.log"), "utf8")).toContain(">>>>> Patch Apply Failed");
    expect(result.outcomes.find((o) => o.instance_id === broken)?.reason).toMatch(/does not apply/);
    expect(existsSync(join(dir(slow), "report.json"))).toBe(false);
    expect(readFileSync(join(dir(slow), "test_output.txt"), "utf8")).toMatch(
      /\n\nTimeout error: 8 seconds exceeded\.$/,
    );
    expect(existsSync(dir(empty))).toBe(false); // never run, as the harness
    expect(await containersOf(RUN_ID)).toEqual([]);
  });

  it("grades the dataset's own reference patches with --preds gold, as the harness's `--predictions_path gold`", async () => {
    const out = tempDir();
    const ids = fx.ids.slice(0, 2);
    const events: EvalEvent[] = [];
    const result = await Effect.runPromise(
      runEvaluation(options("gold", out, { instances: ids, onEvent: (e) => events.push(e) })),
    );
    expect(result.summary).toMatchObject({ total_instances: 2, resolved_ids: [...ids] });
    expect(events.filter((e) => e.type === "network")).toEqual([]); // flask's tests need no unanswered address
    expect(existsSync(networkChecksFile(out, RUN_ID))).toBe(false);
    expect(result.summaryPath).toBe(join(out, `gold.${RUN_ID}.json`));
  });

  it("tries requests' TARPIT from a requests instance's image before grading, and warns of nothing where the network leaves it unanswered", async () => {
    const out = tempDir();
    const id = fx.ids[0]!;
    // The fixture's instance as a requests one (version 2.10: its spec runs `pytest -rA` as flask's does).
    const dataset = join(out, "requests.jsonl");
    const line = JSON.parse(readFileSync(fx.dataset, "utf8").split("\n")[0]!) as Record<string, unknown>;
    writeFileSync(dataset, `${JSON.stringify({ ...line, repo: "psf/requests", version: "2.10" })}\n`);
    const events: EvalEvent[] = [];
    const result = await Effect.runPromise(
      runEvaluation(options("gold", out, { dataset, instances: [id], onEvent: (e) => events.push(e) })),
    );
    expect(result.summary).toMatchObject({ resolved_ids: [id] });
    expect(result.warnings, "podman-setup's iptables rule is missing: run `bash .ci/podman-setup.sh`").toEqual([]);
    expect(events.filter((e) => e.type === "network")).toEqual([
      {
        type: "network",
        engine: HOST,
        image: `sweb.eval.x86_64.${id}:${fx.tag}`,
        probe: { kind: "unanswered" },
      },
    ]);
    // Kept beside the logs, where --slurm's merge finds each shard's.
    expect(readJson(networkChecksFile(out, RUN_ID))).toEqual([
      { engine: HOST, image: `sweb.eval.x86_64.${id}:${fx.tag}`, probe: { kind: "unanswered" } },
    ]);
    expect(await containersOf(RUN_ID)).toEqual([]);
  });

  it("runs an empty patch's tests with runEmpty, and the bug's failing test keeps it unresolved", async () => {
    const out = tempDir();
    const id = fx.ids[0]!;
    const result = await Effect.runPromise(
      runEvaluation(options(fx.preds({ [id]: "" }), out, { runEmpty: true, instances: [id] })),
    );
    expect(result.outcomes).toMatchObject([{ instance_id: id, status: "unresolved" }]);
    expect(readJson(join(out, RUN_ID, "acme__model-1", id, "report.json"))[id]).toMatchObject({
      resolved: false,
      patch_exists: true,
    }); // as the harness: only None is "no patch"
  });

  it("resumes: instances with a report.json are skipped, --rerun grades them again, and the summary counts both runs", async () => {
    const [a, b] = fx.ids as [string, string];
    const out = tempDir();
    const first = await Effect.runPromise(
      runEvaluation(options(fx.preds({ [a]: fx.patches.gold }), out, { instances: [a, b] })),
    );
    expect(first.summary).toMatchObject({ total_instances: 2, resolved_ids: [a], incomplete_ids: [b] });
    const preds = fx.preds({ [a]: fx.patches.gold, [b]: fx.patches.wrong });
    const second = await Effect.runPromise(runEvaluation(options(preds, out, { instances: [a, b] })));
    expect(second.skipped).toEqual([a]);
    expect(second.outcomes.map((o) => o.instance_id)).toEqual([b]);
    expect(second.summary).toMatchObject({ completed_instances: 2, resolved_ids: [a], unresolved_ids: [b] });
    const third = await Effect.runPromise(runEvaluation(options(preds, out, { instances: [a], rerun: true })));
    expect(third.outcomes.map((o) => [o.instance_id, o.status])).toEqual([[a, "resolved"]]);
  });

  it("uses the engines that answer: an unreachable second --docker-host is left out and every instance still runs", async () => {
    const out = tempDir();
    const [a, b] = fx.ids as [string, string];
    const events: string[] = [];
    const result = await Effect.runPromise(
      runEvaluation(
        options(fx.preds({ [a]: fx.patches.gold, [b]: fx.patches.gold }), out, {
          engines: [
            { host: "unix:///tmp/graphplan-no-engine.sock", workers: 2 },
            { host: HOST, workers: 1 },
          ],
          onEvent: (e) => void events.push(e.type === "planned" ? `planned ${e.engines.join(",")}` : e.type),
        }),
      ),
    );
    expect(result.summary).toMatchObject({ resolved_ids: [a, b] });
    expect(events[0]).toBe(`planned ${HOST}`);
  });

  it("spreads instances over two real podman services on two sockets, and when one is killed mid-run its instance runs on the other", async () => {
    const socket = join(fixtureRoot, `podman-2-${randomUUID().slice(0, 6)}.sock`);
    const second = `unix://${socket}`;
    const service = spawn("podman", ["system", "service", "--time=0", second], { stdio: "ignore", detached: true });
    try {
      const engine2 = ContainerEngine.make({ host: second });
      for (let i = 0; ; i++) {
        if ((await Effect.runPromise(Effect.result(engine2.ping)))._tag === "Success") break;
        if (i > 100) throw new Error(`the second podman service did not answer on ${socket}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const out = tempDir();
      const ids = fx.ids.slice(0, 4);
      const events: EvalEvent[] = [];
      let killed = false;
      const result = await Effect.runPromise(
        runEvaluation(
          options(fx.preds(Object.fromEntries(ids.map((id) => [id, fx.patches.gold]))), out, {
            engines: [
              { host: HOST, workers: 1 },
              { host: second, workers: 1 },
            ],
            onEvent: (e) => {
              events.push(e);
              // The second engine's second instance: its service dies while the container runs.
              const onSecond = events.filter((x) => x.type === "started" && x.engine === second).length;
              if (!killed && e.type === "started" && e.engine === second && onSecond === 2) {
                killed = true;
                setTimeout(() => process.kill(-service.pid!, "SIGKILL"), 300);
              }
            },
          }),
        ),
      );
      const ranOn = new Set(
        events.flatMap((e) => (e.type === "finished" && e.outcome.status === "resolved" ? [e.outcome.engine] : [])),
      );
      expect(ranOn).toEqual(new Set([HOST, second]));
      expect(events.some((e) => e.type === "engine_lost" && e.engine === second)).toBe(true);
      expect(result.summary).toMatchObject({ resolved_instances: 4, error_instances: 0 });
      expect(await containersOf(RUN_ID)).toEqual([]);
    } finally {
      try {
        process.kill(-service.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  it("takes an engine that stops answering mid-run out of the rotation and runs its instances on the other one", async () => {
    const out = tempDir();
    const ids = fx.ids.slice(0, 4);
    const real = ContainerEngine.make({ host: HOST });
    let alive = true;
    // The same podman, seen through an engine that dies when its second container starts.
    let starts = 0;
    const dead = new EngineUnavailable({ endpoint: "tcp://flaky:2375", detail: "connection refused" });
    const flaky: ContainerEngineShape = {
      ...real,
      endpoint: "tcp://flaky:2375",
      ping: Effect.suspend(() => (alive ? real.ping : Effect.fail(dead))),
      start: (spec) =>
        Effect.suspend(() => {
          if (++starts === 2) alive = false;
          return alive
            ? real.start(spec)
            : Effect.fail(
                new ContainerFailed({
                  endpoint: "tcp://flaky:2375",
                  container: spec.name ?? "",
                  operation: "create",
                  detail: "connection refused",
                }),
              );
        }),
    };
    const events: EvalEvent[] = [];
    const result = await Effect.runPromise(
      runEvaluation(
        options(fx.preds(Object.fromEntries(ids.map((id) => [id, fx.patches.gold]))), out, {
          engines: [
            { host: "tcp://flaky:2375", workers: 1 },
            { host: HOST, workers: 1 },
          ],
          engineFor: (host) => (host === HOST ? real : flaky),
          onEvent: (e) => void events.push(e),
        }),
      ),
    );
    expect(result.summary).toMatchObject({ resolved_instances: 4, error_instances: 0 });
    const lost = events.filter((e) => e.type === "engine_lost");
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ engine: "tcp://flaky:2375" });
    const ranOn = events.flatMap((e) => (e.type === "finished" ? [e.outcome.engine] : []));
    expect(ranOn.filter((engine) => engine === "tcp://flaky:2375")).toHaveLength(1);
    expect(await containersOf(RUN_ID)).toEqual([]);
  });
});

function bench(args: readonly string[]) {
  return spawnSync(tsx, ["--conditions=source", "src/cli.ts", "eval", ...args], { cwd: app, encoding: "utf8" });
}

describe("bench eval (command line)", () => {
  it("exits 2 with one line naming what is wrong, writing nothing", () => {
    const out = join(tempDir(), "out");
    const preds = fx.preds({ [fx.ids[0]!]: fx.patches.gold });
    const base = ["--dataset", fx.dataset, "--out", out, "--namespace", "none", "--tag", fx.tag, "--docker-host", HOST];
    const cases: Array<[string[], RegExp]> = [
      [["--preds", preds, ...base], /^error: required option '--run-id <id>' not specified$/],
      [
        ["--preds", join(out, "nope.jsonl"), "--run-id", "r", ...base],
        /^error: --preds .*nope\.jsonl: no such file; give the preds\.jsonl that `bench agent` wrote$/,
      ],
      [
        ["--preds", fx.preds({ "pallets__flask-1": "x" }), "--run-id", "r", ...base],
        /^error: --preds: 1 prediction\(s\) name instances that --dataset .* does not have \(pallets__flask-1\)/,
      ],
      [["--preds", preds, "--run-id", "a/b", ...base], /^error: --run-id "a\/b": use letters, digits/],
      [
        ["--preds", preds, "--run-id", "r", "-w", "0", ...base],
        /^error: option '-w, --workers <n>' argument '0' is invalid\. -w takes a whole number ≥ 1, not "0"$/,
      ],
      [
        ["--preds", preds, "--run-id", "r", ...base.slice(0, -1), "unix:///tmp/graphplan-no-engine.sock"],
        /^error: the container engine at unix:\/\/\/tmp\/graphplan-no-engine\.sock does not answer/,
      ],
    ];
    for (const [args, line] of cases) {
      const result = bench(args);
      expect.soft(result.status, args.join(" ")).toBe(2);
      expect.soft(result.stderr.trim()).toMatch(line);
      expect.soft(result.stderr.trim().split("\n")).toHaveLength(1);
      expect.soft(existsSync(out)).toBe(false);
    }
  });

  it("on Ctrl-C removes the running container, writes the summary and exits 130; the same command then resumes", async () => {
    const [a, b] = fx.ids as [string, string];
    const out = tempDir();
    const preds = fx.preds({ [a]: fx.patches.gold, [b]: fx.patches.slow });
    const runId = `ctrlc-${randomUUID().slice(0, 8)}`;
    const args = [
      "--conditions=source",
      "src/cli.ts",
      "eval",
      "--preds",
      preds,
      "--dataset",
      fx.dataset,
      "--run-id",
      runId,
      "--out",
      out,
      "--namespace",
      "none",
      "--tag",
      fx.tag,
      "--docker-host",
      HOST,
      "--timeout",
      "600",
    ];
    const child = spawn(tsx, args, { cwd: app, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const started = Date.now();
    // The first instance is graded and the second one's (hanging) tests are running.
    while (
      !(
        existsSync(join(out, runId, "acme__model-1", a, "report.json")) &&
        existsSync(join(out, runId, "acme__model-1", b, "eval.sh"))
      )
    ) {
      if (Date.now() - started > 60_000) throw new Error(`the run never got to the second instance: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 1500));
    expect(await containersOf(runId)).toHaveLength(1);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toContain("interrupted; no container is left, the summary is written");
    expect(await containersOf(runId)).toEqual([]);
    expect(readJson(join(out, `acme__model-1.${runId}.json`))).toMatchObject({ resolved_ids: [a], error_ids: [b] });

    const again = bench(args.slice(3).concat("--timeout", "5"));
    expect(again.status).toBe(0);
    expect(again.stderr).toContain("1 instance(s) already graded in this run: skipped");
    expect(again.stdout).toMatch(/^skipped \(graded before\) +1$/m);
    expect(again.stdout).toMatch(/^error +1$/m);
    expect(await containersOf(runId)).toEqual([]);
  });
});

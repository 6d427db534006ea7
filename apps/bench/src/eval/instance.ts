/**
 * One instance of `bench eval`, as the harness's `run_instance` does it: a container of the
 * instance image, the model patch copied in as /tmp/patch.diff and applied with the harness's chain,
 * /eval.sh run under the timeout, the log graded, report.json written; the container removed
 * however it ends. Every step is logged to run_instance.log as it happens.
 */
import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ContainerEngine, type ContainerError, type ContainerShape } from "@graphplan/runtime";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { instanceReport, instanceReportText } from "./grading.js";
import {
  APPLY_PATCH_FAIL,
  APPLY_PATCH_PASS,
  DOCKER_PATCH,
  evalScript,
  HARNESS_ENVIRONMENT,
  patchApplyCommands,
  type EvalEnvironment,
  type EvalInstance,
  type RepoVersionSpec,
} from "./spec.js";

/** Where an image built by `bench images build` describes its environment (see apps/bench/README.md). */
export const ENVIRONMENT_FILE = "/etc/graphplan/eval-environment.json";

/**
 * The harness's informational "git diff before/after" (run_instance.log). In a fresh container git
 * would re-hash every file first (the index's ctimes and inodes are the image build's), 8 s on
 * django: comparing sizes and mtimes only gives the same diff at once.
 */
const GIT_DIFF = "git -c core.fileMode=false -c core.checkStat=minimal -c core.trustctime=false diff";

/** The label every evaluation container carries, with the run id: leftovers are easy to find. */
export const EVAL_RUN_LABEL = "graphplan.eval.run";
/**
 * The evaluation process that started a container: what a run sweeps at its end is its own containers only,
 * never those of another process grading the same run id on the same engine (e.g. two `--slurm` tasks on one node).
 */
export const EVAL_PROCESS_LABEL = "graphplan.eval.process";

export interface InstanceJob {
  readonly instance: EvalInstance;
  readonly spec: RepoVersionSpec;
  readonly model: string;
  /** The prediction's patch; `""`/null are never run unless `runEmpty`. */
  readonly patch: string | null;
  readonly image: string;
  readonly runId: string;
  /** This process's id among those grading the run (EVAL_PROCESS_LABEL). */
  readonly process?: string | undefined;
  /** `OUT/<run-id>/<model>/<instance_id>/`. */
  readonly logDir: string;
  readonly timeoutS: number;
  /** Pull the image when the engine does not have it (default true). */
  readonly pull: boolean;
  /** Run an empty patch's tests instead of recording empty_patch (validation of environments). */
  readonly runEmpty: boolean;
}

/** Milliseconds per stage; `tests` is the eval script's run, the rest is the harness's overhead. */
export interface StageTimes {
  image: number;
  start: number;
  copy: number;
  apply: number;
  tests: number;
  grade: number;
  cleanup: number;
}

export type InstanceStatus = "resolved" | "unresolved" | "error" | "empty_patch";

export interface InstanceOutcome {
  readonly instance_id: string;
  readonly status: InstanceStatus;
  /** Why an instance is `error` (apply failure, timeout, missing image, ...). */
  readonly reason?: string;
  readonly ms: number;
  readonly stages?: StageTimes;
  readonly engine?: string;
}

/** The engine itself failed (not the instance): the pool takes it out and the instance runs elsewhere. */
export class EngineLost extends Data.TaggedError("EngineLost")<{
  readonly endpoint: string;
  readonly detail: string;
}> {}

/** An instance error: logged and graded as `error` (no report.json), as the harness's EvaluationError. */
class InstanceError extends Data.TaggedError("InstanceError")<{ readonly reason: string }> {}

const stamp = () => new Date().toISOString().replace("T", " ").replace("Z", "");

/** run_instance.log, appended line by line so an interrupted run keeps what happened. */
function logger(logDir: string) {
  const path = join(logDir, "run_instance.log");
  return (level: "INFO" | "ERROR", message: string) =>
    Effect.promise(() => appendFile(path, `${stamp()} - ${level} - ${message}\n`));
}

/** The environment an image describes in ENVIRONMENT_FILE, else the harness's conda environment. */
function environmentOf(container: ContainerShape): Effect.Effect<EvalEnvironment> {
  return container.readFile(ENVIRONMENT_FILE).pipe(
    Effect.map((bytes) => {
      const value = JSON.parse(new TextDecoder().decode(bytes)) as { activate?: unknown; install?: unknown };
      if (!Array.isArray(value.activate) || !value.activate.every((line) => typeof line === "string"))
        throw new Error(`${ENVIRONMENT_FILE}: activate is not a list of lines`);
      return {
        activate: value.activate as string[],
        ...(typeof value.install === "string" ? { install: value.install } : {}),
      };
    }),
    Effect.orElseSucceed(() => HARNESS_ENVIRONMENT),
  );
}

/** Ensures the image exists (pulling it when allowed); an unreachable engine is EngineLost. */
function ensureImage(job: InstanceJob) {
  return Effect.gen(function* () {
    const engine = yield* ContainerEngine;
    const info = yield* engine
      .inspectImage(job.image)
      .pipe(Effect.mapError((e) => new EngineLost({ endpoint: e.endpoint, detail: e.detail })));
    if (info !== undefined) return;
    if (!job.pull)
      return yield* new InstanceError({
        reason: `the image ${job.image} is not in the engine at ${engine.endpoint} (--no-pull); build it with \`pnpm -s bench images build\``,
      });
    yield* engine.pullImage(job.image).pipe(Effect.mapError((e) => new InstanceError({ reason: e.message })));
  });
}

const timed = <A, E, R>(times: StageTimes, stage: keyof StageTimes, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function* () {
    const t0 = performance.now();
    try {
      return yield* effect;
    } finally {
      times[stage] += performance.now() - t0;
    }
  });

/** Applies /tmp/patch.diff with the harness's chain (first exit 0 wins, no clean-up between). */
function applyPatch(container: ContainerShape, log: ReturnType<typeof logger>) {
  return Effect.gen(function* () {
    let last = "";
    for (const argv of patchApplyCommands(DOCKER_PATCH)) {
      const result = yield* container.execArgv(argv, { workdir: "/testbed", user: "root", timeoutMs: 600_000 });
      if (result.exitCode === 0) {
        yield* log("INFO", `${APPLY_PATCH_PASS}:\n${result.output}`);
        return;
      }
      yield* log("INFO", `Failed to apply patch to container: ${argv.join(" ")}`);
      last = result.output;
    }
    yield* log("ERROR", `${APPLY_PATCH_FAIL}:\n${last}`);
    return yield* new InstanceError({
      reason: `the patch does not apply (git apply, git apply --reject and patch --fuzz=5 all failed): ${last.trim().split("\n").slice(-1)[0] ?? ""}`,
    });
  });
}

/** Everything inside the container: patch, eval script, grading. */
function inContainer(job: InstanceJob, times: StageTimes, log: ReturnType<typeof logger>) {
  return Effect.gen(function* () {
    const engine = yield* ContainerEngine;
    // Added before the container, so it runs after the container's removal: that removal is "cleanup".
    let bodyEnd = performance.now();
    yield* Effect.addFinalizer(() => Effect.sync(() => void (times.cleanup = performance.now() - bodyEnd)));
    const name = `sweb.eval.${job.instance.instance_id.toLowerCase()}.${job.runId}`.replace(/[^a-zA-Z0-9_.-]/g, "_");
    yield* engine.removeContainer(name).pipe(Effect.ignore); // a ghost of an interrupted run
    const container = yield* timed(
      times,
      "start",
      engine.start({
        image: job.image,
        name,
        user: "root",
        workdir: "/testbed",
        labels: { [EVAL_RUN_LABEL]: job.runId, ...(job.process ? { [EVAL_PROCESS_LABEL]: job.process } : {}) },
      }),
    );
    yield* log(
      "INFO",
      `Container for ${job.instance.instance_id} started: ${container.id} (engine ${engine.endpoint})`,
    );
    const environment = yield* environmentOf(container);
    const script = yield* Effect.try({
      try: () => evalScript(job.instance, job.spec, environment),
      catch: (e) => new InstanceError({ reason: `the eval script cannot be made: ${(e as Error).message}` }),
    });
    yield* Effect.promise(() => writeFile(join(job.logDir, "eval.sh"), script));
    const patch = job.patch ?? "";
    yield* timed(
      times,
      "copy",
      container.putFiles([
        { path: DOCKER_PATCH, content: patch },
        { path: "/eval.sh", content: script, mode: 0o755 },
      ]),
    );
    yield* log(
      "INFO",
      `Intermediate patch for ${job.instance.instance_id} written to ${join(job.logDir, "patch.diff")}, now applying to container...`,
    );
    if (patch.trim() === "") yield* log("INFO", "Empty patch: not applied (--run-empty-patches)");
    else yield* timed(times, "apply", applyPatch(container, log));
    const before = yield* timed(times, "apply", container.exec(GIT_DIFF, { workdir: "/testbed" }));
    yield* log("INFO", `Git diff before:\n${before.output}`);
    yield* log("INFO", "Eval script written to /eval.sh; running it...");
    const run = yield* timed(
      times,
      "tests",
      container.exec("/bin/bash /eval.sh", { timeoutMs: job.timeoutS * 1000, workdir: "/testbed", user: "root" }),
    );
    const outputPath = join(job.logDir, "test_output.txt");
    if (run.timedOut) {
      yield* Effect.promise(() =>
        writeFile(outputPath, `${run.output}\n\nTimeout error: ${job.timeoutS} seconds exceeded.`),
      );
      yield* log("ERROR", `Test runtime exceeded ${job.timeoutS} s`);
      return yield* new InstanceError({ reason: `the tests ran past --timeout ${job.timeoutS} s` });
    }
    yield* Effect.promise(() => writeFile(outputPath, run.output));
    yield* log("INFO", `Test runtime: ${(times.tests / 1000).toFixed(2)} seconds`);
    yield* log("INFO", `Test output for ${job.instance.instance_id} written to ${outputPath}`);
    const after = yield* container.exec(GIT_DIFF, { workdir: "/testbed" });
    yield* log("INFO", `Git diff after:\n${after.output}`);
    bodyEnd = performance.now();
    return run.output;
  });
}

/** Grades the test output and writes report.json. */
function grade(job: InstanceJob, output: string, log: ReturnType<typeof logger>) {
  return Effect.gen(function* () {
    // The harness's parsers crash on some malformed lines; it then writes no report (an error), and so do we.
    const report = yield* Effect.try({
      try: () =>
        instanceReport({
          instanceId: job.instance.instance_id,
          patch: job.patch,
          log: output,
          repo: job.instance.repo,
          f2p: job.instance.FAIL_TO_PASS,
          p2p: job.instance.PASS_TO_PASS,
        }),
      catch: (e) => new InstanceError({ reason: `the test log cannot be graded: ${(e as Error).message}` }),
    });
    const entry = report[job.instance.instance_id]!;
    yield* log(
      "INFO",
      `report: ${JSON.stringify(report)}\nResult for ${job.instance.instance_id}: resolved: ${entry.resolved}`,
    );
    yield* Effect.promise(() => writeFile(join(job.logDir, "report.json"), instanceReportText(report)));
    return entry.resolved ? ("resolved" as const) : ("unresolved" as const);
  });
}

/**
 * Evaluates one instance. Instance problems (no image, a patch that does not apply, a timeout) are
 * an `error` outcome; a failure of the engine itself is `EngineLost`, so that the caller can run the
 * instance on another engine. The container is removed however this ends, interruption included.
 */
export function evaluateInstance(job: InstanceJob): Effect.Effect<InstanceOutcome, EngineLost, ContainerEngine> {
  return Effect.gen(function* () {
    const engine = yield* ContainerEngine;
    const started = performance.now();
    const times: StageTimes = { image: 0, start: 0, copy: 0, apply: 0, tests: 0, grade: 0, cleanup: 0 };
    const id = job.instance.instance_id;
    yield* Effect.promise(() => mkdir(job.logDir, { recursive: true }));
    yield* Effect.promise(() => writeFile(join(job.logDir, "patch.diff"), job.patch ?? ""));
    const log = logger(job.logDir);
    const outcome = (status: InstanceStatus, reason?: string): InstanceOutcome => ({
      instance_id: id,
      status,
      ...(reason === undefined ? {} : { reason }),
      ms: Math.round(performance.now() - started),
      stages: times,
      engine: engine.endpoint,
    });
    const work = Effect.gen(function* () {
      yield* timed(times, "image", ensureImage(job));
      const output = yield* Effect.scoped(inContainer(job, times, log));
      return outcome(yield* timed(times, "grade", grade(job, output, log)));
    });
    return yield* work.pipe(
      Effect.catchTag("InstanceError", (e) => log("ERROR", e.reason).pipe(Effect.as(outcome("error", e.reason)))),
      Effect.catch((e: ContainerError | EngineLost) => classify(e, log, outcome)),
    );
  });
}

/** A container or engine failure: the engine is lost when it no longer answers, else it is the instance's error. */
function classify(
  error: ContainerError | EngineLost,
  log: ReturnType<typeof logger>,
  outcome: (status: InstanceStatus, reason?: string) => InstanceOutcome,
) {
  return Effect.gen(function* () {
    const engine = yield* ContainerEngine;
    if (error._tag === "EngineLost") return yield* error;
    const alive = yield* engine.ping.pipe(
      Effect.as(true),
      Effect.orElseSucceed(() => false),
    );
    if (!alive) return yield* new EngineLost({ endpoint: engine.endpoint, detail: error.message });
    yield* log("ERROR", error.message);
    return outcome("error", error.message);
  });
}

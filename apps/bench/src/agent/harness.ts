/**
 * `bench agent`: the GraphPlan agent on SWE-bench instances, one after the other. Per instance: a
 * fresh detached worktree of the repository at `base_commit` in a temporary directory, the agent
 * (`runAgent`) with the problem statement as the task, the workspace and the sandbox over that
 * worktree, then the worktree removed again — whatever happened, Ctrl-C included. Writes
 * `OUT/<instance_id>/trajectory.json` and `model.patch`, `OUT/preds.jsonl` (SWE-bench's prediction
 * format) and `OUT/report.json`.
 *
 * The model layer is built once and shared by every instance (a scripted model hands out its
 * replies in order across the instances).
 */
import { statSync } from "node:fs";
import { DiskGraphStore } from "@graphplan/graph/disk";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import {
  loadConfig,
  modelLayer,
  replayWire,
  runAgent,
  trajectoryUsage,
  sandboxLayer,
  TrajectoryWriter,
  withPlanFile,
  type AgentConfig,
  type ModelOptions,
  type SandboxOptions,
  type Trajectory,
} from "@graphplan/agent";
import { LanguageModel, Workspace } from "@graphplan/runtime";
import { modelOverWire } from "@graphplan/runtime/testing";
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import { repositoryPath } from "../git.js";
import { EnginePool, instanceEnvironment, type InImageOptions } from "./in-image.js";
import { instanceReplayModel, REPLAY_MODEL_NAME, strategyReplayModel } from "./replay-model.js";
import { rfsnTask } from "./rfsn.js";
import { parseAgentDataset, selectInstances, selectionOf, type AgentLine } from "./instances.js";
import { shardOf, type Shard } from "../slurm/shard.js";
import { appendPrediction, readPredictions, writePredictions, type Prediction } from "./preds.js";
import {
  AgentReportSchema,
  blankEntry,
  formatAgentSummary,
  patchStats,
  summarizeAgent,
  trajectoryEntry,
  usageFigures,
  type AgentReport,
  type AgentReportEntry,
  type AgentSummary,
} from "./report.js";
import { worktree, type Worktree } from "./worktree.js";

/** The run cannot start: a bad option, dataset, config, script or model (exit code 2 on the command line). */
export class AgentBenchInputInvalid extends Data.TaggedError("AgentBenchInputInvalid")<{ readonly detail: string }> {
  override get message(): string {
    return this.detail;
  }
}

export interface AgentBenchOptions {
  /** JSONL with repo, instance_id, base_commit and problem_statement per line. */
  readonly dataset: string;
  /** Repositories as `DIR/<owner>__<name>` (bare or not). */
  readonly reposDir?: string | undefined;
  /** `{"owner/name": "/a/git/dir"}`, looked up before `reposDir`. */
  readonly repoMap?: Readonly<Record<string, string>> | undefined;
  /** Only these instance ids (dataset order; an id no line has is an `input_error` entry). */
  readonly instances?: readonly string[] | undefined;
  /** Selection, applied in this order (as mini-swe-agent): shuffle (seeded), filter by id regex, slice `a:b`. */
  readonly shuffle?: boolean | undefined;
  readonly seed?: number | undefined;
  readonly filter?: string | undefined;
  readonly slice?: string | undefined;
  /** `--shard i/N`: after the selection, only its i-th of N parts (slurm/shard.ts). */
  readonly shard?: Shard | undefined;
  /** Instances at once (default 1; with `inImage`, the engines' slots). */
  readonly workers?: number | undefined;
  /**
   * Dollars for the whole run: once the instances that ended have spent this much, no further instance
   * starts (those running finish); the others are `skipped` (cause `total_cost_limit`) and have no
   * prediction, so a later run with a higher limit runs them.
   */
  readonly totalCostLimit?: number | undefined;
  /** Run each instance inside its instance image (repository at /testbed) instead of a host worktree. */
  readonly inImage?: InImageOptions | undefined;
  /** The persistent graph cache's directory (shared by the instances and by later runs); undefined: none. */
  readonly graphCacheDir?: string | undefined;
  readonly outDir: string;
  /** A YAML file merged over the agent's default config. */
  readonly configPath?: string | undefined;
  readonly model: ModelOptions;
  /**
   * `baseline`: free-form shell edits from the first step (the agent's `--strategy baseline`); `rfsn`: the
   * RFSN planner drives, told each instance's FAIL_TO_PASS names (./rfsn.ts); default graphplan.
   */
  readonly strategy?: "graphplan" | "baseline" | "rfsn" | undefined;
  readonly sandbox: SandboxOptions;
  /** Run instances that are already in preds.jsonl again. */
  readonly redo?: boolean | undefined;
  /** Where the worktrees' temporary directories are made (default: the OS temp directory). */
  readonly tempRoot?: string | undefined;
  /** Called after each instance (progress). */
  readonly onEntry?: ((entry: AgentReportEntry, done: number, total: number) => void) | undefined;
  /** Called when an instance starts and at each of its phase changes, with the run's cost so far. */
  readonly onPhase?: ((instanceId: string, phase: string, runCostUsd: number) => void) | undefined;
  /** Called once per warning (e.g. a model with no known price). */
  readonly onWarning?: ((message: string) => void) | undefined;
}

export interface AgentBenchResult {
  readonly entries: readonly AgentReportEntry[];
  readonly summary: AgentSummary;
  readonly table: string;
  readonly reportPath: string;
  readonly predsPath: string;
  /** preds.jsonl lines of an earlier run that were not predictions (dropped when the file was rewritten). */
  readonly droppedPredLines: readonly number[];
}

/** `model_name_or_path` of the predictions. */
export const predictionModelName = (model: string): string => `graphplan/${model}`;

const invalid = (detail: string) => new AgentBenchInputInvalid({ detail });

const isDirectory = (path: string): boolean => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** What `bench agent` needs besides the options, fixed for the whole run. */
interface RunContext {
  readonly options: AgentBenchOptions;
  readonly config: AgentConfig;
  readonly configName: string;
  readonly tempRoot: string;
  readonly predsPath: string;
  readonly predictions: Map<string, Prediction>;
  /** Dollars spent by the instances that ended (for progress). */
  costSoFar: number;
  /** With --in-image: the engines the instances' containers run on. */
  readonly pool: EnginePool | undefined;
  readonly graphStore: DiskGraphStore | undefined;
}

/**
 * A docker sandbox sees the worktree at `--workdir`; its `.git` file names the repository's git
 * directory by its host path, so that directory is mounted at the same path. (git's
 * `safe.directory` for a container user other than the files' owner is set by `sandboxLayer`.)
 */
function dockerExtras(wt: Worktree) {
  return { binds: [`${wt.gitDir}:${wt.gitDir}`] };
}

/** `OUT/<id>/trajectory.json`, written by the agent's one `TrajectoryWriter`. */
const trajectoryPath = (outDir: string, id: string): string => join(outDir, id, "trajectory.json");

async function writeOutputs(ctx: RunContext, t: Trajectory, model: string): Promise<void> {
  // trajectory.json (and so the directory) is already written, by the run's writer.
  const dir = join(ctx.options.outDir, t.instance.id!);
  await writeFile(join(dir, "model.patch"), t.patch);
  // An outage is not the model's outcome: no prediction, so a later run tries the instance again.
  if (t.retryable) return;
  const prediction: Prediction = {
    instance_id: t.instance.id!,
    model_name_or_path: predictionModelName(model),
    model_patch: t.patch,
    usage: usageFigures(trajectoryUsage(t)),
  };
  await appendPrediction(ctx.predsPath, prediction);
  ctx.predictions.set(prediction.instance_id, prediction);
}

/** A fresh worktree of the instance's repository at its base commit, with the run's sandbox over it. */
function hostEnvironment(ctx: RunContext, repo: string, commit: string, cleanup: string[]) {
  return Effect.gen(function* () {
    const { options, config } = ctx;
    const wt = yield* worktree(repo, repositoryPath(repo, options.reposDir, options.repoMap ?? {}), commit, {
      tempRoot: ctx.tempRoot,
      onCleanupProblem: (problem) => cleanup.push(problem),
    });
    // The sandbox options were checked before the first instance: this cannot fail.
    const sandbox = yield* Effect.orDie(
      sandboxLayer(options.sandbox, wt.dir, config, options.sandbox.sandbox === "docker" ? dockerExtras(wt) : {}),
    );
    // The local sandbox's commands share the host's /tmp with every other instance (and run): each
    // instance gets its own plan file, beside its worktree, removed with it.
    let instanceConfig = config;
    if (options.sandbox.sandbox === "local") {
      const planFile = `${wt.dir}.edit_plan.json`;
      instanceConfig = withPlanFile(config, planFile);
      yield* Effect.addFinalizer(() => Effect.promise(() => rm(planFile, { force: true })));
    }
    return { layer: Layer.mergeAll(sandbox, Workspace.layer(wt.dir)), config: instanceConfig };
  });
}

/** One instance: worktree → agent → outputs; never fails (a failure is the entry's status); interruptions go through, after the clean-up. */
function runInstance(ctx: RunContext, line: AgentLine): Effect.Effect<AgentReportEntry, never, LanguageModel> {
  if (!line.ok)
    return Effect.succeed(
      blankEntry(line.id, "input_error", {
        cause: line.cause,
        error: line.error,
        ...(line.repo ? { repo: line.repo } : {}),
      }),
    );
  const { options, config, configName } = ctx;
  const instance = line.instance;
  const id = instance.instance_id;
  const repo = instance.repo;
  const cleanup: string[] = [];
  return Effect.gen(function* () {
    const started = performance.now();
    // When the environment was up, when the agent ended, how long the instance then waited for its
    // environment to go, and how long the replay model took to make (its work — compiling the
    // reference patch — is the model's time, as a live model's reply is).
    const marks = { ready: started, agentDone: started, teardownMs: 0, replayMs: 0 };
    const model = yield* LanguageModel;
    // --strategy rfsn: the planner's task from the dataset line; an instance without one cannot run.
    const task = options.strategy === "rfsn" ? rfsnTask(instance) : undefined;
    if (task && Result.isFailure(task))
      return blankEntry(id, "input_error", { repo, cause: "no_rfsn_task", error: task.failure });
    const rfsn = task && Result.isSuccess(task) ? task.success : undefined;
    options.onPhase?.(id, "worktree", ctx.costSoFar);
    const agent = Effect.scoped(
      Effect.gen(function* () {
        const { layer: environment, config: instanceConfig } = ctx.pool
          ? {
              layer: yield* instanceEnvironment(ctx.pool, options.inImage!, id, config.command.timeout_seconds * 1000),
              config,
            }
          : yield* hostEnvironment(ctx, repo, instance.base_commit, cleanup);
        marks.ready = performance.now();
        const writer = new TrajectoryWriter(trajectoryPath(options.outDir, id));
        let phase = "";
        const onProgress = (t: Trajectory) => {
          writer.update(t);
          const now = t.transitions.at(-1)?.to ?? "explore";
          if (now !== phase) options.onPhase?.(id, (phase = now), ctx.costSoFar + t.totals.costUsd);
        };
        const replay =
          options.model.provider === "replay"
            ? yield* strategyReplayModel(options.strategy, instance, () =>
                instanceReplayModel(
                  instance,
                  { reposDir: options.reposDir, repoMap: options.repoMap ?? {} },
                  options.strategy,
                ),
              )
            : undefined;
        // The replay model answers behind a stand-in of the config's provider, through its SDK: the run is
        // billed (tokens, cache reads, dollars) as that model would bill it.
        const served = replay ? (yield* modelOverWire(replay, replayWire(config))).model : undefined;
        marks.replayMs = replay ? performance.now() - marks.ready : 0;
        const t = yield* runAgent(
          { task: instance.problem_statement, instanceId: id, config: instanceConfig, configName },
          {
            onProgress,
            graphStore: ctx.graphStore,
            ...(options.strategy === "baseline" ? { strategy: "baseline" as const } : {}),
            ...(rfsn ? { rfsn } : {}),
          },
        ).pipe(
          Effect.provide(environment),
          (run) => (served ? Effect.provideService(run, LanguageModel, served) : run),
          Effect.ensuring(Effect.sync(() => writer.close())),
        );
        writer.finish(t);
        marks.agentDone = performance.now();
        ctx.costSoFar += t.totals.costUsd;
        return t;
      }),
    );
    const outcome = yield* agent.pipe(
      Effect.tap(() => Effect.sync(() => void (marks.teardownMs = performance.now() - marks.agentDone))),
      Effect.flatMap((t) =>
        Effect.as(
          Effect.promise(() => writeOutputs(ctx, t, model.name)),
          t,
        ),
      ),
      Effect.map((t): AgentReportEntry => {
        const entry = trajectoryEntry(t, repo, 0);
        return {
          ...entry,
          ...(entry.model_ms === undefined ? {} : { model_ms: Math.round(entry.model_ms + marks.replayMs) }),
          setup_ms: Math.round(marks.ready - started),
          teardown_ms: Math.round(marks.teardownMs),
        };
      }),
      Effect.catch((error): Effect.Effect<AgentReportEntry> => {
        const message = error.message;
        if (error._tag === "UnknownRepository")
          return Effect.succeed(blankEntry(id, "input_error", { repo, cause: "unknown_repository", error: message }));
        if (error._tag === "MissingCommit")
          return Effect.succeed(blankEntry(id, "input_error", { repo, cause: "missing_commit", error: message }));
        return Effect.succeed(blankEntry(id, "harness_error", { repo, cause: error._tag, error: message }));
      }),
      Effect.catchDefect((defect) =>
        Effect.succeed(
          blankEntry(id, "harness_error", {
            repo,
            cause: "crash",
            error: defect instanceof Error ? (defect.stack ?? defect.message) : String(defect),
          }),
        ),
      ),
    );
    return {
      ...outcome,
      ms: Math.round(performance.now() - started),
      ...(cleanup.length ? { cleanup_problems: [...cleanup] } : {}),
    };
  });
}

async function earlierEntries(reportPath: string): Promise<Map<string, AgentReportEntry>> {
  try {
    const parsed = AgentReportSchema.safeParse(JSON.parse(await readFile(reportPath, "utf8")));
    return new Map(parsed.success ? parsed.data.instances.map((e) => [e.instance_id, e]) : []);
  } catch {
    return new Map();
  }
}

/**
 * The whole run: checks the input, runs the instances, writes report.json and rewrites preds.jsonl (also when interrupted).
 * Long on purpose: the run from input checks to report.json in one scope: the model layer, the engine pool and its
 * finalizer (containers that outlived their instance), the earlier run to resume and the files rewritten on exit,
 * also when interrupted, are all acquired and released by it.
 */
export function runAgentBench(options: AgentBenchOptions): Effect.Effect<AgentBenchResult, AgentBenchInputInvalid> {
  return Effect.scoped(
    Effect.gen(function* () {
      const started = performance.now();
      if (!options.inImage && !options.reposDir && !options.repoMap)
        return yield* invalid(
          "give --repos DIR and/or --repo-map FILE (or --in-image, to run each instance in its instance image)",
        );
      if (options.reposDir !== undefined && !isDirectory(options.reposDir))
        return yield* invalid(
          `--repos ${options.reposDir}: no such directory; give the directory holding one git repository per dataset repo, as <owner>__<name>`,
        );
      const selection = yield* Effect.try({
        try: () => selectionOf(options),
        catch: (e) => invalid((e as Error).message),
      });
      if (options.sandbox.sandbox === "docker" && !isAbsolute(options.sandbox.workdir))
        return yield* invalid(`--workdir must be an absolute path in the container, not ${options.sandbox.workdir}`);
      const { config, name: configName } = yield* Effect.mapError(loadConfig(options.configPath), (e) =>
        invalid(e.message),
      );
      // The model: built once, shared by all instances. A live model without its API key fails here.
      // The replay model is made per instance (its plan is the instance's reference patch); until then, this one stands for it.
      const replaying = options.model.provider === "replay";
      if (replaying && options.strategy !== "baseline" && !options.reposDir && !options.repoMap)
        return yield* invalid(
          "--provider replay reads the pre-images of the reference patches from git: give --repos DIR (or --repo-map FILE)",
        );
      const modelContext = replaying
        ? Context.make(LanguageModel, {
            name: REPLAY_MODEL_NAME,
            priced: undefined,
            complete: () => Effect.die(new Error("the replay model is made per instance")),
          })
        : yield* modelLayer(options.model, config).pipe(
            Effect.mapError((e) => invalid(e.message)),
            Effect.flatMap((layer) => Effect.mapError(Layer.build(layer), (e) => invalid(e.message))),
          );
      // The sandbox is made per instance; its options (or the engines of --in-image) are checked now.
      const pool = options.inImage ? new EnginePool(options.inImage, Math.max(1, options.workers ?? 1)) : undefined;
      if (pool) {
        yield* Effect.mapError(pool.check, (e) => invalid(e.message));
        yield* Effect.addFinalizer(() =>
          pool.drain.pipe(
            Effect.andThen(pool.sweep),
            Effect.flatMap((removed) =>
              removed.length
                ? Effect.sync(() =>
                    options.onWarning?.(
                      `warning: removed ${removed.length} container(s) of this run that outlived their instance: ${removed.join(", ")}`,
                    ),
                  )
                : Effect.void,
            ),
          ),
        );
      } else yield* Effect.mapError(sandboxLayer(options.sandbox, options.outDir, config), (e) => invalid(e.message));
      const text = yield* Effect.tryPromise({
        try: () => readFile(options.dataset, "utf8"),
        catch: (e) => invalid(`cannot read the dataset ${options.dataset}: ${(e as Error).message}`),
      });
      const all = selectInstances(parseAgentDataset(text), options.instances);
      if (all.length === 0) return yield* invalid(`the dataset ${options.dataset} has no instance`);
      const selected = selection(all);
      if (selected.length === 0)
        return yield* invalid(
          `no instance of ${options.dataset} is left after --filter/--slice (${all.length} before)`,
        );
      const lines = shardOf(selected, options.shard);

      const outDir = resolve(options.outDir);
      const predsPath = join(outDir, "preds.jsonl");
      const reportPath = join(outDir, "report.json");
      const earlier = yield* Effect.tryPromise({
        try: async () => {
          await mkdir(outDir, { recursive: true });
          const read = await readPredictions(predsPath);
          // One line per instance again (an interrupted earlier run may have left a repeated or cut line).
          if (read.predictions.size > 0 || read.badLines.length > 0)
            await writePredictions(predsPath, read.predictions.values());
          return { ...read, entries: await earlierEntries(reportPath) };
        },
        catch: (e) => invalid(`cannot use the output directory ${outDir}: ${(e as Error).message}`),
      });
      const ctx: RunContext = {
        options: { ...options, outDir },
        config,
        configName,
        tempRoot: resolve(options.tempRoot ?? tmpdir()),
        predsPath,
        predictions: earlier.predictions,
        costSoFar: 0,
        pool,
        graphStore: options.graphCacheDir === undefined ? undefined : new DiskGraphStore(options.graphCacheDir),
      };
      // One model per preds file (sb-cli and the harness's summary name take one): refuse to mix.
      const model = Context.get(modelContext, LanguageModel);
      const modelPrediction = predictionModelName(model.name);
      const others = [...new Set([...earlier.predictions.values()].map((p) => p.model_name_or_path))].filter(
        (name) => name !== modelPrediction,
      );
      if (others.length) {
        return yield* invalid(
          `${predsPath} holds predictions of ${others.join(", ")}, and this run's model is ${modelPrediction}: one model per preds file; use another --out for this model`,
        );
      }
      if (model.priced === false) {
        options.onWarning?.(
          `warning: no price is known for ${model.name}: its calls count as $0 and limits.cost_limit cannot stop the run; set model.price (inputPerMTok, outputPerMTok) in the config`,
        );
      }

      const entries: AgentReportEntry[] = [];
      const modelName: string | null = model.name;
      const one = (line: AgentLine) =>
        Effect.gen(function* () {
          const done = line.ok ? ctx.predictions.get(line.instance.instance_id) : undefined;
          let entry: AgentReportEntry;
          if (done && !options.redo) {
            const before = earlier.entries.get(done.instance_id);
            const stats = patchStats(done.model_patch);
            entry = before
              ? { ...before, resumed: true }
              : blankEntry(done.instance_id, "skipped", {
                  repo: line.ok ? line.instance.repo : undefined,
                  // What the earlier run spent, as its preds.jsonl line recorded it.
                  ...done.usage,
                  patch_bytes: stats.bytes,
                  patch_files: stats.files,
                  patch_added: stats.added,
                  patch_removed: stats.removed,
                  resumed: true,
                });
          } else if (options.totalCostLimit !== undefined && ctx.costSoFar >= options.totalCostLimit) {
            entry = blankEntry(line.ok ? line.instance.instance_id : line.id, "skipped", {
              cause: "total_cost_limit",
              error: `the run has spent $${ctx.costSoFar.toFixed(4)} of --total-cost-limit $${options.totalCostLimit}; run again with a higher limit to run it`,
            });
          } else {
            entry = yield* runInstance(ctx, line);
          }
          entries.push(entry);
          options.onEntry?.(entry, entries.length, lines.length);
        });
      const loop = Effect.forEach(lines, one, {
        concurrency: pool ? pool.total : Math.max(1, options.workers ?? 1),
        discard: true,
      });

      const finish = (interrupted: boolean) =>
        Effect.promise(async () => {
          const summary = summarizeAgent(entries, Math.round(performance.now() - started));
          const report: AgentReport = {
            format: "graphplan-bench-agent/1",
            dataset: options.dataset,
            created: new Date().toISOString(),
            model: modelName,
            config: configName,
            strategy: options.strategy ?? "graphplan",
            sandbox: options.inImage
              ? `image:${options.inImage.namespace ?? ""}${options.inImage.namespace ? "/" : ""}sweb.eval.x86_64.<id>:${options.inImage.tag}@/testbed`
              : options.sandbox.sandbox === "docker"
                ? `docker:${options.sandbox.image}@${options.sandbox.workdir}`
                : "local",
            interrupted,
            summary: { ...summary },
            instances: entries,
          };
          await writeFile(reportPath, `${JSON.stringify(report, null, 2)}\n`);
          await ctx.graphStore?.flush();
          await writePredictions(predsPath, ctx.predictions.values());
          return summary;
        });

      yield* loop.pipe(
        Effect.provideContext(modelContext),
        // Stopped (Ctrl-C, or a crash of the harness itself): still a report of the instances that ran.
        Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Effect.asVoid(finish(true)))),
      );
      const summary = yield* finish(false);
      return {
        entries,
        summary,
        table: formatAgentSummary(summary),
        reportPath,
        predsPath,
        droppedPredLines: earlier.badLines,
      } satisfies AgentBenchResult;
    }),
  );
}

/**
 * `bench eval`: grades predictions by running each instance's tests in a container, as SWE-bench's
 * harness (v4.1.0) does, with its log layout and its run summary. Instances are spread over one or
 * more container engines (`--docker-host`, each with its own number of containers at once); an engine
 * that stops answering is taken out of the rotation and its instances run on the others. A run that
 * was interrupted resumes: instances with a report.json are not run again.
 */
import { randomUUID } from "node:crypto";
import { readFile, writeFile, rename, mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ContainerEngine, type ContainerEngineShape } from "@graphplan/runtime";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { parseJsonLines } from "../dataset.js";
import type { EngineSlot } from "../options.js";
import { shardOf, type Shard } from "../slurm/shard.js";
import {
  InstanceReportSchema,
  runSummaryText,
  summarizeRun,
  summaryFileName,
  type ReportOutcome,
  type RunSummary,
} from "./grading.js";
import {
  EVAL_PROCESS_LABEL,
  EVAL_RUN_LABEL,
  evaluateInstance,
  type InstanceJob,
  type InstanceOutcome,
} from "./instance.js";
import {
  type AddressProbe,
  addressWarning,
  probeAddress,
  REPOSITORIES_NEEDING_UNANSWERED,
  writeNetworkChecks,
} from "./network.js";
import { loadPredictions, modelDirName, type EvalPrediction } from "./predictions.js";
import { EvalInstanceSchema, instanceImageName, specFor, type EvalInstance } from "./spec.js";

/** The run cannot start (exit code 2 on the command line): the message says what to fix. */
export class EvalInputInvalid extends Data.TaggedError("EvalInputInvalid")<{ readonly detail: string }> {
  override get message(): string {
    return this.detail;
  }
}

export type { EngineSlot };

export type EvalEvent =
  | { readonly type: "planned"; readonly total: number; readonly skipped: number; readonly engines: readonly string[] }
  | { readonly type: "started"; readonly instance_id: string; readonly engine: string }
  | { readonly type: "finished"; readonly outcome: InstanceOutcome }
  | { readonly type: "engine_lost"; readonly engine: string; readonly detail: string; readonly requeued: string }
  /** One engine's network tried from `image` (network.ts); `addressWarning` says what a probe that did not time out means. */
  | { readonly type: "network"; readonly engine: string; readonly image: string; readonly probe: AddressProbe };

export interface EvalOptions {
  readonly preds: string;
  readonly dataset: string;
  readonly runId: string;
  readonly outDir: string;
  readonly instances?: readonly string[] | undefined;
  /** `--shard i/N`: only the i-th of N parts of the selected instances (slurm/shard.ts). */
  readonly shard?: Shard | undefined;
  readonly engines: readonly EngineSlot[];
  readonly timeoutS: number;
  /** Image namespace (null: local names), tag. */
  readonly namespace: string | null;
  readonly tag: string;
  readonly pull: boolean;
  readonly runEmpty: boolean;
  /** Grade again instances that already have a report.json. */
  readonly rerun: boolean;
  readonly onEvent?: ((event: EvalEvent) => void) | undefined;
  /** Engines by host, for tests (default: `ContainerEngine.layer`). */
  readonly engineFor?: ((host: string | undefined) => ContainerEngineShape) | undefined;
}

export interface EvalResult {
  readonly summary: RunSummary;
  readonly summaryPath: string;
  readonly outcomes: readonly InstanceOutcome[];
  /** Instances skipped because a report.json was there. */
  readonly skipped: readonly string[];
  /** What makes some verdicts of this run untrustworthy (a network that answers requests' TARPIT: network.ts). */
  readonly warnings: readonly string[];
}

const invalid = (detail: string) => new EvalInputInvalid({ detail });

async function loadDataset(path: string): Promise<{ instances: Map<string, EvalInstance>; bad: Map<string, string> }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw invalid(
      `--dataset ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message}`,
    );
  }
  const instances = new Map<string, EvalInstance>();
  const bad = new Map<string, string>();
  for (const line of parseJsonLines(text, EvalInstanceSchema, "SWE-bench instance")) {
    if (line.ok) instances.set(line.value.instance_id, line.value);
    else if (line.instanceId !== undefined) bad.set(line.instanceId, line.error);
  }
  if (instances.size === 0 && bad.size === 0)
    throw invalid(
      `--dataset ${path}: holds no SWE-bench instance (JSONL with repo, instance_id, base_commit, version, test_patch, FAIL_TO_PASS, PASS_TO_PASS)`,
    );
  return { instances, bad };
}

/** The instance's log directory, `OUT/<run-id>/<model>/<instance_id>/`. */
export const logDirOf = (outDir: string, runId: string, model: string, instanceId: string) =>
  join(outDir, runId, modelDirName(model), instanceId);

async function hasReport(dir: string): Promise<boolean> {
  try {
    InstanceReportSchema.parse(JSON.parse(await readFile(join(dir, "report.json"), "utf8")));
    return true;
  } catch {
    return false;
  }
}

interface Plan {
  readonly datasetIds: string[];
  /** The predicted instances selected, in dataset order (after --shard). */
  readonly selected: string[];
  readonly predictions: Map<string, EvalPrediction>;
  readonly jobs: InstanceJob[];
  readonly preErrors: InstanceOutcome[];
  readonly skipped: string[];
  readonly model: string;
}

/** Reads and checks the inputs, and decides what to run (harness: `get_dataset_from_preds`). */
async function planRun(options: EvalOptions): Promise<Plan> {
  if (!/^[A-Za-z0-9_.-]+$/.test(options.runId))
    throw invalid(
      `--run-id ${JSON.stringify(options.runId)}: use letters, digits, '.', '_' and '-' only (it names a directory and containers)`,
    );
  const { instances, bad } = await loadDataset(options.dataset);
  // `--preds gold`, as the harness's `--predictions_path gold`: the dataset's own reference patches.
  const list =
    options.preds === "gold"
      ? [...instances.values()].map((i) => ({
          instance_id: i.instance_id,
          model_name_or_path: "gold",
          model_patch: typeof i.patch === "string" ? i.patch : null,
        }))
      : await loadPredictions(options.preds).catch((error: Error) => Promise.reject(invalid(error.message)));
  const predictions = new Map(list.map((p) => [p.instance_id, p]));
  const unknown = list
    .filter((p) => !instances.has(p.instance_id) && !bad.has(p.instance_id))
    .map((p) => p.instance_id);
  if (unknown.length)
    throw invalid(
      `--preds: ${unknown.length} prediction(s) name instances that --dataset ${options.dataset} does not have (${unknown.slice(0, 3).join(", ")}${unknown.length > 3 ? ", ..." : ""}); use the dataset the predictions were made for`,
    );
  const wanted = options.instances;
  if (wanted) {
    const missing = wanted.filter((id) => !instances.has(id) && !bad.has(id));
    if (missing.length) throw invalid(`--instances: ${missing.join(", ")} not in --dataset ${options.dataset}`);
  }
  const datasetIds = wanted ? [...wanted] : [...instances.keys(), ...bad.keys()];
  const selected = shardOf(
    datasetIds.filter((id) => predictions.has(id)),
    options.shard,
  );
  const jobs: InstanceJob[] = [];
  const preErrors: InstanceOutcome[] = [];
  const skipped: string[] = [];
  for (const id of selected) {
    const prediction = predictions.get(id)!;
    const logDir = logDirOf(options.outDir, options.runId, prediction.model_name_or_path, id);
    if (!options.rerun && (await hasReport(logDir))) {
      skipped.push(id);
      continue;
    }
    const empty = (prediction.model_patch ?? "") === "";
    if (empty && !options.runEmpty) continue; // the harness never runs an empty patch: it is empty_patch
    const instance = instances.get(id);
    if (instance === undefined) {
      preErrors.push({
        instance_id: id,
        status: "error",
        reason: `the dataset line is not an instance: ${bad.get(id)}`,
        ms: 0,
      });
      continue;
    }
    const spec = specFor(instance.repo, instance.version);
    if (spec === undefined) {
      preErrors.push({
        instance_id: id,
        status: "error",
        reason: `no test specification for ${instance.repo} version ${instance.version} (SWE-bench's MAP_REPO_VERSION_TO_SPECS has none)`,
        ms: 0,
      });
      continue;
    }
    jobs.push({
      instance,
      spec,
      model: prediction.model_name_or_path,
      patch: prediction.model_patch,
      image: instanceImageName(id, { namespace: options.namespace, tag: options.tag }),
      runId: options.runId,
      process: PROCESS,
      logDir,
      timeoutS: options.timeoutS,
      pull: options.pull,
      runEmpty: options.runEmpty,
    });
  }
  return { datasetIds, selected, predictions, jobs, preErrors, skipped, model: list[0]!.model_name_or_path };
}

interface LiveEngine {
  readonly shape: ContainerEngineShape;
  readonly workers: number;
  lost: boolean;
}

/** Engines that answer; fails when none does. */
function connect(options: EvalOptions): Effect.Effect<LiveEngine[], EvalInputInvalid> {
  return Effect.gen(function* () {
    const slots = options.engines.length ? options.engines : [{ host: undefined, workers: 1 }];
    const engines: LiveEngine[] = [];
    const down: string[] = [];
    for (const slot of slots) {
      const shape = options.engineFor
        ? options.engineFor(slot.host)
        : yield* Effect.try({
            try: () => ContainerEngine.make({ host: slot.host }),
            catch: (e) => invalid(`--docker-host: ${(e as Error).message}`),
          });
      const alive = yield* shape.ping.pipe(
        Effect.as(true),
        Effect.catch((e) => Effect.sync(() => (down.push(e.message), false))),
      );
      if (alive) engines.push({ shape, workers: slot.workers, lost: false });
    }
    if (engines.length === 0) return yield* invalid(down[0] ?? "no container engine");
    return engines;
  });
}

/**
 * Each engine's network, tried from the first instance whose tests need an address left unanswered (network.ts),
 * with a warning where the connect does not time out. An image the engine lacks, or a probe that cannot start, is
 * left to the instance's own run to report.
 */
function networkChecks(
  engines: LiveEngine[],
  jobs: InstanceJob[],
  runId: string,
): Effect.Effect<Extract<EvalEvent, { type: "network" }>[]> {
  const job = jobs.find((j) => REPOSITORIES_NEEDING_UNANSWERED.has(j.instance.repo));
  if (job === undefined) return Effect.succeed([]);
  const labels = { [EVAL_RUN_LABEL]: runId, [EVAL_PROCESS_LABEL]: PROCESS };
  const check = (engine: LiveEngine) =>
    Effect.gen(function* () {
      if ((yield* engine.shape.inspectImage(job.image)) === undefined) return undefined;
      const probe = yield* probeAddress(job.image, undefined, labels).pipe(
        Effect.provideService(ContainerEngine, engine.shape),
      );
      return { type: "network", engine: engine.shape.endpoint, image: job.image, probe } as const;
    }).pipe(Effect.catch(() => Effect.succeed(undefined)));
  return Effect.forEach(engines, check, { concurrency: "unbounded" }).pipe(
    Effect.map((checks) => checks.filter((c) => c !== undefined)),
  );
}

/** Runs the jobs on the engines: `workers` fibers per engine taking jobs from one queue. */
function runJobs(
  engines: LiveEngine[],
  jobs: InstanceJob[],
  onEvent: (event: EvalEvent) => void,
): Effect.Effect<InstanceOutcome[]> {
  const queue = [...jobs];
  const outcomes: InstanceOutcome[] = [];
  const attempts = new Map<string, number>();
  // Jobs being run: one of them may come back to the queue (its engine lost), so a worker whose
  // engine is alive waits for those before it stops.
  let running = 0;
  const worker = (engine: LiveEngine) =>
    Effect.gen(function* () {
      while (!engine.lost) {
        const job = queue.shift();
        if (job === undefined) {
          if (running === 0) return;
          yield* Effect.sleep("200 millis");
          continue;
        }
        const id = job.instance.instance_id;
        onEvent({ type: "started", instance_id: id, engine: engine.shape.endpoint });
        running++;
        const result = yield* evaluateInstance(job).pipe(
          Effect.provideService(ContainerEngine, engine.shape),
          Effect.result,
        );
        if (result._tag === "Success") {
          running--;
          outcomes.push(result.success);
          onEvent({ type: "finished", outcome: result.success });
          continue;
        }
        // The engine is gone: out of the rotation; the instance goes back to the queue (twice at most).
        engine.lost = true;
        const tries = (attempts.get(id) ?? 0) + 1;
        attempts.set(id, tries);
        onEvent({ type: "engine_lost", engine: engine.shape.endpoint, detail: result.failure.detail, requeued: id });
        running--;
        if (tries < 3) queue.unshift(job);
        else {
          const outcome: InstanceOutcome = {
            instance_id: id,
            status: "error",
            reason: `three engines were lost while running it; last: ${result.failure.detail}`,
            ms: 0,
          };
          outcomes.push(outcome);
          onEvent({ type: "finished", outcome });
        }
      }
    });
  const fibers = engines.flatMap((engine) => Array.from({ length: engine.workers }, () => worker(engine)));
  return Effect.forEach(fibers, (f) => f, { concurrency: "unbounded", discard: true }).pipe(
    Effect.map(() => {
      // Every engine was lost with work left: those instances are errors of this run (not graded; a rerun retries them).
      for (const job of queue.splice(0)) {
        const outcome: InstanceOutcome = {
          instance_id: job.instance.instance_id,
          status: "error",
          reason: "no container engine left (every engine stopped answering)",
          ms: 0,
        };
        outcomes.push(outcome);
        onEvent({ type: "finished", outcome });
      }
      return outcomes;
    }),
  );
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Writes `OUT/<model>.<run-id>.json` from the report.json files on disk (the harness's `make_run_report`). */
async function writeSummary(options: EvalOptions, plan: Plan): Promise<{ summary: RunSummary; path: string }> {
  const reports = new Map<string, ReportOutcome>();
  for (const id of plan.datasetIds) {
    const prediction = plan.predictions.get(id);
    if (prediction === undefined) continue;
    const file = join(logDirOf(options.outDir, options.runId, prediction.model_name_or_path, id), "report.json");
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) continue; // no report: error (or empty patch, or not run)
    const parsed = InstanceReportSchema.safeParse(safeJson(text));
    reports.set(id, parsed.success ? parsed.data : "invalid");
  }
  const summary = summarizeRun({ datasetIds: plan.datasetIds, predictions: plan.predictions, reports });
  const path = join(options.outDir, summaryFileName(plan.model, options.runId));
  await mkdir(options.outDir, { recursive: true });
  await writeFile(`${path}.tmp`, runSummaryText(summary));
  await rename(`${path}.tmp`, path);
  return { summary, path: resolve(path) };
}

/**
 * What a run selects, without running anything: the predicted instances (before --shard), their model and
 * log directories. `--slurm` splits this selection into shards and merges the shards' outputs by it.
 */
export async function evaluationSelection(
  options: EvalOptions,
): Promise<{ selected: string[]; model: string; logDir: (id: string) => string }> {
  const plan = await planRun({ ...options, shard: undefined, rerun: true });
  return {
    selected: plan.selected,
    model: plan.model,
    logDir: (id) => logDirOf(options.outDir, options.runId, plan.model, id),
  };
}

/** Writes the run's summary from the report.json files on disk, as a run does at its end (for `--slurm`'s merge). */
export async function writeEvaluationSummary(options: EvalOptions): Promise<{ summary: RunSummary; path: string }> {
  return writeSummary(options, await planRun({ ...options, shard: undefined, rerun: true }));
}

/** This process's label value (EVAL_PROCESS_LABEL). */
const PROCESS = randomUUID().slice(0, 8);

/** Removes the containers this process started for this run that are still there; never fails. */
const sweep = (engine: ContainerEngineShape, runId: string) =>
  engine.containersLabelled({ [EVAL_RUN_LABEL]: runId, [EVAL_PROCESS_LABEL]: PROCESS }).pipe(
    Effect.flatMap((ids) => Effect.forEach(ids, (id) => engine.removeContainer(id), { discard: true })),
    Effect.ignore,
  );

/** The whole run. The summary is written at the end, also when the run is interrupted. */
export function runEvaluation(options: EvalOptions): Effect.Effect<EvalResult, EvalInputInvalid> {
  return Effect.gen(function* () {
    const plan = yield* Effect.tryPromise({
      try: () => planRun(options),
      catch: (e) => (e instanceof EvalInputInvalid ? e : invalid((e as Error).message)),
    });
    const engines = plan.jobs.length ? yield* connect(options) : [];
    const onEvent = options.onEvent ?? (() => undefined);
    onEvent({
      type: "planned",
      total: plan.jobs.length + plan.preErrors.length,
      skipped: plan.skipped.length,
      engines: engines.map((e) => e.shape.endpoint),
    });
    const checks = yield* networkChecks(engines, plan.jobs, options.runId);
    for (const check of checks) onEvent(check);
    // Kept beside the logs, so that what they mean survives the run (and --slurm's merge carries each shard's).
    if (checks.length)
      yield* Effect.promise(async () => {
        await mkdir(join(options.outDir, options.runId), { recursive: true });
        await writeNetworkChecks(
          options.outDir,
          options.runId,
          checks.map(({ engine, image, probe }) => ({ engine, image, probe })),
        );
      });
    const warnings = checks.flatMap((c) => addressWarning(c.engine, c.image, c.probe) ?? []);
    for (const outcome of plan.preErrors) onEvent({ type: "finished", outcome });
    const summarize = Effect.promise(() => writeSummary(options, plan));
    const outcomes = yield* runJobs(engines, plan.jobs, onEvent).pipe(
      Effect.onInterrupt(() => Effect.ignore(summarize)),
      // Containers of this run that a lost engine could not remove, where a live engine sees them (engines sharing storage).
      Effect.ensuring(Effect.forEach(engines, (e) => sweep(e.shape, options.runId), { discard: true })),
    );
    const { summary, path } = yield* summarize;
    return {
      summary,
      summaryPath: path,
      outcomes: [...plan.preErrors, ...outcomes],
      skipped: plan.skipped,
      warnings,
    };
  });
}

/**
 * `bench agent|eval|run --slurm`: the selection split into --shards parts, one Slurm job array whose
 * task i runs the same command with `--shard i/N --out OUT/shards/i` on its node's container engine;
 * the submitter shows progress (the tasks' logs and squeue), then merges the shards' outputs into the
 * files the same command writes on one machine. Run again, it submits only the shards with instances
 * that have no final result. `bench status OUT` and `bench cancel OUT` act on the job later.
 */
import { readFile } from "node:fs/promises";
import { isAbsolute, join, resolve, sep } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import { readPredictions } from "../agent/preds.js";
import { spentLine } from "../agent/report.js";
import { parseAgentDataset, selectInstances, selectionOf } from "../agent/instances.js";
import { formatEvalResult } from "../eval/command.js";
import { evaluationSelection, type EvalOptions } from "../eval/run.js";
import { Progress } from "../progress.js";
import { onPath, partitionExists, scancel, type SlurmFailed } from "./client.js";
import {
  readJob,
  readLogFrom,
  logOf,
  submit,
  taskArguments,
  taskViews,
  type Kind,
  type SlurmJob,
  type TaskView,
} from "./job.js";
import { agentFinal, evalFinal, mergeAgent, mergeEval, mergeOptions, shardDir } from "./merge.js";
import type { SlurmCommandOptions } from "./options.js";
import { shardOf } from "./shard.js";

/** What the submitter needs of the command's own options. */
export interface SlurmRunOptions extends SlurmCommandOptions {
  readonly out: string;
  readonly dataset: string;
  readonly quiet?: boolean | undefined;
  /** agent / run: the selection options. */
  readonly instances?: string[] | undefined;
  readonly filter?: string | undefined;
  readonly slice?: string | undefined;
  readonly shuffle?: boolean | undefined;
  readonly seed?: number | undefined;
  /** eval / run. */
  readonly runId?: string | undefined;
  readonly preds?: string | undefined;
  readonly runEmptyPatches?: boolean | undefined;
}

const bad = (line: string) => new InvalidArgumentError(`error: ${line}`);
const POLL_MS = Number(process.env.GRAPHPLAN_SLURM_POLL_MS ?? 1000);

/** Directories that are each node's own: an OUT there is not seen by the submitter. */
const LOCAL_ROOTS = ["/tmp", "/var/tmp", "/dev/shm", "/run"];

/** --out must be a path every node sees the same: absolute, and not on a node-local filesystem. */
export function checkSharedOut(out: string): void {
  const fix =
    "give an absolute path on a filesystem every node mounts (your home or project directory, e.g. --out $HOME/runs/name)";
  if (!isAbsolute(out)) throw bad(`--out ${out}: a relative path means a different directory on each node; ${fix}`);
  const local = LOCAL_ROOTS.find((root) => out === root || out.startsWith(`${root}${sep}`));
  if (local)
    throw bad(
      `--out ${out}: ${local} is each node's own disk, so the tasks' outputs would not reach this machine; ${fix}`,
    );
}

/** The evaluation's options for a directory of preds and outputs (the values `bench eval` and `bench run` use). */
function evalOptions(opts: SlurmRunOptions, preds: string, outDir: string, instances?: string[]): EvalOptions {
  return mergeOptions({
    preds,
    dataset: opts.dataset,
    runId: opts.runId ?? "graphplan",
    outDir,
    instances,
    runEmpty: opts.runEmptyPatches ?? false,
  });
}

/** The selected instance ids, in selection order (what --shard splits). */
async function selection(kind: Kind, opts: SlurmRunOptions): Promise<string[]> {
  if (kind === "eval") {
    const { selected } = await evaluationSelection(evalOptions(opts, opts.preds!, opts.out, opts.instances)).catch(
      (e: Error) => Promise.reject(bad(e.message)),
    );
    return selected;
  }
  const text = await readFile(opts.dataset, "utf8").catch((e: Error) =>
    Promise.reject(bad(`cannot read the dataset ${opts.dataset}: ${e.message}`)),
  );
  let select: ReturnType<typeof selectionOf>;
  try {
    select = selectionOf(opts);
  } catch (error) {
    throw bad((error as Error).message);
  }
  return select(selectInstances(parseAgentDataset(text), opts.instances)).map((l) =>
    l.ok ? l.instance.instance_id : l.id,
  );
}

/** Ids of shard `index` with a final result in its directory. */
async function finalIn(kind: Kind, opts: SlurmRunOptions, index: number): Promise<Set<string>> {
  const dir = shardDir(opts.out, index);
  if (kind === "eval")
    return evalFinal(evalOptions(opts, opts.preds!, dir, opts.instances), dir).catch(() => new Set<string>());
  const agent = await agentFinal(dir);
  if (kind === "agent") return agent;
  const { predictions } = await readPredictions(join(dir, "preds.jsonl"));
  const graded = await evalFinal(
    evalOptions(opts, join(dir, "preds.jsonl"), join(dir, "eval")),
    join(dir, "eval"),
  ).catch(() => new Set<string>());
  // Final: graded, or nothing to grade (an input error, an empty patch).
  return new Set([...agent].filter((id) => graded.has(id) || (predictions.get(id)?.model_patch ?? "") === ""));
}

/** Merges the shards into OUT; the text printed at the end. */
async function merge(
  kind: Kind,
  opts: SlurmRunOptions,
  selected: string[],
  shards: number,
  startedMs: number,
): Promise<string> {
  const ms = Math.round(performance.now() - startedMs);
  if (kind === "eval") {
    const { summary, path, warnings } = await mergeEval(
      evalOptions(opts, opts.preds!, opts.out, opts.instances),
      shards,
      (i) => shardDir(opts.out, i),
    );
    return `${formatEvalResult({ summary, summaryPath: path, outcomes: [], skipped: [], warnings })}\n\nsummary: ${path}`;
  }
  const agent = await mergeAgent(opts.out, selected, shards, ms);
  const agentText = `${agent.table}\n\npreds: ${agent.predsPath}\nreport: ${agent.reportPath}`;
  if (kind === "agent") return agentText;
  const predicted = agent.entries
    .filter((e) => e.status !== "input_error" && agent.predictions.has(e.instance_id))
    .map((e) => e.instance_id);
  if (predicted.length === 0) return `${agentText}\n\nno prediction to grade`;
  const graded = await mergeEval(evalOptions(opts, agent.predsPath, join(opts.out, "eval"), predicted), shards, (i) =>
    join(shardDir(opts.out, i), "eval"),
  );
  const s = graded.summary;
  return `${agent.table}\n\n${formatEvalResult({ summary: s, summaryPath: graded.path, outcomes: [], skipped: [], warnings: graded.warnings })}\n\nresolved ${s.resolved_instances} of ${agent.entries.length} · ${spentLine(agent.summary)}\npreds: ${agent.predsPath}\nevaluation: ${graded.path}`;
}

const counts = (views: readonly TaskView[]) => {
  const pending = views.filter((v) => !v.ended && v.state !== "RUNNING").length;
  const running = views.filter((v) => v.state === "RUNNING").length;
  return `tasks: ${pending} pending · ${running} running · ${views.length - pending - running} ended`;
};

/** Follows the last submission until every task ended, feeding the progress display. */
async function follow(
  kind: Kind,
  out: string,
  job: SlurmJob,
  total: number,
  quiet: boolean | undefined,
  signal: AbortSignal,
): Promise<TaskView[]> {
  const tasks = job.jobs.at(-1)!.tasks;
  const progress = quiet ? undefined : new Progress(total);
  const offsets = new Map<number, number>();
  for (const task of tasks) offsets.set(task, (await readLogFrom(logOf(out, task), 0)).offset);
  let cost = 0;
  let graded = 0;
  let views: TaskView[] = [];
  try {
    for (;;) {
      views = await taskViews(out, job);
      for (const task of tasks) {
        const read = await readLogFrom(logOf(out, task), offsets.get(task)!);
        offsets.set(task, read.offset);
        for (const line of read.lines) {
          cost += line.cost;
          if (line.phase === "eval" && kind === "run") graded++;
          else progress?.finish(line.id, `shard ${task}: ${line.text}`);
        }
      }
      progress?.setHeadline(
        `${counts(views)}${kind === "run" ? ` · graded ${graded}` : ""}${kind === "eval" ? "" : ` · $${cost.toFixed(2)}`}`,
      );
      if (views.every((v) => v.ended) || signal.aborted) return views;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    progress?.close();
  }
}

/** `bench <kind> --slurm ...`: submit, follow, merge. `args`: the command's arguments after its name (default: this process's). */
export async function runOnSlurm(
  kind: Kind,
  opts: SlurmRunOptions,
  args: readonly string[] = process.argv.slice(process.argv.indexOf(kind, 2) + 1),
): Promise<void> {
  const startedMs = performance.now();
  if (!onPath("sbatch"))
    throw bad(
      "--slurm: no sbatch on PATH; run on a Slurm login node (or load its module, e.g. `module load slurm`), or leave out --slurm",
    );
  checkSharedOut(opts.out);
  if (
    opts.slurmPartition !== undefined &&
    !(await partitionExists(opts.slurmPartition).catch((e: SlurmFailed) =>
      Promise.reject(bad(`--slurm-partition: ${e.message}`)),
    ))
  ) {
    throw bad(`--slurm-partition ${opts.slurmPartition}: Slurm has no such partition; \`sinfo -s\` lists them`);
  }
  const shards = opts.shards!;
  const out = resolve(opts.out);
  const selected = await selection(kind, opts);
  if (selected.length === 0) throw bad("--slurm: the selection is empty; nothing to submit");
  const earlier = await readJob(out);
  if (earlier && earlier.kind !== kind)
    throw bad(`--out ${out} holds a bench ${earlier.kind} --slurm run; use another --out for bench ${kind}`);
  if (earlier && earlier.shards !== shards)
    throw bad(
      `--out ${out} was split into ${earlier.shards} shards; resume it with --shards ${earlier.shards} (or use another --out)`,
    );
  if (earlier && (await taskViews(out, earlier)).some((v) => !v.ended))
    throw bad(
      `--out ${out}: job ${earlier.jobs.at(-1)!.id} is still queued or running; follow it with \`bench status ${out}\`, or stop it with \`bench cancel ${out}\``,
    );

  // Resume: only shards with instances that have no final result.
  const todo: number[] = [];
  for (let index = 0; index < shards; index++) {
    const ids = shardOf(selected, { index, count: shards });
    if (ids.length === 0) continue;
    const final = await finalIn(kind, { ...opts, out }, index);
    if (ids.some((id) => !final.has(id))) todo.push(index);
  }
  let job: SlurmJob = earlier ?? {
    format: "graphplan-bench-slurm/1",
    kind,
    shards,
    argv: [process.execPath, ...process.execArgv, process.argv[1]!, kind, ...taskArguments(args)],
    cwd: process.cwd(),
    jobs: [],
  };
  if (earlier)
    job = {
      ...earlier,
      argv: [process.execPath, ...process.execArgv, process.argv[1]!, kind, ...taskArguments(args)],
      cwd: process.cwd(),
    };
  const o = { ...opts, out };
  if (todo.length === 0) {
    process.stderr.write(`every instance of the ${selected.length} has a final result: nothing to submit; merging\n`);
    process.stdout.write(`${await merge(kind, o, selected, shards, startedMs)}\n`);
    return;
  }
  job = await submit(out, job, todo, {
    partition: opts.slurmPartition,
    time: opts.slurmTime,
    cpus: opts.slurmCpus,
    mem: opts.slurmMem,
    extra: opts.slurmArg,
  }).catch((e: SlurmFailed) => Promise.reject(bad(`--slurm: ${e.message}`)));
  const id = job.jobs.at(-1)!.id;
  process.stderr.write(
    `submitted job ${id}: tasks ${todo.join(",")} of ${shards} shards (${selected.length} instances); logs in ${join(out, "shards", "<i>", "bench.log")}\n`,
  );
  if (opts.detach) {
    process.stdout.write(
      `job ${id} submitted; \`bench status ${out}\` follows it and merges the outputs when it is done; \`bench cancel ${out}\` stops it\n`,
    );
    return;
  }
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    process.stderr.write(
      `\ninterrupted: cancelling job ${id} (its tasks remove their containers and write their reports), then merging (Ctrl-C again to quit at once)\n`,
    );
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigint);
  try {
    let views = await follow(
      kind,
      out,
      job,
      todo.reduce((n, index) => n + shardOf(selected, { index, count: shards }).length, 0),
      opts.quiet,
      controller.signal,
    );
    if (controller.signal.aborted) views = await cancelAndWait(out, job);
    process.stdout.write(`${await merge(kind, o, selected, shards, startedMs)}\n`);
    const failed = views.filter((v) => v.state !== "COMPLETED" || v.exit !== 0);
    if (controller.signal.aborted) {
      process.stderr.write(
        `interrupted; job ${id} is cancelled and no container is left; run the same command again to resume\n`,
      );
      process.exitCode = 130;
    } else if (failed.length) {
      process.stderr.write(
        `${failed.map((v) => `task ${v.task} ${v.state}${v.exit === undefined ? "" : ` (exit ${v.exit})`}`).join(", ")}: see ${join(out, "shards", "<i>", "bench.log")}; run the same command again to run what they did not finish\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
  }
}

/** Cancels the last submission and waits until its tasks ended (each removes its containers on the signal). */
export async function cancelAndWait(out: string, job: SlurmJob): Promise<TaskView[]> {
  const id = job.jobs.at(-1)!.id;
  await scancel(id);
  for (;;) {
    const views = await taskViews(out, job);
    if (views.every((v) => v.ended)) return views;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function jobOf(out: string): Promise<SlurmJob> {
  const job = await readJob(resolve(out));
  if (!job)
    throw bad(
      `${out}: no bench --slurm run here (no ${join(out, "slurm", "job.json")}); give the --out of a --slurm run`,
    );
  return job;
}

/** `bench status OUT` and `bench cancel OUT`. */
export function slurmCommands(program: Command): void {
  program
    .command("status")
    .description(
      "the state of a `--slurm` run in OUT: its tasks (squeue) and instances done; once every task ended, merges the shards' outputs into OUT",
    )
    .argument("<out>", "the run's --out")
    .action(async (outArg: string) => {
      const out = resolve(outArg);
      const job = await jobOf(out);
      const views = await taskViews(out, job);
      const last = job.jobs.at(-1)!;
      const lines = views.map((v) => `  task ${v.task}  ${v.state}${v.exit === undefined ? "" : ` (exit ${v.exit})`}`);
      const opts = optionsFromArgv(job, out);
      const selected = await selection(job.kind, opts);
      let final = 0;
      for (let index = 0; index < job.shards; index++) {
        const done = await finalIn(job.kind, opts, index);
        final += shardOf(selected, { index, count: job.shards }).filter((id) => done.has(id)).length;
      }
      process.stdout.write(
        `job ${last.id} (bench ${job.kind}, ${job.shards} shards, submitted ${last.submitted})\n${counts(views)}\ninstances with a final result: ${final} of ${selected.length}\n${lines.join("\n")}\n`,
      );
      if (!views.every((v) => v.ended)) return;
      process.stdout.write(`\n${await merge(job.kind, opts, selected, job.shards, performance.now())}\n`);
    });
  program
    .command("cancel")
    .description(
      "cancels a `--slurm` run in OUT (scancel): each task removes its containers and writes its report; the same command resumes it later",
    )
    .argument("<out>", "the run's --out")
    .action(async (outArg: string) => {
      const out = resolve(outArg);
      const job = await jobOf(out);
      const views = await cancelAndWait(out, job);
      process.stdout.write(
        `job ${job.jobs.at(-1)!.id} cancelled: ${views.map((v) => `task ${v.task} ${v.state}`).join(", ")}; the same command resumes it\n`,
      );
    });
}

/** The submitter's options, read back from the task command recorded in job.json (for `bench status`). */
function optionsFromArgv(job: SlurmJob, out: string): SlurmRunOptions {
  const args = job.argv.slice(job.argv.indexOf(job.kind) + 1);
  const value = (name: string) => {
    const i = args.findIndex((a) => a === name || a.startsWith(`${name}=`));
    if (i < 0) return undefined;
    return args[i]!.includes("=") ? args[i]!.slice(name.length + 1) : args[i + 1];
  };
  const within = (p: string | undefined) => (p === undefined ? undefined : resolve(job.cwd, p));
  return {
    out,
    dataset: within(value("--dataset"))!,
    preds: value("--preds") === "gold" ? "gold" : within(value("--preds")),
    runId: value("--run-id"),
    instances: value("--instances")
      ?.split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    filter: value("--filter"),
    slice: value("--slice"),
    shuffle: args.includes("--shuffle"),
    seed: value("--seed") === undefined ? undefined : Number(value("--seed")),
    runEmptyPatches: args.includes("--run-empty-patches"),
  };
}

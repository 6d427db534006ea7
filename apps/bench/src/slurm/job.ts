/**
 * One `--slurm` run in OUT: the job array's batch script, what was submitted (`OUT/slurm/job.json`),
 * and the tasks' states read back — from `squeue`, and from the files each task writes on the shared
 * filesystem (its log `OUT/shards/<i>/bench.log`, which is also its progress file, and
 * `OUT/shards/<i>/exit`, its exit code), so that the state is known on clusters without `sacct`.
 */
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { ENDED, sbatch, squeue, type TaskState } from "./client.js";
import { shardDir } from "./merge.js";
import { SUBMITTER_OPTIONS } from "./options.js";

export const KINDS = ["agent", "eval", "run"] as const;
export type Kind = (typeof KINDS)[number];

export const SlurmJobSchema = z.object({
  format: z.literal("graphplan-bench-slurm/1"),
  kind: z.enum(KINDS),
  shards: z.number().int().positive(),
  /** The command each task runs, before its `--shard i/N --out OUT/shards/i`. */
  argv: z.array(z.string()),
  cwd: z.string(),
  /** Every submission to this OUT, the last one last: the job id, its tasks (shard indexes) and when. */
  jobs: z.array(z.object({ id: z.string(), tasks: z.array(z.number().int().nonnegative()), submitted: z.string() })),
});
export type SlurmJob = z.infer<typeof SlurmJobSchema>;

export const jobFile = (out: string): string => join(out, "slurm", "job.json");

export async function readJob(out: string): Promise<SlurmJob | undefined> {
  const text = await readFile(jobFile(out), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  const parsed = SlurmJobSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}

export async function writeJob(out: string, job: SlurmJob): Promise<void> {
  await mkdir(join(out, "slurm"), { recursive: true });
  await writeFile(`${jobFile(out)}.tmp`, `${JSON.stringify(job, null, 2)}\n`);
  await rename(`${jobFile(out)}.tmp`, jobFile(out));
}

/** The arguments after the subcommand, without the submitter's own options (SUBMITTER_OPTIONS). */
export function taskArguments(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name] = arg.split("=", 1);
    const takesValue = SUBMITTER_OPTIONS[name!];
    if (takesValue === undefined) out.push(arg);
    else if (takesValue && !arg.includes("=")) i++;
  }
  return out;
}

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * The batch script of the array: task i runs `argv --shard i/N --out OUT/shards/i` and writes its exit
 * code to OUT/shards/i/exit. The shell waits for bench through the signals Slurm sends on scancel or at
 * the time limit (bench itself cleans up on them: containers removed, report written), then records the code.
 */
export function batchScript(job: SlurmJob, out: string): string {
  const command = [...job.argv.map(quote), "--shard", `"$i/${job.shards}"`, "--out", `"$dir"`].join(" ");
  return `#!/bin/bash
# Written by bench --${job.kind === "run" ? "run" : job.kind} --slurm (GraphPlan): one task of the array runs the command on its shard.
set -u
i="$SLURM_ARRAY_TASK_ID"
dir=${quote(join(out, "shards"))}/"$i"
mkdir -p "$dir"
rm -f "$dir/exit"
echo "bench --slurm: task $i of job \${SLURM_ARRAY_JOB_ID} on $(hostname), attempt $(( \${SLURM_RESTART_COUNT:-0} + 1 ))"
${command} &
child=$!
trap ':' INT TERM
wait "$child"; code=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; code=$?; done
echo "$code" > "$dir/exit"
exit "$code"
`;
}

export interface SubmitOptions {
  readonly partition?: string | undefined;
  readonly time?: string | undefined;
  readonly cpus?: number | undefined;
  readonly mem?: string | undefined;
  readonly extra?: readonly string[] | undefined;
}

/** Submits the tasks `tasks` (shard indexes) as one array; records the submission in OUT/slurm/job.json. */
export async function submit(
  out: string,
  job: SlurmJob,
  tasks: readonly number[],
  options: SubmitOptions,
): Promise<SlurmJob> {
  for (const task of tasks) await mkdir(shardDir(out, task), { recursive: true });
  const script = batchScript(job, out);
  await mkdir(join(out, "slurm"), { recursive: true });
  await writeFile(join(out, "slurm", "task.sh"), script);
  const args = [
    `--array=${tasks.join(",")}`,
    "--requeue",
    `--job-name=bench-${job.kind}-${basename(out)}`,
    `--chdir=${job.cwd}`,
    `--output=${join(out, "shards", "%a", "bench.log")}`,
    "--open-mode=append",
    ...(options.partition ? [`--partition=${options.partition}`] : []),
    ...(options.time ? [`--time=${options.time}`] : []),
    ...(options.cpus ? [`--cpus-per-task=${options.cpus}`] : []),
    ...(options.mem ? [`--mem=${options.mem}`] : []),
    ...(options.extra ?? []),
  ];
  const id = await sbatch(args, script);
  const next = { ...job, jobs: [...job.jobs, { id, tasks: [...tasks], submitted: new Date().toISOString() }] };
  await writeJob(out, next);
  return next;
}

/** A task's state: squeue's while the controller knows it, else what its exit file says. */
export interface TaskView {
  readonly task: number;
  readonly state: string;
  readonly ended: boolean;
  /** Its exit code, once it wrote one. */
  readonly exit: number | undefined;
}

async function exitOf(out: string, task: number): Promise<number | undefined> {
  const text = await readFile(join(shardDir(out, task), "exit"), "utf8").catch(() => undefined);
  const n = text === undefined ? Number.NaN : Number(text.trim());
  return Number.isInteger(n) ? n : undefined;
}

/** The last submission's tasks, each with its state. */
export async function taskViews(out: string, job: SlurmJob): Promise<TaskView[]> {
  const last = job.jobs.at(-1);
  if (!last) return [];
  const states = new Map<number, TaskState>((await squeue(last.id)).map((t) => [t.task, t]));
  return Promise.all(
    last.tasks.map(async (task) => {
      const exit = await exitOf(out, task);
      const known = states.get(task);
      if (known) return { task, state: known.state, ended: ENDED.has(known.state), exit };
      // Forgotten by the controller: ended, as its exit file says (none: it never finished, e.g. cancelled while pending).
      return { task, state: exit === undefined ? "GONE" : exit === 0 ? "COMPLETED" : "FAILED", ended: true, exit };
    }),
  );
}

/** One progress line of a task's log: `[k/n] <id> <status> ...` as bench's plain progress prints it. */
export interface LogLine {
  readonly id: string;
  readonly status: string;
  readonly text: string;
  /** Dollars of an agent line (`... $0.0123 ...`). */
  readonly cost: number;
  readonly phase: "agent" | "eval";
}

const EVAL_STATUSES = new Set(["resolved", "unresolved", "error", "empty_patch"]);

/** The progress lines of a log's text (other lines skipped). */
export function parseLog(text: string): LogLine[] {
  return text.split("\n").flatMap((raw) => {
    const match = /^\[\d+\/\d+\] (\S+) (\S+)(.*?)(?: · \d+ running.*)?$/.exec(raw);
    if (!match) return [];
    const [, id, status, rest] = match;
    const cost = /calls \$(\d+(?:\.\d+)?)/.exec(rest!);
    return [
      {
        id: id!,
        status: status!,
        text: `${id} ${status}${rest}`,
        cost: cost && !rest!.includes("(done before)") ? Number(cost[1]) : 0,
        phase: EVAL_STATUSES.has(status!) ? "eval" : "agent",
      },
    ];
  });
}

/** Reads what a log gained since `offset`: its new complete lines and the next offset. */
export async function readLogFrom(path: string, offset: number): Promise<{ lines: LogLine[]; offset: number }> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  if (size <= offset) return { lines: [], offset };
  const text = (await readFile(path)).subarray(offset, size).toString("utf8");
  const end = text.lastIndexOf("\n") + 1;
  return { lines: parseLog(text.slice(0, end)), offset: offset + Buffer.byteLength(text.slice(0, end)) };
}

export const logOf = (out: string, task: number): string => join(shardDir(out, task), "bench.log");

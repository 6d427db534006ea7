/**
 * The Slurm client `--slurm` needs, and nothing more: `sbatch` (submit a job array), `squeue` (its
 * tasks' states), `sinfo` (does a partition exist), `scancel`. Each is the cluster's own command, run
 * with its arguments as an argv (never through a shell). `sacct` is not used: many small clusters (and
 * the one `.ci/slurm-setup.sh` starts) keep no accounting database; a task's end is read from the file
 * it writes on the shared filesystem instead (see submit.ts).
 */
import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import * as Data from "effect/Data";

/** A Slurm command failed or is missing: the message says which, and what it said. */
export class SlurmFailed extends Data.TaggedError("SlurmFailed")<{
  readonly command: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `${this.command}: ${this.detail}`;
  }
}

/** `command` found on PATH (its full path), or undefined. */
export function onPath(command: string, path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Runs a Slurm command; its stdout, or SlurmFailed with its stderr. */
export function slurm(command: string, args: readonly string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      command,
      args,
      { encoding: "utf8", timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new SlurmFailed({
              command: [command, ...args].join(" "),
              detail: (stderr || error.message).trim().split("\n").slice(-1)[0] ?? "failed",
            }),
          );
        else resolve(stdout);
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Does the partition exist? (`sinfo` lists nothing for an unknown one.) */
export async function partitionExists(partition: string): Promise<boolean> {
  const out = await slurm("sinfo", ["-h", "-p", partition, "-o", "%P"]);
  return out.trim() !== "";
}

/** Submits a batch script (given on stdin); the job's id. */
export async function sbatch(args: readonly string[], script: string): Promise<string> {
  const out = await slurm("sbatch", ["--parsable", ...args], script);
  const id = out.trim().split(";")[0] ?? "";
  if (!/^\d+$/.test(id))
    throw new SlurmFailed({ command: "sbatch", detail: `answered ${JSON.stringify(out.trim())}, not a job id` });
  return id;
}

/** One array task's state as squeue reports it (PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...). */
export interface TaskState {
  readonly task: number;
  readonly state: string;
  readonly reason: string;
}

/**
 * The states of a job array's tasks that the controller still knows (finished ones too, for MinJobAge).
 * A pending array is one line `JOB_[0-2]`: it is expanded (`-r`).
 */
export async function squeue(jobId: string): Promise<TaskState[]> {
  let out: string;
  try {
    out = await slurm("squeue", ["-h", "-r", "--states=all", "-j", jobId, "-o", "%K|%T|%r"]);
  } catch (error) {
    // A job the controller forgot (older than MinJobAge): no task is known any more.
    if (error instanceof SlurmFailed && /Invalid job id/i.test(error.detail)) return [];
    throw error;
  }
  return out
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      const [task, state, reason] = line.split("|");
      const n = Number(task);
      return Number.isInteger(n) ? [{ task: n, state: state ?? "", reason: reason ?? "" }] : [];
    });
}

/** States in which a task will not run again on its own. */
export const ENDED = new Set([
  "COMPLETED",
  "FAILED",
  "CANCELLED",
  "TIMEOUT",
  "OUT_OF_MEMORY",
  "NODE_FAIL",
  "BOOT_FAIL",
  "DEADLINE",
  "PREEMPTED",
]);

/** Sends `signal` to the job (or one task, `JOB_i`): to the batch script and everything it started. */
export async function scancel(target: string, signal?: string): Promise<void> {
  await slurm("scancel", [...(signal ? ["--full", `--signal=${signal}`] : []), target]);
}

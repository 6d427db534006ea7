/** The `--shard` and `--slurm` options of `bench agent`, `bench eval` and `bench run`. */
import { type Command, InvalidArgumentError } from "commander";
import { collect, positiveInt } from "../options.js";
import { parseShard, type Shard } from "./shard.js";

export interface SlurmCommandOptions {
  shard?: Shard;
  slurm?: boolean;
  shards?: number;
  slurmPartition?: string;
  slurmTime?: string;
  slurmCpus?: number;
  slurmMem?: string;
  slurmArg?: string[];
  detach?: boolean;
}

/** Options a task of the array does not take: the submitter's own (values taken or not), and `-q` (its progress lines feed the submitter's display). */
export const SUBMITTER_OPTIONS: Readonly<Record<string, boolean>> = {
  "--slurm": false,
  "--detach": false,
  "-q": false,
  "--quiet": false,
  "--shards": true,
  "--slurm-partition": true,
  "--slurm-time": true,
  "--slurm-cpus": true,
  "--slurm-mem": true,
  "--slurm-arg": true,
  "--shard": true,
  "--out": true,
};

export function addSlurmOptions(command: Command): Command {
  return command
    .option(
      "--shard <i/N>",
      "only the i-th of N parts of the selected instances (0-based, contiguous): runs one part of a selection split over machines",
      parseShard,
    )
    .option(
      "--slurm",
      'submit the run to Slurm as one job array of --shards tasks, each running this command on its shard on its node\'s container engine, then merge their outputs into OUT (see README, "Running on a cluster")',
    )
    .option(
      "--shards <n>",
      "with --slurm: tasks of the job array (the selection is split into this many parts)",
      positiveInt("--shards"),
    )
    .option("--slurm-partition <name>", "with --slurm: the partition (sbatch --partition)")
    .option("--slurm-time <limit>", "with --slurm: each task's time limit (sbatch --time, e.g. 4:00:00)")
    .option("--slurm-cpus <n>", "with --slurm: CPUs per task (sbatch --cpus-per-task)", positiveInt("--slurm-cpus"))
    .option("--slurm-mem <size>", "with --slurm: memory per task (sbatch --mem, e.g. 16G)")
    .option(
      "--slurm-arg <arg>",
      "with --slurm: an sbatch argument passed as is (e.g. --slurm-arg=--qos=long); repeat for several",
      collect,
    )
    .option(
      "--detach",
      "with --slurm: exit once submitted; `bench status OUT` shows progress and merges the outputs when the tasks are done",
    );
}

/** The Slurm options given without --slurm are a mistake: say so. */
export function checkSlurmOptions(opts: SlurmCommandOptions): void {
  if (opts.slurm) {
    if (opts.shard)
      throw new InvalidArgumentError(
        "error: --shard goes without --slurm (each task of --slurm gets its own); give --shards N to split the selection",
      );
    if (opts.shards === undefined)
      throw new InvalidArgumentError("error: --slurm needs --shards N: how many tasks the selection is split into");
    return;
  }
  const given = (
    ["shards", "slurmPartition", "slurmTime", "slurmCpus", "slurmMem", "slurmArg", "detach"] as const
  ).filter((k) => opts[k] !== undefined);
  if (given.length)
    throw new InvalidArgumentError(
      `error: --${given[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --slurm`,
    );
}

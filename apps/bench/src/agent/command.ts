/**
 * `bench agent`: registers the command. Bad input ends with one line on stderr and exit code 2;
 * Ctrl-C stops the run after the current instance's worktree (and container) are removed, writes
 * report.json and exits 130 (a second Ctrl-C exits at once).
 */
import { addAgentOptions, type Provider, type SandboxKind } from "@graphplan/agent";
import { type Command, InvalidArgumentError, Option } from "commander";
import { defaultGraphCacheDir } from "@graphplan/graph/disk";
import { runInterruptible } from "../interruptible.js";
import { collect, engineSlots, positiveInt, readRepoMap } from "../options.js";
import { Progress, type ProgressDisplay } from "../progress.js";
import type { InImageOptions } from "./in-image.js";
import { runAgentBench, type AgentBenchOptions } from "./harness.js";
import { tokenCount } from "./report.js";
import { runOnSlurm } from "../slurm/command.js";
import { addSlurmOptions, checkSlurmOptions, type SlurmCommandOptions } from "../slurm/options.js";

export interface AgentCommandOptions extends SlurmCommandOptions {
  dataset: string;
  repos?: string;
  repoMap?: string;
  instances?: string[];
  out: string;
  config?: string;
  provider?: Provider;
  model?: string;
  script?: string;
  sandbox: SandboxKind;
  image?: string;
  workdir: string;
  redo?: boolean;
  quiet?: boolean;
  workers: number;
  slice?: string;
  filter?: string;
  shuffle?: boolean;
  seed?: number;
  inImage?: boolean;
  namespace: string;
  tag: string;
  dockerHost?: string[];
  totalCostLimit?: number;
  graphCache: string | false;
  strategy: "graphplan" | "baseline" | "rfsn";
}

/** The --in-image options, checked against the sandbox options they replace. */
function inImageOptions(opts: AgentCommandOptions): InImageOptions | undefined {
  if (!opts.inImage) {
    if (opts.dockerHost?.length)
      throw new InvalidArgumentError(
        "error: --docker-host goes with --in-image (or use --sandbox docker with DOCKER_HOST)",
      );
    return undefined;
  }
  if (opts.sandbox !== "local" || opts.image !== undefined)
    throw new InvalidArgumentError(
      "error: --in-image runs the commands in each instance's image: leave out --sandbox and --image",
    );
  return {
    namespace: opts.namespace === "none" ? null : opts.namespace,
    tag: opts.tag,
    engines: engineSlots(opts.dockerHost, opts.workers),
  };
}

/** The options of `bench agent`, which `bench run` takes too. */
export function defineAgentOptions(command: Command): Command {
  command
    .requiredOption("--dataset <file>", "JSONL with repo, instance_id, base_commit and problem_statement per line")
    .option("--repos <dir>", "directory holding one git repository per dataset repo, as <owner>__<name> (bare or not)")
    .option("--repo-map <file>", 'JSON object mapping "owner/name" to a git directory')
    .option("--instances <ids>", "comma-separated instance ids (default: all)", (v: string) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .option("--filter <regex>", "only instance ids matching this regular expression")
    .option("--slice <a:b>", "only these instances of the selection (a Python slice, e.g. 0:20)")
    .option("--shuffle", "shuffle the instances first (seeded: --seed, default 42)")
    .option("--seed <n>", "seed of --shuffle", (v: string) => Number.parseInt(v, 10))
    .option("-w, --workers <n>", "instances at once (with --in-image: per engine)", positiveInt("-w"), 1)
    .option(
      "--total-cost-limit <usd>",
      "dollars for the whole run: no instance starts once the finished ones spent this much",
      (v: string) => {
        const n = Number(v);
        if (!(n > 0))
          throw new InvalidArgumentError(`--total-cost-limit takes a number of dollars > 0, not ${JSON.stringify(v)}`);
        return n;
      },
    )
    .option(
      "--in-image",
      "run each instance inside its instance image (bench images build), repository at /testbed, files through the engine: no host worktree, no --repos",
    )
    .option("--namespace <ns>", "image namespace, or `none` for local names", "swebench")
    .option("--tag <tag>", "image tag", "latest")
    .option(
      "--docker-host <url>",
      "container engine (unix://, tcp://, ssh://), optionally URL=N at once; repeat for several",
      collect,
    )
    .option(
      "--graph-cache <dir>",
      `where file graphs are kept across instances and runs (content-addressed; default ${defaultGraphCacheDir()})`,
      defaultGraphCacheDir(),
    )
    .option("--no-graph-cache", "parse every file of every instance again")
    .requiredOption(
      "--out <dir>",
      "output directory: preds.jsonl, report.json and <instance_id>/{trajectory.json,model.patch}",
    );
  addAgentOptions(command, "worktree")
    .addOption(
      new Option(
        "--strategy <name>",
        "graphplan: the model explores, then writes a verified plan; baseline: free-form shell edits from the first step (mini-swe-agent's loop); rfsn: the RFSN planner drives, told the instance's FAIL_TO_PASS test names",
      )
        .choices(["graphplan", "baseline", "rfsn"])
        .default("graphplan"),
    )
    .option("--redo", "run instances that are already in OUT/preds.jsonl again")
    .option("-q, --quiet", "no progress lines on stderr");
  addSlurmOptions(command);
  // Usage errors become one thrown line (the CLI prints it and exits 2) instead of commander's own exit 1.
  command.configureOutput({ outputError: () => undefined });
  command.exitOverride((error) => {
    if (error.exitCode === 0) process.exit(0); // --help
    throw new InvalidArgumentError(error.message);
  });
  return command;
}

/** The run's options from the command line, with the progress display's callbacks. */
export async function agentBenchOptions(
  opts: AgentCommandOptions,
  progress: ProgressDisplay | undefined,
  inImage = inImageOptions(opts),
): Promise<AgentBenchOptions> {
  const repoMap =
    opts.repoMap === undefined
      ? undefined
      : await readRepoMap(opts.repoMap).catch((e: Error) =>
          Promise.reject(new InvalidArgumentError(`error: --repo-map ${e.message}`)),
        );
  let submitted = 0;
  let cost = 0;
  return {
    dataset: opts.dataset,
    reposDir: opts.repos,
    repoMap,
    instances: opts.instances,
    outDir: opts.out,
    configPath: opts.config,
    model: { provider: opts.provider, model: opts.model, script: opts.script },
    strategy: opts.strategy,
    sandbox: { sandbox: opts.sandbox, image: opts.image, workdir: opts.workdir },
    redo: opts.redo,
    workers: opts.workers,
    totalCostLimit: opts.totalCostLimit,
    graphCacheDir: opts.graphCache === false ? undefined : opts.graphCache,
    inImage,
    slice: opts.slice,
    filter: opts.filter,
    shuffle: opts.shuffle,
    seed: opts.seed,
    shard: opts.shard,
    onWarning: (message) => (progress ? progress.print(message) : process.stderr.write(`${message}\n`)),
    onPhase: (id, phase) => progress?.start(id, phase),
    onEntry: (e, _done, total) => {
      if (!progress) return;
      progress.setTotal(total);
      if (e.patch_bytes > 0) submitted++;
      if (!e.resumed) cost += e.cost_usd;
      progress.setHeadline(`${submitted} submitted · $${cost.toFixed(2)}`);
      progress.finish(
        e.instance_id,
        `${e.instance_id} ${e.status}${e.cause ? ` (${e.cause})` : ""}${e.retryable ? " (retryable)" : ""}${e.auto_submitted ? " (auto-submitted)" : ""}${e.resumed ? " (done before)" : ""} ${e.model_calls} calls ${tokenCount(e.input_tokens)} in ${tokenCount(e.output_tokens)} out $${e.cost_usd.toFixed(4)} ${e.ms} ms`,
      );
    },
  };
}

export function agentCommand(program: Command): void {
  const command = defineAgentOptions(
    program
      .command("agent")
      .description(
        "run the GraphPlan agent on SWE-bench instances, each in a fresh worktree at its base commit (or, with --in-image, in its instance image); writes preds.jsonl, report.json and per-instance trajectories",
      ),
  );
  command.action(async (opts: AgentCommandOptions) => {
    checkSlurmOptions(opts);
    if (opts.slurm) return runOnSlurm("agent", opts);
    const progress = opts.quiet ? undefined : new Progress(0);
    const options = await agentBenchOptions(opts, progress);
    await runInterruptible(runAgentBench(options), {
      name: "bench agent",
      onInterrupt: "removing the current worktrees and containers, writing report.json",
      interrupted: "interrupted; the worktree was removed and report.json written",
      inputErrors: ["AgentBenchInputInvalid"],
      onSuccess: (result) => {
        const dropped = result.droppedPredLines.length
          ? `\n(dropped unreadable lines ${result.droppedPredLines.join(", ")} of the earlier preds.jsonl)`
          : "";
        process.stdout.write(`${result.table}\n\npreds: ${result.predsPath}\nreport: ${result.reportPath}${dropped}\n`);
      },
      onEnd: () => progress?.close(),
    });
  });
}

/**
 * `bench run`: the agent on the selection, each instance in its instance image (`bench agent
 * --in-image`), then `bench eval` on the predictions it wrote, in one command — ending with the
 * resolved count and the total cost. OUT holds the agent's outputs (preds.jsonl, report.json,
 * trajectories) and the evaluation's (OUT/eval/...). Run again, it resumes both.
 */
import { join } from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import * as Effect from "effect/Effect";
import { agentBenchOptions, defineAgentOptions, type AgentCommandOptions } from "./agent/command.js";
import { runAgentBench } from "./agent/harness.js";
import { spentLine } from "./agent/report.js";
import { evalEventPrinter, formatEvalResult } from "./eval/command.js";
import { runEvaluation } from "./eval/run.js";
import { runInterruptible } from "./interruptible.js";
import { engineSlots, positiveInt } from "./options.js";
import { Progress, type ProgressDisplay } from "./progress.js";
import { runOnSlurm } from "./slurm/command.js";
import { checkSlurmOptions } from "./slurm/options.js";

export interface RunCommandOptions extends AgentCommandOptions {
  runId: string;
  timeout: number;
}

/** A stage's progress display (`agent`, then `eval`), closed when the stage ends. */
export type StageDisplay = (stage: "agent" | "eval") => {
  readonly progress: ProgressDisplay | undefined;
  readonly close: () => void;
};

/**
 * `bench run`'s work on its options: the agent in the instance images, then the evaluation of its
 * predictions (OUT/eval/<run-id>/...); `print` gets the agent's table. `bench compare` runs each arm with it.
 */
export function benchRun(opts: RunCommandOptions, display: StageDisplay, print: (text: string) => void) {
  if (opts.sandbox !== "local" || opts.image !== undefined)
    throw new InvalidArgumentError("error: bench run works in each instance's image: leave out --sandbox and --image");
  const engines = engineSlots(opts.dockerHost, opts.workers);
  const namespace = opts.namespace === "none" ? null : opts.namespace;
  return Effect.gen(function* () {
    const agentDisplay = display("agent");
    const options = yield* Effect.promise(() =>
      agentBenchOptions(opts, agentDisplay.progress, { namespace, tag: opts.tag, engines }),
    );
    const agent = yield* runAgentBench(options).pipe(Effect.ensuring(Effect.sync(agentDisplay.close)));
    print(`${agent.table}\n\n`);
    const predicted = agent.entries.filter((e) => e.status !== "input_error").map((e) => e.instance_id);
    const evalDisplay = display("eval");
    const graded = yield* runEvaluation({
      preds: agent.predsPath,
      dataset: opts.dataset,
      runId: opts.runId,
      outDir: join(opts.out, "eval"),
      instances: predicted,
      engines,
      timeoutS: opts.timeout,
      namespace,
      tag: opts.tag,
      pull: true,
      runEmpty: false,
      rerun: false,
      onEvent: evalEventPrinter(evalDisplay.progress),
    }).pipe(Effect.ensuring(Effect.sync(evalDisplay.close)));
    return { agent, graded };
  });
}

/** The evaluation's options of `bench run` (besides bench agent's), which `bench compare` takes too. */
export function defineRunOptions(command: Command): Command {
  return command
    .option("--run-id <id>", "the evaluation's run id (OUT/eval/<run-id>/...)", "graphplan")
    .option("--timeout <s>", "seconds each instance's eval script may run", positiveInt("--timeout"), 1800);
}

export function runCommand(program: Command): void {
  const command = defineRunOptions(
    defineAgentOptions(
      program
        .command("run")
        .description(
          "the agent on SWE-bench instances, each inside its instance image, then bench eval on its predictions: preds, trajectories, test results, the resolved count and the cost",
        ),
    ),
  );
  command.action(async (opts: RunCommandOptions) => {
    checkSlurmOptions(opts);
    if (opts.slurm) return runOnSlurm("run", opts);
    const program = benchRun(
      opts,
      () => {
        const progress = opts.quiet ? undefined : new Progress(0);
        return { progress, close: () => progress?.close() };
      },
      (text) => process.stdout.write(text),
    );
    await runInterruptible(program, {
      name: "bench run",
      onInterrupt: "removing the running containers, writing the reports",
      interrupted: "interrupted; no container is left; run the same command again to resume",
      inputErrors: ["AgentBenchInputInvalid", "EvalInputInvalid"],
      onSuccess: ({ agent, graded }) => {
        const s = graded.summary;
        const share = s.submitted_instances
          ? ` (${((100 * s.resolved_instances) / agent.entries.length).toFixed(1)}% of ${agent.entries.length})`
          : "";
        process.stdout.write(
          `${formatEvalResult(graded)}\n\nresolved ${s.resolved_instances} of ${agent.entries.length}${share} · ${spentLine(agent.summary)}\npreds: ${agent.predsPath}\nevaluation: ${graded.summaryPath}\n`,
        );
      },
    });
  });
}

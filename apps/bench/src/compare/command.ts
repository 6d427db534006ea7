/**
 * `bench compare --arms A,B [--arms-config A.yaml,B.yaml] --provider P --model M [bench run's options] --out DIR`:
 * both arms on the same selection, each run and graded as `bench run` does under DIR/<arm>/, then the
 * paired comparison on stdout and in DIR/compare.json (see apps/bench/README.md). Bad input: one line,
 * exit 2, nothing written; Ctrl-C: exit 130, the same command resumes.
 */
import { type Command, InvalidArgumentError } from "commander";
import { defineAgentOptions } from "../agent/command.js";
import { runInterruptible } from "../interruptible.js";
import { Progress } from "../progress.js";
import { defineRunOptions, type RunCommandOptions } from "../run-command.js";
import { armStages } from "./progress.js";
import { formatComparison } from "./report.js";
import { CompareInputInvalid, parseArms, runCompare } from "./run.js";

interface CompareCommandOptions extends RunCommandOptions {
  arms: string;
  armsConfig?: string;
}

export function compareCommand(program: Command): void {
  const command = defineRunOptions(
    defineAgentOptions(
      program
        .command("compare")
        .description(
          "two agent configurations (e.g. --arms graphplan,baseline) on the same instances, each run and graded as bench run does, then the paired comparison: resolved per arm, both/only one/neither, McNemar's exact p and a bootstrap interval; DIR/compare.json",
        )
        .requiredOption(
          "--arms <a,b>",
          "the two arms: each a strategy (graphplan, baseline, rfsn) or label:strategy (e.g. short:graphplan,long:graphplan)",
        )
        .option("--arms-config <a.yaml,b.yaml>", "one agent config per arm, merged over the default (- for none)"),
    ),
  );
  command.action(async (opts: CompareCommandOptions, cmd: Command) => {
    for (const option of ["config", "strategy"] as const) {
      if (cmd.getOptionValueSource(option) === "cli")
        throw new InvalidArgumentError(
          `error: bench compare sets --${option} per arm: use --arms${option === "config" ? "-config" : ""} instead`,
        );
    }
    let arms;
    try {
      arms = parseArms(opts.arms, opts.armsConfig);
    } catch (error) {
      if (error instanceof CompareInputInvalid) throw new InvalidArgumentError(`error: ${error.message}`);
      throw error;
    }
    const scripts = opts.script?.split(",");
    if (scripts && scripts.length > 2)
      throw new InvalidArgumentError("error: --script takes one script for both arms or one per arm, comma-separated");
    const progress = opts.quiet ? undefined : new Progress(0);
    await runInterruptible(
      runCompare({
        run: opts,
        arms,
        scripts: scripts?.length === 2 ? scripts : undefined,
        display: armStages(progress, arms.length),
        onArm: (arm, resolved, total) => progress?.print(`${arm.label}: resolved ${resolved} of ${total}`),
      }),
      {
        name: "bench compare",
        onInterrupt: "removing the running containers, writing the arm's reports",
        interrupted:
          "interrupted; no container is left; run the same command again to resume (arms done are not run again)",
        inputErrors: ["AgentBenchInputInvalid", "EvalInputInvalid", "CompareInputInvalid"],
        onEnd: () => progress?.close(),
        onSuccess: ({ report, path }) =>
          process.stdout.write(`${formatComparison(report.spec, report.results)}\n\ncomparison: ${path}\n`),
      },
    );
  });
}

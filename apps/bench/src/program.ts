/** The `bench` command line program (commander). */
import { existsSync } from "node:fs";
import { Command, InvalidArgumentError } from "commander";
import { agentCommand } from "./agent/command.js";
import { imagesCommand } from "./images/command.js";
import { evalCommand } from "./eval/command.js";
import { runCommand } from "./run-command.js";
import { compareCommand } from "./compare/command.js";
import { positiveInt, readRepoMap } from "./options.js";
import { runReplay } from "./replay/batch.js";
import { slurmCommands } from "./slurm/command.js";

export function buildProgram(): Command {
  const program = new Command("bench").description("GraphPlan benchmarks");
  // Usage errors (an unknown command or option, a missing value) become one thrown line, which the
  // CLI prints and exits 2 on, in every command: subcommands inherit these settings.
  program.configureOutput({ outputError: () => undefined });
  program.exitOverride((error) => {
    if (error.exitCode === 0) process.exit(0); // --help, --version
    throw new InvalidArgumentError(error.message);
  });
  const replay = program.command("replay");
  replay
    .description(
      "compile every gold patch of a SWE-bench-style dataset into a plan, verify and execute it, and compare with the gold post-image",
    )
    .requiredOption("--dataset <file>", "JSONL with repo, instance_id, base_commit and patch per line")
    .option("--repos <dir>", "directory holding one git repository per dataset repo, as <owner>__<name> (bare or not)")
    .option("--repo-map <file>", 'JSON object mapping "owner/name" to a git directory')
    .option("--instances <ids>", "comma-separated instance ids (default: all)", (v: string) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .option("-w, --workers <n>", "worker threads", positiveInt("-w"), 1)
    .requiredOption(
      "--out <dir>",
      "output directory: <instance_id>/{plan.json,model.patch,warnings.json} and report.json",
    )
    .option("--no-git-check", "skip `git apply --check` of each model.patch against the base commit")
    .option("-q, --quiet", "no progress lines on stderr")
    .action(
      async (opts: {
        dataset: string;
        repos?: string;
        repoMap?: string;
        instances?: string[];
        workers: number;
        out: string;
        gitCheck: boolean;
        quiet?: boolean;
      }) => {
        if (!opts.repos && !opts.repoMap)
          throw new InvalidArgumentError("error: give --repos DIR and/or --repo-map FILE");
        if (opts.repos !== undefined && !existsSync(opts.repos))
          throw new InvalidArgumentError(
            `error: --repos ${opts.repos}: no such directory; give the directory holding one git repository per dataset repo, as <owner>__<name>`,
          );
        if (!existsSync(opts.dataset))
          throw new InvalidArgumentError(
            `error: --dataset ${opts.dataset}: no such file; give a SWE-bench JSONL (repo, instance_id, base_commit, patch per line)`,
          );
        const result = await runReplay({
          dataset: opts.dataset,
          reposDir: opts.repos,
          repoMap: await readRepoMap(opts.repoMap),
          instances: opts.instances,
          workers: opts.workers,
          outDir: opts.out,
          gitCheck: opts.gitCheck,
          onEntry: opts.quiet
            ? undefined
            : (entry, done, total) =>
                process.stderr.write(
                  `[${done}/${total}] ${entry.instance_id} ${entry.status}${entry.cause ? ` (${entry.cause})` : ""} ${entry.steps} steps ${entry.ms} ms\n`,
                ),
        });
        process.stdout.write(`${result.table}\n\nreport: ${result.reportPath}\n`);
      },
    );
  replay.configureOutput({ outputError: () => undefined });
  replay.exitOverride((error) => {
    if (error.exitCode === 0) process.exit(0); // --help
    throw new InvalidArgumentError(error.message);
  });
  agentCommand(program);
  imagesCommand(program);
  evalCommand(program);
  runCommand(program);
  slurmCommands(program);
  compareCommand(program);
  return program;
}

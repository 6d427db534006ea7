/** The `bench` command line program (commander). */
import { Command, InvalidArgumentError } from "commander";
import { agentCommand } from "./agent/command.js";
import { imagesCommand } from "./images/command.js";
import { evalCommand } from "./eval/command.js";
import { runCommand } from "./run-command.js";
import { readRepoMap, runReplay } from "./run.js";

const positiveInt = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("a whole number ≥ 1");
  return n;
};

export function buildProgram(): Command {
  const program = new Command("bench").description("GraphPlan benchmarks");
  program
    .command("replay")
    .description("compile every gold patch of a SWE-bench-style dataset into a plan, verify and execute it, and compare with the gold post-image")
    .requiredOption("--dataset <file>", "JSONL with repo, instance_id, base_commit and patch per line")
    .option("--repos <dir>", "directory holding one git repository per dataset repo, as <owner>__<name> (bare or not)")
    .option("--repo-map <file>", 'JSON object mapping "owner/name" to a git directory')
    .option("--instances <ids>", "comma-separated instance ids (default: all)", (v: string) => v.split(",").map((s) => s.trim()).filter(Boolean))
    .option("-w, --workers <n>", "worker threads", positiveInt, 1)
    .requiredOption("--out <dir>", "output directory: <instance_id>/{plan.json,model.patch,warnings.json} and report.json")
    .option("--no-git-check", "skip `git apply --check` of each model.patch against the base commit")
    .option("-q, --quiet", "no progress lines on stderr")
    .action(async (opts: { dataset: string; repos?: string; repoMap?: string; instances?: string[]; workers: number; out: string; gitCheck: boolean; quiet?: boolean }) => {
      if (!opts.repos && !opts.repoMap) throw new InvalidArgumentError("give --repos DIR and/or --repo-map FILE");
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
    });
  agentCommand(program);
  imagesCommand(program);
  evalCommand(program);
  runCommand(program);
  return program;
}

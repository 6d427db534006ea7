/**
 * `bench eval`: registers the command. Bad input ends with one line on stderr and exit code 2;
 * Ctrl-C removes the running containers, writes the summary and exits 130 (a second Ctrl-C exits
 * at once); a later run with the same --run-id resumes.
 */
import { type Command, InvalidArgumentError } from "commander";
import { runInterruptible } from "../interruptible.js";
import { collect, engineSlots, positiveInt } from "../options.js";
import { Progress, type ProgressDisplay } from "../progress.js";
import { quantile } from "../figures.js";
import type { InstanceOutcome } from "./instance.js";
import { addressWarning } from "./network.js";
import { runEvaluation, type EvalEvent, type EvalResult } from "./run.js";
import { runOnSlurm } from "../slurm/command.js";
import { addSlurmOptions, checkSlurmOptions, type SlurmCommandOptions } from "../slurm/options.js";

interface EvalCommandOptions extends SlurmCommandOptions {
  preds: string;
  dataset: string;
  runId: string;
  out: string;
  workers: number;
  instances?: string[];
  timeout: number;
  namespace: string;
  tag: string;
  dockerHost?: string[];
  pull: boolean;
  runEmptyPatches?: boolean;
  rerun?: boolean;
  quiet?: boolean;
}

/** The figures printed at the end: the summary's counts and the harness's overhead per instance. */
export function formatEvalResult(result: EvalResult): string {
  const s = result.summary;
  const graded = result.outcomes.filter(
    (o) => o.stages !== undefined && (o.status === "resolved" || o.status === "unresolved"),
  );
  const overhead = graded.map((o) => o.ms - o.stages!.tests);
  const tests = graded.map((o) => o.stages!.tests);
  const median = (values: number[]) => {
    const m = quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
    return m === null ? "–" : `${(m / 1000).toFixed(2)} s`;
  };
  const rows: [string, string | number][] = [
    ["total instances", s.total_instances],
    ["submitted", s.submitted_instances],
    ["completed", s.completed_instances],
    ["resolved", s.resolved_instances],
    ["unresolved", s.unresolved_instances],
    ["empty patch", s.empty_patch_instances],
    ["error", s.error_instances],
    ["skipped (graded before)", result.skipped.length],
    ["harness overhead per instance, median (all but the test run)", median(overhead)],
    ["test run per instance, median", median(tests)],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  const errors = result.outcomes
    .filter((o) => o.status === "error")
    .map((o) => `  ${o.instance_id}: ${o.reason ?? "error"}`);
  const warnings = result.warnings.map((w) => `  ${w}`);
  return [
    ...rows.map(([k, v]) => `${k.padEnd(width)}  ${v}`),
    ...(errors.length ? ["errors:", ...errors] : []),
    ...(warnings.length ? ["warnings:", ...warnings] : []),
  ].join("\n");
}

/** Shows the run's events on a progress display (nothing without one). */
export function evalEventPrinter(progress: ProgressDisplay | undefined): (event: EvalEvent) => void {
  const counts = { resolved: 0, unresolved: 0, error: 0 };
  const headline = () => `resolved ${counts.resolved} · unresolved ${counts.unresolved} · error ${counts.error}`;
  const line = (o: InstanceOutcome) =>
    `${o.instance_id} ${o.status}${o.reason ? ` (${o.reason})` : ""} ${(o.ms / 1000).toFixed(1)} s`;
  return (event) => {
    if (!progress) return;
    switch (event.type) {
      case "planned":
        progress.setTotal(event.total);
        if (event.skipped)
          progress.print(
            `${event.skipped} instance(s) already graded in this run: skipped (--rerun grades them again)`,
          );
        if (event.engines.length) progress.print(`engines: ${event.engines.join(", ")}`);
        return;
      case "started":
        progress.start(event.instance_id, event.engine);
        return;
      case "finished":
        if (event.outcome.status !== "empty_patch") counts[event.outcome.status] += 1;
        progress.setHeadline(headline());
        progress.finish(event.outcome.instance_id, line(event.outcome));
        return;
      case "network": {
        const warning = addressWarning(event.engine, event.image, event.probe);
        if (warning !== undefined) progress.print(`warning: ${warning}`);
        return;
      }
      case "engine_lost":
        progress.print(
          `engine ${event.engine} stopped answering (${event.detail}): taken out of the rotation; ${event.requeued} runs again elsewhere`,
        );
        return;
    }
  };
}

export function evalCommand(program: Command): void {
  const command = program
    .command("eval")
    .description(
      "grade predictions by running each instance's tests in its container, as the SWE-bench harness does; writes OUT/<run-id>/<model>/<instance_id>/ and OUT/<model>.<run-id>.json",
    )
    .requiredOption(
      "--preds <file>",
      "predictions: JSONL (bench agent's preds.jsonl), a JSON list, or a JSON object keyed by instance_id; `gold` grades the dataset's reference patches",
    )
    .requiredOption(
      "--dataset <file>",
      "SWE-bench JSONL (repo, instance_id, base_commit, version, test_patch, FAIL_TO_PASS, PASS_TO_PASS)",
    )
    .requiredOption(
      "--run-id <id>",
      "names this evaluation (log directory, summary file, containers); the same id resumes",
    )
    .requiredOption("--out <dir>", "output directory")
    .option("-w, --workers <n>", "containers at once (per engine)", positiveInt("-w"), 1)
    .option("--instances <ids>", "comma-separated instance ids (default: every predicted one)", (v: string) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .option("--timeout <s>", "seconds the eval script may run", positiveInt("--timeout"), 1800)
    .option(
      "--namespace <ns>",
      "image namespace, or `none` for locally named images (sweb.eval.x86_64.<id>)",
      "swebench",
    )
    .option("--tag <tag>", "image tag", "latest")
    .option(
      "--docker-host <url>",
      "container engine (unix://, tcp://, ssh://), optionally URL=N containers at once; repeat for several engines (default DOCKER_HOST)",
      collect,
    )
    .option("--no-pull", "never pull a missing image (fail the instance instead)")
    .option(
      "--run-empty-patches",
      "run the tests of empty predictions too (to check that an environment fails without a fix); the harness records them as empty_patch",
    )
    .option("--rerun", "grade again the instances that already have a report.json in this run")
    .option("-q, --quiet", "no progress on stderr");
  addSlurmOptions(command);
  command.configureOutput({ outputError: () => undefined });
  command.exitOverride((error) => {
    if (error.exitCode === 0) process.exit(0);
    throw new InvalidArgumentError(error.message);
  });
  command.action(async (opts: EvalCommandOptions) => {
    checkSlurmOptions(opts);
    if (opts.slurm) return runOnSlurm("eval", opts);
    const progress = opts.quiet ? undefined : new Progress(0);
    await runInterruptible(
      runEvaluation({
        preds: opts.preds,
        dataset: opts.dataset,
        runId: opts.runId,
        outDir: opts.out,
        instances: opts.instances,
        shard: opts.shard,
        engines: engineSlots(opts.dockerHost, opts.workers),
        timeoutS: opts.timeout,
        namespace: opts.namespace === "none" ? null : opts.namespace,
        tag: opts.tag,
        pull: opts.pull,
        runEmpty: opts.runEmptyPatches ?? false,
        rerun: opts.rerun ?? false,
        onEvent: evalEventPrinter(progress),
      }),
      {
        name: "bench eval",
        onInterrupt: "removing the running containers, writing the summary",
        interrupted: "interrupted; no container is left, the summary is written; run the same command again to resume",
        inputErrors: ["EvalInputInvalid"],
        onSuccess: (result) => process.stdout.write(`${formatEvalResult(result)}\n\nsummary: ${result.summaryPath}\n`),
        onEnd: () => progress?.close(),
      },
    );
  });
}

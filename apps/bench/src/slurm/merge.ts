/**
 * The shards' outputs merged into the files a single-machine run writes in OUT, with the writers that
 * run uses: `preds.jsonl` (agent/preds.ts), `report.json` (agent/report.ts's schema and summary), the
 * per-instance directories, and for an evaluation its log tree and summary (eval/run.ts). An instance
 * that no shard ran to an entry (its task was cancelled, failed, or lost its engine) is a
 * `harness_error`: not in preds.jsonl, so the same command runs it again.
 */
import { cp, readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { readPredictions, writePredictions, type Prediction } from "../agent/preds.js";
import {
  AgentReportSchema,
  blankEntry,
  formatAgentSummary,
  summarizeAgent,
  type AgentReport,
  type AgentReportEntry,
  type AgentSummary,
} from "../agent/report.js";
import { evaluationSelection, writeEvaluationSummary, type EvalOptions } from "../eval/run.js";
import type { RunSummary } from "../eval/grading.js";
import { addressWarning, readNetworkChecks, writeNetworkChecks, type NetworkCheck } from "../eval/network.js";
import { shardOf } from "./shard.js";

/**
 * The evaluation options of a run that is only read and merged, never run here (no engine, no containers):
 * what the merge and the submitter's selection need of `bench eval`'s options.
 */
export const mergeOptions = (
  read: Pick<EvalOptions, "preds" | "dataset" | "runId" | "outDir" | "instances"> & { readonly runEmpty?: boolean },
): EvalOptions => ({
  ...read,
  runEmpty: read.runEmpty ?? false,
  engines: [],
  timeoutS: 1,
  namespace: null,
  tag: "latest",
  pull: false,
  rerun: false,
});

/** Where shard i of OUT writes: `OUT/shards/<i>/`. */
export const shardDir = (out: string, index: number): string => join(out, "shards", String(index));

async function readAgentReport(path: string): Promise<AgentReport | undefined> {
  try {
    const parsed = AgentReportSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export interface AgentMerge {
  readonly entries: AgentReportEntry[];
  readonly summary: AgentSummary;
  readonly table: string;
  readonly predsPath: string;
  readonly reportPath: string;
  readonly predictions: Map<string, Prediction>;
}

/** Instance ids whose shard has a final agent result: in its preds.jsonl, or an input error (which a rerun cannot change). */
export async function agentFinal(dir: string): Promise<Set<string>> {
  const final = new Set((await readPredictions(join(dir, "preds.jsonl"))).predictions.keys());
  for (const e of (await readAgentReport(join(dir, "report.json")))?.instances ?? [])
    if (e.status === "input_error") final.add(e.instance_id);
  return final;
}

/**
 * Merges the agent's outputs of `shards` shards of the selection `selected` (ids in selection order)
 * into `out`: preds.jsonl and report.json in selection order, each instance's directory copied.
 */
export async function mergeAgent(
  out: string,
  selected: readonly string[],
  shards: number,
  totalMs: number,
): Promise<AgentMerge> {
  const predictions = new Map<string, Prediction>();
  const entries = new Map<string, AgentReportEntry>();
  let header: AgentReport | undefined;
  let interrupted = false;
  for (let index = 0; index < shards; index++) {
    const dir = shardDir(out, index);
    const ids = shardOf(selected, { index, count: shards });
    const preds = await readPredictions(join(dir, "preds.jsonl"));
    const report = await readAgentReport(join(dir, "report.json"));
    header ??= report;
    if (report?.interrupted) interrupted = true;
    const byId = new Map((report?.instances ?? []).map((e) => [e.instance_id, e]));
    for (const id of ids) {
      const prediction = preds.predictions.get(id);
      if (prediction) predictions.set(id, prediction);
      const entry = byId.get(id);
      if (entry) entries.set(id, entry);
      else
        entries.set(
          id,
          blankEntry(id, "harness_error", {
            cause: "slurm_task",
            error: `the Slurm task of shard ${index} ended before it ran this instance (see ${join(dir, "bench.log")}); run the same command again to run it`,
          }),
        );
    }
    // Each instance's directory (trajectory, patch), copied side by side.
    const present = new Set(await readdir(dir).catch(() => [] as string[]));
    await Promise.all(
      ids
        .filter((id) => present.has(id))
        .map((id) => cp(join(dir, id), join(out, id), { recursive: true, force: true })),
    );
  }
  const ordered = selected.map((id) => entries.get(id)!);
  const summary = summarizeAgent(ordered, totalMs);
  const predsPath = join(out, "preds.jsonl");
  const reportPath = join(out, "report.json");
  const report: AgentReport = {
    format: "graphplan-bench-agent/1",
    dataset: header?.dataset ?? "",
    created: new Date().toISOString(),
    model: header?.model ?? null,
    config: header?.config ?? "",
    strategy: header?.strategy ?? "graphplan",
    sandbox: header?.sandbox ?? "",
    interrupted: interrupted || ordered.some((e) => e.cause === "slurm_task"),
    summary: { ...summary },
    instances: ordered,
  };
  await writeFile(reportPath, `${JSON.stringify(report, null, 2)}\n`);
  await writePredictions(
    predsPath,
    selected.flatMap((id) => (predictions.has(id) ? [predictions.get(id)!] : [])),
  );
  return { entries: ordered, summary, table: formatAgentSummary(summary), predsPath, reportPath, predictions };
}

/** Instance ids an evaluation in `dir` graded (a report.json in their log directory). */
export async function evalFinal(options: EvalOptions, dir: string): Promise<Set<string>> {
  const { selected, logDir } = await evaluationSelection({ ...options, outDir: dir });
  const final = new Set<string>();
  for (const id of selected)
    if (
      await readFile(join(logDir(id), "report.json")).then(
        () => true,
        () => false,
      )
    )
      final.add(id);
  return final;
}

/**
 * Merges the evaluations of `shards` shard directories (`evalDirOf(i)`) into `options.outDir`: their
 * log trees (OUT/<run-id>/<model>/<id>/) copied, every shard's network checks kept in one network.json
 * (their warnings returned, as a single-machine run returns its own), then the run's summary written.
 */
export async function mergeEval(
  options: EvalOptions,
  shards: number,
  evalDirOf: (index: number) => string,
): Promise<{ summary: RunSummary; path: string; warnings: string[] }> {
  const checks: NetworkCheck[] = [];
  for (let index = 0; index < shards; index++) {
    const from = join(evalDirOf(index), options.runId);
    if (
      await readdir(from).then(
        () => true,
        () => false,
      )
    ) {
      checks.push(...(await readNetworkChecks(evalDirOf(index), options.runId)));
      await cp(from, join(options.outDir, options.runId), { recursive: true, force: true });
    }
  }
  if (checks.length) await writeNetworkChecks(options.outDir, options.runId, checks);
  const warnings = checks.flatMap((c) => addressWarning(c.engine, c.image, c.probe) ?? []);
  return { ...(await writeEvaluationSummary(options)), warnings };
}

/** `OUT/report.json` of `bench agent`: one entry per instance, a summary, and the summary as a text table. */
import { EXIT_STATUSES, PHASES, trajectoryUsage, type Trajectory } from "@graphplan/agent";
import { cacheReadShare, emptyTotals, sumTotals, type UsageTotals } from "@graphplan/runtime";
import { UsageFiguresSchema, type UsageFigures } from "@graphplan/viewer";
import { z } from "zod";
import { causeRows, quantile, table } from "../figures.js";

export const AGENT_STATUSES = [...EXIT_STATUSES, "input_error", "harness_error", "skipped"] as const;
export const AgentStatusSchema = z
  .enum(AGENT_STATUSES)
  .describe(
    "Submitted / LimitsExceeded / Failed: the agent's exit status (trajectory.json says why); " +
      "input_error: the instance could not be run (bad dataset line, unknown instance id, unknown repository, missing commit); " +
      "harness_error: the harness could not run it (worktree or sandbox could not be set up, a crash); " +
      "skipped: already in preds.jsonl and no earlier report entry for it",
  );
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

export const AgentReportEntrySchema = z.object({
  instance_id: z.string(),
  repo: z.string().optional(),
  status: AgentStatusSchema,
  /** For input_error / harness_error: a groupable cause (`missing_commit`, `SandboxUnavailable`, ...). */
  cause: z.string().optional(),
  /** For input_error / harness_error: what went wrong and how to fix it. */
  error: z.string().optional(),
  /** The trajectory's `exitReason`. */
  exit_reason: z.string().optional(),
  /** Model calls, dollars and tokens (input: all, cached or not; of it cache reads and writes; output). */
  ...UsageFiguresSchema.shape,
  /** The phases entered, in order, consecutive repeats dropped (e.g. explore, graph, plan, verify, execute, review, submit). */
  phases: z.array(z.enum(PHASES)),
  /** The run fell back to the plain step loop; `fallback_reason` says why. */
  fell_back: z.boolean(),
  fallback_reason: z.string().optional(),
  /** The files EXPLORE settled on (null: it did not get there). */
  files: z.array(z.string()).nullable(),
  /** Plan replies (valid or not) and how many of them were valid plans. */
  plans: z.number().int().nonnegative(),
  valid_plans: z.number().int().nonnegative(),
  /** Submission attempts (each checked; rejected ones went back to the model). */
  submissions: z.number().int().nonnegative(),
  /** The submitted patch: bytes (UTF-8), files, added and removed lines. All 0 when nothing was submitted. */
  patch_bytes: z.number().int().nonnegative(),
  patch_files: z.number().int().nonnegative(),
  patch_added: z.number().int().nonnegative(),
  patch_removed: z.number().int().nonnegative(),
  /** Wall time of the instance, worktree set-up and clean-up included. */
  ms: z.number().nonnegative(),
  /**
   * Of `ms`: waiting for the model (with `--provider replay`, also making the replay model: compiling the
   * reference patch stands for the model's reply), and running the model's commands; the rest is the harness's overhead.
   */
  model_ms: z.number().nonnegative().optional(),
  command_ms: z.number().nonnegative().optional(),
  /** Of the harness's time: bringing the instance's environment up (worktree, or the container of its image), and down again (what the instance waited for of it). */
  setup_ms: z.number().nonnegative().optional(),
  teardown_ms: z.number().nonnegative().optional(),
  /** Of the harness's time: building code graphs (GRAPH, and VERIFY's graphs of the plan's files and of the repository). */
  graph_ms: z.number().nonnegative().optional(),
  /** What could not be cleaned up after the instance (should never happen). */
  cleanup_problems: z.array(z.string()).optional(),
  /** The entry comes from an earlier run's report (the instance was in preds.jsonl and not redone). */
  resumed: z.boolean().optional(),
  /** The run ended on an outage (the provider after its retries, the sandbox): not in preds.jsonl, run again on resume. */
  retryable: z.boolean().optional(),
  /** A limit ended the run after edits, and the work tree's diff was submitted. */
  auto_submitted: z.boolean().optional(),
});
export type AgentReportEntry = z.infer<typeof AgentReportEntrySchema>;

export const AgentReportSchema = z.object({
  format: z.literal("graphplan-bench-agent/1"),
  dataset: z.string(),
  created: z.string(),
  model: z.string().nullable(),
  config: z.string(),
  /** The agent's strategy (`--strategy`): graphplan, baseline (free-form shell edits), or rfsn (the RFSN planner drives). */
  strategy: z.enum(["graphplan", "baseline", "rfsn"]).default("graphplan"),
  sandbox: z.string(),
  /** The run was stopped (Ctrl-C, or a crash of the harness) before every instance ran; `instances` holds those that did. */
  interrupted: z.boolean(),
  summary: z.record(z.string(), z.unknown()),
  instances: z.array(AgentReportEntrySchema),
});
export type AgentReport = z.infer<typeof AgentReportSchema>;

/** Files, added and removed lines of a unified diff. */
export function patchStats(patch: string): { bytes: number; files: number; added: number; removed: number } {
  const lines = patch.split("\n");
  return {
    bytes: Buffer.byteLength(patch, "utf8"),
    files: lines.filter((l) => l.startsWith("diff --git ")).length,
    added: lines.filter((l) => l.startsWith("+") && !l.startsWith("+++ ")).length,
    removed: lines.filter((l) => l.startsWith("-") && !l.startsWith("--- ")).length,
  };
}

/** Runtime's totals as the bench's files spell them. */
export const usageFigures = (t: UsageTotals): UsageFigures => ({
  model_calls: t.modelCalls,
  cost_usd: t.costUsd,
  input_tokens: t.inputTokens,
  output_tokens: t.outputTokens,
  cache_read_tokens: t.cacheReadTokens,
  cache_write_tokens: t.cacheWriteTokens,
});

/** The figures of a file (a report entry, a prediction's `usage`) as runtime's totals. */
export const usageTotals = (f: UsageFigures): UsageTotals => ({
  modelCalls: f.model_calls,
  costUsd: f.cost_usd,
  inputTokens: f.input_tokens,
  outputTokens: f.output_tokens,
  cacheReadTokens: f.cache_read_tokens,
  cacheWriteTokens: f.cache_write_tokens,
});

/** An entry with nothing measured (for instances the agent did not run). */
export function blankEntry(
  instanceId: string,
  status: AgentStatus,
  extra: Partial<AgentReportEntry> = {},
): AgentReportEntry {
  return {
    instance_id: instanceId,
    status,
    ...usageFigures(emptyTotals()),
    phases: [],
    fell_back: false,
    files: null,
    plans: 0,
    valid_plans: 0,
    submissions: 0,
    patch_bytes: 0,
    patch_files: 0,
    patch_added: 0,
    patch_removed: 0,
    ms: 0,
    ...extra,
  };
}

/** The report entry of an instance the agent ran. */
export function trajectoryEntry(t: Trajectory, repo: string, ms: number): AgentReportEntry {
  const phases = t.transitions.map((tr) => tr.to).filter((p, i, all) => p !== all[i - 1]);
  // Entered from another phase: a `--strategy baseline` run starts in the step loop, it does not fall back.
  const fallback = t.transitions.find((tr) => tr.to === "fallback" && tr.from !== null);
  const stats = patchStats(t.patch);
  return {
    instance_id: t.instance.id ?? "",
    repo,
    // A finished trajectory never says Running.
    status: t.exitStatus === "Running" ? "Failed" : t.exitStatus,
    exit_reason: t.exitReason,
    ...(t.retryable ? { retryable: true } : {}),
    ...(t.totals.modelMs === undefined ? {} : { model_ms: t.totals.modelMs }),
    ...(t.totals.commandMs === undefined ? {} : { command_ms: t.totals.commandMs }),
    ...(t.totals.graphMs === undefined ? {} : { graph_ms: t.totals.graphMs }),
    ...(t.autoSubmitted ? { auto_submitted: true } : {}),
    ...usageFigures(trajectoryUsage(t)),
    phases,
    fell_back: fallback !== undefined,
    ...(fallback ? { fallback_reason: fallback.reason } : {}),
    files: t.files,
    plans: t.plans.length,
    valid_plans: t.plans.filter((p) => p.valid).length,
    submissions: t.submissions.length,
    patch_bytes: stats.bytes,
    patch_files: stats.files,
    patch_added: stats.added,
    patch_removed: stats.removed,
    ms,
  };
}

/** The run's summary; its model calls, dollars and tokens are the entries' summed. */
export interface AgentSummary extends Readonly<UsageTotals> {
  readonly instances: number;
  readonly byStatus: Record<AgentStatus, number>;
  /** Instances with a non-empty submitted patch. */
  readonly submittedPatches: number;
  readonly fellBack: number;
  /** Instances whose EXPLORE named files (so GRAPH/PLAN started). */
  readonly planned: number;
  /** Entries carried over from an earlier run. */
  readonly resumed: number;
  /** Runs that ended on an outage (or a harness error): not in preds.jsonl, run again on resume. */
  readonly retryable: number;
  /** Instances that are not Submitted, grouped by `status: cause` (or `status`). */
  readonly failures: Record<string, string[]>;
  readonly cleanupProblems: number;
  readonly totalMs: number;
  /** Median over the instances the agent ran of `ms − model_ms − command_ms` (null: none ran). */
  readonly overheadMedianMs: number | null;
  /** The same without graph building (`− graph_ms`), and medians of its parts: environment up, down, graphs. */
  readonly overheadBesideGraphMedianMs: number | null;
  readonly setupMedianMs: number | null;
  readonly teardownMedianMs: number | null;
  readonly graphMedianMs: number | null;
}

export function summarizeAgent(entries: readonly AgentReportEntry[], totalMs: number): AgentSummary {
  const byStatus = Object.fromEntries(AGENT_STATUSES.map((s) => [s, 0])) as Record<AgentStatus, number>;
  const failures: Record<string, string[]> = {};
  let submittedPatches = 0;
  let fellBack = 0;
  let planned = 0;
  let resumed = 0;
  let retryable = 0;
  let cleanupProblems = 0;
  for (const e of entries) {
    byStatus[e.status]++;
    if (e.patch_bytes > 0) submittedPatches++;
    if (e.fell_back) fellBack++;
    if (e.files !== null) planned++;
    if (e.resumed) resumed++;
    if (e.retryable || e.status === "harness_error") retryable++;
    if (e.cleanup_problems?.length) cleanupProblems++;
    const cause = e.cause ?? (e.retryable ? "retryable" : undefined);
    if (e.status !== "Submitted") (failures[cause ? `${e.status}: ${cause}` : e.status] ??= []).push(e.instance_id);
  }
  const ran = entries.filter((e) => !e.resumed && e.model_ms !== undefined && e.command_ms !== undefined);
  const median = (values: readonly number[]) =>
    quantile(
      [...values].sort((a, b) => a - b),
      0.5,
    );
  const overhead = (e: AgentReportEntry) => e.ms - e.model_ms! - e.command_ms!;
  return {
    instances: entries.length,
    byStatus,
    submittedPatches,
    fellBack,
    planned,
    ...sumTotals(entries.map(usageTotals)),
    resumed,
    retryable,
    failures,
    cleanupProblems,
    totalMs,
    overheadMedianMs: median(ran.map(overhead)),
    overheadBesideGraphMedianMs: median(ran.map((e) => overhead(e) - (e.graph_ms ?? 0))),
    setupMedianMs: median(ran.flatMap((e) => (e.setup_ms === undefined ? [] : [e.setup_ms]))),
    teardownMedianMs: median(ran.flatMap((e) => (e.teardown_ms === undefined ? [] : [e.teardown_ms]))),
    graphMedianMs: median(ran.flatMap((e) => (e.graph_ms === undefined ? [] : [e.graph_ms]))),
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** A token count for people: 950, 1.2k, 35k, 1.2M, 12M. */
export function tokenCount(n: number): string {
  if (n < 1000) return String(Math.round(n));
  for (const [unit, size] of [
    ["k", 1e3],
    ["M", 1e6],
  ] as const) {
    const v = n / size;
    const text = v < 9.95 ? v.toFixed(1).replace(/\.0$/, "") : String(Math.round(v));
    if (Number(text) < 1000) return `${text}${unit}`;
  }
  const v = n / 1e9;
  return `${v < 9.95 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)}B`;
}

const percent = (x: number) => `${Math.round(100 * x)}%`;

/** Tokens in one line: `1.2M in (84% cache reads, 3% cache writes), 35k out` (writes only when there were some). */
export function formatTokens(t: UsageTotals): string {
  const cache =
    t.inputTokens === 0
      ? ""
      : ` (${percent(cacheReadShare(t))} cache reads${t.cacheWriteTokens ? `, ${percent(t.cacheWriteTokens / t.inputTokens)} cache writes` : ""})`;
  return `${tokenCount(t.inputTokens)} in${cache}, ${tokenCount(t.outputTokens)} out`;
}

/** The end of a run's last line: `total cost $0.1234 · tokens: 1.2M in (84% cache reads), 35k out`. */
export const spentLine = (t: UsageTotals): string => `total cost $${t.costUsd.toFixed(4)} · tokens: ${formatTokens(t)}`;

/** The summary as the table the CLI prints. */
export function formatAgentSummary(s: AgentSummary): string {
  const rows: Array<readonly [string, string]> = [
    ["instances", `${s.instances}${s.resumed ? ` (${s.resumed} from an earlier run)` : ""}`],
    ...AGENT_STATUSES.filter(
      (st) => s.byStatus[st] > 0 || EXIT_STATUSES.includes(st as (typeof EXIT_STATUSES)[number]),
    ).map((st) => [`  ${st}`, String(s.byStatus[st])] as const),
    ["submitted patches", String(s.submittedPatches)],
    ["explore named files", String(s.planned)],
    ["fell back", String(s.fellBack)],
    ["model calls", String(s.modelCalls)],
    ["total cost", `$${s.costUsd.toFixed(4)}`],
    ["tokens", formatTokens(s)],
    ...(s.retryable ? [["retryable (run again on resume)", String(s.retryable)] as const] : []),
    ...(s.cleanupProblems ? [["cleanup problems", String(s.cleanupProblems)] as const] : []),
    ["total time", `${(s.totalMs / 1000).toFixed(1)} s`],
    ...(s.overheadMedianMs === null
      ? []
      : [
          [
            "harness overhead per instance, median",
            `${seconds(s.overheadMedianMs)} (all but the model and its commands)`,
          ] as const,
        ]),
    ...(s.overheadBesideGraphMedianMs === null
      ? []
      : [
          [
            "  beside the graph, median",
            `${seconds(s.overheadBesideGraphMedianMs)} (without building code graphs)`,
          ] as const,
          [
            "  of it: environment up / down / graphs",
            [s.setupMedianMs, s.teardownMedianMs, s.graphMedianMs]
              .map((ms) => (ms === null ? "-" : seconds(ms)))
              .join(" / ") + " (medians)",
          ] as const,
        ]),
  ];
  const out = [table(rows)];
  const failures = causeRows(s.failures);
  if (failures.length) out.push("", "not submitted:", table(failures));
  return out.join("\n");
}

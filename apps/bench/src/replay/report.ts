/** The replay report: one entry per instance, a summary, and the summary as a text table. */
import { z } from "zod";
import { causeRows, quantile, table } from "../figures.js";

/** The kinds of file the structural share is reported for (`fileKind` of instance.ts), in the report's order. */
export const FILE_KINDS = ["code", "shell", "css", "html", "data", "text"] as const;

export const STATUSES = ["exact", "mismatch", "compile_error", "verify_error", "exec_error", "input_error"] as const;
export const StatusSchema = z
  .enum(STATUSES)
  .describe(
    "exact: the executed plan reproduces the post-image byte for byte; mismatch: it ran but the result differs; " +
      "compile_error / verify_error / exec_error: the compiler, the verifier or the execution failed; " +
      "input_error: the dataset line, the repository, the commit or the patch could not be used",
  );
export type Status = z.infer<typeof StatusSchema>;

const counts = z.record(z.string(), z.number().int().nonnegative());

export const ReportEntrySchema = z.object({
  instance_id: z.string(),
  repo: z.string().optional(),
  status: StatusSchema,
  /** A short, groupable cause for every status but `exact` (an error tag, `missing_commit`, ...). */
  cause: z.string().optional(),
  error: z.string().optional(),
  /** Files the gold patch changes. */
  files: z.array(z.string()).default([]),
  steps: z.number().int().nonnegative(),
  /** Steps per tier: "0" primitives/composed/legacy, "1" surgery, "2" templates, "3" fragments. */
  tiers: counts,
  /** Steps per operator name (`replace_node`, `template:add_import`, `fragment:insert_after`, ...). */
  ops: counts,
  /** Steps that use a legacy text operator (replace_code, insert_code, delete_lines, ...). */
  legacy_steps: z.number().int().nonnegative(),
  /** Steps of the text tier (replace_text, insert_text, append_text, write_file): changes no node step expresses. */
  text_steps: z.number().int().nonnegative().default(0),
  /**
   * Changes of content per kind of file ("code", "data" for JSON/YAML/TOML, "text" for the rest), and
   * how many of them structural steps express: the compiler's quality figure (text steps reproduce the rest).
   */
  changes: z
    .record(z.string(), z.object({ all: z.number().int().nonnegative(), structural: z.number().int().nonnegative() }))
    .default({}),
  /** Kinds of the steps' target locators (`function`, `if_statement`, ...), with `+field`/`+nth_child`/`+index` marks. */
  locator_kinds: counts,
  /** Bytes the gold patch changes (removed + added lines, newlines included). */
  gold_bytes: z.number().int().nonnegative(),
  /** Bytes the plan's executed edits replace (removed + inserted). */
  edit_bytes: z.number().int().nonnegative(),
  /** edit_bytes ÷ gold_bytes, for plans that executed. */
  amplification: z.number().nullable(),
  warnings: z.number().int().nonnegative(),
  /** How many times the plan was recompiled because the verifier rejected steps. */
  revisions: z.number().int().nonnegative().default(0),
  /** The plan was compiled again running every step (a forecast of the primitives' output was wrong). */
  rechecked: z.boolean().optional(),
  /** The verifier's rejections that led to the revisions: `form [level] message`. */
  rejected: z.array(z.string()).optional(),
  /** `git apply --cached --check` of model.patch against the base commit. */
  git_apply: z.enum(["ok", "failed", "skipped"]),
  ms: z.number().nonnegative(),
  /** Milliseconds per phase: read (git, patch), compile, verify, execute, check (diff, git apply). */
  phase_ms: z.record(z.string(), z.number()).optional(),
});
export type ReportEntry = z.infer<typeof ReportEntrySchema>;

/** An entry with nothing measured yet (status exact until something fails). */
export function emptyEntry(instanceId: string, repo?: string): ReportEntry {
  return {
    instance_id: instanceId,
    ...(repo ? { repo } : {}),
    status: "exact",
    files: [],
    steps: 0,
    tiers: {},
    ops: {},
    legacy_steps: 0,
    text_steps: 0,
    changes: {},
    locator_kinds: {},
    gold_bytes: 0,
    edit_bytes: 0,
    amplification: null,
    warnings: 0,
    revisions: 0,
    git_apply: "skipped",
    ms: 0,
  };
}

/** The entry of an instance whose replay crashed (a bug, not a property of the instance). */
export function crashEntry(instanceId: string, error: unknown): ReportEntry {
  return {
    ...emptyEntry(instanceId),
    status: "exec_error",
    cause: "crash",
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  };
}

export interface Summary {
  readonly instances: number;
  readonly byStatus: Record<Status, number>;
  readonly exact: number;
  readonly steps: number;
  /** Steps per tier over all plans. */
  readonly tiers: Record<string, number>;
  readonly ops: Record<string, number>;
  readonly locatorKinds: Record<string, number>;
  /** Instances with a plan that uses no legacy operator ÷ all instances. */
  readonly legacyFreeShare: number;
  readonly legacyFree: number;
  /** Changes of content per kind of file over all plans, and how many structural steps express. */
  readonly changes: Record<string, { all: number; structural: number }>;
  readonly amplificationMedian: number | null;
  readonly amplificationP90: number | null;
  /** Non-exact instances grouped by `status: cause`. */
  readonly failures: Record<string, string[]>;
  readonly gitApplyFailed: number;
  readonly totalMs: number;
  readonly workers: number;
}

export const ReportSchema = z.object({
  dataset: z.string(),
  created: z.string(),
  summary: z.record(z.string(), z.unknown()),
  instances: z.array(ReportEntrySchema),
});

const add = (into: Record<string, number>, from: Record<string, number>): void => {
  for (const [k, v] of Object.entries(from)) into[k] = (Object.hasOwn(into, k) ? into[k]! : 0) + v;
};

export function summarize(entries: readonly ReportEntry[], totalMs: number, workers: number): Summary {
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  const tiers: Record<string, number> = {};
  const ops: Record<string, number> = {};
  const locatorKinds: Record<string, number> = {};
  const failures: Record<string, string[]> = {};
  const amplifications: number[] = [];
  let steps = 0;
  let legacyFree = 0;
  let gitApplyFailed = 0;
  const changes: Record<string, { all: number; structural: number }> = {};
  for (const e of entries) {
    for (const [kind, c] of Object.entries(e.changes ?? {})) {
      const into = (changes[kind] ??= { all: 0, structural: 0 });
      into.all += c.all;
      into.structural += c.structural;
    }
    byStatus[e.status]++;
    steps += e.steps;
    add(tiers, e.tiers);
    add(ops, e.ops);
    add(locatorKinds, e.locator_kinds);
    if (e.steps > 0 && e.legacy_steps === 0) legacyFree++;
    if (e.status === "exact" && e.amplification !== null) amplifications.push(e.amplification);
    if (e.git_apply === "failed") gitApplyFailed++;
    if (e.status !== "exact") (failures[`${e.status}: ${e.cause ?? "unknown"}`] ??= []).push(e.instance_id);
  }
  amplifications.sort((a, b) => a - b);
  return {
    instances: entries.length,
    byStatus,
    exact: byStatus.exact,
    steps,
    tiers,
    ops,
    locatorKinds,
    legacyFree,
    legacyFreeShare: entries.length ? legacyFree / entries.length : 0,
    changes,
    amplificationMedian: quantile(amplifications, 0.5),
    amplificationP90: quantile(amplifications, 0.9),
    failures,
    gitApplyFailed,
    totalMs,
    workers,
  };
}

const pct = (n: number, d: number): string => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);
const fixed = (n: number | null): string => (n === null ? "-" : n.toFixed(2));

const TIER_NAMES: Record<string, string> = {
  "0": "tier 0 (primitives)",
  legacy: "tier 0 (legacy ops)",
  "1": "tier 1 (surgery)",
  "2": "tier 2 (templates)",
  "3": "tier 3 (fragments)",
  text: "text tier (text steps)",
};

/** The summary as the text table the CLI prints. */
export function formatSummary(s: Summary): string {
  const rows: Array<readonly [string, string]> = [
    ["instances", String(s.instances)],
    ["exact", `${s.exact}/${s.instances} (${pct(s.exact, s.instances)})`],
    ...STATUSES.filter((st) => st !== "exact" && s.byStatus[st] > 0).map((st) => [st, String(s.byStatus[st])] as const),
    ["plans free of legacy ops", `${s.legacyFree}/${s.instances} (${pct(s.legacyFree, s.instances)})`],
    ["steps", String(s.steps)],
    ...Object.keys(TIER_NAMES)
      .filter((t) => (s.tiers[t] ?? 0) > 0)
      .map((t) => [`  ${TIER_NAMES[t]}`, `${s.tiers[t]} (${pct(s.tiers[t]!, s.steps)})`] as const),
    ...FILE_KINDS.filter((kind) => (s.changes[kind]?.all ?? 0) > 0).map(
      (kind) =>
        [
          `structural share, ${kind} files`,
          `${s.changes[kind]!.structural}/${s.changes[kind]!.all} changes (${pct(s.changes[kind]!.structural, s.changes[kind]!.all)})`,
        ] as const,
    ),
    ["amplification median", fixed(s.amplificationMedian)],
    ["amplification p90", fixed(s.amplificationP90)],
    ["git apply --check failed", String(s.gitApplyFailed)],
    ["total time", `${(s.totalMs / 1000).toFixed(1)} s (${s.workers} worker${s.workers === 1 ? "" : "s"})`],
  ];
  const out = [table(rows)];
  const topOps = Object.entries(s.ops).sort((a, b) => b[1] - a[1]);
  if (topOps.length) out.push("", "operators:", table(topOps.map(([k, v]) => [`  ${k}`, String(v)] as const)));
  const topKinds = Object.entries(s.locatorKinds).sort((a, b) => b[1] - a[1]);
  if (topKinds.length) {
    const shown = topKinds.slice(0, 12).map(([k, v]) => [`  ${k}`, String(v)] as const);
    const rest = topKinds.slice(12).reduce((sum, [, v]) => sum + v, 0);
    out.push(
      "",
      "locator kinds (target of each step):",
      table(rest ? [...shown, ["  (others)", String(rest)] as const] : shown),
    );
  }
  const failures = causeRows(s.failures);
  if (failures.length) out.push("", "failures by cause:", table(failures));
  return out.join("\n");
}

/**
 * The results of `bench compare` from its two arms' runs, and the text report printed on stdout. Their
 * file, `DIR/compare.json`, is described once by `CompareReportSchema` in @graphplan/viewer, which shows it.
 */
import { TrajectorySchema, type Trajectory } from "@graphplan/agent";
import type {
  ArmResult,
  ArmSpec,
  CompareResults,
  CompareSpec,
  EVAL_OUTCOMES,
  ENDINGS,
  GraphplanStats,
  InstanceArm,
} from "@graphplan/viewer";
import { table } from "../figures.js";
import type { AgentReportEntry } from "../agent/report.js";
import { bootstrapDifference, mcnemarExact, pairedTable, type PairedOutcome } from "./stats.js";

/** What one arm's `bench run` left: its agent entries, the evaluation's verdicts, its trajectories. */
export interface ArmRun {
  readonly spec: ArmSpec;
  readonly entries: readonly AgentReportEntry[];
  readonly verdicts: ReadonlyMap<string, (typeof EVAL_OUTCOMES)[number]>;
  /** The instance's trajectory (undefined: none on disk). */
  readonly trajectory: (id: string) => Trajectory | undefined;
  readonly wallMs: number;
}

/** A trajectory file's text parsed (undefined when it is missing or not a trajectory). */
export function parseTrajectory(text: string | undefined): Trajectory | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = TrajectorySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function ending(entry: AgentReportEntry | undefined): (typeof ENDINGS)[number] {
  if (entry?.status === "LimitsExceeded") return "limit";
  if (entry?.status === "Submitted") return entry.fell_back ? "fallback" : "submitted";
  return "failed";
}

function graphplanStats(run: ArmRun): GraphplanStats {
  let planned = 0;
  let verifiedFirstTime = 0;
  let revisions = 0;
  const fallbacks: Record<string, number> = {};
  for (const entry of run.entries) {
    const t = run.trajectory(entry.instance_id);
    if (!t) continue;
    if (t.files !== null) planned++;
    if (t.plans.find((p) => p.verify !== undefined)?.verify?.passed === true) verifiedFirstTime++;
    revisions += t.transitions.filter(
      (tr) => tr.to === "plan" && (tr.from === "verify" || tr.from === "execute"),
    ).length;
    const fell = t.transitions.find((tr) => tr.to === "fallback" && tr.from !== null);
    if (fell) fallbacks[fell.from!] = (fallbacks[fell.from!] ?? 0) + 1;
  }
  return { planned, verified_first_time: verifiedFirstTime, revisions, fallbacks_by_phase: fallbacks };
}

function armResult(run: ArmRun, ids: readonly string[], perInstance: ReadonlyMap<string, InstanceArm>): ArmResult {
  const endings = { submitted: 0, fallback: 0, limit: 0, failed: 0 };
  let inputTokens = 0;
  let outputTokens = 0;
  for (const id of ids) {
    endings[perInstance.get(id)!.ending]++;
    for (const m of run.trajectory(id)?.messages ?? []) {
      inputTokens += m.usage?.inputTokens ?? 0;
      outputTokens += m.usage?.outputTokens ?? 0;
    }
  }
  const resolved = ids.filter((id) => perInstance.get(id)!.resolved).length;
  return {
    ...run.spec,
    instances: ids.length,
    resolved,
    resolve_rate: ids.length ? resolved / ids.length : 0,
    endings,
    model_calls: run.entries.reduce((n, e) => n + e.model_calls, 0),
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cost_usd: run.entries.reduce((n, e) => n + e.cost_usd, 0),
    agent_ms: run.entries.reduce((n, e) => n + e.ms, 0),
    wall_ms: Math.round(run.wallMs),
    graphplan: run.spec.strategy === "graphplan" ? graphplanStats(run) : null,
  };
}

/** The comparison of two graded arms on the instances either selected (A's order first). */
export function compareArms(a: ArmRun, b: ArmRun): CompareResults {
  const ids = [...new Set([...a.entries, ...b.entries].map((e) => e.instance_id))];
  const perArm = [a, b].map((run) => {
    const byId = new Map(run.entries.map((e) => [e.instance_id, e]));
    return new Map(
      ids.map((id): [string, InstanceArm] => {
        const entry = byId.get(id);
        const verdict = run.verdicts.get(id) ?? "not_graded";
        const t = run.trajectory(id);
        return [
          id,
          {
            resolved: verdict === "resolved",
            eval: verdict,
            agent: entry?.status ?? null,
            ending: ending(entry),
            model_calls: entry?.model_calls ?? 0,
            cost_usd: entry?.cost_usd ?? 0,
            ms: entry?.ms ?? 0,
            trajectory: t ? `${run.spec.label}/${id}/trajectory.json` : null,
          },
        ];
      }),
    );
  }) as [Map<string, InstanceArm>, Map<string, InstanceArm>];
  const outcomes: PairedOutcome[] = ids.map((id) => ({
    a: perArm[0].get(id)!.resolved,
    b: perArm[1].get(id)!.resolved,
  }));
  const paired = pairedTable(outcomes);
  const arms = [armResult(a, ids, perArm[0]), armResult(b, ids, perArm[1])] as [ArmResult, ArmResult];
  return {
    instances: ids.length,
    arms,
    paired,
    difference: arms[0].resolve_rate - arms[1].resolve_rate,
    interval: bootstrapDifference(outcomes),
    mcnemar_p: mcnemarExact(paired.onlyA, paired.onlyB),
    per_instance: ids.map((id) => ({ instance_id: id, arms: [perArm[0].get(id)!, perArm[1].get(id)!] })),
  };
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
const points = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`;
const pValue = (p: number) => (p >= 0.001 ? p.toFixed(3).replace(/0+$/, "").replace(/\.$/, "") : p.toExponential(2));

/** The report as printed on stdout: the arms side by side, the paired table, the test and the interval. */
export function formatComparison(spec: CompareSpec, r: CompareResults): string {
  const [a, b] = r.arms;
  // Arm A's column is as wide as its widest value (the header names the arm and its strategy).
  const width = Math.max(
    16,
    `${a.label} (${a.strategy})`.length + 2,
    `${a.input_tokens} / ${a.output_tokens}`.length + 2,
  );
  const row = (name: string, f: (arm: ArmResult) => string) => [name, `${f(a).padEnd(width)}${f(b)}`] as const;
  const gp = (f: (g: NonNullable<ArmResult["graphplan"]>) => string) => (arm: ArmResult) =>
    arm.graphplan ? f(arm.graphplan) : "-";
  const rows = [
    row("", (arm) => `${arm.label} (${arm.strategy})`),
    row("resolved", (arm) => `${arm.resolved} (${percent(arm.resolve_rate)})`),
    row("ended: submitted", (arm) => String(arm.endings.submitted)),
    row("ended: fallback", (arm) => String(arm.endings.fallback)),
    row("ended: limit", (arm) => String(arm.endings.limit)),
    row("ended: failed/none", (arm) => String(arm.endings.failed)),
    row("model calls", (arm) => String(arm.model_calls)),
    row("tokens in / out", (arm) => `${arm.input_tokens} / ${arm.output_tokens}`),
    row("cost", (arm) => `$${arm.cost_usd.toFixed(4)}`),
    row("agent time (sum)", (arm) => `${(arm.agent_ms / 1000).toFixed(1)} s`),
    row("wall time (this run)", (arm) => `${(arm.wall_ms / 1000).toFixed(1)} s`),
    row(
      "plans verified 1st time",
      gp((g) => `${g.verified_first_time} of ${g.planned}`),
    ),
    row(
      "plan revisions",
      gp((g) => String(g.revisions)),
    ),
    row(
      "fallbacks by phase",
      gp(
        (g) =>
          Object.entries(g.fallbacks_by_phase)
            .map(([phase, n]) => `${phase} ${n}`)
            .join(", ") || "none",
      ),
    ),
  ];
  const p = r.paired;
  const pairedRows = [
    ["", `${`${b.label} resolved`.padEnd(20)}${b.label} not`],
    [`${a.label} resolved`, `${`both ${p.both}`.padEnd(20)}only ${a.label} ${p.onlyA}`],
    [`${a.label} not`, `${`only ${b.label} ${p.onlyB}`.padEnd(20)}neither ${p.neither}`],
  ] as const;
  const interval = r.interval
    ? `${Math.round(r.interval.level * 100)}% bootstrap interval [${points(r.interval.low)}, ${points(r.interval.high)}] points (${r.interval.resamples} resamples, seed ${r.interval.seed})`
    : "no interval (no instance)";
  return [
    `comparison of ${a.label} and ${b.label} on ${r.instances} instance${r.instances === 1 ? "" : "s"} · model ${spec.provider ?? "?"}${spec.model ? `:${spec.model}` : ""}`,
    "",
    table(rows),
    "",
    "paired outcomes:",
    table(pairedRows),
    "",
    `difference in resolve rate (${a.label} − ${b.label}): ${points(r.difference)} points, ${interval}`,
    `McNemar's exact test: p = ${pValue(r.mcnemar_p)} (${p.onlyA} vs ${p.onlyB} discordant pairs)${p.onlyA + p.onlyB === 0 ? ": no instance tells the arms apart" : ""}`,
  ].join("\n");
}

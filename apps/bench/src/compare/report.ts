/**
 * The results of `bench compare` from its two arms' runs, and the text report printed on stdout. Their
 * file, `DIR/compare.json`, is described once by `CompareReportSchema` in @graphplan/viewer, which shows it.
 */
import { TrajectorySchema, trajectoryUsage, type Trajectory } from "@graphplan/agent";
import { emptyTotals, sumTotals, uncachedInput, type UsageTotals } from "@graphplan/runtime";
import type {
  ArmResult,
  ArmSpec,
  CompareResults,
  CompareSpec,
  EVAL_OUTCOMES,
  ENDINGS,
  GraphplanStats,
  InstanceArm,
  SpendDifference,
  SpendRatio,
} from "@graphplan/viewer";
import { table } from "../figures.js";
import { tokenCount, usageFigures, usageTotals, type AgentReportEntry } from "../agent/report.js";
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

function armResult(
  run: ArmRun,
  ids: readonly string[],
  perInstance: ReadonlyMap<string, InstanceArm>,
  usage: UsageTotals,
): ArmResult {
  const endings = { submitted: 0, fallback: 0, limit: 0, failed: 0 };
  for (const id of ids) endings[perInstance.get(id)!.ending]++;
  const resolved = ids.filter((id) => perInstance.get(id)!.resolved).length;
  return {
    ...run.spec,
    instances: ids.length,
    resolved,
    resolve_rate: ids.length ? resolved / ids.length : 0,
    endings,
    ...usageFigures(usage),
    agent_ms: run.entries.reduce((n, e) => n + e.ms, 0),
    wall_ms: Math.round(run.wallMs),
    graphplan: run.spec.strategy === "graphplan" ? graphplanStats(run) : null,
  };
}

/**
 * What an arm's run of an instance spent: its trajectory's totals (summed from its replies for an older
 * trajectory), else its report entry's figures (an instance without a trajectory: an input or harness error).
 */
function instanceUsage(entry: AgentReportEntry | undefined, t: Trajectory | undefined): UsageTotals {
  if (t) return trajectoryUsage(t);
  return entry ? usageTotals(entry) : emptyTotals();
}

/** The spend figures compared between arms. */
const spend = (u: UsageTotals): SpendDifference => ({
  input_tokens: u.inputTokens,
  uncached_input_tokens: uncachedInput(u),
  cache_read_tokens: u.cacheReadTokens,
  cache_write_tokens: u.cacheWriteTokens,
  output_tokens: u.outputTokens,
  cost_usd: u.costUsd,
});
const SPEND_KEYS = Object.keys(spend(emptyTotals())) as (keyof SpendDifference)[];

/** A's spend minus B's, figure by figure. */
export function spendDifference(a: UsageTotals, b: UsageTotals): SpendDifference {
  const [x, y] = [spend(a), spend(b)];
  return Object.fromEntries(SPEND_KEYS.map((k) => [k, x[k] - y[k]])) as SpendDifference;
}

/** −1: A cost fewer dollars, 1: more, 0: the same (to a billionth of a dollar, past the sums' rounding). */
const dearer = (d: SpendDifference): number => (Math.abs(d.cost_usd) < 1e-9 ? 0 : Math.sign(d.cost_usd));

/** A's spend over B's, figure by figure (null where B's is 0). */
export function spendRatio(a: UsageTotals, b: UsageTotals): SpendRatio {
  const [x, y] = [spend(a), spend(b)];
  return Object.fromEntries(SPEND_KEYS.map((k) => [k, y[k] === 0 ? null : x[k] / y[k]])) as SpendRatio;
}

/** The comparison of two graded arms on the instances either selected (A's order first). */
export function compareArms(a: ArmRun, b: ArmRun): CompareResults {
  const ids = [...new Set([...a.entries, ...b.entries].map((e) => e.instance_id))];
  const usage = [new Map<string, UsageTotals>(), new Map<string, UsageTotals>()] as const;
  const perArm = [a, b].map((run, arm) => {
    const byId = new Map(run.entries.map((e) => [e.instance_id, e]));
    return new Map(
      ids.map((id): [string, InstanceArm] => {
        const entry = byId.get(id);
        const verdict = run.verdicts.get(id) ?? "not_graded";
        const t = run.trajectory(id);
        const spent = instanceUsage(entry, t);
        usage[arm]!.set(id, spent);
        return [
          id,
          {
            resolved: verdict === "resolved",
            eval: verdict,
            agent: entry?.status ?? null,
            ending: ending(entry),
            ...usageFigures(spent),
            ms: entry?.ms ?? 0,
            trajectory: t ? `${run.spec.label}/${id}/trajectory.json` : null,
          },
        ];
      }),
    );
  }) as [Map<string, InstanceArm>, Map<string, InstanceArm>];
  const totals = usage.map((byId) => sumTotals(byId.values())) as [UsageTotals, UsageTotals];
  const outcomes: PairedOutcome[] = ids.map((id) => ({
    a: perArm[0].get(id)!.resolved,
    b: perArm[1].get(id)!.resolved,
  }));
  const paired = pairedTable(outcomes);
  const arms = [armResult(a, ids, perArm[0], totals[0]), armResult(b, ids, perArm[1], totals[1])] as [
    ArmResult,
    ArmResult,
  ];
  const differences = ids.map((id) => spendDifference(usage[0].get(id)!, usage[1].get(id)!));
  return {
    instances: ids.length,
    arms,
    paired,
    difference: arms[0].resolve_rate - arms[1].resolve_rate,
    interval: bootstrapDifference(outcomes),
    mcnemar_p: mcnemarExact(paired.onlyA, paired.onlyB),
    spend_ratio: spendRatio(totals[0], totals[1]),
    cheaper: {
      a: differences.filter((d) => dearer(d) < 0).length,
      b: differences.filter((d) => dearer(d) > 0).length,
      same: differences.filter((d) => dearer(d) === 0).length,
    },
    per_instance: ids.map((id, i) => ({
      instance_id: id,
      arms: [perArm[0].get(id)!, perArm[1].get(id)!],
      difference: differences[i]!,
    })),
  };
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;
const points = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(100 * x).toFixed(1)}`;
const pValue = (p: number) => (p >= 0.001 ? p.toFixed(3).replace(/0+$/, "").replace(/\.$/, "") : p.toExponential(2));

/** `1.0M (84%)`: a part of the input tokens, and its share. */
const cacheFigure = (part: number, input: number) =>
  `${tokenCount(part)}${input ? ` (${Math.round((100 * part) / input)}%)` : ""}`;
const times = (ratio: number | null) => (ratio === null ? "–" : `×${ratio.toFixed(2)}`);

/**
 * Which arm is cheaper: the totals' ratios A / B (input tokens, of them those at the full input price, output
 * tokens, dollars) and on how many instances each arm cost fewer dollars.
 */
export function spendLines(labelA: string, labelB: string, r: CompareResults): string[] {
  const q = r.spend_ratio;
  const c = r.cheaper;
  if (!q || !c) return [];
  const shown = [q.input_tokens, q.uncached_input_tokens, q.output_tokens, q.cost_usd];
  const none = shown.includes(null) ? ` (–: ${labelB}'s is 0)` : "";
  return [
    `${labelA} / ${labelB}: input ${times(q.input_tokens)} (uncached ${times(q.uncached_input_tokens)}), output ${times(q.output_tokens)}, dollars ${times(q.cost_usd)}${none}`,
    c.a + c.b === 0
      ? `per instance: the same dollars on all ${c.same}`
      : `per instance: ${labelA} cost less on ${c.a}, ${labelB} on ${c.b}, the same on ${c.same} (each instance's ${labelA} − ${labelB} in compare.json)`,
  ];
}

/** The report as printed on stdout: the arms side by side, the paired table, the test and the interval. */
export function formatComparison(spec: CompareSpec, r: CompareResults): string {
  const [a, b] = r.arms;
  // Arm A's column is as wide as its widest value (the header names the arm and its strategy).
  const width = Math.max(16, `${a.label} (${a.strategy})`.length + 2);
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
    row("tokens in", (arm) => tokenCount(arm.input_tokens)),
    row("  of it cache reads", (arm) => cacheFigure(arm.cache_read_tokens, arm.input_tokens)),
    row("  of it cache writes", (arm) => cacheFigure(arm.cache_write_tokens, arm.input_tokens)),
    row("tokens out", (arm) => tokenCount(arm.output_tokens)),
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
    "",
    ...spendLines(a.label, b.label, r),
  ].join("\n");
}

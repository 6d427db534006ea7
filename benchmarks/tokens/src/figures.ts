/**
 * The benchmark's arithmetic, pure: a run's tokens and dollars from its trajectories, whether each request
 * read the whole previous request from the cache, and the tables it prints.
 */
import { costUsd, knownPrice, sumTotals, type UsageTotals } from "@graphplan/runtime";
import type { Trajectory } from "@graphplan/agent";

/** The assistant messages' usage, in call order. */
type Call = NonNullable<Trajectory["messages"][number]["usage"]>;
const calls = (t: Trajectory): Call[] =>
  t.messages.flatMap((m) => (m.role === "assistant" && m.usage ? [m.usage] : []));

/** One instance's totals, from its trajectory. */
export function instanceTotals(t: Trajectory): UsageTotals {
  const { totals } = t;
  return {
    modelCalls: totals.modelCalls,
    costUsd: totals.costUsd,
    inputTokens: totals.inputTokens ?? 0,
    outputTokens: totals.outputTokens ?? 0,
    cacheReadTokens: totals.cacheReadTokens ?? 0,
    cacheWriteTokens: totals.cacheWriteTokens ?? 0,
  };
}

/**
 * Requests that read the previous request whole from the cache, of those that could: on Anthropic's wire
 * each request's last breakpoint closes it, so a request that starts with the previous one byte for byte
 * reads exactly the previous request's input tokens (the stand-in counts the same blocks the same way).
 * Requests whose predecessor was under `minCacheable` tokens are not counted: nothing was written for them.
 */
export function prefixReads(t: Trajectory, minCacheable = 1024): { exact: number; of: number } {
  const all = calls(t);
  let exact = 0;
  let of = 0;
  for (let i = 1; i < all.length; i++) {
    const before = all[i - 1]!;
    if (before.inputTokens < minCacheable) continue;
    of++;
    if ((all[i]!.cacheReadTokens ?? 0) === before.inputTokens) exact++;
  }
  return { exact, of };
}

/** Dollars for `totals` at a model's list price, with its cache prices or with none (every input token in full). */
export function dollarsAt(model: string, totals: UsageTotals, cached: boolean): number {
  const price = knownPrice(model);
  if (!price) throw new Error(`no list price for ${model}`);
  return costUsd(price, {
    inputTokens: totals.inputTokens,
    outputTokens: totals.outputTokens,
    ...(cached ? { cacheReadTokens: totals.cacheReadTokens, cacheWriteTokens: totals.cacheWriteTokens } : {}),
  });
}

/** Tokens billed at the full input price, or at the cache prices, weighted as Anthropic bills them (reads 0.1×, writes 1.25×). */
export const billedInput = (t: UsageTotals): number =>
  t.inputTokens - t.cacheReadTokens - t.cacheWriteTokens + 0.1 * t.cacheReadTokens + 1.25 * t.cacheWriteTokens;

export const share = (part: number, whole: number): string =>
  whole === 0 ? "—" : `${((100 * part) / whole).toFixed(1)}%`;
export const kTokens = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n)));

/** A fixed-width table: the header, then the rows, each column as wide as its widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** The totals of several instances, and their per-phase sums. */
export function runTotals(trajectories: readonly Trajectory[]): {
  all: UsageTotals;
  byPhase: Map<string, UsageTotals>;
} {
  const byPhase = new Map<string, UsageTotals[]>();
  for (const t of trajectories)
    for (const [phase, totals] of Object.entries(t.totals.byPhase ?? {}))
      if (totals) byPhase.set(phase, [...(byPhase.get(phase) ?? []), totals]);
  return {
    all: sumTotals(trajectories.map(instanceTotals)),
    byPhase: new Map([...byPhase].map(([phase, list]) => [phase, sumTotals(list)])),
  };
}

/**
 * What model calls add up to: calls, dollars and tokens, summed the same way wherever a run's cost is
 * shown (a trajectory's totals and phases, a bench report's instances and arms).
 */
import { z } from "zod";
import type { Usage } from "./model.js";

export const UsageTotalsSchema = z.object({
  modelCalls: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  /** Every input token sent, cached or not. */
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Of `inputTokens`: read from the prompt cache. */
  cacheReadTokens: z.number().int().nonnegative(),
  /** Of `inputTokens`: written to the prompt cache. */
  cacheWriteTokens: z.number().int().nonnegative(),
});
export type UsageTotals = z.infer<typeof UsageTotalsSchema>;

export const emptyTotals = (): UsageTotals => ({
  modelCalls: 0,
  costUsd: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** `totals` with one more call of `usage` costing `costUsd` (a new value; `totals` is unchanged). */
export function addCall(totals: UsageTotals, usage: Usage, costUsd: number): UsageTotals {
  return {
    modelCalls: totals.modelCalls + 1,
    costUsd: totals.costUsd + costUsd,
    inputTokens: totals.inputTokens + usage.inputTokens,
    outputTokens: totals.outputTokens + usage.outputTokens,
    cacheReadTokens: totals.cacheReadTokens + (usage.cacheReadTokens ?? 0),
    cacheWriteTokens: totals.cacheWriteTokens + (usage.cacheWriteTokens ?? 0),
  };
}

/** The sum of several totals. */
export function sumTotals(all: Iterable<UsageTotals>): UsageTotals {
  let sum = emptyTotals();
  for (const t of all)
    sum = {
      modelCalls: sum.modelCalls + t.modelCalls,
      costUsd: sum.costUsd + t.costUsd,
      inputTokens: sum.inputTokens + t.inputTokens,
      outputTokens: sum.outputTokens + t.outputTokens,
      cacheReadTokens: sum.cacheReadTokens + t.cacheReadTokens,
      cacheWriteTokens: sum.cacheWriteTokens + t.cacheWriteTokens,
    };
  return sum;
}

/** Input tokens billed at the full input price: neither read from nor written to the cache. */
export const uncachedInput = (t: Pick<UsageTotals, "inputTokens" | "cacheReadTokens" | "cacheWriteTokens">): number =>
  Math.max(0, t.inputTokens - t.cacheReadTokens - t.cacheWriteTokens);

/** The share of input tokens read from the cache (0 when nothing was sent). */
export const cacheReadShare = (t: Pick<UsageTotals, "inputTokens" | "cacheReadTokens">): number =>
  t.inputTokens === 0 ? 0 : t.cacheReadTokens / t.inputTokens;

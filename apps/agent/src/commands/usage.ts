/** How the commands say what a run's model calls cost: calls, tokens in and out, cache reads, dollars. */
import type { Trajectory } from "@graphplan/agent";

const count = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n));

/**
 * `4 model calls, 73.8k tokens in (71% from the cache), 764 out, $0.1071`; a replayed run's dollars are what
 * the wire's model (`billedAs`, e.g. `anthropic:claude-sonnet-5`) would bill for the same requests.
 */
export function usageLine(t: Trajectory, billedAs?: string): string {
  const { modelCalls, costUsd, inputTokens = 0, outputTokens = 0, cacheReadTokens = 0 } = t.totals;
  const cached =
    inputTokens > 0 && cacheReadTokens > 0
      ? ` (${Math.round((100 * cacheReadTokens) / inputTokens)}% from the cache)`
      : "";
  const tokens =
    inputTokens > 0 || outputTokens > 0 ? `, ${count(inputTokens)} tokens in${cached}, ${count(outputTokens)} out` : "";
  return `${modelCalls} model calls${tokens}, $${costUsd.toFixed(4)}${billedAs ? ` as ${billedAs} would bill them` : ""}`;
}

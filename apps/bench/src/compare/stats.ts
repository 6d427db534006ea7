/**
 * The statistics of `bench compare`, on paired outcomes (each instance resolved or not by arm A and by
 * arm B): the paired table, McNemar's exact test on the discordant pairs, and a percentile bootstrap
 * interval for the difference in resolve rate. Pure; the libraries are named in apps/bench/README.md.
 */
import mt19937 from "@stdlib/random-base-mt19937";
import binomialTest from "@stdlib/stats-binomial-test";

/** One instance: resolved by arm A, resolved by arm B. */
export interface PairedOutcome {
  readonly a: boolean;
  readonly b: boolean;
}

/** The 2×2 table of paired outcomes: both arms resolved, only A, only B, neither. */
export interface PairedTable {
  readonly both: number;
  readonly onlyA: number;
  readonly onlyB: number;
  readonly neither: number;
}

export function pairedTable(outcomes: readonly PairedOutcome[]): PairedTable {
  let both = 0;
  let onlyA = 0;
  let onlyB = 0;
  let neither = 0;
  for (const { a, b } of outcomes) {
    if (a && b) both++;
    else if (a) onlyA++;
    else if (b) onlyB++;
    else neither++;
  }
  return { both, onlyA, onlyB, neither };
}

/**
 * McNemar's exact test: under "the arms are as good", each discordant pair is A's or B's with
 * probability ½, so `onlyA` is Binomial(onlyA + onlyB, ½); the two-sided p-value of the exact binomial
 * test (R's `binom.test`, `mcnemar.exact`). With no discordant pair there is no evidence either way: 1.
 */
export function mcnemarExact(onlyA: number, onlyB: number): number {
  const n = onlyA + onlyB;
  if (n === 0) return 1;
  return Math.min(1, binomialTest(onlyA, n, { p: 0.5, alternative: "two-sided" }).pValue);
}

export interface BootstrapOptions {
  /** Resamples (default 10,000). */
  readonly resamples?: number;
  /** The generator's seed (MT19937; default 42): the same seed gives the same interval. */
  readonly seed?: number;
  /** Coverage (default 0.95). */
  readonly level?: number;
}

export interface Interval {
  readonly low: number;
  readonly high: number;
  readonly level: number;
  readonly resamples: number;
  readonly seed: number;
}

/**
 * A percentile bootstrap interval for (resolve rate of A − resolve rate of B): the instances are drawn
 * with replacement (pairs kept together) `resamples` times, each draw's difference computed, and the
 * interval is the draws' (1−level)/2 and (1+level)/2 quantiles (the order statistics at
 * ⌊B·(1−level)/2⌋ and ⌈B·(1+level)/2⌉−1, 0-based, of the B sorted differences). Deterministic:
 * MT19937 seeded with `seed` (the generator numpy's `RandomState(seed)` uses). Null with no instance.
 */
export function bootstrapDifference(
  outcomes: readonly PairedOutcome[],
  options: BootstrapOptions = {},
): Interval | null {
  const resamples = options.resamples ?? 10_000;
  const seed = options.seed ?? 42;
  const level = options.level ?? 0.95;
  const n = outcomes.length;
  if (n === 0) return null;
  // Each pair's contribution to the difference: +1 only A, −1 only B, 0 concordant.
  const d = outcomes.map(({ a, b }) => Number(a) - Number(b));
  // The generator's `normalized` (uniform on [0, 1)) is documented but missing from the package's types.
  const generator = mt19937.factory({ seed }) as ReturnType<typeof mt19937.factory> & {
    readonly normalized: () => number;
  };
  const random = generator.normalized;
  const draws = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += d[Math.floor(random() * n)]!;
    draws[r] = sum / n;
  }
  draws.sort();
  const tail = (1 - level) / 2;
  return {
    low: draws[Math.floor(resamples * tail)]!,
    high: draws[Math.ceil(resamples * (1 - tail)) - 1]!,
    level,
    resamples,
    seed,
  };
}

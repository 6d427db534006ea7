/** The statistics of bench compare against values computed by hand (and, for the bootstrap, exactly). */
import { describe, expect, it } from "vitest";
import { bootstrapDifference, mcnemarExact, pairedTable, type PairedOutcome } from "./stats.js";

/** `counts` pairs of each kind, in the order both, only A, only B, neither. */
const outcomes = (both: number, onlyA: number, onlyB: number, neither: number): PairedOutcome[] => [
  ...Array.from({ length: both }, () => ({ a: true, b: true })),
  ...Array.from({ length: onlyA }, () => ({ a: true, b: false })),
  ...Array.from({ length: onlyB }, () => ({ a: false, b: true })),
  ...Array.from({ length: neither }, () => ({ a: false, b: false })),
];

/**
 * The ideal bootstrap (every possible resample, weighted): the resample's difference is
 * (#only-A − #only-B)/n, with the counts trinomial(n; pA, pB, rest). Its q-quantile (the smallest
 * value whose cumulative probability reaches q) is what many resamples converge to.
 */
function idealQuantile(n: number, onlyA: number, onlyB: number, q: number): number {
  const pA = onlyA / n;
  const pB = onlyB / n;
  const p0 = 1 - pA - pB;
  const factorial = (k: number): number => (k <= 1 ? 1 : k * factorial(k - 1));
  const mass = new Map<number, number>();
  for (let i = 0; i <= n; i++) {
    for (let j = 0; i + j <= n; j++) {
      const p =
        (factorial(n) / (factorial(i) * factorial(j) * factorial(n - i - j))) * pA ** i * pB ** j * p0 ** (n - i - j);
      mass.set(i - j, (mass.get(i - j) ?? 0) + p);
    }
  }
  let cumulative = 0;
  for (const diff of [...mass.keys()].sort((x, y) => x - y)) {
    cumulative += mass.get(diff)!;
    if (cumulative >= q - 1e-12) return diff / n;
  }
  return 1;
}

describe("the paired table", () => {
  it("counts both, only A, only B and neither", () => {
    expect(pairedTable(outcomes(3, 3, 1, 1))).toEqual({ both: 3, onlyA: 3, onlyB: 1, neither: 1 });
    expect(pairedTable([])).toEqual({ both: 0, onlyA: 0, onlyB: 0, neither: 0 });
  });
});

describe("McNemar's exact test", () => {
  it("is the two-sided binomial test on the discordant pairs", () => {
    // 3 against 1 of 4: 2 · P(X ≤ 1), X ~ Bin(4, ½) = 2 · (1 + 4)/16.
    expect(mcnemarExact(3, 1)).toBeCloseTo(10 / 16, 12);
    expect(mcnemarExact(1, 3)).toBeCloseTo(10 / 16, 12);
    // 6 against 0: 2 · (½)^6.
    expect(mcnemarExact(6, 0)).toBeCloseTo(2 / 64, 12);
    // 10 against 2 of 12: 2 · (1 + 12 + 66)/4096.
    expect(mcnemarExact(10, 2)).toBeCloseTo(158 / 4096, 12);
    // Balanced: no evidence.
    expect(mcnemarExact(2, 2)).toBe(1);
  });

  it("is 1 when there is no discordant pair", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
  });
});

describe("the bootstrap interval of the difference in resolve rate", () => {
  it("is deterministic for a seed, and another seed draws other resamples", () => {
    const pairs = outcomes(3, 3, 1, 1);
    expect(bootstrapDifference(pairs)).toEqual(bootstrapDifference(pairs));
    expect(bootstrapDifference(pairs, { seed: 7, resamples: 50 })).toEqual(
      bootstrapDifference(pairs, { seed: 7, resamples: 50 }),
    );
    const a = bootstrapDifference(pairs, { seed: 1, resamples: 20 })!;
    const b = bootstrapDifference(pairs, { seed: 2, resamples: 20 })!;
    expect([a.low, a.high, a.seed]).not.toEqual([b.low, b.high, b.seed]);
  });

  it("matches the ideal bootstrap's quantiles, computed exactly (A resolves 1–6, B 1–3 and 7, of 8)", () => {
    const interval = bootstrapDifference(outcomes(3, 3, 1, 1))!;
    // By hand: each draw adds +1 (p 3/8), −1 (p 1/8) or 0; the difference is the sum of 8 draws over 8. Its CDF is
    // 0.0088 at −3/8 and 0.0322 at −2/8, so the 2.5% quantile is −2/8, far from either side for 10,000 resamples.
    expect(idealQuantile(8, 3, 1, 0.025)).toBe(-0.25);
    expect(interval.low).toBe(-0.25);
    // The CDF is 0.97493 at 5/8 (just under 0.975) and 0.9954 at 6/8: the ideal 97.5% quantile is 6/8, and
    // a finite bootstrap lands on 5/8 or 6/8 (the empirical CDF at 5/8 is within ±0.0016 of 0.97493).
    expect(idealQuantile(8, 3, 1, 0.975)).toBe(0.75);
    expect([0.625, 0.75]).toContain(interval.high);
    expect(interval).toMatchObject({ level: 0.95, resamples: 10_000, seed: 42 });
  });

  it("collapses to the point when no pair is discordant, and is one-signed when every discordant pair is A's", () => {
    const same = bootstrapDifference(outcomes(6, 0, 0, 4))!;
    expect([same.low, same.high]).toEqual([0, 0]);
    const interval = bootstrapDifference(outcomes(10, 6, 0, 4))!;
    expect(interval.low).toBe(idealQuantile(20, 6, 0, 0.025));
    expect(interval.high).toBe(idealQuantile(20, 6, 0, 0.975));
    expect(interval.low).toBeGreaterThan(0);
    expect(bootstrapDifference([])).toBeNull();
  });
});

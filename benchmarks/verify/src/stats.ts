export interface Summary {
  readonly median: number;
  readonly p90: number;
  readonly max: number;
}

/** Median, 90th percentile (nearest rank) and maximum of a sample. */
export function summarize(sample: readonly number[]): Summary {
  if (sample.length === 0) return { median: 0, p90: 0, max: 0 };
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, p90: rank(0.9), max: sorted[sorted.length - 1]! };
}

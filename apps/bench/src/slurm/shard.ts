/**
 * `--shard i/N`: the i-th of N parts of the selected instances (0-based), contiguous and of sizes
 * differing by at most one (numpy's array_split): the same selection and N give every machine the
 * same parts, and instances next to each other in the dataset (the same repository, so the same
 * graph cache and image layers) stay on one node.
 */
import { InvalidArgumentError } from "commander";

export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** Parses `i/N` (0 ≤ i < N). */
export function parseShard(value: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index >= count)
    throw new InvalidArgumentError(`--shard takes i/N with 0 ≤ i < N (e.g. 0/4), not ${JSON.stringify(value)}`);
  return { index, count };
}

/** The bounds [start, end) of shard `index` of `count` over `length` items. */
export function shardBounds(length: number, { index, count }: Shard): [number, number] {
  const base = Math.floor(length / count);
  const extra = length % count;
  const start = index * base + Math.min(index, extra);
  return [start, start + base + (index < extra ? 1 : 0)];
}

/** The items of one shard, in their order. */
export function shardOf<T>(items: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return [...items];
  const [start, end] = shardBounds(items.length, shard);
  return items.slice(start, end);
}

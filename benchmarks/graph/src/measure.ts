/** Timing and memory helpers for the benchmark. */
import { performance } from "node:perf_hooks";

export interface Timing<T = unknown> {
  /** Wall-clock time. */
  readonly ms: number;
  /** CPU time of the whole process (user + system, every thread): on a machine shared with
   * other work, wall time grows with the contention, CPU time much less. */
  readonly cpuMs: number;
  readonly value: T;
}

/**
 * A full garbage collection, when node runs with `--expose-gc` (the bench script does). Every
 * timed run starts with one, untimed, so no engine pays for the garbage of the one before.
 * This favours ast-grep a little: its parsed trees are native memory freed by finalizers when
 * V8 collects their wrappers, i.e. in the untimed collection, while ours are freed by
 * `tree.delete()` inside the run.
 */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

export function time<T>(run: () => T): Timing<T> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = run();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value };
}

export async function timeAsync<T>(run: () => Promise<T>): Promise<Timing<T>> {
  collectGarbage();
  const cpu = process.cpuUsage();
  const start = performance.now();
  const value = await run();
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly runs: number[];
  readonly cpu_median: number;
}

export function summarize(timings: readonly Timing[]): Summary {
  const runs = timings.map((t) => Math.round(t.ms));
  return {
    median: Math.round(median(runs)),
    min: runs.length ? Math.min(...runs) : Number.NaN,
    runs,
    cpu_median: Math.round(median(timings.map((t) => t.cpuMs))),
  };
}

/**
 * Peak memory: `process.memoryUsage().rss` sampled every 25 ms (while the event loop runs, e.g.
 * during the worker phase) and at each explicit `sample()`, and the OS's peak resident set size
 * (`process.resourceUsage().maxRSS`, which covers the synchronous phases the timer cannot see).
 */
export class MemorySampler {
  peak = 0;
  readonly #timer: NodeJS.Timeout;

  constructor(intervalMs = 25) {
    this.#timer = setInterval(() => this.sample(), intervalMs);
    this.#timer.unref();
  }

  /** Peak sampled rss since the last `phase()` call. */
  phasePeak = 0;

  sample(): number {
    const rss = process.memoryUsage().rss;
    if (rss > this.peak) this.peak = rss;
    if (rss > this.phasePeak) this.phasePeak = rss;
    return rss;
  }

  /** Starts a new phase; returns the peak sampled rss of the phase that ends. */
  phase(): number {
    const peak = Math.max(this.phasePeak, this.sample());
    this.phasePeak = 0;
    return peak;
  }

  /** Peak resident set size of the process so far, in bytes. */
  maxRss(): number {
    return process.resourceUsage().maxRSS * 1024;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.sample();
  }
}

/** The planner's only sources of time and identity, injected so that it stays pure and reproducible. */

export interface Clock {
  now(): number;
}

export type IdGenerator = () => string;

/** Deterministic ids `${prefix}-1`, `${prefix}-2`, ... (the default: no randomness, same run → same ids). */
export function counterIds(prefix = "proposal"): IdGenerator {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

/** A logical clock returning 0, 1, 2, ... (the default: timestamps order events without reading the wall clock). */
export function logicalClock(start = 0): Clock {
  let t = start;
  return { now: () => t++ };
}

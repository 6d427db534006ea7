/**
 * The one writer of `trajectory.json`, for `graphplan run` and `bench agent`: the trajectory is
 * written as it grows, so a run that is killed leaves the trajectory it had, never half of one.
 *
 * - Atomic: each write goes to `<path>.tmp`, then is renamed over `<path>`.
 * - Throttled: the first update is written at once, then at most every `intervalMs`; an update inside
 *   the interval is written when it ends, so the file is never more than `intervalMs` behind.
 * - Final: `finish(t)` writes the run's last trajectory at once, and no pending update overwrites it.
 *   `close()` (for a `finally`) writes whatever update is still pending, so an interrupted run keeps it.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Trajectory } from "./trajectory.js";

/** Writes `trajectory` to `path` whole or not at all (a temporary file renamed over it). */
export function writeTrajectoryFile(path: string, trajectory: Trajectory): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(trajectory, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export class TrajectoryWriter {
  #last = 0;
  #pending: Trajectory | undefined;
  #timer: NodeJS.Timeout | undefined;
  #finished = false;

  constructor(
    readonly path: string,
    readonly intervalMs = 1000,
  ) {}

  /** The trajectory so far (as `runAgent`'s `onProgress` gives it): written now or when the interval ends. */
  update(trajectory: Trajectory): void {
    if (this.#finished) return;
    this.#pending = trajectory;
    const wait = this.#last + this.intervalMs - Date.now();
    if (wait <= 0) this.#flush();
    else if (this.#timer === undefined) this.#timer = setTimeout(() => this.#flush(), wait).unref();
  }

  /** The run's final trajectory: written at once; later updates are ignored. */
  finish(trajectory: Trajectory): void {
    this.#cancel();
    this.#finished = true;
    writeTrajectoryFile(this.path, trajectory);
  }

  /** For a `finally`: writes the update still pending (unless `finish` wrote the final one) and stops. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (!this.#finished) this.#flush();
    this.#finished = true;
  }

  #flush(): void {
    this.#timer = undefined;
    const pending = this.#pending;
    if (pending === undefined) return;
    this.#pending = undefined;
    this.#last = Date.now();
    writeTrajectoryFile(this.path, pending);
  }

  #cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }
}

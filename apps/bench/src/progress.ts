/**
 * One live progress display for long runs: on a terminal, a block of lines redrawn in place
 * (log-update) — a headline (done/total, counts, ETA) and one line per running item; elsewhere
 * (a pipe, a CI log) plain lines, one per finished item, so nothing is lost and nothing is redrawn.
 */
import { createLogUpdate } from "log-update";

export interface ProgressItem {
  /** Shown after the id, e.g. the phase or the engine. */
  readonly detail: string;
  readonly since: number;
}

export interface ProgressOptions {
  readonly total: number;
  /** Where to write (default process.stderr). */
  readonly stream?: NodeJS.WriteStream;
  /** Force plain lines (default: plain unless the stream is a TTY). */
  readonly plain?: boolean;
  /** Minimum time between redraws, ms (default 250). */
  readonly intervalMs?: number;
}

const seconds = (ms: number) =>
  ms < 60_000
    ? `${Math.round(ms / 1000)}s`
    : ms < 3_600_000
      ? `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`
      : `${Math.floor(ms / 3_600_000)}h${String(Math.round((ms % 3_600_000) / 60_000)).padStart(2, "0")}m`;

/** Estimated time left: the mean time per finished item, spread over the running slots. */
export function eta(done: number, total: number, elapsedMs: number): string {
  if (done === 0 || done >= total) return done >= total ? "0s" : "?";
  return seconds((elapsedMs / done) * (total - done));
}

export class Progress {
  private readonly started = Date.now();
  private readonly running = new Map<string, ProgressItem>();
  private readonly stream: NodeJS.WriteStream;
  private readonly live: ReturnType<typeof createLogUpdate> | undefined;
  private readonly intervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private done = 0;
  private headline = "";

  constructor(
    private total: number,
    options: Omit<ProgressOptions, "total"> = {},
  ) {
    this.stream = options.stream ?? process.stderr;
    const plain = options.plain ?? !this.stream.isTTY;
    this.live = plain ? undefined : createLogUpdate(this.stream, { showCursor: true });
    this.intervalMs = options.intervalMs ?? 250;
  }

  /** Counts shown in the headline, e.g. "resolved 3 · error 1 · $0.42". */
  setHeadline(text: string): void {
    this.headline = text;
    this.redraw();
  }

  setTotal(total: number): void {
    this.total = total;
    this.redraw();
  }

  start(id: string, detail: string): void {
    this.running.set(id, { detail, since: Date.now() });
    this.redraw();
  }

  update(id: string, detail: string): void {
    const item = this.running.get(id);
    if (item) this.running.set(id, { ...item, detail });
    this.redraw();
  }

  /** An item ended: `line` is printed once above the live block (or as a plain line). */
  finish(id: string, line: string): void {
    this.running.delete(id);
    this.done += 1;
    const elapsed = Date.now() - this.started;
    const state = this.live
      ? ""
      : ` · ${this.running.size} running${this.headline ? ` · ${this.headline}` : ""} · ETA ${eta(this.done, this.total, elapsed)}`;
    this.print(`[${this.done}/${this.total}] ${line}${state}`);
  }

  /** A message printed once, above the live block. */
  print(line: string): void {
    if (this.live) {
      this.live.clear();
      this.stream.write(`${line}\n`);
      this.render();
    } else this.stream.write(`${line}\n`);
  }

  /** The final state stays on screen. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.live) {
      this.render();
      this.live.done();
    }
  }

  private redraw(): void {
    if (!this.live || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.render();
    }, this.intervalMs);
    this.timer.unref();
  }

  private render(): void {
    if (!this.live) return;
    const elapsed = Date.now() - this.started;
    const head = `${this.done}/${this.total} done · ${this.running.size} running${this.headline ? ` · ${this.headline}` : ""} · ${seconds(elapsed)} elapsed · ETA ${eta(this.done, this.total, elapsed)}`;
    const now = Date.now();
    const rows = [...this.running].map(([id, item]) => `  ${id}  ${item.detail}  ${seconds(now - item.since)}`);
    this.live([head, ...rows].join("\n"));
  }
}

/** What the commands use of a progress display (`bench compare` shows several stages in one). */
export type ProgressDisplay = Pick<
  Progress,
  "setHeadline" | "setTotal" | "start" | "update" | "finish" | "print" | "close"
>;

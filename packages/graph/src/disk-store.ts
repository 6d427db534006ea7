/**
 * A `GraphStore` on the file system: per-file graphs that outlive the process, shared by every
 * process that opens the same directory. The only module of the package that touches the disk;
 * imported from `@graphplan/graph/disk`, so callers opt in.
 */
import {
  mkdir,
  readdirSync,
  readFileSync,
  rename,
  statSync,
  unlink,
  unlinkSync,
  utimes,
  writeFile,
  type Stats,
} from "node:fs";
import { homedir, platform } from "node:os";
import { join } from "node:path";
import { toStored, type FileGraph, type GraphStore, type StoredFileGraph } from "./graph.js";

export interface DiskGraphStoreOptions {
  /** Upper bound on the bytes of all entries; the least recently used go first. Default 512 MB. */
  readonly maxBytes?: number;
  /**
   * A hit refreshes the entry's mtime (its place in the eviction order) only when the mtime is older
   * than this. Default 60 s: a refresh is a file-system call per entry — refreshing every hit was
   * about a quarter of the time of reading a whole repository back — and a minute is a fine
   * resolution for "least recently used".
   */
  readonly refreshAfterMs?: number;
}

/** Entries live under `<dir>/<LAYOUT>/`: a change of layout leaves the old one to eviction by hand. */
const LAYOUT = "v1";
const ENTRY = /^[0-9a-f]{40}-[0-9a-f]{12}-[a-z-]+\.json$/;
const TEMP = /\.tmp$/;
/** A temp file older than this was left by a writer that died: pruning removes it. */
const STALE_TEMP_MS = 10 * 60 * 1000;

/**
 * The user's cache directory for the graph: `$XDG_CACHE_HOME/graphplan/graph`, else
 * `~/Library/Caches/graphplan/graph` on macOS, `%LOCALAPPDATA%\graphplan\graph` on Windows,
 * `~/.cache/graphplan/graph` elsewhere.
 */
export function defaultGraphCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, "graphplan", "graph");
  if (platform() === "darwin") return join(homedir(), "Library", "Caches", "graphplan", "graph");
  if (platform() === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "graphplan", "graph");
  return join(homedir(), ".cache", "graphplan", "graph");
}

let tempCounter = 0;

/** Entry writes started at once (see `#drain`). */
const WRITES_IN_FLIGHT = 8;

/**
 * Per-file graphs as one JSON file per key, `<dir>/v1/<first two hex digits>/<key>.json`.
 *
 * - Content-addressed: the key names the file's bytes, language, grammars and extractor version
 *   (`storeKey`), so an entry never goes stale; a changed file or extractor is a new key.
 * - Reads are synchronous (`GraphCache.build` is); writes and upkeep are not: `put` only queues
 *   the entry (no file-system call, no serialisation) and returns, and the queue is drained once
 *   the build has returned — directories made, entries serialised and written on libuv's thread
 *   pool — so a cold store adds next to nothing to the build. `flush()` waits for everything under
 *   way (call it before the process exits if the entries must be there; a write that never
 *   happens is only a miss for the next process).
 * - Safe under concurrent writers (processes or threads): an entry is written to a temp file
 *   with a unique name and renamed into place, which is atomic, so a reader sees a whole entry
 *   or none; two writers of one key write the same bytes.
 * - A corrupt entry (truncated, hand-edited, another key's) is a miss: the cache parses the file
 *   and writes the entry again.
 * - Bounded: when the entries exceed `maxBytes`, the least recently used (a hit refreshes an
 *   entry's mtime, off the main thread) are deleted down to 80 % of it. The directory is measured
 *   after the first write of a process (a run that only reads pays nothing) and again whenever
 *   that measure plus the bytes written since would exceed `maxBytes`. (Processes writing at
 *   once each keep their own measure, so together they may overshoot until the next one measures.)
 * - Never throws: a store that cannot read or write behaves as an empty one.
 */
export class DiskGraphStore implements GraphStore {
  readonly dir: string;
  readonly maxBytes: number;
  readonly refreshAfterMs: number;
  /** Bytes of the entries as last measured plus those written since; undefined until measured. */
  #estimate: number | undefined;
  /**
   * True while the store's directory did not exist when it was first read and nothing has been
   * written since: every read is then a miss without a file-system call, so the first build on a
   * new cache asks the disk nothing per file. Set false by the first completed write (its callback
   * runs after the synchronous build), so later builds in the process read what this one wrote.
   */
  #empty: boolean | undefined;
  /** Sub-directories made (true) or being made (the writes waiting for them: what to do when it is there, or could not be made). */
  readonly #dirs = new Map<string, true | { then: () => void; failed: () => void }[]>();
  /** A drain is scheduled for after the current synchronous work (the build). */
  #drainScheduled = false;
  #pending = 0;
  #idle: (() => void)[] = [];
  readonly #queue: { key: string; path: string; graph: FileGraph }[] = [];
  #inFlight = 0;
  #pruning = false;
  #pruneAgain = false;
  /** Entries read, written, and failures (for benchmarks and tests). */
  readonly stats = { hits: 0, misses: 0, corrupt: 0, writes: 0, writeFailures: 0, evicted: 0 };

  constructor(dir: string = defaultGraphCacheDir(), options: DiskGraphStoreOptions = {}) {
    this.dir = join(dir, LAYOUT);
    this.maxBytes = options.maxBytes ?? 512 * 1024 * 1024;
    this.refreshAfterMs = options.refreshAfterMs ?? 60_000;
  }

  #path(key: string): string {
    return join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  get(key: string): StoredFileGraph | undefined {
    if (this.#empty === undefined) {
      try {
        this.#empty = !statSync(this.dir, { throwIfNoEntry: false });
      } catch {
        this.#empty = false; // unreadable: let each read find out
      }
    }
    if (this.#empty) {
      this.stats.misses++;
      return undefined;
    }
    const path = this.#path(key);
    // A miss is the common case of a cold store: asking first is cheaper than a failed read,
    // whose error node builds with a stack trace. One stat also says whether the entry's mtime is
    // due for a refresh.
    let stat: Stats | undefined;
    try {
      stat = statSync(path, { throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (!stat) {
      this.stats.misses++;
      return undefined;
    }
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch {
      this.stats.misses++;
      return undefined;
    }
    try {
      const value = JSON.parse(text) as StoredFileGraph;
      if (typeof value !== "object" || value === null || value.key !== key) throw new Error("not this key's entry");
      this.stats.hits++;
      // Mark it used for eviction (unless it was within refreshAfterMs), on the thread pool;
      // evicted meanwhile is fine.
      const now = Date.now();
      if (now - stat.mtimeMs >= this.refreshAfterMs) {
        this.#begin();
        utimes(path, now / 1000, now / 1000, () => this.#end());
      }
      return value;
    } catch {
      this.stats.corrupt++;
      return undefined;
    }
  }

  put(key: string, graph: FileGraph): void {
    this.#begin();
    // Only queued: the directory, the stored form, its serialisation and the write all come after
    // the build returns; until then the queue holds the (frozen) graph the cache holds anyway.
    this.#queue.push({ key, path: this.#path(key), graph });
    if (this.#drainScheduled) return;
    this.#drainScheduled = true;
    setImmediate(() => {
      this.#drainScheduled = false;
      this.#drain();
    });
  }

  /**
   * Calls `then` once the sub-directory `sub` exists (made once per process), or `failed` if it cannot
   * be made — for every write waiting for it, so that each ends and `flush()` resolves.
   */
  #withDir(sub: string, then: () => void, failed: () => void): void {
    const made = this.#dirs.get(sub);
    if (made === true) return then();
    if (made !== undefined) return void made.push({ then, failed });
    const waiting = [{ then, failed }];
    this.#dirs.set(sub, waiting);
    mkdir(sub, { recursive: true }, (error) => {
      if (error)
        this.#dirs.delete(sub); // a later write tries again
      else this.#dirs.set(sub, true);
      for (const write of waiting) (error ? write.failed : write.then)();
    });
  }

  /**
   * Starts queued writes, at most `WRITES_IN_FLIGHT` at once: each holds a file descriptor until
   * the main thread runs its callback, which a long synchronous build postpones.
   */
  #drain(): void {
    while (this.#inFlight < WRITES_IN_FLIGHT && this.#queue.length > 0) {
      const { key, path, graph } = this.#queue.shift()!;
      const temp = `${path}.${process.pid}.${Date.now().toString(36)}.${(tempCounter++).toString(36)}.${Math.random().toString(36).slice(2, 8)}.tmp`;
      this.#inFlight++;
      const finish = () => {
        this.#inFlight--;
        this.#drain();
        this.#end();
      };
      const failed = () => {
        this.stats.writeFailures++;
        unlink(temp, finish);
      };
      this.#withDir(
        join(this.dir, key.slice(0, 2)),
        () => {
          const text = JSON.stringify(toStored(key, graph));
          writeFile(temp, text, (error) => {
            if (error) return failed();
            rename(temp, path, (renameError) => {
              if (renameError) return failed();
              this.stats.writes++;
              this.#empty = false;
              if (this.#estimate === undefined || (this.#estimate += Buffer.byteLength(text)) > this.maxBytes)
                this.#prune();
              finish();
            });
          });
        },
        failed,
      );
    }
  }

  /** Resolves when every write, mark and eviction under way has finished. */
  flush(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #begin(): void {
    this.#pending++;
  }

  #end(): void {
    if (--this.#pending > 0) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /** Total bytes of the entries now stored. */
  size(): number {
    return this.#entries().reduce((sum, entry) => sum + entry.bytes, 0);
  }

  /** Measures the store, and evicts if needed, after the I/O under way (one pass at a time). */
  #prune(): void {
    if (this.#pruning) {
      this.#pruneAgain = true;
      return;
    }
    this.#pruning = true;
    this.#begin();
    setImmediate(() => {
      try {
        this.prune();
      } finally {
        this.#pruning = false;
        if (this.#pruneAgain) {
          this.#pruneAgain = false;
          if ((this.#estimate ?? Infinity) > this.maxBytes) this.#prune();
        }
        this.#end();
      }
    });
  }

  /** Deletes the least recently used entries while the store holds more than `maxBytes` (down to 80 %). */
  prune(): void {
    const entries = this.#entries();
    let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
    this.#estimate = total;
    if (total <= this.maxBytes) return;
    const target = this.maxBytes * 0.8;
    entries.sort((a, b) => a.used - b.used);
    for (const entry of entries) {
      if (total <= target) break;
      try {
        unlinkSync(entry.path);
        this.stats.evicted++;
      } catch {
        // Another process evicted it first.
      }
      total -= entry.bytes;
    }
    this.#estimate = total;
  }

  #entries(): { path: string; bytes: number; used: number }[] {
    const out: { path: string; bytes: number; used: number }[] = [];
    let subs: string[];
    try {
      subs = readdirSync(this.dir);
    } catch {
      return out;
    }
    const now = Date.now();
    for (const sub of subs) {
      let names: string[];
      try {
        names = readdirSync(join(this.dir, sub));
      } catch {
        continue;
      }
      for (const name of names) {
        const path = join(this.dir, sub, name);
        try {
          const stat = statSync(path);
          if (TEMP.test(name)) {
            if (now - stat.mtimeMs > STALE_TEMP_MS) unlinkSync(path);
            continue;
          }
          if (!ENTRY.test(name)) continue;
          out.push({ path, bytes: stat.size, used: stat.mtimeMs });
        } catch {
          // Renamed or evicted by another process meanwhile.
        }
      }
    }
    return out;
  }
}

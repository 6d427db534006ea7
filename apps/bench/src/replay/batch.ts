/**
 * A whole replay: the dataset's lines (optionally only some instances), replayed in this thread
 * or in N worker threads (one instance at a time per worker, the next one as soon as a worker is
 * free), then `OUT/report.json` and the summary.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { readDataset, type DatasetLine } from "../dataset.js";
import { crashEntry, formatSummary, summarize, type ReportEntry, type Summary } from "./report.js";
import { replayInstance, Repositories, type ReplayOptions } from "./instance.js";

export interface RunOptions extends ReplayOptions {
  readonly dataset: string;
  /** Only these instance ids (in dataset order). */
  readonly instances?: readonly string[] | undefined;
  readonly workers: number;
  /** Called after each instance (progress). */
  readonly onEntry?: (entry: ReportEntry, done: number, total: number) => void;
}

export interface RunResult {
  readonly entries: readonly ReportEntry[];
  readonly summary: Summary;
  readonly table: string;
  readonly reportPath: string;
}

function select(lines: readonly DatasetLine[], ids: readonly string[] | undefined): DatasetLine[] {
  if (!ids || ids.length === 0) return [...lines];
  const wanted = new Set(ids);
  return lines.filter((l) =>
    l.ok ? wanted.has(l.instance.instance_id) : l.instanceId !== undefined && wanted.has(l.instanceId),
  );
}

/** The worker's node options: this process's, with the `source` export condition when running from sources. */
function workerExecArgv(): string[] {
  const argv = [...process.execArgv];
  if (import.meta.url.endsWith(".ts") && !argv.some((a) => a === "--conditions=source" || a === "-C=source"))
    argv.push("--conditions=source");
  return argv;
}

/** Instances a worker holds at once. */
const IN_FLIGHT = 2;

const workerUrl = (): URL =>
  new URL(import.meta.url.endsWith(".ts") ? "./worker-tsx.mjs" : "./worker.js", import.meta.url);

async function inWorkers(lines: readonly DatasetLine[], options: RunOptions): Promise<ReportEntry[]> {
  const { onEntry, ...rest } = options;
  const replay: ReplayOptions = {
    outDir: rest.outDir,
    reposDir: rest.reposDir,
    repoMap: rest.repoMap,
    gitCheck: rest.gitCheck,
  };
  const entries: ReportEntry[] = new Array(lines.length);
  let next = 0;
  let done = 0;
  const count = Math.max(1, Math.min(options.workers, lines.length));
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(workerUrl(), { workerData: replay, execArgv: workerExecArgv() });
          // Two instances in flight per worker: one computes while the other waits for git.
          const inFlight = new Set<number>();
          const feed = (): void => {
            while (inFlight.size < IN_FLIGHT && next < lines.length) {
              const index = next++;
              inFlight.add(index);
              worker.postMessage({ index, line: lines[index] });
            }
            if (inFlight.size === 0) void worker.terminate().then(() => resolve());
          };
          worker.on("message", (message: { index: number; entry: ReportEntry }) => {
            inFlight.delete(message.index);
            entries[message.index] = message.entry;
            onEntry?.(message.entry, ++done, lines.length);
            feed();
          });
          worker.on("error", (error) => {
            // The worker died: report its instances, and stop feeding it.
            for (const index of inFlight) {
              const line = lines[index]!;
              const id = line.ok ? line.instance.instance_id : (line.instanceId ?? `line-${line.line}`);
              entries[index] = { ...crashEntry(id, error), cause: "worker_crash" };
              onEntry?.(entries[index]!, ++done, lines.length);
            }
            reject(error);
          });
          feed();
        }),
    ),
  );
  return entries;
}

/** Replays the dataset and writes `OUT/report.json`. */
export async function runReplay(options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  await mkdir(options.outDir, { recursive: true });
  const lines = select(await readDataset(options.dataset), options.instances);
  let entries: ReportEntry[];
  if (options.workers <= 1) {
    const repos = new Repositories(options);
    entries = [];
    try {
      for (const line of lines) {
        let entry: ReportEntry;
        try {
          entry = await replayInstance(line, repos, options);
        } catch (error) {
          entry = crashEntry(line.ok ? line.instance.instance_id : (line.instanceId ?? `line-${line.line}`), error);
        }
        entries.push(entry);
        options.onEntry?.(entry, entries.length, lines.length);
      }
    } finally {
      repos.close();
    }
  } else {
    entries = await inWorkers(lines, options);
  }
  const summary = summarize(entries, Math.round(performance.now() - started), Math.max(1, options.workers));
  const reportPath = join(options.outDir, "report.json");
  await writeFile(
    reportPath,
    `${JSON.stringify({ dataset: options.dataset, created: new Date().toISOString(), summary, instances: entries }, null, 2)}\n`,
  );
  return { entries, summary, table: formatSummary(summary), reportPath };
}

/**
 * Graphing on worker threads. Files are sorted largest first and cut into chunks of about
 * `CHUNK_CHARS` of text; each worker takes the next chunk as soon as it has sent back the last
 * one, so no worker idles while another finishes a fixed share (a static split left one of two
 * workers idle for up to 10 % of the run). Each worker loads the grammars once and returns
 * per-file graphs; the main thread merges them in input order. Threads live here, not in
 * @graphplan/graph, which stays a pure library.
 */
import { Worker } from "node:worker_threads";
import { languagesOf, mergeGraphs, type FileGraph, type Graph, type SourceFile } from "@graphplan/graph";
import type { WorkerReply, WorkerRequest } from "./worker.js";

/** Text per chunk: small enough that the last chunks even out the workers, large enough that
 * a message per chunk costs little (django's 16.8 MB of Python makes about 130 chunks). */
export const CHUNK_CHARS = 128 * 1024;

export class GraphPool {
  readonly #workers: Worker[];
  #next = 0;
  /** Time each worker spent graphing in the last `build` (the rest of the wall time is transfer and merge). */
  lastBusyMs: number[] = [];

  private constructor(workers: Worker[]) {
    this.#workers = workers;
  }

  /** Starts `size` workers and loads the grammars `files` need in each. */
  static async start(size: number, files: readonly SourceFile[]): Promise<GraphPool> {
    const workers = Array.from(
      { length: size },
      () => new Worker(new URL("./worker-entry.mjs", import.meta.url), { execArgv: ["--conditions=source"] }),
    );
    const languages = languagesOf(files);
    await Promise.all(workers.map((worker) => ask(worker, { type: "load", languages })));
    return new GraphPool(workers);
  }

  get size(): number {
    return this.#workers.length;
  }

  /** The graph of `files`, built across the workers; equal to `buildGraph(files)`. */
  async build(files: readonly SourceFile[], chunkChars: number = CHUNK_CHARS): Promise<Graph> {
    const queue = chunks(files, chunkChars);
    const byPath = new Map<string, FileGraph>();
    const busy = this.#workers.map(() => 0);
    const id = this.#next++;
    let taken = 0;
    const drain = async (worker: Worker, index: number): Promise<void> => {
      while (taken < queue.length) {
        const reply = await ask(worker, { type: "graph", id, files: queue[taken++]! });
        if (reply.type !== "graphs") throw new Error(`unexpected worker reply ${reply.type}`);
        for (const graph of reply.graphs) byPath.set(graph.file, graph);
        busy[index]! += reply.busyMs;
      }
    };
    await Promise.all(this.#workers.map(drain));
    this.lastBusyMs = busy;
    return mergeGraphs(files.map((file) => byPath.get(file.path)!));
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }
}

function ask(worker: Worker, request: WorkerRequest): Promise<WorkerReply> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: WorkerReply) => {
      worker.off("error", reject);
      resolve(reply);
    };
    worker.once("message", onMessage);
    worker.once("error", reject);
    worker.postMessage(request);
  });
}

/**
 * Every file in exactly one chunk: largest first, a new chunk whenever the current one holds
 * `maxChars` of text (a file larger than that is a chunk of its own), so the chunks handed out
 * last are the smallest.
 */
export function chunks(files: readonly SourceFile[], maxChars: number): SourceFile[][] {
  const bySize = [...files].sort((a, b) => b.source.length - a.source.length);
  const out: SourceFile[][] = [];
  let current: SourceFile[] = [];
  let length = 0;
  for (const file of bySize) {
    if (current.length && length + file.source.length > maxChars) {
      out.push(current);
      current = [];
      length = 0;
    }
    current.push(file);
    length += file.source.length;
  }
  if (current.length) out.push(current);
  return out;
}

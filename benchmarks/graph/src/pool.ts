/**
 * Graphing on worker threads: files are split across N workers (largest first, each to the
 * least loaded worker), each worker loads the grammars once and returns per-file graphs, and
 * the main thread merges them in input order. Threads live here, not in @graphplan/graph,
 * which stays a pure library.
 */
import { Worker } from "node:worker_threads";
import { languagesOf, mergeGraphs, type FileGraph, type Graph, type SourceFile } from "@graphplan/graph";
import type { WorkerReply, WorkerRequest } from "./worker.js";

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
    const workers = Array.from({ length: size }, () => new Worker(new URL("./worker-entry.mjs", import.meta.url), { execArgv: ["--conditions=source"] }));
    const languages = languagesOf(files);
    await Promise.all(workers.map((worker) => ask(worker, { type: "load", languages })));
    return new GraphPool(workers);
  }

  get size(): number {
    return this.#workers.length;
  }

  /** The graph of `files`, built across the workers; equal to `buildGraph(files)`. */
  async build(files: readonly SourceFile[]): Promise<Graph> {
    const batches = split(files, this.#workers.length);
    const id = this.#next++;
    const replies = await Promise.all(
      batches.map((batch, i) => ask(this.#workers[i]!, { type: "graph", id, files: batch })),
    );
    const byPath = new Map<string, FileGraph>();
    this.lastBusyMs = [];
    for (const reply of replies) {
      if (reply.type !== "graphs") throw new Error(`unexpected worker reply ${reply.type}`);
      for (const graph of reply.graphs) byPath.set(graph.file, graph);
      this.lastBusyMs.push(reply.busyMs);
    }
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

/** `size` batches of about equal text length: largest file first, to the lightest batch. */
export function split(files: readonly SourceFile[], size: number): SourceFile[][] {
  const batches = Array.from({ length: size }, () => ({ files: [] as SourceFile[], length: 0 }));
  const bySize = [...files].sort((a, b) => b.source.length - a.source.length);
  for (const file of bySize) {
    const lightest = batches.reduce((min, batch) => (batch.length < min.length ? batch : min));
    lightest.files.push(file);
    lightest.length += file.source.length;
  }
  return batches.map((batch) => batch.files);
}

/** A graph worker: loads the grammars once, then graphs the batches the main thread sends. */
import { performance } from "node:perf_hooks";
import { parentPort } from "node:worker_threads";
import { graphOfFile, loadGrammars, type FileGraph, type LanguageId, type SourceFile } from "@graphplan/graph";

export type WorkerRequest =
  | { readonly type: "load"; readonly languages: LanguageId[] }
  | { readonly type: "graph"; readonly id: number; readonly files: SourceFile[] };
export type WorkerReply =
  | { readonly type: "loaded" }
  | { readonly type: "graphs"; readonly id: number; readonly graphs: FileGraph[]; readonly busyMs: number };

const port = parentPort;
if (!port) throw new Error("worker.ts runs inside a worker thread");

port.on("message", (request: WorkerRequest) => {
  if (request.type === "load") {
    void loadGrammars(request.languages).then(() => port.postMessage({ type: "loaded" } satisfies WorkerReply));
    return;
  }
  const start = performance.now();
  const graphs = request.files.map((file) => graphOfFile(file));
  port.postMessage({ type: "graphs", id: request.id, graphs, busyMs: performance.now() - start } satisfies WorkerReply);
});

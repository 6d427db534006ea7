/** A replay worker thread: replays the instances the main thread sends, one at a time. */
import { parentPort, workerData } from "node:worker_threads";
import type { DatasetLine } from "../dataset.js";
import { crashEntry, type ReportEntry } from "./report.js";
import { replayInstance, Repositories, type ReplayOptions } from "./instance.js";

const options = workerData as ReplayOptions;
const repos = new Repositories(options);
const port = parentPort;
if (!port) throw new Error("worker.ts runs as a worker thread");

port.on("message", (message: { index: number; line: DatasetLine }) => {
  void replayInstance(message.line, repos, options)
    .catch(
      (error: unknown): ReportEntry =>
        crashEntry(
          message.line.ok
            ? message.line.instance.instance_id
            : (message.line.instanceId ?? `line-${message.line.line}`),
          error,
        ),
    )
    .then((entry) => port.postMessage({ index: message.index, entry }));
});

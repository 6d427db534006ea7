export { serveRun, PortUnavailable } from "./server.js";
export type { RunningViewer } from "./server.js";
export { RunReader, RunNotFound, NotARun } from "./run.js";
export { InstanceReportSchema, InstanceResultSchema, TestsStatusSchema } from "./formats.js";
export type { InstanceReport, InstanceResult } from "./formats.js";

export { serveRun, PortUnavailable } from "./server.js";
export type { ServeOptions, RunningViewer } from "./server.js";
export { RunReader, RunNotFound, NotARun } from "./run.js";
export type { RunRow, RunTotals, RunIndex, InstanceDetail, RunError } from "./run.js";
export { InstanceReportSchema, InstanceResultSchema, TestsStatusSchema } from "./formats.js";
export type { InstanceReport, InstanceResult, TestsStatus } from "./formats.js";

export { serveRun, PortUnavailable } from "./server.js";
export type { RunningViewer } from "./server.js";
export { RunReader, RunNotFound, NotARun } from "./run.js";
export { InstanceReportSchema, InstanceResultSchema, TestsStatusSchema } from "./formats.js";
export type { InstanceReport, InstanceResult, TestsStatus } from "./formats.js";
export {
  ARM_STRATEGIES,
  ArmResultSchema,
  ArmSpecSchema,
  CompareReportSchema,
  CompareResultsSchema,
  CompareSpecSchema,
  ENDINGS,
  EVAL_OUTCOMES,
  GraphplanStatsSchema,
  InstanceArmSchema,
} from "./compare-format.js";
export type {
  ArmResult,
  ArmSpec,
  CompareReport,
  CompareResults,
  CompareSpec,
  GraphplanStats,
  InstanceArm,
} from "./compare-format.js";

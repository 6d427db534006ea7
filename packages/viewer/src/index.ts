export { serveRun, PortUnavailable } from "./server.js";
export type { RunningViewer } from "./server.js";
export { RunReader, RunNotFound, NotARun } from "./run.js";
export { InstanceReportSchema, InstanceResultSchema, TestsStatusSchema } from "./formats.js";
export type { InstanceReport, InstanceResult } from "./formats.js";
export {
  ARM_STRATEGIES,
  CompareReportSchema,
  ENDINGS,
  EVAL_OUTCOMES,
} from "./compare-format.js";
export { UsageFiguresSchema } from "./usage-format.js";
export type { UsageFigures } from "./usage-format.js";
export type {
  ArmResult,
  ArmSpec,
  CompareReport,
  CompareResults,
  CompareSpec,
  GraphplanStats,
  InstanceArm,
  SpendDifference,
  SpendRatio,
} from "./compare-format.js";

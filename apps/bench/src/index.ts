export { DatasetInstanceSchema, parseDataset, readDataset, repoDirName } from "./dataset.js";
export type { DatasetInstance, DatasetLine } from "./dataset.js";
export {
  GitObjectReader,
  gitApplyCheck,
  listTree,
  repositoryPath,
  isGitRepository,
  UnknownRepository,
  MissingCommit,
  MissingBlob,
  NotText,
} from "./git.js";
export {
  ReportEntrySchema,
  ReportSchema,
  StatusSchema,
  STATUSES,
  summarize,
  formatSummary,
} from "./replay/report.js";
export { quantile } from "./figures.js";
export type { ReportEntry, Status, Summary } from "./replay/report.js";
export { replayInstance, Repositories, instanceDir } from "./replay/instance.js";
export type { ReplayOptions } from "./replay/instance.js";
export { runReplay } from "./replay/batch.js";
export { readRepoMap } from "./options.js";
export type { RunOptions, RunResult } from "./replay/batch.js";
export { buildProgram } from "./program.js";
export { runAgentBench, AgentBenchInputInvalid } from "./agent/harness.js";
export type { AgentBenchOptions, AgentBenchResult } from "./agent/harness.js";

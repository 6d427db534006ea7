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
  quantile,
} from "./report.js";
export type { ReportEntry, Status, Summary } from "./report.js";
export { replayInstance, Repositories, instanceDir } from "./replay.js";
export type { ReplayOptions } from "./replay.js";
export { runReplay, readRepoMap } from "./run.js";
export type { RunOptions, RunResult } from "./run.js";
export { buildProgram } from "./program.js";
export { runAgentBench, AgentBenchInputInvalid } from "./agent/harness.js";
export type { AgentBenchOptions, AgentBenchResult } from "./agent/harness.js";

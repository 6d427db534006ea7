/**
 * @graphplan/agent — the agent as a library: EXPLORE → GRAPH → PLAN ⇄ VERIFY → EXECUTE → REVIEW → SUBMIT,
 * with the fallback step loop; its config (prompts and limits), the trajectory schema, the model and
 * sandbox layers it runs on, and the options every command that runs it takes (`graphplan run`, `bench agent`).
 */
export { runAgent } from "./agent.js";
export type { Proposer, RfsnOptions } from "./rfsn.js";
export { loadConfig, withPlanFile } from "./config.js";
export type { AgentConfig } from "./config.js";
export { TrajectorySchema, EXIT_STATUSES, PHASES, repliesUsage, trajectoryUsage } from "./trajectory.js";
export type { Trajectory, Phase } from "./trajectory.js";
export { RepoDirty, RepoNotGitWorkTree, RunInputInvalid } from "./errors.js";
export { TrajectoryWriter } from "./trajectory-writer.js";
export { modelLayer, readText, replayWire, sandboxLayer, PROVIDERS } from "./layers.js";
export type { ModelOptions, SandboxOptions, Provider, SandboxKind } from "./layers.js";
export { addAgentOptions } from "./options.js";
export { REPLAY_MODEL_NAME, ReplayUnavailable, replayModel, baselineReplayModel, rfsnReplayModel } from "./replay.js";
export { STRATEGIES } from "./baseline.js";
export type { Strategy } from "./baseline.js";
export { bashBlocks, extractPlan } from "./parse.js";

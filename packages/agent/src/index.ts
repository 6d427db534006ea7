/**
 * @graphplan/agent — the agent as a library: EXPLORE → GRAPH → PLAN ⇄ VERIFY → EXECUTE → REVIEW → SUBMIT,
 * with the fallback step loop; its config (prompts and limits), the trajectory schema, the model and
 * sandbox layers it runs on, and the options every command that runs it takes (`graphplan run`, `bench agent`).
 */
export { runAgent } from "./agent.js";
export type { AgentInput, RunAgentOptions } from "./agent.js";
export { rfsnStrategy, RfsnStuck } from "./rfsn.js";
export type { Proposer, RfsnOptions } from "./rfsn.js";
export { loadConfig, AgentConfigSchema, withPlanFile } from "./config.js";
export type { AgentConfig, LoadedConfig } from "./config.js";
export { TrajectorySchema, EXIT_STATUSES, PHASES } from "./trajectory.js";
export type { Trajectory, ExitStatus, Phase } from "./trajectory.js";
export { ConfigInvalid, ConfigUnreadable, RepoDirty, RepoNotGitWorkTree, RunInputInvalid } from "./errors.js";
export { modelLayer, readText, sandboxLayer, PROVIDERS } from "./layers.js";
export type { ModelOptions, SandboxOptions, SandboxExtras, Provider, SandboxKind } from "./layers.js";
export { addAgentOptions } from "./options.js";
export { REPLAY_MODEL_NAME, ReplayUnavailable, replayModel, baselineReplayModel } from "./replay.js";
export { STRATEGIES, BASELINE_REASON } from "./baseline.js";
export type { Strategy } from "./baseline.js";
export { bashBlocks, extractPlan } from "./parse.js";
export type { ExtractedPlan, PlanChannel } from "./parse.js";

export { Workspace, readTexts } from "./workspace.js";
export type { WorkspaceShape } from "./workspace.js";
export { applyPlan, recover, writeFiles } from "./apply.js";
export type { ApplyOptions, ApplyResult, ApplyError, StepReport, RecoverReport, RecoverError } from "./apply.js";
export { WorkspaceIOError, WorkspaceRootInvalid, StepFailed, stepCauseTag } from "./errors.js";
export { findSourceFiles, SKIPPED_DIRECTORIES } from "./sources.js";
export {
  LanguageModel,
  ScriptedModel,
  ChatMessageSchema,
  ModelRequestFailed,
  UsageSchema,
} from "./model/model.js";
export type {
  ChatMessage,
  CompletionOptions,
  ModelReply,
  ModelError,
  LanguageModelShape,
  ScriptedReply,
  ToolCall,
  ToolResult,
  ToolSpec,
} from "./model/model.js";
export { ModelConfigSchema, costUsd, knownPrice } from "./model/config.js";
export {
  UsageTotalsSchema,
  emptyTotals,
  addCall,
  sumTotals,
  uncachedInput,
  cacheReadShare,
} from "./model/usage.js";
export type { UsageTotals } from "./model/usage.js";
export { ModelConfigInvalid } from "./model/errors.js";
export { Sandbox, SandboxFailed, SandboxUnavailable } from "./sandbox/sandbox.js";
export type { ExecResult } from "./sandbox/sandbox.js";
export { ContainerEngine, EngineUnavailable, ContainerFailed } from "./container/engine.js";
export type { ContainerEngineShape, ContainerShape, ContainerError } from "./container/engine.js";
export { containerSession } from "./container/workspace.js";
export type { ContainerSession } from "./container/workspace.js";

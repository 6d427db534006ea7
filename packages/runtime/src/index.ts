export { Workspace, readTexts } from "./workspace.js";
export type { WorkspaceShape, WorkspaceEntry } from "./workspace.js";
export { applyPlan, recover, writeFiles } from "./apply.js";
export type {
  ApplyOptions,
  ApplyResult,
  FileWrite,
  ApplyError,
  StepReport,
  WriteInfo,
  PlanRunner,
  PlanRunOutcome,
  RecoverOptions,
  RecoverReport,
  RecoverError,
} from "./apply.js";
export { JournalSchema } from "./journal.js";
export type { Journal, JournalEntry } from "./journal.js";
export {
  PathOutsideWorkspace,
  FileNotFound,
  NotUtf8Text,
  WorkspaceIOError,
  WorkspaceRootInvalid,
  JournalPresent,
  JournalCorrupt,
  ReservedPath,
  AmbiguousPath,
  CommitFailed,
  StepFailed,
  stepCauseTag,
} from "./errors.js";
export type { StepCause } from "./errors.js";
export { findSourceFiles, SKIPPED_DIRECTORIES } from "./sources.js";
export { LanguageModel, ScriptedModel, ChatMessageSchema, ModelRequestFailed, ModelScriptExhausted } from "./model/model.js";
export type { ChatMessage, CompletionOptions, ModelReply, ModelError, LanguageModelShape, ScriptedReply, ToolCall, ToolResult, ToolSpec } from "./model/model.js";
export { ModelConfigSchema, KNOWN_PRICES, knownPrice } from "./model/config.js";
export type { ModelConfig, ModelConfigInput, ModelPrice } from "./model/config.js";
export { ModelConfigInvalid } from "./model/errors.js";
export type { LiveModelOptions } from "./model/live.js";
export { Sandbox, SandboxFailed, SandboxUnavailable } from "./sandbox/sandbox.js";
export type { ExecResult, ExecOptions, SandboxShape } from "./sandbox/sandbox.js";
export type { LocalSandboxOptions } from "./sandbox/local.js";
export { SANDBOX_LABEL } from "./sandbox/docker.js";
export type { DockerSandboxOptions } from "./sandbox/docker.js";
export { ContainerEngine, EngineUnavailable, ImageUnavailable, ContainerFailed } from "./container/engine.js";
export type {
  ContainerEngineShape,
  ContainerShape,
  ContainerSpec,
  ContainerExecOptions,
  ContainerExecResult,
  ContainerFile,
  CommitOptions,
  ImageInfo,
  ContainerError,
} from "./container/engine.js";
export type { EngineOptions } from "./container/docker.js";
export { containerSession } from "./container/workspace.js";
export type { ContainerSession, ContainerSessionOptions } from "./container/workspace.js";

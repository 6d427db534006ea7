/**
 * @graphplan/mcp — the GraphPlan engine as Model Context Protocol tools. `Engine` is the work on one root
 * (also called in-process by benchmarks/mcp); `mcpServer` one connection's MCP server; `serveStdio` and
 * `serveHttp` the transports `graphplan mcp` runs.
 */
export { Engine, CallInputInvalid, CallCancelled, NothingToUndo, UndoConflict, diffOf } from "./engine.js";
export type { EngineOptions, GraphPage, LocatedNode, AppliedChange, ApplyOutcome, CompiledPatch } from "./engine.js";
export { CallQueue } from "./lock.js";
export { TOOLS, MAX_TEXT, offeredTools, listedTool, callTool, capped } from "./tools.js";
export type { CallSession, ToolContext, ToolName } from "./tools.js";
export { mcpServer, serveStdio, serveHttp } from "./server.js";
export type { ServerOptions, HttpServing } from "./server.js";

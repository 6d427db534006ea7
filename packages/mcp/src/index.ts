/**
 * @graphplan/mcp — the GraphPlan engine as Model Context Protocol tools. `Engine` is the work on one root
 * (also called in-process by benchmarks/mcp); `mcpServer` one connection's MCP server; `serveStdio` and
 * `serveHttp` the transports `graphplan mcp` runs. The tools' own pieces stay inside the package.
 */
export { Engine } from "./engine.js";
export type { EngineOptions } from "./engine.js";
export { mcpServer, serveStdio, serveHttp } from "./server.js";

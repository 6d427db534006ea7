/**
 * `graphplan mcp`: the engine as an MCP server (the official SDK's low-level `Server`, so each tool's
 * input schema is the JSON Schema GraphPlan derives, not one the SDK re-renders). One `Server` per
 * connection (its undo history), one `Engine` per root (its call queue), over stdio or streamable HTTP
 * on loopback. The tools are in `tools.ts`, their texts, the resources' and the prompt's in `texts.ts`.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { catalogPrompt, planJsonSchema } from "@graphplan/catalog";
import type { Engine } from "./engine.js";
import { PROMPT_TEXT, promptText, RESOURCE_TEXT, SERVER_INSTRUCTIONS } from "./texts.js";
import { callTool, listedTool, newCallSession, offeredTools, TOOLS } from "./tools.js";

export interface ServerOptions {
  readonly engine: Engine;
  readonly readOnly: boolean;
  readonly version: string;
}

const RESOURCES = [
  {
    uri: "graphplan://catalog",
    name: "operator-catalog",
    ...RESOURCE_TEXT.catalog,
    mimeType: "text/markdown",
    read: () => catalogPrompt(),
  },
  {
    uri: "graphplan://plan-schema",
    name: "plan-schema",
    ...RESOURCE_TEXT.planSchema,
    mimeType: "application/schema+json",
    read: () => JSON.stringify(planJsonSchema()),
  },
] as const;

const PROMPT = {
  name: PROMPT_TEXT.name,
  title: PROMPT_TEXT.title,
  description: PROMPT_TEXT.description,
  arguments: [{ name: "task", description: PROMPT_TEXT.task, required: true }],
} as const;

/** An MCP server for one connection: the tools (all, or the non-writing ones under `readOnly`), the catalog and schema resources, one prompt. */
export function mcpServer(options: ServerOptions): Server {
  const session = newCallSession();
  const server = new Server(
    { name: "graphplan", title: "GraphPlan", version: options.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: SERVER_INSTRUCTIONS,
    },
  );
  const tools = offeredTools(options.readOnly);
  const listed = tools.map(listedTool);
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) {
      const known = TOOLS.some((t) => t.name === request.params.name);
      const why = known
        ? `${request.params.name} writes files and the server runs with --read-only`
        : `there is no tool ${request.params.name}`;
      throw new McpError(ErrorCode.InvalidParams, `${why}; the tools offered: ${tools.map((t) => t.name).join(", ")}`);
    }
    return callTool(tool, request.params.arguments, { engine: options.engine, session, signal: extra.signal });
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: RESOURCES.map(({ read: _read, ...resource }) => resource),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const resource = RESOURCES.find((r) => r.uri === request.params.uri);
    if (!resource)
      throw new McpError(
        ErrorCode.InvalidParams,
        `no resource ${request.params.uri}; the resources: ${RESOURCES.map((r) => r.uri).join(", ")}`,
      );
    return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.read() }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (request.params.name !== PROMPT.name)
      throw new McpError(ErrorCode.InvalidParams, `no prompt ${request.params.name}; the prompt: ${PROMPT.name}`);
    const task = request.params.arguments?.["task"];
    if (!task) throw new McpError(ErrorCode.InvalidParams, `the prompt ${PROMPT.name} needs the argument task`);
    return {
      description: PROMPT.description,
      messages: [{ role: "user", content: { type: "text", text: promptText(task, options.readOnly) } }],
    };
  });
  return server;
}

/** Serves one client on stdin/stdout; resolves when the client goes away (stdin ends) and no call is running. */
export async function serveStdio(options: ServerOptions): Promise<void> {
  const server = mcpServer(options);
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  await closed;
  await options.engine.queue.idle();
  await server.close().catch(() => undefined);
}

/** A running HTTP server: its URL and how to stop it. */
export interface HttpServing {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/**
 * Serves clients over streamable HTTP at `http://127.0.0.1:PORT/mcp` (port 0: any free port), one MCP
 * session per client, Host and Origin checked against loopback (DNS rebinding).
 */
export async function serveHttp(options: ServerOptions, port: number): Promise<HttpServing> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];
  const http: HttpServer = createServer((req, res) => {
    void (async () => {
      if (!req.url || new URL(req.url, "http://127.0.0.1").pathname !== "/mcp") {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found: the MCP endpoint is /mcp\n");
        return;
      }
      const id = req.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (!transport) {
        if (typeof id === "string") {
          res.writeHead(404, { "content-type": "application/json" }).end(
            JSON.stringify({
              jsonrpc: "2.0",
              error: { code: -32001, message: `no session ${id}: initialize again` },
              id: null,
            }),
          );
          return;
        }
        const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void sessions.set(sid, fresh),
          enableDnsRebindingProtection: true,
          allowedHosts,
        });
        fresh.onclose = () => {
          if (fresh.sessionId) sessions.delete(fresh.sessionId);
        };
        await mcpServer(options).connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(req, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(`${(error as Error).message}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    close: async () => {
      await options.engine.queue.idle();
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * A stand-in provider that bills like the real one: a local HTTP server (127.0.0.1, a free port) that
 * speaks Anthropic's Messages API or OpenAI's Chat Completions, hands each request to a model of yours
 * (a `ScriptedModel`, the replay model) as `ChatMessage`s, and answers in the provider's wire format
 * with the usage the provider would bill:
 *
 * - input counted by a real tokenizer — o200k_base (js-tiktoken) on both wires: Anthropic's tokenizer is
 *   not public, so Anthropic's counts are an o200k stand-in, not Claude's own;
 * - Anthropic's prompt caching as its documentation describes it: the prefix runs tools → system →
 *   messages; only a prefix that ends at a block marked `cache_control` (a breakpoint, at most 4 per
 *   request, more is a 400) is written; each breakpoint looks for the longest prefix written before that
 *   ends at it or at one of the 20 blocks before it (`cache_read_input_tokens`); the tokens from there to the
 *   last breakpoint are written (`cache_creation_input_tokens`), the rest is `input_tokens`; a prefix under
 *   `minCacheableTokens` (1024, as for Sonnet and Opus) is neither written nor read. `cache_control` is not
 *   content: moving a breakpoint does not change a block. Entries live as long as the server (no 5-minute
 *   expiry);
 * - OpenAI's automatic prompt caching: a prompt of 1024 tokens or more reads the longest token prefix it
 *   shares with an earlier prompt of the same `prompt_cache_key` (requests without a key share one pool),
 *   rounded down to 1024 + a multiple of 128 (`prompt_tokens_details.cached_tokens`).
 *
 * It also records, for each request, whether it starts with the previous request byte for byte
 * (breakpoints aside): `stats()`.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as Effect from "effect/Effect";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import type { ChatMessage, LanguageModelShape, ModelReply, ToolResult, ToolSpec, Usage } from "../model/model.js";

export type Wire = "anthropic" | "openai";

export interface BilledRequest {
  readonly body: Record<string, unknown>;
  readonly usage: Usage;
}

export interface ModelServerStats {
  readonly requests: number;
  /** Requests after the first that start with the request before them, byte for byte (breakpoints aside). */
  readonly prefixStable: number;
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  /** The first request that did not extend the one before it, and where it differs. */
  readonly firstUnstable?: { readonly index: number; readonly where: string };
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>` (OpenAI's SDK takes `${origin}/v1`). */
  readonly origin: string;
  readonly requests: readonly BilledRequest[];
  readonly stats: () => ModelServerStats;
  readonly close: () => Promise<void>;
}

let encoder: Tiktoken | undefined;
/** Tokens of `text` in o200k_base (the encoder is built once, on first use: it takes ~0.8 s). */
export const countTokens = (text: string): number => (encoder ??= new Tiktoken(o200kBase)).encode(text).length;

type Json = Record<string, unknown>;
const withoutCacheControl = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, v) => (key === "cache_control" ? undefined : v)));

/** One block of a request's cacheable prefix: its canonical text (no `cache_control`) and whether it is a breakpoint. */
export interface PrefixBlock {
  readonly text: string;
  readonly breakpoint: boolean;
}

/** Anthropic's prefix, block by block: each tool, each system block, each message's blocks (role named). */
export function anthropicBlocks(body: Json): PrefixBlock[] {
  const out: PrefixBlock[] = [];
  const push = (block: Json, where: string) =>
    out.push({
      text: `${where}:${JSON.stringify(withoutCacheControl(block))}`,
      breakpoint: block["cache_control"] != null,
    });
  for (const tool of (body["tools"] as Json[] | undefined) ?? []) push(tool, "tool");
  const system = body["system"];
  for (const block of typeof system === "string" ? [{ type: "text", text: system }] : ((system as Json[]) ?? []))
    push(block, "system");
  for (const m of (body["messages"] as { role: string; content: unknown }[] | undefined) ?? []) {
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Json[]);
    for (const block of content) push(block, m.role);
  }
  if (body["cache_control"] != null && out.length > 0) out[out.length - 1] = { ...out.at(-1)!, breakpoint: true };
  return out;
}

/** The prompt cache of one server: prefix hashes → their tokens. */
export type PrefixCache = Map<string, number>;

/**
 * The usage Anthropic bills for a request of these blocks, given what earlier requests wrote to `cache`
 * (which it updates); a string when the request is refused (more than 4 breakpoints).
 */
export function anthropicUsage(
  cache: PrefixCache,
  blocks: readonly PrefixBlock[],
  minCacheable = 1024,
): { input: number; read: number; write: number } | string {
  const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
  if (breakpoints.length > 4)
    return `A maximum of 4 blocks with cache_control may be provided. Found ${breakpoints.length}.`;
  const hashes: string[] = [];
  const prefix: number[] = [];
  let hash = "";
  let sum = 0;
  for (const block of blocks) {
    hash = createHash("sha256").update(hash).update(block.text).digest("hex");
    sum += countTokens(block.text);
    hashes.push(hash);
    prefix.push(sum);
  }
  let read = 0;
  for (const bp of breakpoints)
    for (let j = bp; j >= Math.max(0, bp - 20); j--)
      if (cache.has(hashes[j]!)) {
        read = Math.max(read, prefix[j]!);
        break;
      }
  const last = breakpoints.at(-1);
  const written = last !== undefined && prefix[last]! >= minCacheable ? Math.max(0, prefix[last]! - read) : 0;
  for (const bp of breakpoints) if (prefix[bp]! >= minCacheable) cache.set(hashes[bp]!, prefix[bp]!);
  return { input: sum - read - written, read, write: written };
}

/** OpenAI's cached tokens: the longest token prefix shared with an earlier prompt, 1024 + a multiple of 128, or 0. */
export function openaiCachedTokens(earlier: readonly (readonly number[])[], tokens: readonly number[]): number {
  let longest = 0;
  for (const other of earlier) {
    let n = 0;
    const max = Math.min(other.length, tokens.length);
    while (n < max && other[n] === tokens[n]) n++;
    longest = Math.max(longest, n);
  }
  return longest < 1024 ? 0 : 1024 + Math.floor((longest - 1024) / 128) * 128;
}

const textOf = (blocks: Json[]): string =>
  blocks.flatMap((b) => (b["type"] === "text" ? [String(b["text"])] : [])).join("\n\n");

/** An Anthropic request as the model's conversation and tools. */
function anthropicConversation(body: Json): { messages: ChatMessage[]; tools: ToolSpec[] } {
  const messages: ChatMessage[] = [];
  const system = body["system"];
  const systemText = typeof system === "string" ? system : textOf((system as Json[]) ?? []);
  if (systemText) messages.push({ role: "system", content: systemText });
  for (const m of body["messages"] as { role: "user" | "assistant"; content: string | Json[] }[]) {
    if (typeof m.content === "string") {
      messages.push({ role: m.role, content: m.content });
      continue;
    }
    const content = m.content;
    const of = (type: string) => content.filter((b) => b["type"] === type);
    const reasoning = content.filter((b) => b["type"] === "thinking" || b["type"] === "redacted_thinking");
    const toolCalls = of("tool_use").map((b) => ({ id: String(b["id"]), name: String(b["name"]), input: b["input"] }));
    const toolResults = of("tool_result").map(
      (b): ToolResult => ({
        id: String(b["tool_use_id"]),
        content: typeof b["content"] === "string" ? b["content"] : textOf((b["content"] as Json[]) ?? []),
        ...(b["is_error"] ? { isError: true } : {}),
      }),
    );
    messages.push({
      role: m.role,
      content: textOf(content),
      ...(reasoning.length ? { reasoning: reasoning.map((b) => withoutCacheControl(b) as Json) } : {}),
      ...(toolCalls.length ? { toolCalls } : {}),
      ...(toolResults.length ? { toolResults } : {}),
    });
  }
  const tools = ((body["tools"] as Json[] | undefined) ?? []).map((t) => ({
    name: String(t["name"]),
    description: String(t["description"] ?? ""),
    inputSchema: t["input_schema"] as Json,
  }));
  return { messages, tools };
}

/** An OpenAI request as the model's conversation and tools: `tool` messages go with the next user message. */
function openaiConversation(body: Json): { messages: ChatMessage[]; tools: ToolSpec[] } {
  const messages: ChatMessage[] = [];
  let pending: ToolResult[] = [];
  for (const m of body["messages"] as Json[]) {
    const role = String(m["role"]);
    const content = typeof m["content"] === "string" ? m["content"] : "";
    if (role === "tool") {
      pending.push({ id: String(m["tool_call_id"]), content });
      continue;
    }
    const calls = ((m["tool_calls"] as Json[] | undefined) ?? []).map((c) => {
      const fn = c["function"] as Json;
      let input: unknown = fn["arguments"];
      try {
        input = JSON.parse(String(fn["arguments"]));
      } catch {
        // kept as text
      }
      return { id: String(c["id"]), name: String(fn["name"]), input };
    });
    const results = role === "user" ? pending : [];
    if (role === "user") pending = [];
    messages.push({
      role: role === "developer" ? "system" : (role as ChatMessage["role"]),
      content,
      ...(calls.length ? { toolCalls: calls } : {}),
      ...(results.length ? { toolResults: results } : {}),
    });
  }
  if (pending.length) messages.push({ role: "user", content: "", toolResults: pending });
  const tools = ((body["tools"] as Json[] | undefined) ?? []).map((t) => {
    const fn = t["function"] as Json;
    return {
      name: String(fn["name"]),
      description: String(fn["description"] ?? ""),
      inputSchema: fn["parameters"] as Json,
    };
  });
  return { messages, tools };
}

/** Where request `b` stops extending request `a` (null: it extends it), comparing canonical parts. */
function divergence(a: Json, b: Json, wire: Wire): string | null {
  const same = (x: unknown, y: unknown) =>
    JSON.stringify(withoutCacheControl(x)) === JSON.stringify(withoutCacheControl(y));
  if (!same(a["tools"] ?? [], b["tools"] ?? [])) return "tools";
  const blocks = (m: unknown) => {
    const content = (m as Json)["content"];
    return wire === "anthropic" && typeof content === "string"
      ? { ...(m as Json), content: [{ type: "text", text: content }] }
      : m;
  };
  if (wire === "anthropic") {
    const sys = (s: unknown) => (typeof s === "string" ? [{ type: "text", text: s }] : (s ?? []));
    if (!same(sys(a["system"]), sys(b["system"]))) return "system";
  }
  const [ma, mb] = [a["messages"] as unknown[], b["messages"] as unknown[]];
  for (let i = 0; i < ma.length; i++) if (i >= mb.length || !same(blocks(ma[i]), blocks(mb[i]))) return `message ${i}`;
  return null;
}

const anthropicAnswer = (
  reply: ModelReply,
  usage: { input: number; read: number; write: number },
  output: number,
): Json => ({
  id: `msg_standin_${Date.now().toString(36)}`,
  type: "message",
  role: "assistant",
  model: reply.model,
  content: [
    ...(reply.reasoning ?? []),
    ...(reply.content ? [{ type: "text", text: reply.content, citations: null }] : []),
    ...(reply.toolCalls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.input ?? {} })),
  ],
  stop_reason: reply.stopReason ?? (reply.toolCalls?.length ? "tool_use" : "end_turn"),
  stop_sequence: null,
  usage: {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.write,
    cache_read_input_tokens: usage.read,
    cache_creation: { ephemeral_5m_input_tokens: usage.write, ephemeral_1h_input_tokens: 0 },
    output_tokens: output,
    service_tier: "standard",
  },
});

const openaiAnswer = (reply: ModelReply, prompt: number, cached: number, output: number): Json => ({
  id: `chatcmpl-standin${Date.now().toString(36)}`,
  object: "chat.completion",
  created: Math.floor(Date.now() / 1000),
  model: reply.model,
  choices: [
    {
      index: 0,
      message: {
        role: "assistant",
        content: reply.content || (reply.toolCalls?.length ? null : ""),
        refusal: null,
        annotations: [],
        ...(reply.toolCalls?.length
          ? {
              tool_calls: reply.toolCalls.map((c) => ({
                id: c.id,
                type: "function",
                function: {
                  name: c.name,
                  arguments: typeof c.input === "string" ? c.input : JSON.stringify(c.input ?? {}),
                },
              })),
            }
          : {}),
      },
      logprobs: null,
      finish_reason: reply.toolCalls?.length ? "tool_calls" : (reply.stopReason ?? "stop"),
    },
  ],
  usage: {
    prompt_tokens: prompt,
    completion_tokens: output,
    total_tokens: prompt + output,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  },
});

const errorBody = (wire: Wire, type: string, message: string): Json =>
  wire === "anthropic"
    ? { type: "error", error: { type, message }, request_id: "req_standin" }
    : { error: { message, type, param: null, code: null } };

/**
 * Starts the stand-in of `options.wire` in front of `model`. Requests are answered one at a time, in the
 * order they arrive (the cache and the record stay consistent under concurrent clients).
 */
export async function startModelServer(
  model: LanguageModelShape,
  options: { readonly wire: Wire; readonly minCacheableTokens?: number },
): Promise<ModelServer> {
  const { wire } = options;
  const requests: BilledRequest[] = [];
  const bodies: Json[] = [];
  const cache: PrefixCache = new Map();
  const prompts = new Map<string, number[][]>();
  let prefixStable = 0;
  let firstUnstable: ModelServerStats["firstUnstable"];
  let queue = Promise.resolve();

  const answer = async (body: Json): Promise<{ status: number; body: Json }> => {
    const isAnthropic = wire === "anthropic";
    const blocks = isAnthropic ? anthropicBlocks(body) : [];
    const billed = isAnthropic ? anthropicUsage(cache, blocks, options.minCacheableTokens) : undefined;
    if (typeof billed === "string") return { status: 400, body: errorBody(wire, "invalid_request_error", billed) };
    const { messages, tools } = isAnthropic ? anthropicConversation(body) : openaiConversation(body);
    const exit = await Effect.runPromiseExit(model.complete(messages, tools.length ? { tools } : {}));
    if (exit._tag === "Failure")
      return {
        status: 500,
        body: errorBody(wire, "api_error", `the model behind the stand-in failed: ${String(exit.cause)}`),
      };
    const reply = exit.value;
    const output = countTokens(reply.content + (reply.toolCalls?.length ? JSON.stringify(reply.toolCalls) : ""));
    const previous = bodies.at(-1);
    if (previous) {
      const where = divergence(previous, body, wire);
      if (where === null) prefixStable++;
      else firstUnstable ??= { index: bodies.length, where };
    }
    bodies.push(body);
    if (billed) {
      requests.push({
        body,
        usage: {
          inputTokens: billed.input + billed.read + billed.write,
          outputTokens: output,
          cacheReadTokens: billed.read,
          cacheWriteTokens: billed.write,
        },
      });
      return { status: 200, body: anthropicAnswer(reply, billed, output) };
    }
    const key = typeof body["prompt_cache_key"] === "string" ? body["prompt_cache_key"] : "";
    const tokens = (encoder ??= new Tiktoken(o200kBase)).encode(
      JSON.stringify(body["tools"] ?? []) + (body["messages"] as unknown[]).map((m) => JSON.stringify(m)).join(""),
    );
    const earlier = prompts.get(key) ?? [];
    const cached = tokens.length >= 1024 ? openaiCachedTokens(earlier, tokens) : 0;
    prompts.set(key, [...earlier, tokens]);
    requests.push({
      body,
      usage: { inputTokens: tokens.length, outputTokens: output, cacheReadTokens: cached, cacheWriteTokens: 0 },
    });
    return { status: 200, body: openaiAnswer(reply, tokens.length, cached, output) };
  };

  const path = wire === "anthropic" ? "/v1/messages" : "/v1/chat/completions";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const send = (status: number, body: Json) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": "req_standin" });
        res.end(JSON.stringify(body));
      };
      if (req.method !== "POST" || req.url?.split("?")[0] !== path)
        return send(404, errorBody(wire, "not_found_error", `the ${wire} stand-in answers POST ${path} only`));
      let body: Json;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json;
        if (!Array.isArray(body["messages"])) throw new Error("messages: expected an array");
      } catch (error) {
        return send(
          400,
          errorBody(wire, "invalid_request_error", `the body is not a request: ${(error as Error).message}`),
        );
      }
      queue = queue.then(() => answer(body).then((a) => send(a.status, a.body)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    stats: () => {
      const sum = (pick: (u: Usage) => number | undefined) => requests.reduce((n, r) => n + (pick(r.usage) ?? 0), 0);
      return {
        requests: requests.length,
        prefixStable,
        inputTokens: sum((u) => u.inputTokens),
        cacheReadTokens: sum((u) => u.cacheReadTokens),
        cacheWriteTokens: sum((u) => u.cacheWriteTokens),
        outputTokens: sum((u) => u.outputTokens),
        ...(firstUnstable ? { firstUnstable } : {}),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

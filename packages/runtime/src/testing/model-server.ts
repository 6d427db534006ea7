/**
 * A stand-in provider that bills like the real one: a local HTTP server (127.0.0.1, a free port) that speaks
 * Anthropic's Messages API (`POST /v1/messages`) or OpenAI's Chat Completions (`POST /v1/chat/completions`),
 * turns each request back into `ChatMessage`s (and the offered tools), asks a model of yours for the reply (a
 * `ScriptedModel`, a replay model) and answers in the provider's wire format — text, tool calls, reasoning
 * blocks, stop reason — with the usage the provider would bill for that request:
 *
 * - input counted by a real tokenizer: o200k_base (js-tiktoken) on both wires. Anthropic's tokenizer is not
 *   public, so Anthropic counts are o200k_base counts, not Claude's own. A text block counts its text, a tool
 *   use its name and input JSON, a tool result its content, a thinking block its thinking, a tool definition
 *   its JSON; output counts the reply's text, each tool call's name and input JSON, and its reasoning text.
 * - Anthropic prompt caching as Anthropic documents it (see {@link anthropicUsage}): breakpoints, at most 4; the
 *   20-block lookback; writes up to the last breakpoint; nothing under `minCacheableTokens`. Entries live as
 *   long as the server: the 5-minute and 1-hour TTLs only decide under which `cache_creation` figure a write
 *   is reported, nothing expires.
 * - OpenAI automatic prompt caching as OpenAI documents it (see {@link openaiCachedTokens}), per
 *   `prompt_cache_key` (and model).
 *
 * It records every answered request with its usage, and whether each request starts with the one before it
 * byte for byte (cache breakpoints aside): `stats()` says how many did and where the first one did not, which
 * is where a real provider's cache stops paying.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { z } from "zod";
import { openaiCompletion } from "./provider-server.js";
import type {
  ChatMessage,
  CompletionOptions,
  LanguageModelShape,
  ModelReply,
  ReasoningBlock,
  ToolCall,
  ToolResult,
  ToolSpec,
  Usage,
} from "../model/model.js";
import { type Answer, anthropicError, openaiError } from "./provider-server.js";

type Json = Record<string, unknown>;

/** Which provider the server plays. */
export type ModelWire = "anthropic" | "openai";

export interface ModelServerOptions {
  readonly wire: ModelWire;
  /**
   * Anthropic: the shortest prefix that is cached (written or read), in tokens; 1024 by default, as for
   * Sonnet and Opus (Haiku's is 2048 or 4096). OpenAI's threshold is fixed at 1024.
   */
  readonly minCacheableTokens?: number;
}

/** An answered request: its body as sent, and the usage it was billed (`inputTokens` counts every input token). */
export interface BilledRequest {
  readonly body: Json;
  readonly usage: Usage;
}

/** Where a request stopped extending the one before it: its tools, its system prompt, or its K-th message (0-based). */
export type PrefixWhere = "tools" | "system" | `message ${number}`;

export interface ModelServerStats {
  /** Answered requests. */
  readonly requests: number;
  /** Requests after the first that start with the request before them, byte for byte (breakpoints aside). */
  readonly prefixStable: number;
  /** Every input token, cached or not. */
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  /** The first request (its index in `requests`) that did not extend the one before it, and where it differs. */
  readonly firstUnstable?: { readonly index: number; readonly where: PrefixWhere };
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>`: Anthropic's SDK takes it as `baseURL`, OpenAI's takes `${origin}/v1`. */
  readonly origin: string;
  /** The answered requests, in the order they were answered. */
  readonly requests: readonly BilledRequest[];
  /** Totals over `requests`, and their prefix stability. */
  readonly stats: () => ModelServerStats;
  readonly close: () => Promise<void>;
}

let encoder: Tiktoken | undefined;

/** The o200k_base tokens of `text`; special-token strings count as plain text. The encoder is built on first use (~0.8 s). */
export function tokenize(text: string): number[] {
  encoder ??= new Tiktoken(o200k);
  return encoder.encode(text, [], []);
}

/** How many o200k_base tokens `text` is. */
export const countTokens = (text: string): number => (text ? tokenize(text).length : 0);

// ---------------------------------------------------------------------------------------------------------------
// The wire formats, as far as the stand-in reads them (unknown fields pass).

const CacheControl = z.object({ type: z.literal("ephemeral"), ttl: z.enum(["5m", "1h"]).optional() });
const marked = { cache_control: CacheControl.nullish() };
const notMarked = { cache_control: z.undefined({ error: "thinking blocks cannot carry cache_control" }).optional() };
const AnthropicText = z.looseObject({ type: z.literal("text"), text: z.string(), ...marked });
const AnthropicBlock = z.discriminatedUnion("type", [
  AnthropicText,
  z.looseObject({ type: z.literal("image"), source: z.looseObject({}), ...marked }),
  z.looseObject({ type: z.literal("document"), source: z.looseObject({}), ...marked }),
  z.looseObject({
    type: z.literal("tool_use"),
    id: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    ...marked,
  }),
  z.looseObject({
    type: z.literal("tool_result"),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).optional(),
    is_error: z.boolean().optional(),
    ...marked,
  }),
  z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string(), ...notMarked }),
  z.looseObject({ type: z.literal("redacted_thinking"), data: z.string(), ...notMarked }),
]);
const AnthropicRequest = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().positive(),
  system: z.union([z.string(), z.array(AnthropicText)]).optional(),
  messages: z
    .array(
      z.looseObject({
        role: z.enum(["user", "assistant"]),
        content: z.union([z.string(), z.array(AnthropicBlock)]),
      }),
    )
    .min(1),
  tools: z
    .array(
      z.looseObject({
        name: z.string(),
        description: z.string().optional(),
        input_schema: z.record(z.string(), z.unknown()).optional(),
        ...marked,
      }),
    )
    .optional(),
  cache_control: CacheControl.nullish(),
  stream: z.literal(false, { error: "the stand-in does not stream: send stream: false" }).optional(),
});
type AnthropicBody = z.infer<typeof AnthropicRequest>;
type AnthropicBlockParam = z.infer<typeof AnthropicBlock>;

const OpenAIContent = z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]);
const OpenAIMessage = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: OpenAIContent }),
  z.looseObject({ role: z.literal("developer"), content: OpenAIContent }),
  z.looseObject({ role: z.literal("user"), content: OpenAIContent }),
  z.looseObject({
    role: z.literal("assistant"),
    content: OpenAIContent.nullish(),
    tool_calls: z
      .array(
        z.looseObject({
          id: z.string(),
          type: z.literal("function"),
          function: z.looseObject({ name: z.string(), arguments: z.string() }),
        }),
      )
      .optional(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string(), content: OpenAIContent }),
]);
const OpenAIRequest = z.looseObject({
  model: z.string(),
  messages: z.array(OpenAIMessage).min(1),
  tools: z
    .array(
      z.looseObject({
        type: z.literal("function"),
        function: z.looseObject({
          name: z.string(),
          description: z.string().optional(),
          parameters: z.record(z.string(), z.unknown()).optional(),
        }),
      }),
    )
    .optional(),
  prompt_cache_key: z.string().optional(),
  stream: z.literal(false, { error: "the stand-in does not stream: send stream: false" }).optional(),
});
type OpenAIBody = z.infer<typeof OpenAIRequest>;

// ---------------------------------------------------------------------------------------------------------------
// The prefix: what the cache and the stability check compare.

/**
 * One block of a request's prefix: where it is, its identity (its canonical JSON without `cache_control`, so
 * that moving a breakpoint does not change a block), its tokens, and the TTL of its breakpoint when it is one.
 */
export interface PrefixBlock {
  readonly where: PrefixWhere;
  readonly key: string;
  readonly tokens: number;
  readonly breakpoint?: "5m" | "1h";
}

/** A block without its `cache_control` (a tool result's inner blocks too): `cache_control` is not content. */
function unmarked(block: Json): Json {
  const { cache_control: _, ...rest } = block;
  if (rest["type"] === "tool_result" && Array.isArray(rest["content"]))
    return { ...rest, content: (rest["content"] as Json[]).map(unmarked) };
  return rest;
}

const ttlOf = (block: { cache_control?: z.infer<typeof CacheControl> | null | undefined }) =>
  block.cache_control ? (block.cache_control.ttl ?? "5m") : undefined;

/** The text of a block as the model reads it, which is what its tokens count. */
function anthropicText(block: Json): string {
  switch (block["type"]) {
    case "text":
      return String(block["text"]);
    case "thinking":
      return String(block["thinking"]);
    case "redacted_thinking":
      return String(block["data"]);
    case "tool_use":
      return `${String(block["name"])}${JSON.stringify(block["input"] ?? {})}`;
    case "tool_result": {
      const content = block["content"];
      return typeof content === "string" ? content : Array.isArray(content) ? content.map(anthropicText).join("") : "";
    }
    default:
      return JSON.stringify(unmarked(block));
  }
}

/**
 * An Anthropic request's prefix, in the cache's order: each tool, the system prompt (a string is one block),
 * each message's blocks (a string content is one block; the role is part of each block's identity). A
 * top-level `cache_control` puts a breakpoint on the last block. `count` counts a text's tokens.
 */
export function anthropicBlocks(body: AnthropicBody, count: (text: string) => number = countTokens): PrefixBlock[] {
  const blocks: PrefixBlock[] = [];
  for (const tool of body.tools ?? []) {
    const key = JSON.stringify(unmarked(tool));
    blocks.push({ where: "tools", key, tokens: count(key), ...breakpointOf(tool) });
  }
  const system = body.system;
  if (typeof system === "string") blocks.push({ where: "system", key: JSON.stringify(system), tokens: count(system) });
  for (const block of typeof system === "string" ? [] : (system ?? []))
    blocks.push({
      where: "system",
      key: JSON.stringify(unmarked(block)),
      tokens: count(block.text),
      ...breakpointOf(block),
    });
  body.messages.forEach((message, k) => {
    const where: PrefixWhere = `message ${k}`;
    if (typeof message.content === "string") {
      const key = `${message.role}:${JSON.stringify(message.content)}`;
      blocks.push({ where, key, tokens: count(message.content) });
      return;
    }
    for (const block of message.content) {
      const key = `${message.role}:${JSON.stringify(unmarked(block))}`;
      blocks.push({ where, key, tokens: count(anthropicText(block)), ...breakpointOf(block) });
    }
  });
  const last = blocks.at(-1);
  if (body.cache_control && last && !last.breakpoint)
    blocks[blocks.length - 1] = { ...last, breakpoint: body.cache_control.ttl ?? "5m" };
  return blocks;
}

function breakpointOf(block: { cache_control?: z.infer<typeof CacheControl> | null | undefined }) {
  const ttl = ttlOf(block);
  return ttl ? { breakpoint: ttl } : {};
}

/**
 * The blocks as the cache keys them: besides the content, the model (caches are per model) and, for the
 * messages, `tool_choice` and `thinking` (Anthropic: changing them invalidates the messages' cache, not the
 * tools' or the system prompt's).
 */
function cacheKeyed(blocks: readonly PrefixBlock[], body: AnthropicBody): PrefixBlock[] {
  const context = JSON.stringify({ tool_choice: body["tool_choice"] ?? null, thinking: body["thinking"] ?? null });
  const firstMessage = blocks.findIndex((b) => b.where.startsWith("message"));
  return blocks.map((b, i) => {
    let key = i === 0 ? `model ${body.model}|${b.key}` : b.key;
    if (i === firstMessage) key = `${context}|${key}`;
    return { ...b, key };
  });
}

/** The most breakpoints a request may carry. */
export const MAX_BREAKPOINTS = 4;

/** The API's refusal of a request with too many breakpoints, or undefined. */
export function breakpointError(blocks: readonly PrefixBlock[]): string | undefined {
  const found = blocks.filter((b) => b.breakpoint).length;
  return found > MAX_BREAKPOINTS
    ? `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`
    : undefined;
}

/** How many blocks before a breakpoint the cache looks for an earlier entry. */
export const LOOKBACK_BLOCKS = 20;

/** What Anthropic bills for a request's input, and what the request adds to the cache. */
export interface AnthropicBill {
  /** `input_tokens`: tokens neither read nor written (those after the last breakpoint, or all when nothing is cached). */
  readonly inputTokens: number;
  /** `cache_read_input_tokens`. */
  readonly cacheReadTokens: number;
  /** `cache_creation.ephemeral_5m_input_tokens` (each written stretch goes under the TTL of the breakpoint ending it). */
  readonly cacheWrite5mTokens: number;
  /** `cache_creation.ephemeral_1h_input_tokens`. */
  readonly cacheWrite1hTokens: number;
  /** The prefixes to store: the cache after the request is `cache` with these added. */
  readonly writes: readonly string[];
}

/** The id of each prefix: a hash chained over the blocks' keys. */
export function prefixIds(blocks: readonly PrefixBlock[]): string[] {
  let id = "";
  return blocks.map((b) => (id = createHash("sha256").update(id).update("\u0000").update(b.key).digest("hex")));
}

/**
 * Anthropic's bill for a request of these blocks, given the prefixes earlier requests stored (`cache`, prefix
 * ids from {@link prefixIds}); pure. As documented: for each breakpoint, the cache looks for the longest stored
 * prefix ending at it or at one of the {@link LOOKBACK_BLOCKS} blocks before it; the longest hit over all
 * breakpoints is read; the tokens from its end to the last breakpoint are written, and each breakpoint's prefix
 * is stored; a prefix under `minCacheableTokens` is neither stored nor read. The rest is `input_tokens`.
 */
export function anthropicUsage(
  cache: ReadonlySet<string>,
  blocks: readonly PrefixBlock[],
  minCacheableTokens = 1024,
): AnthropicBill {
  const ids = prefixIds(blocks);
  const upTo: number[] = [];
  let total = 0;
  for (const b of blocks) upTo.push((total += b.tokens));
  const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
  let hit = -1;
  for (const bp of breakpoints) {
    for (let j = bp; j >= Math.max(0, bp - LOOKBACK_BLOCKS); j--) {
      if (upTo[j]! >= minCacheableTokens && cache.has(ids[j]!)) {
        if (hit < 0 || upTo[j]! > upTo[hit]!) hit = j;
        break;
      }
    }
  }
  const read = hit < 0 ? 0 : upTo[hit]!;
  const last = breakpoints.at(-1);
  const writing = last !== undefined && upTo[last]! >= minCacheableTokens && last > hit;
  const written = { "5m": 0, "1h": 0 };
  let from = read;
  if (writing)
    for (const bp of breakpoints) {
      if (bp <= hit) continue;
      written[blocks[bp]!.breakpoint!] += upTo[bp]! - from;
      from = upTo[bp]!;
    }
  const writes = breakpoints.filter((bp) => upTo[bp]! >= minCacheableTokens).map((bp) => ids[bp]!);
  return {
    inputTokens: total - read - written["5m"] - written["1h"],
    cacheReadTokens: read,
    cacheWrite5mTokens: written["5m"],
    cacheWrite1hTokens: written["1h"],
    writes,
  };
}

/**
 * An OpenAI request's prefix: each tool, then each message, as its canonical JSON (`key`); its tokens are the
 * tokens of those texts, in that order.
 */
export function openaiBlocks(body: OpenAIBody, count: (text: string) => number = countTokens): PrefixBlock[] {
  const tools = (body.tools ?? []).map((tool): PrefixBlock => {
    const key = JSON.stringify(tool);
    return { where: "tools", key, tokens: count(key) };
  });
  const messages = body.messages.map((m, k): PrefixBlock => {
    const key = JSON.stringify(m);
    return { where: `message ${k}`, key, tokens: count(key) };
  });
  return [...tools, ...messages];
}

/** How many leading tokens `a` and `b` share. */
export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const max = Math.min(a.length, b.length);
  let n = 0;
  while (n < max && a[n] === b[n]) n++;
  return n;
}

/**
 * OpenAI's `cached_tokens` for a prompt of `tokens`, given the earlier prompts of its pool; pure. As
 * documented: prompts of 1024 tokens or more are cached, and a hit is the longest prefix shared with an earlier
 * prompt, counted in 1024 tokens and then steps of 128 (0 under 1024).
 */
export function openaiCachedTokens(earlier: readonly (readonly number[])[], tokens: readonly number[]): number {
  const longest = earlier.reduce((n, other) => Math.max(n, commonPrefix(other, tokens)), 0);
  return longest < 1024 ? 0 : 1024 + Math.floor((longest - 1024) / 128) * 128;
}

/**
 * Where `next` stops extending `previous` (block by block, in order), or null when it extends it. A difference
 * is placed in the earlier of the two blocks' places, so that a tool added in front of an unchanged system
 * prompt is a change of the tools.
 */
export function divergence(previous: readonly PrefixBlock[], next: readonly PrefixBlock[]): PrefixWhere | null {
  const rank = (where: PrefixWhere) =>
    where === "tools" ? 0 : where === "system" ? 1 : 2 + Number(where.slice("message ".length));
  for (let i = 0; i < previous.length; i++) {
    const a = previous[i]!;
    const b = next[i];
    if (b === undefined) return a.where;
    if (a.where !== b.where || a.key !== b.key) return rank(a.where) <= rank(b.where) ? a.where : b.where;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests as conversations, replies as answers.

const joinText = (parts: readonly { type: string; text?: string | undefined }[]): string =>
  parts.flatMap((p) => (p.type === "text" && typeof p.text === "string" ? [p.text] : [])).join("\n\n");

/**
 * An Anthropic request as the model's conversation: the system prompt (its blocks joined) first; a user
 * turn's tool results become `toolResults`, an assistant turn's thinking blocks `reasoning` (as sent, breakpoints
 * aside) and its tool uses `toolCalls`; text blocks are joined. Images and documents are not passed on.
 */
function anthropicConversation(body: AnthropicBody): { messages: ChatMessage[]; options: CompletionOptions } {
  const messages: ChatMessage[] = [];
  const system = typeof body.system === "string" ? body.system : joinText(body.system ?? []);
  if (system) messages.push({ role: "system", content: system });
  for (const m of body.messages) {
    if (typeof m.content === "string") {
      messages.push({ role: m.role, content: m.content });
      continue;
    }
    const blocks: AnthropicBlockParam[] = m.content;
    const reasoning = blocks.flatMap((b) =>
      b.type === "thinking" || b.type === "redacted_thinking" ? [unmarked(b) as ReasoningBlock] : [],
    );
    const toolCalls = blocks.flatMap((b): ToolCall[] =>
      b.type === "tool_use" ? [{ id: b.id, name: b.name, input: b.input }] : [],
    );
    const toolResults = blocks.flatMap((b): ToolResult[] =>
      b.type === "tool_result"
        ? [
            {
              id: b.tool_use_id,
              content: typeof b.content === "string" ? b.content : joinText((b.content ?? []) as { type: string }[]),
              ...(b.is_error ? { isError: true } : {}),
            },
          ]
        : [],
    );
    messages.push({
      role: m.role,
      content: joinText(blocks),
      ...(reasoning.length ? { reasoning } : {}),
      ...(toolCalls.length ? { toolCalls } : {}),
      ...(toolResults.length ? { toolResults } : {}),
    });
  }
  const tools = (body.tools ?? []).flatMap((t): ToolSpec[] =>
    t.input_schema ? [{ name: t.name, description: t.description ?? "", inputSchema: t.input_schema }] : [],
  );
  return { messages, options: tools.length ? { tools } : {} };
}

/** A function call's arguments: parsed JSON, or the text itself when it is not JSON. */
function argumentsOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * An OpenAI request as the model's conversation: `system` and `developer` messages are system messages; the
 * `tool` messages before a user message become its `toolResults` (a user message of no text when none
 * follows); assistant `tool_calls` become `toolCalls`. `prompt_cache_key` is the `conversationId`.
 */
function openaiConversation(body: OpenAIBody): { messages: ChatMessage[]; options: CompletionOptions } {
  const messages: ChatMessage[] = [];
  let pending: ToolResult[] = [];
  const flush = (content = "") => {
    if (pending.length) messages.push({ role: "user", content, toolResults: pending });
    pending = [];
  };
  const text = (content: z.infer<typeof OpenAIContent> | null | undefined) =>
    typeof content === "string" ? content : joinText(content ?? []);
  for (const m of body.messages) {
    if (m.role === "tool") {
      pending.push({ id: m.tool_call_id, content: text(m.content) });
    } else if (m.role === "user" && pending.length) {
      flush(text(m.content));
    } else {
      flush();
      const role = m.role === "developer" ? "system" : m.role;
      const toolCalls = (m.role === "assistant" ? (m.tool_calls ?? []) : []).map(
        (c): ToolCall => ({ id: c.id, name: c.function.name, input: argumentsOf(c.function.arguments) }),
      );
      messages.push({ role, content: text(m.content), ...(toolCalls.length ? { toolCalls } : {}) });
    }
  }
  flush();
  const tools = (body.tools ?? []).map(
    (t): ToolSpec => ({
      name: t.function.name,
      description: t.function.description ?? "",
      inputSchema: t.function.parameters ?? { type: "object", properties: {} },
    }),
  );
  return {
    messages,
    options: {
      ...(tools.length ? { tools } : {}),
      ...(body.prompt_cache_key === undefined ? {} : { conversationId: body.prompt_cache_key }),
    },
  };
}

/** A reply's output tokens: its text, each tool call's name and input JSON, its reasoning text. */
function outputTokens(reply: ModelReply): { output: number; reasoning: number } {
  const calls = (reply.toolCalls ?? []).reduce(
    (n, c) =>
      n + countTokens(c.name) + countTokens(typeof c.input === "string" ? c.input : JSON.stringify(c.input ?? {})),
    0,
  );
  const reasoning = (reply.reasoning ?? []).reduce(
    (n, b) => n + countTokens(typeof b["thinking"] === "string" ? b["thinking"] : String(b["data"] ?? "")),
    0,
  );
  return { output: countTokens(reply.content) + calls + reasoning, reasoning };
}

const TO_ANTHROPIC: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
};
const TO_OPENAI: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

/** A successful Messages API answer: the reply's reasoning blocks first, then its text, then its tool uses. */
function anthropicAnswer(
  id: string,
  body: AnthropicBody,
  reply: ModelReply,
  bill: AnthropicBill,
  output: number,
): Json {
  const stop = reply.stopReason ?? (reply.toolCalls?.length ? "tool_use" : "end_turn");
  return {
    id: `msg_standin_${id}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content: [
      ...(reply.reasoning ?? []),
      ...(reply.content ? [{ type: "text", text: reply.content, citations: null }] : []),
      ...(reply.toolCalls ?? []).map((c) => ({
        type: "tool_use",
        id: c.id,
        name: c.name,
        input: c.input ?? {},
        caller: { type: "direct" },
      })),
    ],
    container: null,
    diagnostics: null,
    stop_details: null,
    stop_reason: TO_ANTHROPIC[stop] ?? stop,
    stop_sequence: null,
    usage: {
      cache_creation: {
        ephemeral_1h_input_tokens: bill.cacheWrite1hTokens,
        ephemeral_5m_input_tokens: bill.cacheWrite5mTokens,
      },
      cache_creation_input_tokens: bill.cacheWrite5mTokens + bill.cacheWrite1hTokens,
      cache_read_input_tokens: bill.cacheReadTokens,
      inference_geo: "global",
      input_tokens: bill.inputTokens,
      output_tokens: output,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: "standard",
      speed: "standard",
    },
  };
}

/** A successful Chat Completions answer (`chat.completion`): the reply's text and function calls, in the shape `openaiCompletion` gives. */
function openaiAnswer(body: OpenAIBody, reply: ModelReply, usage: Usage): Json {
  const calls = reply.toolCalls ?? [];
  const stop = reply.stopReason ?? (calls.length ? "tool_calls" : "stop");
  const answer = openaiCompletion({
    content: reply.content || (calls.length ? null : ""),
    ...(calls.length
      ? {
          toolCalls: calls.map((c) => ({
            id: c.id,
            name: c.name,
            arguments: typeof c.input === "string" ? c.input : JSON.stringify(c.input ?? {}),
          })),
        }
      : {}),
    model: body.model,
    promptTokens: usage.inputTokens,
    completionTokens: usage.outputTokens,
    cachedTokens: usage.cacheReadTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? 0,
    finishReason: TO_OPENAI[stop] ?? stop,
  });
  return (answer as { readonly body: Json }).body;
}

// ---------------------------------------------------------------------------------------------------------------
// The server.

/** What a failure of the model says: the message of the error (or defect) it failed with. */
function failureMessage(cause: Cause.Cause<unknown>): string {
  const error = Cause.squash(cause);
  return error instanceof Error ? error.message : String(error);
}

const issuesOf = (error: z.ZodError): string =>
  error.issues.map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)).join("; ");

/** The state of one server: its cache, its record, its counters. Each request is billed in one synchronous step. */
class Biller {
  readonly requests: BilledRequest[] = [];
  readonly #anthropicCache = new Set<string>();
  readonly #openaiPools = new Map<string, number[][]>();
  readonly #tokens = new Map<string, number[]>();
  #previous: PrefixBlock[] | undefined;
  #prefixStable = 0;
  #firstUnstable: ModelServerStats["firstUnstable"];
  #ids = 0;

  constructor(private readonly minCacheableTokens: number) {}

  nextId(): string {
    return (++this.#ids).toString().padStart(6, "0");
  }

  /** The tokens of a text, remembered: a conversation's blocks come back in every request. */
  readonly tokensOf = (text: string): number[] => {
    let tokens = this.#tokens.get(text);
    if (!tokens) this.#tokens.set(text, (tokens = tokenize(text)));
    return tokens;
  };

  readonly count = (text: string): number => this.tokensOf(text).length;

  anthropic(
    body: AnthropicBody,
    blocks: readonly PrefixBlock[],
    reply: ModelReply,
  ): { bill: AnthropicBill; usage: Usage } {
    const bill = anthropicUsage(this.#anthropicCache, cacheKeyed(blocks, body), this.minCacheableTokens);
    for (const id of bill.writes) this.#anthropicCache.add(id);
    const write = bill.cacheWrite5mTokens + bill.cacheWrite1hTokens;
    const { output, reasoning } = outputTokens(reply);
    const usage: Usage = {
      inputTokens: bill.inputTokens + bill.cacheReadTokens + write,
      outputTokens: output,
      cacheReadTokens: bill.cacheReadTokens,
      cacheWriteTokens: write,
      ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
    };
    this.#record(body, blocks, usage);
    return { bill, usage };
  }

  openai(body: OpenAIBody, blocks: readonly PrefixBlock[], reply: ModelReply): Usage {
    const tokens = blocks.flatMap((b) => this.tokensOf(b.key));
    const pool = `${body.model}\u0000${body.prompt_cache_key ?? ""}`;
    const earlier = this.#openaiPools.get(pool) ?? [];
    const cached = tokens.length >= 1024 ? openaiCachedTokens(earlier, tokens) : 0;
    // An earlier prompt that this one extends adds nothing to later matches: this one matches at least as far.
    this.#openaiPools.set(pool, [...earlier.filter((e) => commonPrefix(e, tokens) < e.length), tokens]);
    const { output, reasoning } = outputTokens(reply);
    const usage: Usage = {
      inputTokens: tokens.length,
      outputTokens: output,
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
      ...(reasoning > 0 ? { reasoningTokens: reasoning } : {}),
    };
    this.#record(body, blocks, usage);
    return usage;
  }

  #record(body: Json, blocks: readonly PrefixBlock[], usage: Usage): void {
    if (this.#previous) {
      const where = divergence(this.#previous, blocks);
      if (where === null) this.#prefixStable++;
      else this.#firstUnstable ??= { index: this.requests.length, where };
    }
    this.#previous = [...blocks];
    this.requests.push({ body, usage });
  }

  stats(): ModelServerStats {
    const sum = (pick: (u: Usage) => number | undefined) => this.requests.reduce((n, r) => n + (pick(r.usage) ?? 0), 0);
    return {
      requests: this.requests.length,
      prefixStable: this.#prefixStable,
      inputTokens: sum((u) => u.inputTokens),
      cacheReadTokens: sum((u) => u.cacheReadTokens),
      cacheWriteTokens: sum((u) => u.cacheWriteTokens),
      outputTokens: sum((u) => u.outputTokens),
      ...(this.#firstUnstable ? { firstUnstable: this.#firstUnstable } : {}),
    };
  }
}

/** The model's reply, or the message of its failure (a thrown error included). */
async function ask(
  model: LanguageModelShape,
  conversation: { messages: ChatMessage[]; options: CompletionOptions },
): Promise<{ reply: ModelReply } | { failure: string }> {
  try {
    const exit = await Effect.runPromiseExit(model.complete(conversation.messages, conversation.options));
    return Exit.isSuccess(exit) ? { reply: exit.value } : { failure: failureMessage(exit.cause) };
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

const NO_RETRY = { "x-should-retry": "false" };

/** One Messages API request: refused (400), failed (500) or answered and billed. */
async function answerAnthropic(biller: Biller, model: LanguageModelShape, raw: unknown): Promise<Answer> {
  const parsed = AnthropicRequest.safeParse(raw);
  if (!parsed.success) return anthropicError(400, "invalid_request_error", issuesOf(parsed.error));
  // The body as sent (its keys in their order): identities are byte for byte.
  const body = raw as AnthropicBody;
  const blocks = anthropicBlocks(body, biller.count);
  const refused = breakpointError(blocks);
  if (refused) return anthropicError(400, "invalid_request_error", refused);
  const asked = await ask(model, anthropicConversation(body));
  if ("failure" in asked) return anthropicError(500, "api_error", asked.failure, NO_RETRY);
  const id = biller.nextId();
  const { bill, usage } = biller.anthropic(body, blocks, asked.reply);
  return {
    status: 200,
    headers: { "request-id": `req_standin_${id}` },
    body: anthropicAnswer(id, body, asked.reply, bill, usage.outputTokens),
  };
}

/** One Chat Completions request: refused (400), failed (500) or answered and billed. */
async function answerOpenAI(biller: Biller, model: LanguageModelShape, raw: unknown): Promise<Answer> {
  const parsed = OpenAIRequest.safeParse(raw);
  if (!parsed.success) return openaiError(400, "invalid_request_error", issuesOf(parsed.error));
  const body = raw as OpenAIBody;
  const blocks = openaiBlocks(body, biller.count);
  const asked = await ask(model, openaiConversation(body));
  if ("failure" in asked) return openaiError(500, "server_error", asked.failure, NO_RETRY);
  const id = biller.nextId();
  const usage = biller.openai(body, blocks, asked.reply);
  return {
    status: 200,
    headers: { "x-request-id": `req_standin_${id}` },
    body: openaiAnswer(body, asked.reply, usage),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, answer: Answer): void {
  if (answer === "hang") return;
  res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
  res.end(JSON.stringify(answer.body));
}

/**
 * Starts a stand-in for `options.wire` in front of `model` and gives its origin, its record of billed requests,
 * `stats()` and `close()`. A body that is not a request of that API gets a 400 in the provider's error format;
 * a failure of the model a 500 with the failure's message (and `x-should-retry: false`, so that the SDK does not
 * ask the model again). Concurrent requests are fine: each is billed, against the cache as it stands, in one
 * synchronous step once its reply is there, so requests are recorded in the order they are answered.
 */
export async function startModelServer(model: LanguageModelShape, options: ModelServerOptions): Promise<ModelServer> {
  const biller = new Biller(options.minCacheableTokens ?? 1024);
  const anthropic = options.wire === "anthropic";
  const path = anthropic ? "/v1/messages" : "/v1/chat/completions";
  const refuse = anthropic ? anthropicError : openaiError;
  const server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      if (req.method !== "POST" || req.url?.split("?")[0] !== path)
        return send(
          res,
          refuse(
            404,
            anthropic ? "not_found_error" : "invalid_request_error",
            `no route: the ${options.wire} stand-in answers POST ${path}`,
          ),
        );
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (error) {
        return send(res, refuse(400, "invalid_request_error", `the body is not JSON: ${(error as Error).message}`));
      }
      send(res, await (anthropic ? answerAnthropic : answerOpenAI)(biller, model, raw));
    })().catch((error: unknown) => {
      if (!res.headersSent) send(res, refuse(500, anthropic ? "api_error" : "server_error", String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests: biller.requests,
    stats: () => biller.stats(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

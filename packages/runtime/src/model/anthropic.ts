/**
 * The Anthropic layer: the Messages API (`POST /v1/messages`) through `@anthropic-ai/sdk`.
 */
import type Anthropic from "@anthropic-ai/sdk";
import * as Effect from "effect/Effect";
import { costUsd, priceOf, type ModelConfig } from "./config.js";
import type { ChatMessage, CompletionOptions, LanguageModelShape, ModelReply } from "./model.js";
import { requestFailed } from "./sdk-errors.js";

type AnthropicConfig = Extract<ModelConfig, { provider: "anthropic" }>;

type Block = Anthropic.ContentBlockParam;
const EPHEMERAL: Anthropic.CacheControlEphemeral = { type: "ephemeral" };

/**
 * One turn as content blocks: an assistant's reasoning blocks first (sent back as they came, as
 * Anthropic requires of a tool turn when thinking is on), then its text, then its tool calls; a user's
 * tool results first, then its text.
 */
function turnBlocks(m: ChatMessage & { role: "user" | "assistant" }): Block[] {
  const text: Anthropic.TextBlockParam[] = m.content ? [{ type: "text", text: m.content }] : [];
  if (m.role === "assistant") {
    const reasoning = (m.reasoning ?? []) as unknown as Block[];
    const uses = (m.toolCalls ?? []).map(
      (c): Anthropic.ToolUseBlockParam => ({ type: "tool_use", id: c.id, name: c.name, input: c.input ?? {} }),
    );
    return [...reasoning, ...text, ...uses];
  }
  const results = (m.toolResults ?? []).map(
    (r): Anthropic.ToolResultBlockParam => ({
      type: "tool_result",
      tool_use_id: r.id,
      content: r.content,
      ...(r.isError ? { is_error: true } : {}),
    }),
  );
  return [...results, ...text];
}

/**
 * A turn as the API takes it: with caching off, plain text when it is only text; with caching on, always
 * blocks, so that a turn reads the same in every request whether or not it carries a breakpoint.
 */
function anthropicTurn(
  m: ChatMessage & { role: "user" | "assistant" },
  cache: boolean,
  breakpoint: boolean,
): Anthropic.MessageParam {
  const plain = !m.toolCalls?.length && !m.toolResults?.length && !m.reasoning?.length;
  if (plain && !cache) return { role: m.role, content: m.content };
  const blocks = turnBlocks(m);
  const last = blocks.at(-1);
  if (breakpoint && last && last.type !== "thinking" && last.type !== "redacted_thinking")
    blocks[blocks.length - 1] = { ...last, cache_control: EPHEMERAL } as Block;
  return { role: m.role, content: blocks };
}

/** How many of the last user turns carry a cache breakpoint (with the system prompt's: 3 of the API's 4). */
export const USER_BREAKPOINTS = 2;

/**
 * The request body: system messages, wherever they are, go joined to `system`; the rest stay in order.
 * With `cache` on (the default), cache breakpoints mark the system prompt (with the tools before it) and
 * the last block of each of the last two user turns: the last one writes this request's prefix, the one
 * before reads the previous request's (Anthropic looks back 20 blocks from each breakpoint).
 */
export function anthropicRequest(
  config: AnthropicConfig,
  messages: readonly ChatMessage[],
  options: CompletionOptions = {},
): Anthropic.MessageCreateParamsNonStreaming {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  const turns = messages.filter((m): m is ChatMessage & { role: "user" | "assistant" } => m.role !== "system");
  const userIndexes = turns.flatMap((m, i) => (m.role === "user" ? [i] : []));
  const marked = new Set(config.cache ? userIndexes.slice(-USER_BREAKPOINTS) : []);
  const tools = options.tools?.map(
    (t): Anthropic.Tool => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
    }),
  );
  const systemText = system.join("\n\n");
  return {
    model: config.model,
    max_tokens: config.maxTokens,
    messages: turns.map((m, i) => anthropicTurn(m, config.cache, marked.has(i))),
    ...(tools?.length ? { tools } : {}),
    ...(system.length > 0
      ? { system: config.cache ? [{ type: "text", text: systemText, cache_control: EPHEMERAL }] : systemText }
      : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config.thinking === undefined
      ? {}
      : {
          thinking:
            config.thinking.type === "enabled"
              ? { type: "enabled", budget_tokens: config.thinking.budgetTokens }
              : { type: "adaptive" },
        }),
    ...(config.effort === undefined ? {} : { output_config: { effort: config.effort } }),
  };
}

/**
 * The reply: its text blocks joined; its thinking blocks kept (signatures and all) to go back with the
 * next request; usage as billed: `input_tokens` is what follows the last cache breakpoint, so every input
 * token is that plus the cache writes and reads, which are priced apart.
 */
export function anthropicReply(config: AnthropicConfig, message: Anthropic.Message): ModelReply {
  const content = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const toolCalls = message.content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, name: block.name, input: block.input }] : [],
  );
  const reasoning = message.content.flatMap((block) =>
    block.type === "thinking" || block.type === "redacted_thinking" ? [{ ...block } as Record<string, unknown>] : [],
  );
  const u = message.usage;
  const cacheReadTokens = u.cache_read_input_tokens ?? 0;
  const cacheWriteTokens = u.cache_creation_input_tokens ?? 0;
  const usage = {
    inputTokens: (u.input_tokens ?? 0) + cacheWriteTokens + cacheReadTokens,
    outputTokens: u.output_tokens ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
  };
  return {
    content,
    model: message.model,
    usage,
    costUsd: costUsd(priceOf(config), usage),
    ...(message.stop_reason ? { stopReason: message.stop_reason } : {}),
    ...(toolCalls.length ? { toolCalls } : {}),
    ...(reasoning.length ? { reasoning } : {}),
  };
}

/** The SDK is loaded here, when a layer is built, so that starting a program that never calls a model stays fast. */
export const anthropicModel = (config: AnthropicConfig, apiKey: string): Effect.Effect<LanguageModelShape> =>
  Effect.map(
    Effect.promise(() => import("@anthropic-ai/sdk")),
    (sdk): LanguageModelShape => {
      const client = new sdk.Anthropic({
        apiKey,
        ...(config.baseUrl !== undefined ? { baseURL: config.baseUrl } : {}),
        maxRetries: config.maxRetries,
        timeout: config.timeoutMs,
      });
      return {
        name: `anthropic:${config.model}`,
        priced: priceOf(config) !== undefined,
        supportsTools: true,
        complete: (messages, options) =>
          Effect.map(
            Effect.tryPromise({
              try: (signal) => client.messages.create(anthropicRequest(config, messages, options), { signal }),
              catch: (error) => requestFailed(sdk, config, client.baseURL, error),
            }),
            (message) => anthropicReply(config, message),
          ),
      };
    },
  );

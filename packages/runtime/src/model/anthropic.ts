/**
 * The Anthropic layer: the Messages API (`POST /v1/messages`) through `@anthropic-ai/sdk`.
 */
import type Anthropic from "@anthropic-ai/sdk";
import * as Effect from "effect/Effect";
import { costUsd, priceOf, type ModelConfig } from "./config.js";
import type { ChatMessage, CompletionOptions, LanguageModelShape, ModelReply } from "./model.js";
import { requestFailed } from "./sdk-errors.js";

type AnthropicConfig = Extract<ModelConfig, { provider: "anthropic" }>;

/** One turn: tool calls become `tool_use` blocks after the text, tool results `tool_result` blocks before it. */
function anthropicTurn(m: ChatMessage & { role: "user" | "assistant" }): Anthropic.MessageParam {
  if (!m.toolCalls?.length && !m.toolResults?.length) return { role: m.role, content: m.content };
  const text: Anthropic.TextBlockParam[] = m.content ? [{ type: "text", text: m.content }] : [];
  if (m.role === "assistant") {
    const uses = (m.toolCalls ?? []).map(
      (c): Anthropic.ToolUseBlockParam => ({ type: "tool_use", id: c.id, name: c.name, input: c.input ?? {} }),
    );
    return { role: "assistant", content: [...text, ...uses] };
  }
  const results = (m.toolResults ?? []).map(
    (r): Anthropic.ToolResultBlockParam => ({
      type: "tool_result",
      tool_use_id: r.id,
      content: r.content,
      ...(r.isError ? { is_error: true } : {}),
    }),
  );
  return { role: "user", content: [...results, ...text] };
}

/** The request body: system messages, wherever they are, go joined to `system`; the rest stay in order. */
export function anthropicRequest(
  config: AnthropicConfig,
  messages: readonly ChatMessage[],
  options: CompletionOptions = {},
): Anthropic.MessageCreateParamsNonStreaming {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  const turns: Anthropic.MessageParam[] = [];
  for (const m of messages)
    if (m.role !== "system") turns.push(anthropicTurn(m as ChatMessage & { role: "user" | "assistant" }));
  const tools = options.tools?.map(
    (t): Anthropic.Tool => ({
      name: t.name,
      description: t.description,
      input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
    }),
  );
  return {
    model: config.model,
    max_tokens: config.maxTokens,
    messages: turns,
    ...(tools?.length ? { tools } : {}),
    ...(system.length > 0 ? { system: system.join("\n\n") } : {}),
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
  };
}

/** The reply: its text blocks joined (thinking and tool blocks are not text); cache tokens count as input. */
export function anthropicReply(config: AnthropicConfig, message: Anthropic.Message): ModelReply {
  const content = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
  const toolCalls = message.content.flatMap((block) =>
    block.type === "tool_use" ? [{ id: block.id, name: block.name, input: block.input }] : [],
  );
  const u = message.usage;
  const usage = {
    inputTokens: (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0),
    outputTokens: u.output_tokens ?? 0,
  };
  return {
    content,
    model: message.model,
    usage,
    costUsd: costUsd(priceOf(config), usage),
    ...(message.stop_reason ? { stopReason: message.stop_reason } : {}),
    ...(toolCalls.length ? { toolCalls } : {}),
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

/**
 * The OpenAI layer: Chat Completions (`POST /v1/chat/completions`) through the `openai` SDK.
 */
import * as Effect from "effect/Effect";
import type OpenAI from "openai";
import { costUsd, priceOf, type ModelConfig } from "./config.js";
import { ModelRequestFailed } from "./errors.js";
import type { ChatMessage, CompletionOptions, LanguageModelShape, ModelReply, ToolCall } from "./model.js";
import { requestFailed } from "./sdk-errors.js";

type OpenAIConfig = Extract<ModelConfig, { provider: "openai" }>;

/**
 * The request body: the messages as they are (system messages keep the `system` role). The limit goes in
 * `max_completion_tokens`: OpenAI deprecated `max_tokens`, and its reasoning models refuse it. OpenAI
 * caches prompt prefixes by itself; with `cache` on, the conversation's id goes as `prompt_cache_key`, so
 * that a run's requests reach the servers holding its prefix.
 */
export function openaiRequest(
  config: OpenAIConfig,
  messages: readonly ChatMessage[],
  options: CompletionOptions = {},
): OpenAI.ChatCompletionCreateParamsNonStreaming {
  const tools = options.tools?.map(
    (t): OpenAI.ChatCompletionTool => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }),
  );
  return {
    model: config.model,
    messages: messages.flatMap(openaiMessages),
    ...(tools?.length ? { tools } : {}),
    max_completion_tokens: config.maxTokens,
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
    ...(config.reasoningEffort !== undefined ? { reasoning_effort: config.reasoningEffort } : {}),
    ...(config.cache && options.conversationId !== undefined ? { prompt_cache_key: options.conversationId } : {}),
  };
}

/** One message, or several: tool results go first, each as a `tool` message; tool calls ride on the assistant message. */
function openaiMessages(m: ChatMessage): OpenAI.ChatCompletionMessageParam[] {
  if (m.role === "assistant" && m.toolCalls?.length) {
    const calls = m.toolCalls.map((c) => ({
      id: c.id,
      type: "function" as const,
      function: { name: c.name, arguments: typeof c.input === "string" ? c.input : JSON.stringify(c.input ?? {}) },
    }));
    return [{ role: "assistant", content: m.content || null, tool_calls: calls }];
  }
  const results = (m.toolResults ?? []).map(
    (r): OpenAI.ChatCompletionToolMessageParam => ({ role: "tool", tool_call_id: r.id, content: r.content }),
  );
  return [
    ...results,
    ...(m.content || results.length === 0
      ? [{ role: m.role, content: m.content } as OpenAI.ChatCompletionMessageParam]
      : []),
  ];
}

/** A function call's arguments: parsed JSON, or the text itself when it is not JSON (the caller says so). */
function toolCallOf(call: OpenAI.ChatCompletionMessageToolCall): ToolCall[] {
  if (call.type !== "function") return [];
  let input: unknown = call.function.arguments;
  try {
    input = JSON.parse(call.function.arguments);
  } catch {
    // kept as text
  }
  return [{ id: call.id, name: call.function.name, input }];
}

/**
 * The reply: the first choice's text (its refusal when the model refused); no usage (some servers) counts 0.
 * `prompt_tokens` counts every input token; the cached ones (`cached_tokens`) are billed at the cached-input price.
 */
export function openaiReply(
  config: OpenAIConfig,
  completion: OpenAI.ChatCompletion,
): Effect.Effect<ModelReply, ModelRequestFailed> {
  const choice = completion.choices?.[0];
  if (!choice) {
    return Effect.fail(
      new ModelRequestFailed({
        provider: "openai",
        model: config.model,
        status: 200,
        detail: `the answer has no choices: ${JSON.stringify(completion).slice(0, 500)}`,
      }),
    );
  }
  const u = completion.usage;
  const reasoningTokens = u?.completion_tokens_details?.reasoning_tokens ?? 0;
  const usage = {
    inputTokens: u?.prompt_tokens ?? 0,
    outputTokens: u?.completion_tokens ?? 0,
    cacheReadTokens: u?.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWriteTokens: 0,
    ...(reasoningTokens > 0 ? { reasoningTokens } : {}),
  };
  const toolCalls = (choice.message?.tool_calls ?? []).flatMap(toolCallOf);
  return Effect.succeed({
    content: choice.message?.content ?? choice.message?.refusal ?? "",
    ...(toolCalls.length ? { toolCalls } : {}),
    model: completion.model,
    usage,
    costUsd: costUsd(priceOf(config), usage),
    ...(choice.finish_reason ? { stopReason: choice.finish_reason } : {}),
  });
}

/** The SDK is loaded here, when a layer is built, so that starting a program that never calls a model stays fast. */
export const openaiModel = (config: OpenAIConfig, apiKey: string): Effect.Effect<LanguageModelShape> =>
  Effect.map(
    Effect.promise(() => import("openai")),
    (sdk): LanguageModelShape => {
      const client = new sdk.OpenAI({
        apiKey,
        ...(config.baseUrl !== undefined ? { baseURL: config.baseUrl } : {}),
        maxRetries: config.maxRetries,
        timeout: config.timeoutMs,
      });
      return {
        name: `openai:${config.model}`,
        priced: priceOf(config) !== undefined,
        supportsTools: true,
        complete: (messages, options) =>
          Effect.flatMap(
            Effect.tryPromise({
              try: (signal) => client.chat.completions.create(openaiRequest(config, messages, options), { signal }),
              catch: (error) => requestFailed(sdk, config, client.baseURL, error),
            }),
            (completion) => openaiReply(config, completion),
          ),
      };
    },
  );

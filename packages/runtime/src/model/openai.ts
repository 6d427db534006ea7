/**
 * The OpenAI layer: Chat Completions (`POST /v1/chat/completions`) through the `openai` SDK.
 */
import * as Effect from "effect/Effect";
import type OpenAI from "openai";
import { costUsd, priceOf, type ModelConfig } from "./config.js";
import { ModelRequestFailed } from "./errors.js";
import type { ChatMessage, LanguageModelShape, ModelReply } from "./model.js";
import { requestFailed } from "./sdk-errors.js";

type OpenAIConfig = Extract<ModelConfig, { provider: "openai" }>;

/**
 * The request body: the messages as they are (system messages keep the `system` role). The limit goes in
 * `max_completion_tokens`: OpenAI deprecated `max_tokens`, and its reasoning models refuse it.
 */
export function openaiRequest(config: OpenAIConfig, messages: readonly ChatMessage[]): OpenAI.ChatCompletionCreateParamsNonStreaming {
  return {
    model: config.model,
    messages: messages.map((m) => ({ role: m.role, content: m.content })),
    max_completion_tokens: config.maxTokens,
    ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
  };
}

/** The reply: the first choice's text (its refusal when the model refused); no usage (some servers) counts 0. */
export function openaiReply(config: OpenAIConfig, completion: OpenAI.ChatCompletion): Effect.Effect<ModelReply, ModelRequestFailed> {
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
  const usage = { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 };
  return Effect.succeed({
    content: choice.message?.content ?? choice.message?.refusal ?? "",
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
        complete: (messages) =>
          Effect.flatMap(
            Effect.tryPromise({
              try: (signal) => client.chat.completions.create(openaiRequest(config, messages), { signal }),
              catch: (error) => requestFailed(sdk, config, client.baseURL, error),
            }),
            (completion) => openaiReply(config, completion),
          ),
      };
    },
  );

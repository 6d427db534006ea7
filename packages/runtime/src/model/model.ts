/**
 * The LanguageModel service: one chat completion at a time, whatever the provider. The live
 * layers (Anthropic, OpenAI) go through the providers' own SDKs; `LanguageModel.layerScripted`
 * replays a script, so agents can be tested deterministically, with no network.
 */
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { z } from "zod";
import type { ModelConfigInput } from "./config.js";
import { type ModelConfigInvalid, type ModelRequestFailed, ModelScriptExhausted } from "./errors.js";
import { type LiveModelOptions, makeLiveModel } from "./live.js";

export { ModelConfigInvalid, ModelRequestFailed, ModelScriptExhausted } from "./errors.js";

/** A tool call of a reply: the provider's id, the tool's name, and its input (the parsed JSON; the raw text when it was not JSON). */
export const ToolCallSchema = z.object({ id: z.string(), name: z.string(), input: z.unknown() });
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** The answer to one tool call, sent at the start of the next user message (providers require one per call). */
export const ToolResultSchema = z.object({ id: z.string(), content: z.string(), isError: z.boolean().optional() });
export type ToolResult = z.infer<typeof ToolResultSchema>;

/**
 * A reply's reasoning as the provider sent it (Anthropic `thinking` blocks with their `signature`,
 * `redacted_thinking`): opaque, kept on the assistant message and sent back unchanged, as Anthropic
 * requires of a tool turn when thinking is on.
 */
export const ReasoningBlockSchema = z.record(z.string(), z.unknown());
export type ReasoningBlock = z.infer<typeof ReasoningBlockSchema>;

/**
 * The tokens of one request, as the provider bills them. `inputTokens` counts every input token,
 * cached or not (Anthropic: `input_tokens` + `cache_creation_input_tokens` + `cache_read_input_tokens`;
 * OpenAI: `prompt_tokens`); the cache figures are parts of it. `outputTokens` includes reasoning.
 */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Of `inputTokens`: read from the provider's prompt cache (billed at the cache-read price). */
  cacheReadTokens: z.number().int().nonnegative().optional(),
  /** Of `inputTokens`: written to the prompt cache (Anthropic; billed at the cache-write price). */
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  /** Of `outputTokens`: reasoning (thinking) tokens, when the provider says (OpenAI `reasoning_tokens`). */
  reasoningTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

export const ChatMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
  /** An assistant message: the provider's reasoning blocks, sent back as they came. */
  reasoning: z.array(ReasoningBlockSchema).optional(),
  /** An assistant message: the tool calls it made. */
  toolCalls: z.array(ToolCallSchema).optional(),
  /** A user message: the answers to the tool calls of the assistant message before it. */
  toolResults: z.array(ToolResultSchema).optional(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** A tool offered to the model: its name, what it is for, and the JSON Schema (an object) of its input. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/** What a request offers besides the conversation. */
export interface CompletionOptions {
  /** Tools the model may call (Anthropic tool use, OpenAI function calling). */
  readonly tools?: readonly ToolSpec[];
  /**
   * The conversation this request belongs to (one agent run): OpenAI's `prompt_cache_key`, so that the
   * run's requests reach the servers that hold its cached prefix. Absent: no key is sent.
   */
  readonly conversationId?: string;
}

export const ModelReplySchema = z.object({
  content: z.string(),
  /** The model that answered, as the provider names it. */
  model: z.string(),
  usage: UsageSchema,
  /** The reply's reasoning blocks (Anthropic thinking), to be sent back with the reply. */
  reasoning: z.array(ReasoningBlockSchema).optional(),
  /** Dollars, from the price table of the model's config, cache reads and writes at their own prices (0 when the model has no price). */
  costUsd: z.number().nonnegative(),
  /**
   * Why the model stopped, as the provider says it (anthropic: "end_turn", "max_tokens", "stop_sequence",
   * "refusal"...; openai: "stop", "length", "content_filter"...). Absent from scripted replies.
   */
  stopReason: z.string().optional(),
  /** The tool calls of the reply (only when tools were offered). */
  toolCalls: z.array(ToolCallSchema).optional(),
});
export type ModelReply = z.infer<typeof ModelReplySchema>;

export type ModelError = ModelRequestFailed | ModelScriptExhausted;

export interface LanguageModelShape {
  /** `provider:model`, for trajectories and messages. */
  readonly name: string;
  readonly complete: (
    messages: readonly ChatMessage[],
    options?: CompletionOptions,
  ) => Effect.Effect<ModelReply, ModelError>;
  /** Whether the model takes `options.tools` and can answer with tool calls. */
  readonly supportsTools?: boolean;
  /**
   * Whether replies are charged at a known price (the config's or the model's list price). False:
   * every reply costs $0, so a cost limit cannot trigger; callers warn. Absent: a model that costs
   * nothing (scripted, replayed).
   */
  readonly priced?: boolean;
}

/**
 * One scripted reply: a fixed text, a function of the conversation so far, or a reply with the
 * stop reason and token counts a provider would send (e.g. a reply cut off at `max_tokens`).
 */
export type ScriptedReply =
  | string
  | ((messages: readonly ChatMessage[]) => string)
  | {
      readonly content: string;
      readonly stopReason?: string;
      readonly usage?: Usage;
      readonly toolCalls?: readonly ToolCall[];
      /** Reasoning blocks, as a provider with thinking on sends them back. */
      readonly reasoning?: readonly ReasoningBlock[];
    };

/**
 * A deterministic model for tests: answers with the script's replies in order and records every
 * conversation it was sent (`requests`). Running past the end fails with `ModelScriptExhausted`.
 */
export class ScriptedModel implements LanguageModelShape {
  readonly name = "scripted:model";
  readonly requests: ChatMessage[][] = [];
  /** The tools offered with each request (an empty list when none were). */
  readonly offeredTools: (readonly ToolSpec[])[] = [];
  #next = 0;

  /** `supportsTools`: whether the agent should offer this model tools (its script then answers with `toolCalls`). */
  constructor(
    readonly script: readonly ScriptedReply[],
    readonly supportsTools = false,
  ) {}

  readonly complete = (
    messages: readonly ChatMessage[],
    options: CompletionOptions = {},
  ): Effect.Effect<ModelReply, ModelError> =>
    Effect.suspend(() => {
      this.requests.push(messages.map((m) => ({ ...m })));
      this.offeredTools.push(options.tools ?? []);
      const reply = this.script[this.#next];
      if (reply === undefined) {
        return Effect.fail(
          new ModelScriptExhausted({ calls: this.#next, lastMessage: messages.at(-1)?.content ?? "" }),
        );
      }
      this.#next++;
      if (typeof reply === "object") {
        return Effect.succeed({
          content: reply.content,
          model: "scripted",
          usage: { ...(reply.usage ?? { inputTokens: 0, outputTokens: 0 }) },
          costUsd: 0,
          ...(reply.stopReason === undefined ? {} : { stopReason: reply.stopReason }),
          ...(reply.toolCalls === undefined ? {} : { toolCalls: reply.toolCalls.map((call) => ({ ...call })) }),
          ...(reply.reasoning === undefined ? {} : { reasoning: reply.reasoning.map((block) => ({ ...block })) }),
        });
      }
      const content = typeof reply === "string" ? reply : reply(messages);
      return Effect.succeed({ content, model: "scripted", usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 });
    });

  /** How many replies have been used. */
  get used(): number {
    return this.#next;
  }
}

export class LanguageModel extends Context.Service<LanguageModel, LanguageModelShape>()(
  "@graphplan/runtime/LanguageModel",
) {
  /**
   * A live model through the provider's official SDK (`@anthropic-ai/sdk`: Messages API; `openai`: Chat
   * Completions), named `provider:model`. Building the layer parses the config (`ModelConfigSchema`) and
   * reads the API key from the environment variable `apiKeyEnv`: a bad config or an unset variable fails
   * with `ModelConfigInvalid`. The SDK retries (`maxRetries`) and times out (`timeoutMs`) each request;
   * what still fails becomes `ModelRequestFailed`.
   */
  static layer(config: ModelConfigInput, options?: LiveModelOptions): Layer.Layer<LanguageModel, ModelConfigInvalid> {
    return Layer.effect(LanguageModel, makeLiveModel(config, options));
  }

  /** A model made by the caller: a `ScriptedModel` of a user's replies, a replay model. */
  static layerOf(model: LanguageModelShape): Layer.Layer<LanguageModel> {
    return Layer.succeed(LanguageModel, model);
  }

  /** A scripted model (see {@link ScriptedModel}); pass a `ScriptedModel` to inspect its requests afterwards. */
  static layerScripted(script: readonly ScriptedReply[] | ScriptedModel): Layer.Layer<LanguageModel> {
    return Layer.succeed(LanguageModel, script instanceof ScriptedModel ? script : new ScriptedModel(script));
  }
}

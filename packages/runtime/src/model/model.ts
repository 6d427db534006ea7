/**
 * The LanguageModel service: one chat completion at a time, whatever the provider. The live
 * layers (Anthropic, OpenAI) go through the providers' own SDKs; `LanguageModel.layerTest`
 * replays a script, so agents can be tested deterministically, with no network.
 */
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { z } from "zod";

export const ChatMessageSchema = z.object({
  role: z.enum(["system", "user", "assistant"]),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

export const ModelReplySchema = z.object({
  content: z.string(),
  /** The model that answered, as the provider names it. */
  model: z.string(),
  usage: z.object({ inputTokens: z.number().int().nonnegative(), outputTokens: z.number().int().nonnegative() }),
  /** Dollars, from the price table of the model's config (0 when the model has no price). */
  costUsd: z.number().nonnegative(),
});
export type ModelReply = z.infer<typeof ModelReplySchema>;

/** The provider answered with an error, or could not be reached (after the SDK's own retries). */
export class ModelRequestFailed extends Data.TaggedError("ModelRequestFailed")<{
  readonly provider: string;
  readonly model: string;
  readonly status: number | undefined;
  readonly detail: string;
}> {
  override get message(): string {
    const status = this.status === undefined ? "no response" : `HTTP ${this.status}`;
    return `${this.provider} model ${this.model} failed (${status}): ${this.detail}; check the API key, the base URL and the model name`;
  }
}

/** A scripted model was asked for more replies than its script has. */
export class ModelScriptExhausted extends Data.TaggedError("ModelScriptExhausted")<{
  readonly calls: number;
  readonly lastMessage: string;
}> {
  override get message(): string {
    return `the scripted model has only ${this.calls} replies and was asked for another (last message: ${JSON.stringify(this.lastMessage.slice(0, 200))}); add replies to the script`;
  }
}

export type ModelError = ModelRequestFailed | ModelScriptExhausted;

export interface LanguageModelShape {
  /** `provider:model`, for trajectories and messages. */
  readonly name: string;
  readonly complete: (messages: readonly ChatMessage[]) => Effect.Effect<ModelReply, ModelError>;
}

/** One scripted reply: a fixed text, or a function of the conversation so far. */
export type ScriptedReply = string | ((messages: readonly ChatMessage[]) => string);

/**
 * A deterministic model for tests: answers with the script's replies in order and records every
 * conversation it was sent (`requests`). Running past the end fails with `ModelScriptExhausted`.
 */
export class ScriptedModel implements LanguageModelShape {
  readonly name = "scripted:model";
  readonly requests: ChatMessage[][] = [];
  #next = 0;

  constructor(readonly script: readonly ScriptedReply[]) {}

  readonly complete = (messages: readonly ChatMessage[]): Effect.Effect<ModelReply, ModelError> =>
    Effect.suspend(() => {
      this.requests.push(messages.map((m) => ({ ...m })));
      const reply = this.script[this.#next];
      if (reply === undefined) {
        return Effect.fail(new ModelScriptExhausted({ calls: this.#next, lastMessage: messages.at(-1)?.content ?? "" }));
      }
      this.#next++;
      const content = typeof reply === "string" ? reply : reply(messages);
      return Effect.succeed({ content, model: "scripted", usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 });
    });

  /** How many replies have been used. */
  get used(): number {
    return this.#next;
  }
}

export class LanguageModel extends Context.Service<LanguageModel, LanguageModelShape>()("@graphplan/runtime/LanguageModel") {
  /** A scripted model (see {@link ScriptedModel}); pass a `ScriptedModel` to inspect its requests afterwards. */
  static layerTest(script: readonly ScriptedReply[] | ScriptedModel): Layer.Layer<LanguageModel> {
    return Layer.succeed(LanguageModel, script instanceof ScriptedModel ? script : new ScriptedModel(script));
  }
}

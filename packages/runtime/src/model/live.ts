/**
 * Builds a live model from its config: parse the config, read the API key from the environment, load
 * the provider's SDK.
 */
import * as Effect from "effect/Effect";
import { anthropicModel } from "./anthropic.js";
import { apiKeyMissing, type ModelConfigInput, parseModelConfig } from "./config.js";
import type { ModelConfigInvalid } from "./errors.js";
import type { LanguageModelShape } from "./model.js";
import { openaiModel } from "./openai.js";

export interface LiveModelOptions {
  /** Where the variable named by `apiKeyEnv` is looked up; `process.env` by default. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export const makeLiveModel = (
  input: ModelConfigInput,
  options: LiveModelOptions = {},
): Effect.Effect<LanguageModelShape, ModelConfigInvalid> =>
  Effect.suspend(() => {
    const parsed = parseModelConfig(input);
    if (!parsed.ok) return Effect.fail(parsed.error);
    const config = parsed.config;
    const apiKey = (options.env ?? process.env)[config.apiKeyEnv]?.trim();
    if (!apiKey) return Effect.fail(apiKeyMissing(config));
    return config.provider === "anthropic" ? anthropicModel(config, apiKey) : openaiModel(config, apiKey);
  });

/**
 * A model served over a provider's wire: `modelOverWire` starts the billing stand-in of
 * `model-server.ts` in front of a model (the replay model, a `ScriptedModel`) and answers the live layer
 * of that provider pointed at it, through its real SDK. The model's replies are unchanged; what changes is
 * that every request goes out as the provider's request (cache breakpoints, `prompt_cache_key`, tools)
 * and comes back with the usage the provider would bill for it and its price — so `--provider replay`
 * runs and tests go through the whole accounting path a real model's run does.
 */
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { type ModelConfigInput, parseModelConfig } from "../model/config.js";
import type { ModelConfigInvalid } from "../model/errors.js";
import { makeLiveModel } from "../model/live.js";
import type { LanguageModelShape } from "../model/model.js";
import { type ModelServer, startModelServer } from "./model-server.js";

/** Which provider's wire, and which of its models the tokens are priced as (`cache`: as in its config). */
export type WireConfig = Pick<ModelConfigInput, "provider" | "model" | "cache" | "price">;

/** The wire of `--provider replay` when the config names none: Anthropic's, priced as Claude Sonnet 5. */
export const DEFAULT_WIRE: WireConfig = { provider: "anthropic", model: "claude-sonnet-5" };

const KEY_ENV = "GRAPHPLAN_STAND_IN_KEY";

/**
 * `model` behind the stand-in server of `wire.provider`, through that provider's SDK; the server closes
 * with the scope. The answer keeps `model`'s name (the trajectory still says who answered), is priced
 * when the wire's model has a price, and takes tools as the provider's models do. `server` is there to read what the requests were billed.
 */
export function modelOverWire(
  model: LanguageModelShape,
  wire: WireConfig = DEFAULT_WIRE,
): Effect.Effect<{ model: LanguageModelShape; server: ModelServer }, ModelConfigInvalid, Scope.Scope> {
  return Effect.gen(function* () {
    const parsed = parseModelConfig({ ...wire, maxRetries: 0 });
    if (!parsed.ok) return yield* Effect.fail(parsed.error);
    const server = yield* Effect.acquireRelease(
      Effect.promise(() => startModelServer(model, { wire: parsed.config.provider })),
      (s) => Effect.promise(() => s.close()),
    );
    const baseUrl = parsed.config.provider === "anthropic" ? server.origin : `${server.origin}/v1`;
    const live = yield* makeLiveModel(
      { ...wire, baseUrl, apiKeyEnv: KEY_ENV, maxRetries: 0 },
      { env: { [KEY_ENV]: "stand-in" } },
    );
    // Tools are offered as to a real model of the wire (the request a user's run would send), though the
    // model behind the server may answer in text only.
    return { model: { ...live, name: model.name }, server };
  });
}

/**
 * A model served over a provider's wire: the replies are the model's, the usage and dollars the stand-in's,
 * through the live layer and the real SDK.
 */
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { costUsd, knownPrice } from "../model/config.js";
import { type ChatMessage, ScriptedModel } from "../model/model.js";
import { modelOverWire } from "./replay-wire.js";

const system: ChatMessage = { role: "system", content: Array.from({ length: 3000 }, () => "rule").join(" ") };

describe("modelOverWire", () => {
  it("answers the model's replies, billed as Claude Sonnet 4.5 with the second call reading the first from the cache", async () => {
    const { replies, stats } = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { model, server } = yield* modelOverWire(new ScriptedModel(["first", "second"]), {
            provider: "anthropic",
            model: "claude-sonnet-5",
          });
          const one = yield* model.complete([system, { role: "user", content: "task" }]);
          const two = yield* model.complete([
            system,
            { role: "user", content: "task" },
            { role: "assistant", content: one.content },
            { role: "user", content: "output" },
          ]);
          return { replies: [one, two], stats: server.stats(), name: model.name };
        }),
      ),
    );
    expect(replies.map((r) => r.content)).toEqual(["first", "second"]);
    const [one, two] = replies;
    expect(one!.usage.cacheReadTokens).toBe(0);
    expect(one!.usage.cacheWriteTokens).toBe(one!.usage.inputTokens);
    expect(two!.usage.cacheReadTokens).toBe(one!.usage.inputTokens);
    expect(two!.costUsd).toBeCloseTo(costUsd(knownPrice("claude-sonnet-5"), two!.usage), 12);
    expect(two!.costUsd).toBeLessThan(one!.costUsd);
    expect(stats).toMatchObject({ requests: 2, prefixStable: 1 });
  });

  it("sends no breakpoint with cache off: nothing is read from the cache", async () => {
    const replies = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const { model } = yield* modelOverWire(new ScriptedModel(["a", "b"]), {
            provider: "anthropic",
            model: "claude-sonnet-5",
            cache: false,
          });
          const one = yield* model.complete([system, { role: "user", content: "task" }]);
          const two = yield* model.complete([
            system,
            { role: "user", content: "task" },
            { role: "assistant", content: "a" },
            { role: "user", content: "more" },
          ]);
          return [one, two];
        }),
      ),
    );
    expect(replies.map((r) => r.usage.cacheReadTokens ?? 0)).toEqual([0, 0]);
  });

  it("keeps the model's name and fails on a wire config that does not parse", async () => {
    const name = await Effect.runPromise(
      Effect.scoped(
        Effect.map(
          modelOverWire(new ScriptedModel(["x"]), { provider: "openai", model: "gpt-4.1" }),
          (s) => s.model.name,
        ),
      ),
    );
    expect(name).toBe("scripted:model");
    const error = await Effect.runPromise(
      Effect.flip(Effect.scoped(modelOverWire(new ScriptedModel(["x"]), { provider: "openai", model: "" }))),
    );
    expect(error._tag).toBe("ModelConfigInvalid");
  });
});

import { readFileSync } from "node:fs";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { costUsd, knownPrice, ModelConfigSchema, parseModelConfig, resolvePrice } from "./config.js";
import { LanguageModel } from "./model.js";

const invalid = (input: unknown) => {
  const parsed = parseModelConfig(input);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return parsed.error;
};

describe("ModelConfigSchema", () => {
  it("fills the defaults of each provider, the key variable per provider", () => {
    expect(ModelConfigSchema.parse({ provider: "anthropic", model: "claude-sonnet-4-5" })).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKeyEnv: "ANTHROPIC_API_KEY",
      maxTokens: 4096,
      maxRetries: 3,
      timeoutMs: 600_000,
      cache: true,
    });
    expect(ModelConfigSchema.parse({ provider: "openai", model: "gpt-4.1" })).toMatchObject({
      apiKeyEnv: "OPENAI_API_KEY",
      maxTokens: 4096,
    });
  });

  it("allows temperature up to 2 for openai but only up to 1 for anthropic", () => {
    expect(parseModelConfig({ provider: "openai", model: "gpt-4.1", temperature: 1.5 }).ok).toBe(true);
    const error = invalid({ provider: "anthropic", model: "claude-sonnet-4-5", temperature: 1.5 });
    expect(error.field).toBe("temperature");
    expect(error.message).toContain(`set "temperature" between 0 and 1 (anthropic)`);
  });

  it("names an unknown provider and the two it knows", () => {
    const error = invalid({ provider: "gemini", model: "gemini-2.5-pro" });
    expect(error._tag).toBe("ModelConfigInvalid");
    expect(error.field).toBe("provider");
    expect(error.fix).toBe(`set "provider" to "anthropic" or "openai"`);
  });

  it("reports every problem at once, and tells to move a key written into the config to an environment variable", () => {
    const error = invalid({
      provider: "openai",
      model: "gpt-4.1",
      apiKey: "sk-123",
      maxTokens: 0,
      price: { inputPerMTok: 2 },
    });
    expect(error.field.split(", ").sort()).toEqual(["apiKey", "maxTokens", "price.outputPerMTok"]);
    expect(error.problem).toContain("apiKey: unknown field");
    expect(error.problem).toContain("maxTokens: Too small");
    expect(error.fix).toContain(`put it in an environment variable and name that variable in "apiKeyEnv"`);
    expect(error.fix).toContain(`set "maxTokens" to a positive whole number`);
    expect(error.message).not.toContain("sk-123");
  });

  it("refuses a key where a variable name is expected, and a base URL that is not http(s)", () => {
    const error = invalid({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      apiKeyEnv: "sk-ant-api03-abc",
      baseUrl: "api.anthropic.com",
    });
    expect(error.field.split(", ").sort()).toEqual(["apiKeyEnv", "baseUrl"]);
    expect(error.problem).toContain("not the key itself");
    expect(error.message).not.toContain("sk-ant-api03-abc");
  });

  it("makes the live layer fail to build with ModelConfigInvalid", async () => {
    const program = Effect.gen(function* () {
      return (yield* LanguageModel).name;
    }).pipe(
      Effect.provide(LanguageModel.layer({ provider: "openai", model: "" } as never, { env: { OPENAI_API_KEY: "k" } })),
    );
    const error = await Effect.runPromise(Effect.flip(program));
    expect(error._tag).toBe("ModelConfigInvalid");
    expect(error.message).toContain(`model: Too small`);
    expect(error.message).toContain(`set "model" to the provider's model id`);
  });
});

describe("costUsd", () => {
  const sonnet = resolvePrice("anthropic", { inputPerMTok: 3, outputPerMTok: 15 });

  it("prices input and output tokens per million, and is 0 without a price", () => {
    expect(costUsd(sonnet, { inputTokens: 2_000_000, outputTokens: 100_000 })).toBeCloseTo(7.5, 12);
    expect(costUsd(undefined, { inputTokens: 2_000_000, outputTokens: 100_000 })).toBe(0);
  });

  it("prices Anthropic cache reads at 0.1x and cache writes at 1.25x the input price, the rest of the input in full", () => {
    // 100k input tokens: 80k read from the cache, 15k written to it, 5k after the last breakpoint; 2k out.
    const usage = { inputTokens: 100_000, cacheReadTokens: 80_000, cacheWriteTokens: 15_000, outputTokens: 2_000 };
    const byHand = (5_000 * 3 + 80_000 * 0.3 + 15_000 * 3.75 + 2_000 * 15) / 1e6; // 0.015 + 0.024 + 0.05625 + 0.03
    expect(byHand).toBeCloseTo(0.12525, 12);
    expect(costUsd(sonnet, usage)).toBeCloseTo(byHand, 12);
    expect(costUsd(knownPrice("claude-sonnet-4-5-20250929"), usage)).toBeCloseTo(byHand, 12);
  });

  it("prices OpenAI cached input at the model's cached-input price, with no charge for writes", () => {
    // gpt-4.1: $2 input, $0.50 cached input, $8 output.
    const usage = { inputTokens: 50_000, cacheReadTokens: 40_960, cacheWriteTokens: 0, outputTokens: 1_000 };
    expect(costUsd(knownPrice("gpt-4.1"), usage)).toBeCloseTo((9_040 * 2 + 40_960 * 0.5 + 1_000 * 8) / 1e6, 12);
  });

  it("takes a config's own cache prices; without them Anthropic's rule, and OpenAI's full input price", () => {
    expect(resolvePrice("anthropic", { inputPerMTok: 10, outputPerMTok: 50 })).toEqual({
      inputPerMTok: 10,
      outputPerMTok: 50,
      cacheReadPerMTok: 1,
      cacheWritePerMTok: 12.5,
    });
    expect(resolvePrice("openai", { inputPerMTok: 2, outputPerMTok: 8 })).toMatchObject({
      cacheReadPerMTok: 2,
      cacheWritePerMTok: 2,
    });
    expect(
      resolvePrice("openai", { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.2, cacheWritePerMTok: 2 }),
    ).toMatchObject({ cacheReadPerMTok: 0.2 });
  });
});

describe("reasoning settings", () => {
  it("takes Anthropic thinking with a budget under maxTokens, or adaptive, and an effort", () => {
    expect(
      parseModelConfig({
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        maxTokens: 16000,
        thinking: { type: "enabled", budgetTokens: 8000 },
      }).ok,
    ).toBe(true);
    expect(
      parseModelConfig({
        provider: "anthropic",
        model: "claude-opus-4-6",
        thinking: { type: "adaptive" },
        effort: "high",
      }).ok,
    ).toBe(true);
  });

  it("refuses a thinking budget at or over maxTokens, under 1024, and a temperature with thinking on", () => {
    const over = invalid({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      maxTokens: 4096,
      thinking: { type: "enabled", budgetTokens: 4096 },
    });
    expect(over.field).toBe("thinking");
    expect(over.problem).toContain("less than maxTokens");
    expect(over.fix).toContain("1024 <= N < maxTokens");
    expect(
      invalid({ provider: "anthropic", model: "claude-sonnet-4-5", thinking: { type: "enabled", budgetTokens: 100 } })
        .field,
    ).toBe("thinking.budgetTokens");
    const hot = invalid({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      temperature: 0.2,
      thinking: { type: "adaptive" },
    });
    expect(hot.field).toBe("temperature");
  });

  it("takes OpenAI reasoningEffort and names the values it takes", () => {
    expect(parseModelConfig({ provider: "openai", model: "o3", reasoningEffort: "high" }).ok).toBe(true);
    expect(invalid({ provider: "openai", model: "o3", reasoningEffort: "extreme" }).fix).toContain('"minimal"');
  });
});

describe("knownPrice", () => {
  const price = (id: string) => {
    const p = knownPrice(id);
    return p && [p.inputPerMTok, p.outputPerMTok];
  };

  it("prices each version of a family at its own list price, not its family's", () => {
    expect(price("claude-opus-4-6")).toEqual([5, 25]); // Opus 4.6 at a third of Opus 4's price
    expect(price("claude-opus-4-1")).toEqual([15, 75]);
    expect(price("claude-opus-5-5")).toEqual([4, 20]);
    expect(price("claude-opus-5")).toEqual([5, 25]);
    expect(price("claude-sonnet-5")).toEqual([2, 10]);
    expect(price("claude-sonnet-4-6")).toEqual([3, 15]);
  });

  it("reads snapshot suffixes and provider prefixes", () => {
    expect(price("claude-sonnet-4-5-20250929")).toEqual([3, 15]);
    expect(price("claude-opus-4-20250514")).toEqual([15, 75]);
    expect(price("claude-3-7-sonnet-latest")).toEqual([3, 15]);
    expect(price("gpt-4.1-2025-04-14")).toEqual([2, 8]);
    expect(price("gpt-5-mini-2025-08-07")).toEqual([0.25, 2]);
    expect(price("anthropic:Claude-Sonnet-5")).toEqual([2, 10]);
    expect(price("openai/gpt-4o")).toEqual([2.5, 10]);
  });

  it("does not price a version it does not list by its family's price (the run warns instead)", () => {
    for (const id of [
      "gpt-5.2-pro",
      "gpt-5.4",
      "gpt-5-codex",
      "claude-opus-4-7",
      "claude-fable-5-2",
      "claude-haiku-5-5",
      "claude-sonnet-4-5-thinking",
    ])
      expect(price(id)).toBeUndefined();
  });
});

describe("the README's model configs", () => {
  it("are valid configs, one per provider at least", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const start = readme.indexOf("\n## Language models");
    expect(start).toBeGreaterThan(-1);
    const next = readme.indexOf("\n## ", start + 1);
    const section = readme.slice(start, next === -1 ? undefined : next);
    const configs = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1] ?? "") as unknown);
    const providers = configs.map((config) => {
      const parsed = parseModelConfig(config);
      if (!parsed.ok) throw parsed.error;
      return parsed.config.provider;
    });
    expect(new Set(providers)).toEqual(new Set(["anthropic", "openai"]));
  });
});

/**
 * The config of a live language model: which provider, which model, where its API key is, and the
 * limits of a request. Pure: reading the key's environment variable happens in the layer.
 */
import { z } from "zod";
import { ModelConfigInvalid } from "./errors.js";
import type { Usage } from "./model.js";

/**
 * Dollars per million tokens, to compute `costUsd` of each reply. Cache prices, when left out, follow
 * the provider's rule: Anthropic bills cache reads at 0.1× and (5-minute) cache writes at 1.25× the
 * input price for every model; OpenAI's cached-input discount differs by model, so a price of your
 * own without `cacheReadPerMTok` bills cache reads at the full input price (an upper bound), and OpenAI
 * never bills cache writes apart from input.
 */
export const ModelPriceSchema = z.strictObject({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
  cacheReadPerMTok: z.number().nonnegative().optional(),
  cacheWritePerMTok: z.number().nonnegative().optional(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
/** A price with its cache prices filled in. */
export type ResolvedPrice = Required<ModelPrice>;

const envName = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    "must be the name of an environment variable (letters, digits and _), not the key itself",
  );

const common = {
  /** The provider's model id, sent as is. */
  model: z.string().min(1),
  /**
   * Where the API is, when not the provider's own: for anthropic the origin (`http://host:port`; the SDK
   * adds `/v1/messages`), for openai the URL up to and including `/v1` (the SDK adds `/chat/completions`).
   * Absent: the SDK's default (`ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL`, else the provider's public API).
   */
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** The reply's token limit (`max_tokens` / `max_completion_tokens`). */
  maxTokens: z.number().int().positive().default(4096),
  /** Retries of the SDK after a connection error, a timeout, 408, 409, 429 or 5xx (exponential backoff, `retry-after` honoured). */
  maxRetries: z.number().int().nonnegative().default(3),
  /** Time limit of one attempt, in milliseconds (the SDK's `timeout`). */
  timeoutMs: z.number().int().positive().default(600_000),
  price: ModelPriceSchema.optional(),
  /**
   * Prompt caching (on by default): anthropic marks cache breakpoints (`cache_control`) on the system
   * prompt and the last two user turns, so each request reads the previous one's prefix from the cache;
   * openai sends the conversation's `prompt_cache_key`. false: neither is sent.
   */
  cache: z.boolean().default(true),
};

/** Anthropic's extended thinking: a fixed budget (`enabled`), or the model's own choice (`adaptive`). */
export const AnthropicThinkingSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("enabled"),
    /** Tokens the model may think for: at least 1024 and less than `maxTokens` (thinking counts toward it). */
    budgetTokens: z.number().int().min(1024),
  }),
  z.strictObject({ type: z.literal("adaptive") }),
]);

export const AnthropicModelConfigSchema = z
  .strictObject({
    provider: z.literal("anthropic"),
    ...common,
    /** The environment variable holding the API key. */
    apiKeyEnv: envName.default("ANTHROPIC_API_KEY"),
    temperature: z.number().min(0).max(1).optional(),
    /** Extended thinking (absent: the model's default). Thinking blocks go back with every later turn. */
    thinking: AnthropicThinkingSchema.optional(),
    /** How much effort the model puts into a reply (`output_config.effort`), for the models that take it. */
    effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(),
  })
  .refine((c) => c.thinking?.type !== "enabled" || c.thinking.budgetTokens < c.maxTokens, {
    path: ["thinking"],
    message: "thinking.budgetTokens must be less than maxTokens (thinking counts toward the reply's limit)",
  })
  .refine((c) => c.thinking === undefined || c.temperature === undefined || c.temperature === 1, {
    path: ["temperature"],
    message: "temperature cannot be set with thinking on (Anthropic accepts only 1)",
  });

export const OpenAIModelConfigSchema = z.strictObject({
  provider: z.literal("openai"),
  ...common,
  /** The environment variable holding the API key. */
  apiKeyEnv: envName.default("OPENAI_API_KEY"),
  temperature: z.number().min(0).max(2).optional(),
  /** Reasoning effort of the reasoning models (`reasoning_effort`; absent: the model's default). */
  reasoningEffort: z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]).optional(),
});

export const ModelConfigSchema = z.discriminatedUnion("provider", [
  AnthropicModelConfigSchema,
  OpenAIModelConfigSchema,
]);
/** A parsed config: every default filled in. */
export type ModelConfig = z.infer<typeof ModelConfigSchema>;
/** A config as written (defaults may be left out). */
export type ModelConfigInput = z.input<typeof ModelConfigSchema>;

const FIELDS = [
  "provider",
  "model",
  "apiKeyEnv",
  "baseUrl",
  "maxTokens",
  "temperature",
  "maxRetries",
  "timeoutMs",
  "price",
  "cache",
  "thinking (anthropic)",
  "effort (anthropic)",
  "reasoningEffort (openai)",
];

const FIXES: Record<string, string> = {
  provider: `set "provider" to "anthropic" or "openai"`,
  model: `set "model" to the provider's model id, e.g. "claude-sonnet-4-5" or "gpt-4.1"`,
  apiKeyEnv: `set "apiKeyEnv" to the name of the environment variable that holds the API key, e.g. "ANTHROPIC_API_KEY"`,
  baseUrl: `set "baseUrl" to the http(s) URL of the API (anthropic: the origin, openai: up to and including /v1), or leave it out for the provider's own`,
  maxTokens: `set "maxTokens" to a positive whole number of tokens`,
  temperature: `set "temperature" between 0 and 1 (anthropic) or 0 and 2 (openai), or leave it out`,
  maxRetries: `set "maxRetries" to a whole number, 0 or more`,
  timeoutMs: `set "timeoutMs" to a positive whole number of milliseconds`,
  price: `set "price" to {"inputPerMTok": dollars, "outputPerMTok": dollars} (per million tokens; "cacheReadPerMTok" and "cacheWritePerMTok" optional), or leave it out`,
  cache: `set "cache" to true (prompt caching, the default) or false`,
  thinking: `set "thinking" to {"type": "enabled", "budgetTokens": N} with 1024 <= N < maxTokens, or {"type": "adaptive"}, or leave it out`,
  effort: `set "effort" to "low", "medium", "high", "xhigh" or "max", or leave it out`,
  reasoningEffort: `set "reasoningEffort" to "none", "minimal", "low", "medium", "high", "xhigh" or "max", or leave it out`,
};

/** Turns zod's issues about a model config into one `ModelConfigInvalid` naming every field at fault. */
export function configInvalid(error: z.ZodError): ModelConfigInvalid {
  const fields: string[] = [];
  const problems: string[] = [];
  const fixes: string[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        const field = path ? `${path}.${key}` : key;
        fields.push(field);
        problems.push(`${field}: unknown field`);
        fixes.push(
          /^api_?key$/i.test(key)
            ? `do not put the API key itself in the config: put it in an environment variable and name that variable in "apiKeyEnv"`
            : path
              ? `remove "${field}"`
              : `remove "${field}" (the fields are ${FIELDS.join(", ")})`,
        );
      }
      continue;
    }
    const field = path || "(config)";
    fields.push(field);
    problems.push(`${field}: ${issue.message}`);
    fixes.push(
      FIXES[field.split(".")[0] ?? ""] ?? `pass an object like {"provider": "anthropic", "model": "claude-sonnet-4-5"}`,
    );
  }
  return new ModelConfigInvalid({
    field: [...new Set(fields)].join(", "),
    problem: problems.join("; "),
    fix: [...new Set(fixes)].join("; "),
  });
}

/** Parses a config as written; every problem is reported at once. */
export function parseModelConfig(
  input: unknown,
): { ok: true; config: ModelConfig } | { ok: false; error: ModelConfigInvalid } {
  const parsed = ModelConfigSchema.safeParse(input);
  return parsed.success ? { ok: true, config: parsed.data } : { ok: false, error: configInvalid(parsed.error) };
}

/** The API key variable is unset or empty. */
export function apiKeyMissing(config: ModelConfig): ModelConfigInvalid {
  const who = config.provider === "anthropic" ? "Anthropic" : "OpenAI";
  return new ModelConfigInvalid({
    field: "apiKeyEnv",
    problem: `the environment variable ${config.apiKeyEnv} (apiKeyEnv), which should hold the ${who} API key, is not set or empty`,
    fix: `set ${config.apiKeyEnv} to your ${who} API key (export ${config.apiKeyEnv}=...), or set "apiKeyEnv" to the name of the variable that holds it`,
  });
}

/**
 * List prices (dollars per million tokens: input, output, and cached input) of the models SWE-bench
 * users run, by model id, from the providers' own pages (Anthropic's model and prompt-caching pages as
 * of 2026-11: cache reads 0.1×, 5-minute cache writes 1.25× the input price, for every model; OpenAI's
 * pricing page: "cached input" per model, cache writes not billed apart). An id matches its entry
 * exactly or followed by a snapshot suffix (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`,
 * `-latest`) — never a later version of the family: Claude Opus 4.6 costs a third of Opus 4.1, and
 * GPT-5.2 Pro many times GPT-5, so a family's price would make `cost_limit` stop a run far too early or
 * far too late. A config's own `price` always wins; an id with no entry costs $0 and callers warn (set
 * `model.price`). Not listed, for want of a price on the provider's own pages here: claude-opus-4-7,
 * claude-haiku-5-5 (priced by tier), claude-fable-5-2, claude-mythos-5-1/-5-2, and OpenAI's models
 * after gpt-5 (gpt-5.1 … gpt-5.6).
 */
const anthropic = (input: number, output: number): ResolvedPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: round(input * 0.1),
  cacheWritePerMTok: round(input * 1.25),
});
const openai = (input: number, cached: number, output: number): ResolvedPrice => ({
  inputPerMTok: input,
  outputPerMTok: output,
  cacheReadPerMTok: cached,
  cacheWritePerMTok: input,
});
/** Sub-cent prices kept exact in binary floating point's eyes (0.1 × 3 is 0.30000000000000004). */
const round = (n: number) => Math.round(n * 1e6) / 1e6;

export const KNOWN_PRICES: ReadonlyArray<readonly [id: string, price: ResolvedPrice]> = [
  ["claude-fable-5-1", anthropic(10, 50)],
  ["claude-fable-5", anthropic(10, 50)],
  ["claude-mythos-5", anthropic(10, 50)],
  ["claude-opus-5-5", anthropic(4, 20)],
  ["claude-opus-5", anthropic(5, 25)],
  ["claude-sonnet-5-5", anthropic(2, 10)],
  ["claude-sonnet-5", anthropic(2, 10)],
  ["claude-opus-4-8", anthropic(5, 25)],
  ["claude-opus-4-6", anthropic(5, 25)],
  ["claude-opus-4-5", anthropic(5, 25)],
  ["claude-opus-4-1", anthropic(15, 75)],
  ["claude-opus-4-0", anthropic(15, 75)],
  ["claude-opus-4", anthropic(15, 75)],
  ["claude-sonnet-4-6", anthropic(3, 15)],
  ["claude-sonnet-4-5", anthropic(3, 15)],
  ["claude-sonnet-4-0", anthropic(3, 15)],
  ["claude-sonnet-4", anthropic(3, 15)],
  ["claude-3-7-sonnet", anthropic(3, 15)],
  ["claude-3-5-sonnet", anthropic(3, 15)],
  ["claude-haiku-4-5", anthropic(1, 5)],
  ["claude-3-5-haiku", anthropic(0.8, 4)],
  ["claude-3-haiku", anthropic(0.25, 1.25)],
  ["gpt-5-nano", openai(0.05, 0.005, 0.4)],
  ["gpt-5-mini", openai(0.25, 0.025, 2)],
  ["gpt-5", openai(1.25, 0.125, 10)],
  ["gpt-4.1-nano", openai(0.1, 0.025, 0.4)],
  ["gpt-4.1-mini", openai(0.4, 0.1, 1.6)],
  ["gpt-4.1", openai(2, 0.5, 8)],
  ["gpt-4o-mini", openai(0.15, 0.075, 0.6)],
  ["gpt-4o", openai(2.5, 1.25, 10)],
  ["o4-mini", openai(1.1, 0.275, 4.4)],
  ["o3-mini", openai(1.1, 0.55, 4.4)],
  ["o3", openai(2, 0.5, 8)],
];

const PRICE_BY_ID: ReadonlyMap<string, ResolvedPrice> = new Map(KNOWN_PRICES);
/** A snapshot of a model id: a date (`-20250929`, `-2025-04-14`) or `-latest`. */
const SNAPSHOT = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/** The list price of a model id (`claude-sonnet-4-5-20250929` → claude-sonnet-4-5's; `anthropic:` / `openai/` prefixes ignored), or undefined. */
export function knownPrice(model: string): ResolvedPrice | undefined {
  const id = model.toLowerCase().replace(/^(anthropic|openai)[/:]/, "");
  return PRICE_BY_ID.get(id) ?? PRICE_BY_ID.get(id.replace(SNAPSHOT, ""));
}

/** A price's cache prices filled in by the provider's rule (see {@link ModelPriceSchema}). */
export function resolvePrice(provider: ModelConfig["provider"], price: ModelPrice): ResolvedPrice {
  return {
    inputPerMTok: price.inputPerMTok,
    outputPerMTok: price.outputPerMTok,
    cacheReadPerMTok:
      price.cacheReadPerMTok ?? (provider === "anthropic" ? round(price.inputPerMTok * 0.1) : price.inputPerMTok),
    cacheWritePerMTok:
      price.cacheWritePerMTok ?? (provider === "anthropic" ? round(price.inputPerMTok * 1.25) : price.inputPerMTok),
  };
}

/** The price a config's replies are charged at: its own, else the list price of its model, else none. */
export const priceOf = (config: ModelConfig): ResolvedPrice | undefined =>
  config.price ? resolvePrice(config.provider, config.price) : knownPrice(config.model);

/**
 * Dollars for one request (0 without a price): uncached input at the input price, cache reads and
 * writes at theirs, output (reasoning included) at the output price.
 */
export function costUsd(price: ResolvedPrice | undefined, usage: Usage): number {
  if (!price) return 0;
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - read - write);
  return (
    (uncached * price.inputPerMTok +
      read * price.cacheReadPerMTok +
      write * price.cacheWritePerMTok +
      usage.outputTokens * price.outputPerMTok) /
    1_000_000
  );
}

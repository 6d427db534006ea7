/**
 * The config of a live language model: which provider, which model, where its API key is, and the
 * limits of a request. Pure: reading the key's environment variable happens in the layer.
 */
import { z } from "zod";
import { ModelConfigInvalid } from "./errors.js";

/** Dollars per million tokens, to compute `costUsd` of each reply. */
export const ModelPriceSchema = z.strictObject({
  inputPerMTok: z.number().nonnegative(),
  outputPerMTok: z.number().nonnegative(),
});
export type ModelPrice = z.infer<typeof ModelPriceSchema>;

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
};

export const AnthropicModelConfigSchema = z.strictObject({
  provider: z.literal("anthropic"),
  ...common,
  /** The environment variable holding the API key. */
  apiKeyEnv: envName.default("ANTHROPIC_API_KEY"),
  temperature: z.number().min(0).max(1).optional(),
});

export const OpenAIModelConfigSchema = z.strictObject({
  provider: z.literal("openai"),
  ...common,
  /** The environment variable holding the API key. */
  apiKeyEnv: envName.default("OPENAI_API_KEY"),
  temperature: z.number().min(0).max(2).optional(),
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
  price: `set "price" to {"inputPerMTok": dollars, "outputPerMTok": dollars} (per million tokens), or leave it out`,
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
 * List prices (dollars per million tokens, input / output) of the models SWE-bench users run, by model
 * id, from the providers' own pages (Anthropic's model pages as of 2026-11; OpenAI's pricing page).
 * An id matches its entry exactly or followed by a snapshot suffix (`claude-sonnet-4-5-20250929`,
 * `gpt-4.1-2025-04-14`, `-latest`) — never a later version of the family: Claude Opus 4.6 costs a
 * third of Opus 4.1, and GPT-5.2 Pro many times GPT-5, so a family's price would make `cost_limit`
 * stop a run far too early or far too late. Cache discounts are not modelled, so costs are upper
 * bounds. A config's own `price` always wins; an id with no entry costs $0 and callers warn (set
 * `model.price`). Not listed, for want of a price on the provider's own pages here: claude-opus-4-7,
 * claude-haiku-5-5 (priced by tier), claude-fable-5-2, claude-mythos-5-1/-5-2, and OpenAI's models
 * after gpt-5 (gpt-5.1 … gpt-5.6).
 */
export const KNOWN_PRICES: ReadonlyArray<readonly [id: string, price: ModelPrice]> = [
  ["claude-fable-5-1", { inputPerMTok: 10, outputPerMTok: 50 }],
  ["claude-fable-5", { inputPerMTok: 10, outputPerMTok: 50 }],
  ["claude-mythos-5", { inputPerMTok: 10, outputPerMTok: 50 }],
  ["claude-opus-5-5", { inputPerMTok: 4, outputPerMTok: 20 }],
  ["claude-opus-5", { inputPerMTok: 5, outputPerMTok: 25 }],
  ["claude-sonnet-5-5", { inputPerMTok: 2, outputPerMTok: 10 }],
  ["claude-sonnet-5", { inputPerMTok: 2, outputPerMTok: 10 }],
  ["claude-opus-4-8", { inputPerMTok: 5, outputPerMTok: 25 }],
  ["claude-opus-4-6", { inputPerMTok: 5, outputPerMTok: 25 }],
  ["claude-opus-4-5", { inputPerMTok: 5, outputPerMTok: 25 }],
  ["claude-opus-4-1", { inputPerMTok: 15, outputPerMTok: 75 }],
  ["claude-opus-4-0", { inputPerMTok: 15, outputPerMTok: 75 }],
  ["claude-opus-4", { inputPerMTok: 15, outputPerMTok: 75 }],
  ["claude-sonnet-4-6", { inputPerMTok: 3, outputPerMTok: 15 }],
  ["claude-sonnet-4-5", { inputPerMTok: 3, outputPerMTok: 15 }],
  ["claude-sonnet-4-0", { inputPerMTok: 3, outputPerMTok: 15 }],
  ["claude-sonnet-4", { inputPerMTok: 3, outputPerMTok: 15 }],
  ["claude-3-7-sonnet", { inputPerMTok: 3, outputPerMTok: 15 }],
  ["claude-3-5-sonnet", { inputPerMTok: 3, outputPerMTok: 15 }],
  ["claude-haiku-4-5", { inputPerMTok: 1, outputPerMTok: 5 }],
  ["claude-3-5-haiku", { inputPerMTok: 0.8, outputPerMTok: 4 }],
  ["claude-3-haiku", { inputPerMTok: 0.25, outputPerMTok: 1.25 }],
  ["gpt-5-nano", { inputPerMTok: 0.05, outputPerMTok: 0.4 }],
  ["gpt-5-mini", { inputPerMTok: 0.25, outputPerMTok: 2 }],
  ["gpt-5", { inputPerMTok: 1.25, outputPerMTok: 10 }],
  ["gpt-4.1-nano", { inputPerMTok: 0.1, outputPerMTok: 0.4 }],
  ["gpt-4.1-mini", { inputPerMTok: 0.4, outputPerMTok: 1.6 }],
  ["gpt-4.1", { inputPerMTok: 2, outputPerMTok: 8 }],
  ["gpt-4o-mini", { inputPerMTok: 0.15, outputPerMTok: 0.6 }],
  ["gpt-4o", { inputPerMTok: 2.5, outputPerMTok: 10 }],
  ["o4-mini", { inputPerMTok: 1.1, outputPerMTok: 4.4 }],
  ["o3-mini", { inputPerMTok: 1.1, outputPerMTok: 4.4 }],
  ["o3", { inputPerMTok: 2, outputPerMTok: 8 }],
];

const PRICE_BY_ID: ReadonlyMap<string, ModelPrice> = new Map(KNOWN_PRICES);
/** A snapshot of a model id: a date (`-20250929`, `-2025-04-14`) or `-latest`. */
const SNAPSHOT = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|latest)$/;

/** The list price of a model id (`claude-sonnet-4-5-20250929` → claude-sonnet-4-5's; `anthropic:` / `openai/` prefixes ignored), or undefined. */
export function knownPrice(model: string): ModelPrice | undefined {
  const id = model.toLowerCase().replace(/^(anthropic|openai)[/:]/, "");
  return PRICE_BY_ID.get(id) ?? PRICE_BY_ID.get(id.replace(SNAPSHOT, ""));
}

/** The price a config's replies are charged at: its own, else the list price of its model, else none. */
export const priceOf = (config: ModelConfig): ModelPrice | undefined => config.price ?? knownPrice(config.model);

/** Dollars for one request, from the config's price table (0 without one). */
export function costUsd(price: ModelPrice | undefined, usage: { inputTokens: number; outputTokens: number }): number {
  if (!price) return 0;
  return (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}

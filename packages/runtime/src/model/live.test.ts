/**
 * The live layers, through the real SDKs, against a local server speaking each provider's wire format.
 */
import * as Effect from "effect/Effect";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelConfigInput } from "./config.js";
import {
  anthropicError,
  anthropicMessage,
  type Answer,
  eventually,
  openaiCompletion,
  openaiError,
  type ProviderServer,
  startProviderServer,
} from "../testing/provider-server.js";
import { type ChatMessage, type CompletionOptions, LanguageModel, ScriptedModel, type ToolSpec } from "./model.js";

const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(answers: readonly Answer[]): Promise<ProviderServer> {
  const server = await startProviderServer(answers);
  servers.push(server);
  return server;
}

const ask = (config: ModelConfigInput, env: Record<string, string | undefined>, messages: readonly ChatMessage[]) =>
  Effect.gen(function* () {
    const model = yield* LanguageModel;
    const reply = yield* model.complete(messages);
    return { name: model.name, priced: model.priced, reply };
  }).pipe(Effect.provide(LanguageModel.layer(config, { env })));

const run = (config: ModelConfigInput, env: Record<string, string | undefined>, messages: readonly ChatMessage[]) =>
  Effect.runPromise(ask(config, env, messages));
const fail = (config: ModelConfigInput, env: Record<string, string | undefined>, messages: readonly ChatMessage[]) =>
  Effect.runPromise(Effect.flip(ask(config, env, messages)));

const HELLO: ChatMessage[] = [{ role: "user", content: "hello" }];
/** Tells the SDK to wait 1 ms before retrying (the providers send retry-after; the SDKs honour retry-after-ms). */
const FAST_RETRY = { "retry-after-ms": "1" };

describe("the Anthropic layer (@anthropic-ai/sdk, Messages API)", () => {
  const env = { ANTHROPIC_API_KEY: "sk-ant-test-123" };

  it("sends system messages in the system parameter, the others in order, with the key as a Bearer token, and parses the reply", async () => {
    const server = await serve([
      anthropicMessage({
        content: [
          { type: "thinking", thinking: "let me think", signature: "sig" },
          { type: "text", text: "Here is " },
          { type: "text", text: "the plan." },
        ],
        inputTokens: 1200,
        outputTokens: 300,
      }),
    ]);
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a planner." },
      { role: "user", content: "Plan the edit." },
      { role: "assistant", content: "Which file?" },
      { role: "system", content: "Answer in JSON." },
      { role: "user", content: "a.py" },
    ];
    const { name, reply } = await run(
      {
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        baseUrl: server.origin,
        maxTokens: 1024,
        temperature: 0.2,
        price: { inputPerMTok: 3, outputPerMTok: 15 },
        cache: false,
      },
      env,
      messages,
    );
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/messages");
    // @anthropic-ai/sdk 1.x (API version 2026-10-21) sends the API key as a Bearer token, no longer in x-api-key.
    expect(request?.headers.authorization).toBe("Bearer sk-ant-test-123");
    expect(request?.headers["x-api-key"]).toBeUndefined();
    expect(request?.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(request?.body).toEqual({
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      temperature: 0.2,
      system: "You are a planner.\n\nAnswer in JSON.",
      messages: [
        { role: "user", content: "Plan the edit." },
        { role: "assistant", content: "Which file?" },
        { role: "user", content: "a.py" },
      ],
    });
    expect(name).toBe("anthropic:claude-sonnet-4-5");
    expect(reply).toEqual({
      content: "Here is the plan.",
      model: "claude-sonnet-4-5-20250929",
      usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: expect.closeTo((1200 * 3 + 300 * 15) / 1e6, 12),
      stopReason: "end_turn",
      reasoning: [{ type: "thinking", thinking: "let me think", signature: "sig" }],
    });
  });

  it("leaves out system and temperature when there are none, sends the default max_tokens, and charges the model's list price when the config has none", async () => {
    const server = await serve([
      anthropicMessage({
        content: [{ type: "text", text: "ok" }],
        inputTokens: 5,
        outputTokens: 1,
        stopReason: "max_tokens",
      }),
    ]);
    const { reply, name, priced } = await run(
      { provider: "anthropic", model: "claude-haiku-4-5", baseUrl: server.origin, cache: false },
      env,
      HELLO,
    );
    expect(server.requests[0]?.body).toEqual({
      model: "claude-haiku-4-5",
      max_tokens: 4096,
      messages: [{ role: "user", content: "hello" }],
    });
    expect(name).toBe("anthropic:claude-haiku-4-5");
    expect(priced).toBe(true);
    expect(reply.costUsd).toBeCloseTo((5 * 1 + 1 * 5) / 1e6, 12);
    expect(reply.stopReason).toBe("max_tokens");
  });

  it("costs 0 for a model with neither a config price nor a list price, and says it is not priced", async () => {
    const server = await serve([
      anthropicMessage({ content: [{ type: "text", text: "ok" }], inputTokens: 5000, outputTokens: 100 }),
    ]);
    const { reply, priced } = await run(
      { provider: "anthropic", model: "acme-frontier-1", baseUrl: server.origin },
      env,
      HELLO,
    );
    expect(reply.costUsd).toBe(0);
    expect(priced).toBe(false);
  });

  it("reads the key from the variable named by apiKeyEnv", async () => {
    const server = await serve([
      anthropicMessage({ content: [{ type: "text", text: "ok" }], inputTokens: 1, outputTokens: 1 }),
    ]);
    await run(
      { provider: "anthropic", model: "claude-haiku-4-5", baseUrl: server.origin, apiKeyEnv: "TEAM_CLAUDE_KEY" },
      { ANTHROPIC_API_KEY: "the-wrong-key", TEAM_CLAUDE_KEY: "the-team-key" },
      HELLO,
    );
    expect(server.requests[0]?.headers.authorization).toBe("Bearer the-team-key");
  });

  it("retries a 529 (overloaded) and succeeds on the next answer", async () => {
    const server = await serve([
      anthropicError(529, "overloaded_error", "Overloaded", FAST_RETRY),
      anthropicMessage({ content: [{ type: "text", text: "finally" }], inputTokens: 3, outputTokens: 2 }),
    ]);
    const { reply } = await run(
      { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.origin },
      env,
      HELLO,
    );
    expect(reply.content).toBe("finally");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]?.body).toEqual(server.requests[0]?.body);
  });

  it("turns a 400 into ModelRequestFailed with the status and the server's message, without retrying", async () => {
    const server = await serve([
      anthropicError(
        400,
        "invalid_request_error",
        "max_tokens: 999999 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5",
      ),
    ]);
    const error = await fail(
      { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.origin, maxTokens: 999999 },
      env,
      HELLO,
    );
    expect(error._tag).toBe("ModelRequestFailed");
    if (error._tag !== "ModelRequestFailed") return;
    expect(error.status).toBe(400);
    expect(error.provider).toBe("anthropic");
    expect(error.model).toBe("claude-sonnet-4-5");
    expect(error.detail).toContain("invalid_request_error: max_tokens: 999999 > 64000, which is the maximum allowed");
    expect(error.detail).toContain("req_011CError");
    expect(error.message).toContain("HTTP 400");
    expect(server.requests).toHaveLength(1);
  });
});

describe("the OpenAI layer (openai, Chat Completions)", () => {
  const env = { OPENAI_API_KEY: "sk-proj-test-456" };

  it("sends the messages as they are, with the key as a Bearer token, and parses the reply", async () => {
    const server = await serve([
      openaiCompletion({ content: "The plan is ready.", promptTokens: 1000, completionTokens: 250 }),
    ]);
    const messages: ChatMessage[] = [
      { role: "system", content: "You are a planner." },
      { role: "user", content: "Plan the edit." },
      { role: "assistant", content: "Which file?" },
      { role: "user", content: "a.py" },
    ];
    const { name, reply } = await run(
      {
        provider: "openai",
        model: "gpt-4.1",
        baseUrl: `${server.origin}/v1`,
        maxTokens: 2048,
        temperature: 1.5,
        price: { inputPerMTok: 2, outputPerMTok: 8 },
      },
      env,
      messages,
    );
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe("POST");
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer sk-proj-test-456");
    expect(request?.headers["x-api-key"]).toBeUndefined();
    expect(request?.body).toEqual({ model: "gpt-4.1", messages, max_completion_tokens: 2048, temperature: 1.5 });
    expect(name).toBe("openai:gpt-4.1");
    expect(reply).toEqual({
      content: "The plan is ready.",
      model: "gpt-4.1-2025-04-14",
      usage: { inputTokens: 1000, outputTokens: 250, cacheReadTokens: 0, cacheWriteTokens: 0 },
      costUsd: expect.closeTo((1000 * 2 + 250 * 8) / 1e6, 12),
      stopReason: "stop",
    });
  });

  it("answers the refusal when the model refuses (content null)", async () => {
    const server = await serve([
      openaiCompletion({ content: null, refusal: "I can't help with that.", promptTokens: 9, completionTokens: 6 }),
    ]);
    const { reply } = await run({ provider: "openai", model: "gpt-4.1", baseUrl: `${server.origin}/v1` }, env, HELLO);
    expect(reply.content).toBe("I can't help with that.");
    expect(server.requests[0]?.body).toEqual({ model: "gpt-4.1", messages: HELLO, max_completion_tokens: 4096 });
  });

  it("fails with ModelRequestFailed when the answer has no choices", async () => {
    const server = await serve([
      openaiCompletion({ content: "x", promptTokens: 1, completionTokens: 0, noChoices: true }),
    ]);
    const error = await fail({ provider: "openai", model: "gpt-4.1", baseUrl: `${server.origin}/v1` }, env, HELLO);
    expect(error._tag).toBe("ModelRequestFailed");
    expect(error.message).toContain("no choices");
  });

  it("retries two 500s and succeeds on the third answer (maxRetries 3 by default)", async () => {
    const server = await serve([
      openaiError(500, "server_error", "The server had an error while processing your request.", FAST_RETRY),
      openaiError(500, "server_error", "The server had an error while processing your request.", FAST_RETRY),
      openaiCompletion({ content: "third time", promptTokens: 3, completionTokens: 2 }),
    ]);
    const { reply } = await run({ provider: "openai", model: "gpt-4.1", baseUrl: `${server.origin}/v1` }, env, HELLO);
    expect(reply.content).toBe("third time");
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a 429 when maxRetries is 0", async () => {
    const server = await serve([
      openaiError(
        429,
        "rate_limit_exceeded",
        "Rate limit reached for gpt-4.1 in organization org-x on tokens per min (TPM)",
        FAST_RETRY,
      ),
    ]);
    const error = await fail(
      { provider: "openai", model: "gpt-4.1", baseUrl: `${server.origin}/v1`, maxRetries: 0 },
      env,
      HELLO,
    );
    expect(error._tag === "ModelRequestFailed" && error.status).toBe(429);
    expect(error.message).toContain("Rate limit reached for gpt-4.1");
    expect(error.message).toContain("rate limited after the SDK's retries");
    expect(error._tag === "ModelRequestFailed" && error.retryable).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("names the status and the provider's message of an outage after the retries, and marks it retryable; a 401 says to check the key and is not", async () => {
    const overloaded = await serve([openaiError(529, "overloaded_error", "Overloaded")]);
    const outage = await fail(
      { provider: "openai", model: "gpt-4.1", baseUrl: `${overloaded.origin}/v1`, maxRetries: 0 },
      env,
      HELLO,
    );
    expect(outage.message).toMatch(/failed \(HTTP 529\): .*Overloaded.*; the provider is overloaded: try again later/);
    expect(outage.message).not.toContain("API key");
    expect(outage._tag === "ModelRequestFailed" && outage.retryable).toBe(true);
    const refused = await serve([openaiError(401, "invalid_api_key", "Incorrect API key provided")]);
    const denied = await fail(
      { provider: "openai", model: "gpt-4.1", baseUrl: `${refused.origin}/v1`, maxRetries: 0 },
      env,
      HELLO,
    );
    expect(denied.message).toMatch(/\(HTTP 401\): .*Incorrect API key provided.*; check the API key/);
    expect(denied._tag === "ModelRequestFailed" && denied.retryable).toBe(false);
  });

  it("turns a 400 into ModelRequestFailed with the status and the server's message", async () => {
    const server = await serve([
      openaiError(400, "invalid_request_error", "The model `gpt-nope` does not exist or you do not have access to it."),
    ]);
    const error = await fail({ provider: "openai", model: "gpt-nope", baseUrl: `${server.origin}/v1` }, env, HELLO);
    expect(error).toMatchObject({
      _tag: "ModelRequestFailed",
      provider: "openai",
      model: "gpt-nope",
      status: 400,
      detail:
        "invalid_request_error: The model `gpt-nope` does not exist or you do not have access to it. (request id req_err456)",
    });
    expect(server.requests).toHaveLength(1);
  });
});

const PROVIDERS = [
  {
    provider: "anthropic" as const,
    model: "claude-sonnet-4-5",
    keyVar: "ANTHROPIC_API_KEY",
    baseUrl: (origin: string) => origin,
    error: (status: number, message: string) =>
      anthropicError(status, status >= 500 ? "api_error" : "invalid_request_error", message, FAST_RETRY),
  },
  {
    provider: "openai" as const,
    model: "gpt-4.1",
    keyVar: "OPENAI_API_KEY",
    baseUrl: (origin: string) => `${origin}/v1`,
    error: (status: number, message: string) =>
      openaiError(status, status >= 500 ? "server_error" : "invalid_request_error", message, FAST_RETRY),
  },
];

describe.each(PROVIDERS)("both providers: $provider", ({ provider, model, keyVar, baseUrl, error: errorAnswer }) => {
  const env = { [keyVar]: "key" };

  it("gives up after maxRetries + 1 attempts and reports the last status", async () => {
    const server = await serve([errorAnswer(500, "Internal server error, sorry")]);
    const error = await fail({ provider, model, baseUrl: baseUrl(server.origin), maxRetries: 1 }, env, HELLO);
    expect(error).toMatchObject({ _tag: "ModelRequestFailed", status: 500 });
    expect(error.message).toContain("Internal server error, sorry");
    expect(server.requests).toHaveLength(2);
  });

  it("fails with ModelRequestFailed (no status) when the server does not answer within timeoutMs", async () => {
    const server = await serve(["hang"]);
    const started = Date.now();
    const error = await fail(
      { provider, model, baseUrl: baseUrl(server.origin), timeoutMs: 300, maxRetries: 0 },
      env,
      HELLO,
    );
    expect(error).toMatchObject({ _tag: "ModelRequestFailed", provider, model, status: undefined });
    expect(error.message).toContain("timeoutMs=300");
    expect(Date.now() - started).toBeLessThan(5000);
    expect(server.requests).toHaveLength(1);
  });

  it("fails with ModelRequestFailed (no status) naming the address when nothing listens there", async () => {
    const server = await startProviderServer([]);
    await server.close();
    const error = await fail({ provider, model, baseUrl: baseUrl(server.origin), maxRetries: 0 }, env, HELLO);
    expect(error).toMatchObject({ _tag: "ModelRequestFailed", status: undefined });
    expect(error.message).toContain(`could not reach ${server.origin}`);
    expect(error.message).toContain("ECONNREFUSED");
  });

  it("aborts the HTTP request when the effect is interrupted", async () => {
    const server = await serve(["hang"]);
    // Interrupted once the server holds the request (not after a fixed time: a loaded machine may not have sent it yet).
    const outcome = await Effect.runPromise(
      ask({ provider, model, baseUrl: baseUrl(server.origin), maxRetries: 0 }, env, HELLO).pipe(
        Effect.raceFirst(
          Effect.promise(() => eventually(() => server.requests.length > 0, 30_000)).pipe(
            Effect.as("interrupted" as const),
          ),
        ),
      ),
    );
    expect(outcome).toBe("interrupted");
    expect(await eventually(() => server.requests[0]?.closedEarly === true, 10_000)).toBe(true);
  });

  it(`fails to build with ModelConfigInvalid naming ${keyVar} when it is not set, before any request`, async () => {
    const server = await serve([errorAnswer(500, "must not be reached")]);
    const error = await fail({ provider, model, baseUrl: baseUrl(server.origin) }, { [keyVar]: "  " }, HELLO);
    expect(error._tag).toBe("ModelConfigInvalid");
    if (error._tag !== "ModelConfigInvalid") return;
    expect(error.field).toBe("apiKeyEnv");
    expect(error.message).toMatch(new RegExp(`^no API key: the environment variable ${keyVar} \\(apiKeyEnv\\)`));
    expect(error.message).toContain(`set ${keyVar} to your`);
    expect(server.requests).toHaveLength(0);
  });
});

describe("the API key variable", () => {
  it("is looked up in process.env by default", async () => {
    const name = "GRAPHPLAN_TEST_MODEL_KEY";
    const server = await serve([openaiCompletion({ content: "ok", promptTokens: 1, completionTokens: 1 })]);
    const layer = LanguageModel.layer({
      provider: "openai",
      model: "gpt-4.1",
      baseUrl: `${server.origin}/v1`,
      apiKeyEnv: name,
    });
    const program = Effect.gen(function* () {
      const model = yield* LanguageModel;
      return yield* model.complete(HELLO);
    }).pipe(Effect.provide(layer));
    delete process.env[name];
    const missing = await Effect.runPromise(Effect.flip(program));
    expect(missing.message).toContain(`the environment variable ${name} (apiKeyEnv)`);
    process.env[name] = "from-process-env";
    try {
      await Effect.runPromise(program);
    } finally {
      delete process.env[name];
    }
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer from-process-env"]);
  });
});

// ---------------------------------------------------------------------------------------------------
// Tool calls: the tools offered, the calls in the reply, and calls and results carried in the conversation
// the way each API requires (a tool_use answered by a tool_result; a tool_call by a `tool` message).

const TOOL: ToolSpec = {
  name: "submit_plan",
  description: "Submit the plan",
  inputSchema: {
    type: "object",
    properties: { plan: { type: "array", items: { type: "object" } } },
    required: ["plan"],
  },
};
const PLAN = [
  {
    op: "replace_node",
    params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f():\n    return 1" },
  },
];

const complete = (
  config: ModelConfigInput,
  env: Record<string, string>,
  messages: readonly ChatMessage[],
  options: CompletionOptions,
) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const model = yield* LanguageModel;
      return { supportsTools: model.supportsTools, reply: yield* model.complete(messages, options) };
    }).pipe(Effect.provide(LanguageModel.layer(config, { env }))),
  );

/** A conversation in which the model called the tool and the agent answered it. */
const ANSWERED: ChatMessage[] = [
  { role: "user", content: "fix f" },
  {
    role: "assistant",
    content: "THOUGHT: the plan.",
    toolCalls: [{ id: "call_1", name: "submit_plan", input: { plan: PLAN } }],
  },
  {
    role: "user",
    content: "Now review the diff.",
    toolResults: [{ id: "call_1", content: "the plan is invalid: plan[0].op", isError: true }],
  },
];

describe("tool calls, Anthropic (@anthropic-ai/sdk)", () => {
  const env = { ANTHROPIC_API_KEY: "sk-ant-test" };

  it("offers the tools with their input schema and reads tool_use blocks as tool calls", async () => {
    const server = await serve([
      anthropicMessage({
        content: [
          { type: "text", text: "THOUGHT: the plan." },
          { type: "tool_use", id: "toolu_01", name: "submit_plan", input: { plan: PLAN } },
        ],
        inputTokens: 10,
        outputTokens: 5,
        stopReason: "tool_use",
      }),
    ]);
    const { supportsTools, reply } = await complete(
      { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.origin, maxRetries: 0 },
      env,
      [{ role: "user", content: "fix f" }],
      { tools: [TOOL] },
    );
    expect(supportsTools).toBe(true);
    expect(server.requests[0]!.body["tools"]).toEqual([
      { name: "submit_plan", description: "Submit the plan", input_schema: TOOL.inputSchema },
    ]);
    expect(reply).toMatchObject({
      content: "THOUGHT: the plan.",
      stopReason: "tool_use",
      toolCalls: [{ id: "toolu_01", name: "submit_plan", input: { plan: PLAN } }],
    });
  });

  it("sends a tool call as a tool_use block and its answer as a tool_result block before the user's text", async () => {
    const server = await serve([
      anthropicMessage({ content: [{ type: "text", text: "ok" }], inputTokens: 1, outputTokens: 1 }),
    ]);
    const { reply } = await complete(
      { provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.origin, maxRetries: 0, cache: false },
      env,
      ANSWERED,
      {},
    );
    expect(reply.toolCalls).toBeUndefined();
    expect(server.requests[0]!.body["tools"]).toBeUndefined();
    expect(server.requests[0]!.body["messages"]).toEqual([
      { role: "user", content: "fix f" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "THOUGHT: the plan." },
          { type: "tool_use", id: "call_1", name: "submit_plan", input: { plan: PLAN } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "call_1", content: "the plan is invalid: plan[0].op", is_error: true },
          { type: "text", text: "Now review the diff." },
        ],
      },
    ]);
  });
});

describe("tool calls, OpenAI (openai, Chat Completions)", () => {
  const env = { OPENAI_API_KEY: "sk-test" };

  it("offers the tools as functions and reads tool_calls, parsing their arguments", async () => {
    const server = await serve([
      openaiCompletion({
        content: null,
        toolCalls: [{ id: "call_9", name: "submit_plan", arguments: JSON.stringify({ plan: PLAN }) }],
        promptTokens: 10,
        completionTokens: 5,
      }),
    ]);
    const { supportsTools, reply } = await complete(
      { provider: "openai", model: "gpt-4.1", baseUrl: server.origin, maxRetries: 0 },
      env,
      [{ role: "user", content: "fix f" }],
      { tools: [TOOL] },
    );
    expect(supportsTools).toBe(true);
    expect(server.requests[0]!.body["tools"]).toEqual([
      {
        type: "function",
        function: { name: "submit_plan", description: "Submit the plan", parameters: TOOL.inputSchema },
      },
    ]);
    expect(reply).toMatchObject({
      content: "",
      stopReason: "tool_calls",
      toolCalls: [{ id: "call_9", name: "submit_plan", input: { plan: PLAN } }],
    });
  });

  it("keeps arguments that are not JSON as text, for the caller to refuse", async () => {
    const server = await serve([
      openaiCompletion({
        content: null,
        toolCalls: [{ id: "call_9", name: "submit_plan", arguments: '{"plan": [' }],
        promptTokens: 1,
        completionTokens: 1,
      }),
    ]);
    const { reply } = await complete(
      { provider: "openai", model: "gpt-4.1", baseUrl: server.origin, maxRetries: 0 },
      env,
      [{ role: "user", content: "fix f" }],
      { tools: [TOOL] },
    );
    expect(reply.toolCalls).toEqual([{ id: "call_9", name: "submit_plan", input: '{"plan": [' }]);
  });

  it("sends a tool call on the assistant message and its answer as a tool message before the user's text", async () => {
    const server = await serve([openaiCompletion({ content: "ok", promptTokens: 1, completionTokens: 1 })]);
    await complete({ provider: "openai", model: "gpt-4.1", baseUrl: server.origin, maxRetries: 0 }, env, ANSWERED, {});
    expect(server.requests[0]!.body["messages"]).toEqual([
      { role: "user", content: "fix f" },
      {
        role: "assistant",
        content: "THOUGHT: the plan.",
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "submit_plan", arguments: JSON.stringify({ plan: PLAN }) },
          },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "the plan is invalid: plan[0].op" },
      { role: "user", content: "Now review the diff." },
    ]);
  });
});

describe("tool calls, ScriptedModel", () => {
  it("records the tools offered and answers scripted tool calls", async () => {
    const model = new ScriptedModel(
      [{ content: "the plan", toolCalls: [{ id: "t1", name: "submit_plan", input: { plan: PLAN } }] }],
      true,
    );
    const reply = await Effect.runPromise(model.complete([{ role: "user", content: "fix f" }], { tools: [TOOL] }));
    expect(model.supportsTools).toBe(true);
    expect(model.offeredTools).toEqual([[TOOL]]);
    expect(reply.toolCalls).toEqual([{ id: "t1", name: "submit_plan", input: { plan: PLAN } }]);
  });
});

/** A conversation of four user turns, a system prompt and three replies (the last with a tool call). */
const LONG: ChatMessage[] = [
  { role: "system", content: "You are a careful engineer." },
  { role: "user", content: "task" },
  { role: "assistant", content: "ls" },
  { role: "user", content: "<output>a.py</output>" },
  { role: "assistant", content: "cat a.py" },
  { role: "user", content: "<output>def f(): pass</output>" },
  {
    role: "assistant",
    content: "the plan",
    toolCalls: [{ id: "toolu_9", name: "submit_plan", input: { plan: PLAN } }],
  },
  { role: "user", content: "verified", toolResults: [{ id: "toolu_9", content: "plan received" }] },
];

/** The blocks of a request body that carry a cache breakpoint: where they are, in tools, system or messages. */
function breakpoints(body: Record<string, unknown>): string[] {
  const found: string[] = [];
  const blocks = (where: string, value: unknown) => {
    if (!Array.isArray(value)) return;
    value.forEach((block: Record<string, unknown>, i) => {
      if (block["cache_control"] !== undefined) found.push(`${where}[${i}]`);
    });
  };
  blocks("tools", body["tools"]);
  blocks("system", body["system"]);
  (body["messages"] as { content: unknown }[]).forEach((m, i) => blocks(`messages[${i}]`, m.content));
  return found;
}

describe("prompt caching and reasoning, Anthropic (@anthropic-ai/sdk)", () => {
  const env = { ANTHROPIC_API_KEY: "sk-ant-test" };
  const base = { provider: "anthropic", model: "claude-sonnet-4-5", maxRetries: 0 } as const;

  it("marks the system prompt and the last block of the last two user turns, by default: 3 breakpoints of the API's 4", async () => {
    const server = await serve([
      anthropicMessage({ content: [{ type: "text", text: "ok" }], inputTokens: 1, outputTokens: 1 }),
    ]);
    await complete({ ...base, baseUrl: server.origin }, env, LONG, { tools: [TOOL] });
    const body = server.requests[0]!.body;
    expect(breakpoints(body)).toEqual(["system[0]", "messages[4][0]", "messages[6][1]"]);
    // Every turn is sent as blocks, marked or not, so a turn reads the same in every request.
    const messages = body["messages"] as { content: unknown }[];
    expect(messages.every((m) => Array.isArray(m.content))).toBe(true);
    expect(messages[6]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_9", content: "plan received" },
      { type: "text", text: "verified", cache_control: { type: "ephemeral" } },
    ]);
  });

  it("the next request's turns are the previous request's, byte for byte, apart from the moved breakpoints", async () => {
    const server = await serve([
      anthropicMessage({ content: [{ type: "text", text: "ok" }], inputTokens: 1, outputTokens: 1 }),
    ]);
    const first = LONG.slice(0, 6);
    await complete({ ...base, baseUrl: server.origin }, env, first, {});
    await complete({ ...base, baseUrl: server.origin }, env, LONG, {});
    const strip = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value, (k, v) => (k === "cache_control" ? undefined : v)));
    const [a, b] = server.requests.map((r) => strip(r.body) as { system: unknown; messages: unknown[] });
    expect(b!.system).toEqual(a!.system);
    expect(b!.messages.slice(0, a!.messages.length)).toEqual(a!.messages);
  });

  it("sends no breakpoint and plain text turns with cache off", async () => {
    const server = await serve([
      anthropicMessage({ content: [{ type: "text", text: "ok" }], inputTokens: 1, outputTokens: 1 }),
    ]);
    await complete({ ...base, baseUrl: server.origin, cache: false }, env, LONG, { tools: [TOOL] });
    expect(breakpoints(server.requests[0]!.body)).toEqual([]);
    expect(server.requests[0]!.body["system"]).toBe("You are a careful engineer.");
  });

  it("reads cache reads and writes from the usage and prices them at the cache prices", async () => {
    const server = await serve([
      anthropicMessage({
        content: [{ type: "text", text: "ok" }],
        inputTokens: 500,
        cacheReadTokens: 20_000,
        cacheWriteTokens: 3_000,
        outputTokens: 400,
      }),
    ]);
    const { reply } = await complete({ ...base, baseUrl: server.origin }, env, HELLO, {});
    expect(reply.usage).toEqual({
      inputTokens: 23_500,
      outputTokens: 400,
      cacheReadTokens: 20_000,
      cacheWriteTokens: 3_000,
    });
    expect(reply.costUsd).toBeCloseTo((500 * 3 + 20_000 * 0.3 + 3_000 * 3.75 + 400 * 15) / 1e6, 12);
  });

  it("sends thinking and effort, keeps the reply's thinking blocks and sends them back before its tool call", async () => {
    const thinking = { type: "thinking", thinking: "f is wrong", signature: "EqQBCgIYAhIM" } as const;
    const server = await serve([
      anthropicMessage({
        content: [
          thinking,
          { type: "text", text: "THOUGHT" },
          { type: "tool_use", id: "toolu_1", name: "submit_plan", input: { plan: PLAN } },
        ],
        inputTokens: 10,
        outputTokens: 50,
        stopReason: "tool_use",
      }),
    ]);
    const config = {
      ...base,
      baseUrl: server.origin,
      maxTokens: 16_000,
      thinking: { type: "enabled", budgetTokens: 10_000 },
      effort: "high",
    } as const;
    const { reply } = await complete(config, env, HELLO, { tools: [TOOL] });
    expect(server.requests[0]!.body["thinking"]).toEqual({ type: "enabled", budget_tokens: 10_000 });
    expect(server.requests[0]!.body["output_config"]).toEqual({ effort: "high" });
    expect(reply.reasoning).toEqual([thinking]);
    const next: ChatMessage[] = [
      ...HELLO,
      { role: "assistant", content: reply.content, reasoning: reply.reasoning!, toolCalls: reply.toolCalls! },
      { role: "user", content: "go on", toolResults: [{ id: "toolu_1", content: "received" }] },
    ];
    await complete({ ...config, thinking: { type: "adaptive" } }, env, next, { tools: [TOOL] });
    const sent = server.requests[1]!.body as { thinking: unknown; messages: { content: { type: string }[] }[] };
    expect(sent.thinking).toEqual({ type: "adaptive" });
    expect(sent.messages[1]!.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(sent.messages[1]!.content[0]).toEqual(thinking);
  });
});

describe("prompt caching and reasoning, OpenAI (openai, Chat Completions)", () => {
  const env = { OPENAI_API_KEY: "sk-test" };
  const answer = openaiCompletion({
    content: "ok",
    promptTokens: 50_000,
    cachedTokens: 40_960,
    completionTokens: 1_000,
    reasoningTokens: 600,
  });

  it("sends the conversation's prompt_cache_key and reasoning_effort, and prices cached input at its price", async () => {
    const server = await serve([answer]);
    const { reply } = await complete(
      { provider: "openai", model: "gpt-4.1", baseUrl: `${server.origin}/v1`, reasoningEffort: "low" },
      env,
      HELLO,
      { conversationId: "run-42" },
    );
    expect(server.requests[0]!.body).toMatchObject({ prompt_cache_key: "run-42", reasoning_effort: "low" });
    expect(reply.usage).toEqual({
      inputTokens: 50_000,
      outputTokens: 1_000,
      cacheReadTokens: 40_960,
      cacheWriteTokens: 0,
      reasoningTokens: 600,
    });
    expect(reply.costUsd).toBeCloseTo((9_040 * 2 + 40_960 * 0.5 + 1_000 * 8) / 1e6, 12);
  });

  it("sends no prompt_cache_key with cache off", async () => {
    const server = await serve([answer]);
    await complete({ provider: "openai", model: "gpt-4.1", baseUrl: `${server.origin}/v1`, cache: false }, env, HELLO, {
      conversationId: "run-42",
    });
    expect(server.requests[0]!.body["prompt_cache_key"]).toBeUndefined();
    expect(server.requests[0]!.body["reasoning_effort"]).toBeUndefined();
  });
});

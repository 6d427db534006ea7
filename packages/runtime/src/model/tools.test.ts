/**
 * Tool calls through the real SDKs, against a local server speaking each provider's wire format: the
 * tools offered, the calls in the reply, and the calls and their results carried in the conversation
 * the way each API requires (a tool_use answered by a tool_result; a tool_call by a `tool` message).
 */
import * as Effect from "effect/Effect";
import { afterEach, describe, expect, it } from "vitest";
import type { ModelConfigInput } from "./config.js";
import { anthropicMessage, type Answer, openaiCompletion, type ProviderServer, startProviderServer } from "../testing/provider-server.js";
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

const TOOL: ToolSpec = {
  name: "submit_plan",
  description: "Submit the plan",
  inputSchema: { type: "object", properties: { plan: { type: "array", items: { type: "object" } } }, required: ["plan"] },
};
const PLAN = [{ op: "replace_node", params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f():\n    return 1" } }];

const complete = (config: ModelConfigInput, env: Record<string, string>, messages: readonly ChatMessage[], options: CompletionOptions) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const model = yield* LanguageModel;
      return { supportsTools: model.supportsTools, reply: yield* model.complete(messages, options) };
    }).pipe(Effect.provide(LanguageModel.layer(config, { env }))),
  );

/** A conversation in which the model called the tool and the agent answered it. */
const ANSWERED: ChatMessage[] = [
  { role: "user", content: "fix f" },
  { role: "assistant", content: "THOUGHT: the plan.", toolCalls: [{ id: "call_1", name: "submit_plan", input: { plan: PLAN } }] },
  { role: "user", content: "Now review the diff.", toolResults: [{ id: "call_1", content: "the plan is invalid: plan[0].op", isError: true }] },
];

describe("tool calls, Anthropic (@anthropic-ai/sdk)", () => {
  const env = { ANTHROPIC_API_KEY: "sk-ant-test" };

  it("offers the tools with their input schema and reads tool_use blocks as tool calls", async () => {
    const server = await serve([
      anthropicMessage({ content: [{ type: "text", text: "THOUGHT: the plan." }, { type: "tool_use", id: "toolu_01", name: "submit_plan", input: { plan: PLAN } }], inputTokens: 10, outputTokens: 5, stopReason: "tool_use" }),
    ]);
    const { supportsTools, reply } = await complete({ provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.origin, maxRetries: 0 }, env, [{ role: "user", content: "fix f" }], { tools: [TOOL] });
    expect(supportsTools).toBe(true);
    expect(server.requests[0]!.body["tools"]).toEqual([{ name: "submit_plan", description: "Submit the plan", input_schema: TOOL.inputSchema }]);
    expect(reply).toMatchObject({ content: "THOUGHT: the plan.", stopReason: "tool_use", toolCalls: [{ id: "toolu_01", name: "submit_plan", input: { plan: PLAN } }] });
  });

  it("sends a tool call as a tool_use block and its answer as a tool_result block before the user's text", async () => {
    const server = await serve([anthropicMessage({ content: [{ type: "text", text: "ok" }], inputTokens: 1, outputTokens: 1 })]);
    const { reply } = await complete({ provider: "anthropic", model: "claude-sonnet-4-5", baseUrl: server.origin, maxRetries: 0 }, env, ANSWERED, {});
    expect(reply.toolCalls).toBeUndefined();
    expect(server.requests[0]!.body["tools"]).toBeUndefined();
    expect(server.requests[0]!.body["messages"]).toEqual([
      { role: "user", content: "fix f" },
      { role: "assistant", content: [{ type: "text", text: "THOUGHT: the plan." }, { type: "tool_use", id: "call_1", name: "submit_plan", input: { plan: PLAN } }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "the plan is invalid: plan[0].op", is_error: true }, { type: "text", text: "Now review the diff." }] },
    ]);
  });
});

describe("tool calls, OpenAI (openai, Chat Completions)", () => {
  const env = { OPENAI_API_KEY: "sk-test" };

  it("offers the tools as functions and reads tool_calls, parsing their arguments", async () => {
    const server = await serve([openaiCompletion({ content: null, toolCalls: [{ id: "call_9", name: "submit_plan", arguments: JSON.stringify({ plan: PLAN }) }], promptTokens: 10, completionTokens: 5 })]);
    const { supportsTools, reply } = await complete({ provider: "openai", model: "gpt-4.1", baseUrl: server.origin, maxRetries: 0 }, env, [{ role: "user", content: "fix f" }], { tools: [TOOL] });
    expect(supportsTools).toBe(true);
    expect(server.requests[0]!.body["tools"]).toEqual([{ type: "function", function: { name: "submit_plan", description: "Submit the plan", parameters: TOOL.inputSchema } }]);
    expect(reply).toMatchObject({ content: "", stopReason: "tool_calls", toolCalls: [{ id: "call_9", name: "submit_plan", input: { plan: PLAN } }] });
  });

  it("keeps arguments that are not JSON as text, for the caller to refuse", async () => {
    const server = await serve([openaiCompletion({ content: null, toolCalls: [{ id: "call_9", name: "submit_plan", arguments: '{"plan": [' }], promptTokens: 1, completionTokens: 1 })]);
    const { reply } = await complete({ provider: "openai", model: "gpt-4.1", baseUrl: server.origin, maxRetries: 0 }, env, [{ role: "user", content: "fix f" }], { tools: [TOOL] });
    expect(reply.toolCalls).toEqual([{ id: "call_9", name: "submit_plan", input: '{"plan": [' }]);
  });

  it("sends a tool call on the assistant message and its answer as a tool message before the user's text", async () => {
    const server = await serve([openaiCompletion({ content: "ok", promptTokens: 1, completionTokens: 1 })]);
    await complete({ provider: "openai", model: "gpt-4.1", baseUrl: server.origin, maxRetries: 0 }, env, ANSWERED, {});
    expect(server.requests[0]!.body["messages"]).toEqual([
      { role: "user", content: "fix f" },
      { role: "assistant", content: "THOUGHT: the plan.", tool_calls: [{ id: "call_1", type: "function", function: { name: "submit_plan", arguments: JSON.stringify({ plan: PLAN }) } }] },
      { role: "tool", tool_call_id: "call_1", content: "the plan is invalid: plan[0].op" },
      { role: "user", content: "Now review the diff." },
    ]);
  });
});

describe("tool calls, ScriptedModel", () => {
  it("records the tools offered and answers scripted tool calls", async () => {
    const model = new ScriptedModel([{ content: "the plan", toolCalls: [{ id: "t1", name: "submit_plan", input: { plan: PLAN } }] }], true);
    const reply = await Effect.runPromise(model.complete([{ role: "user", content: "fix f" }], { tools: [TOOL] }));
    expect(model.supportsTools).toBe(true);
    expect(model.offeredTools).toEqual([[TOOL]]);
    expect(reply.toolCalls).toEqual([{ id: "t1", name: "submit_plan", input: { plan: PLAN } }]);
  });
});

/**
 * The billing stand-in, driven by the real SDK clients: what it bills (hand-computed from the same
 * tokenizer over the same blocks), what it refuses, and its record of prefix stability.
 */
import Anthropic from "@anthropic-ai/sdk";
import * as Effect from "effect/Effect";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type ChatMessage, type LanguageModelShape, ScriptedModel } from "../model/model.js";
import {
  anthropicBlocks,
  anthropicUsage,
  countTokens,
  type ModelServer,
  openaiCachedTokens,
  type PrefixCache,
  startModelServer,
} from "./billing-server.js";

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function serve(model: LanguageModelShape, wire: "anthropic" | "openai") {
  const server = await startModelServer(model, { wire });
  servers.push(server);
  return server;
}
const claude = (server: ModelServer) => new Anthropic({ apiKey: "test", baseURL: server.origin, maxRetries: 0 });
const gpt = (server: ModelServer) => new OpenAI({ apiKey: "test", baseURL: `${server.origin}/v1`, maxRetries: 0 });
const BP = { type: "ephemeral" } as const;
/** A text of about `n` tokens (o200k: " word" is one token). */
const long = (n: number, word = "alpha") => Array.from({ length: n }, () => word).join(" ");

describe("the Anthropic stand-in (@anthropic-ai/sdk)", () => {
  it("reads a repeated prefix up to a breakpoint from the cache, and writes the new part", async () => {
    const server = await serve(new ScriptedModel(["one", "two"]), "anthropic");
    const system = [{ type: "text" as const, text: long(2000), cache_control: BP }];
    const first = await claude(server).messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      system,
      messages: [{ role: "user", content: [{ type: "text", text: "hello", cache_control: BP }] }],
    });
    const blocks1 = anthropicBlocks(server.requests[0]!.body);
    const all1 = blocks1.reduce((n, b) => n + countTokens(b.text), 0);
    // Nothing was cached before: the whole prefix up to the last breakpoint is written.
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.cache_creation_input_tokens).toBe(all1);
    expect(first.usage.input_tokens).toBe(0);
    expect(first.content).toEqual([{ type: "text", text: "one", citations: null }]);

    const second = await claude(server).messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      system,
      messages: [
        { role: "user", content: [{ type: "text", text: "hello" }] },
        { role: "assistant", content: [{ type: "text", text: "one" }] },
        { role: "user", content: [{ type: "text", text: "go on", cache_control: BP }] },
      ],
    });
    const blocks2 = anthropicBlocks(server.requests[1]!.body);
    const all2 = blocks2.reduce((n, b) => n + countTokens(b.text), 0);
    // The breakpoint moved: the first request's prefix (system + "hello") is read, the rest written.
    expect(second.usage.cache_read_input_tokens).toBe(all1);
    expect(second.usage.cache_creation_input_tokens).toBe(all2 - all1);
    expect(server.stats()).toMatchObject({ requests: 2, prefixStable: 1 });
  });

  it("bills no cache without breakpoints, and refuses a fifth breakpoint as the API does", async () => {
    const server = await serve(new ScriptedModel(["a", "b", "c"]), "anthropic");
    const plain = await claude(server).messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 10,
      system: long(3000),
      messages: [{ role: "user", content: "hi" }],
    });
    expect(plain.usage.cache_read_input_tokens).toBe(0);
    expect(plain.usage.cache_creation_input_tokens).toBe(0);
    expect(plain.usage.input_tokens).toBeGreaterThan(3000);
    const five = Array.from({ length: 5 }, (_, i) => ({ type: "text" as const, text: `part ${i}`, cache_control: BP }));
    const refused = await claude(server)
      .messages.create({ model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: five }] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError);
    expect((refused as Error).message).toContain("A maximum of 4 blocks with cache_control");
  });

  it("neither writes nor reads a prefix under 1024 tokens", () => {
    const cache: PrefixCache = new Map();
    const blocks = [{ text: long(500), breakpoint: true }];
    expect(anthropicUsage(cache, blocks)).toEqual({ input: countTokens(blocks[0]!.text), read: 0, write: 0 });
    expect(anthropicUsage(cache, blocks)).toMatchObject({ read: 0, write: 0 });
  });

  it("looks back 20 blocks from a breakpoint for an earlier prefix, not further", () => {
    const base = [{ text: long(1500), breakpoint: true }];
    const more = (n: number) => Array.from({ length: n }, (_, i) => ({ text: `block ${i}`, breakpoint: i === n - 1 }));
    const strip = (b: { text: string; breakpoint: boolean }[]) => b.map((x) => ({ ...x, breakpoint: false }));
    const near: PrefixCache = new Map();
    anthropicUsage(near, base);
    const baseTokens = countTokens(base[0]!.text);
    expect(anthropicUsage(near, [...strip(base), ...more(3)])).toMatchObject({ read: baseTokens });
    const far: PrefixCache = new Map();
    anthropicUsage(far, base);
    expect(anthropicUsage(far, [...strip(base), ...more(25)])).toMatchObject({ read: 0 });
  });

  it("hands the model the conversation, thinking blocks included, and answers its text, tool calls and thinking", async () => {
    const seen: ChatMessage[][] = [];
    const model: LanguageModelShape = {
      name: "test:model",
      complete: (messages) => {
        seen.push([...messages]);
        return Effect.succeed({
          content: "calling",
          model: "stand-in",
          usage: { inputTokens: 0, outputTokens: 0 },
          costUsd: 0,
          reasoning: [{ type: "thinking", thinking: "why", signature: "sig" }],
          toolCalls: [{ id: "toolu_1", name: "submit_plan", input: { plan: [] } }],
        });
      },
    };
    const server = await serve(model, "anthropic");
    const reply = await claude(server).messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      tools: [{ name: "submit_plan", description: "d", input_schema: { type: "object" } }],
      messages: [
        { role: "user", content: "fix it" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "earlier", signature: "s0" },
            { type: "tool_use", id: "toolu_0", name: "submit_plan", input: {} },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0", content: "received" }] },
      ],
    });
    expect(reply.stop_reason).toBe("tool_use");
    expect(reply.content.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(seen[0]![1]).toMatchObject({
      role: "assistant",
      reasoning: [{ type: "thinking", thinking: "earlier", signature: "s0" }],
      toolCalls: [{ id: "toolu_0", name: "submit_plan" }],
    });
    expect(seen[0]![2]).toMatchObject({ role: "user", toolResults: [{ id: "toolu_0", content: "received" }] });
  });

  it("records a conversation that rewrites an earlier message as unstable, at that message", async () => {
    const server = await serve(new ScriptedModel(["a", "b", "c"]), "anthropic");
    const ask = (messages: Anthropic.MessageParam[]) =>
      claude(server).messages.create({ model: "claude-sonnet-4-5", max_tokens: 10, messages });
    await ask([{ role: "user", content: "first output, whole" }]);
    await ask([
      { role: "user", content: "first output, whole" },
      { role: "assistant", content: "a" },
      { role: "user", content: "second" },
    ]);
    await ask([
      { role: "user", content: "first output, cut" },
      { role: "assistant", content: "a" },
      { role: "user", content: "second" },
      { role: "assistant", content: "b" },
      { role: "user", content: "third" },
    ]);
    expect(server.stats()).toMatchObject({
      requests: 3,
      prefixStable: 1,
      firstUnstable: { index: 2, where: "message 0" },
    });
  });

  it("answers a model's failure with a 500 that the SDK raises with its message", async () => {
    const server = await serve(new ScriptedModel([]), "anthropic");
    const error = await claude(server)
      .messages.create({ model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as Error).message).toContain("the model behind the stand-in failed");
  });
});

describe("the OpenAI stand-in (openai)", () => {
  it("reports the shared token prefix of a later prompt as cached tokens, 1024 + a multiple of 128", async () => {
    const server = await serve(new ScriptedModel(["one", "two", "three"]), "openai");
    const system = { role: "system" as const, content: long(3000) };
    const first = await gpt(server).chat.completions.create({
      model: "gpt-4.1",
      messages: [system, { role: "user", content: "a" }],
      prompt_cache_key: "run-1",
    });
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    const second = await gpt(server).chat.completions.create({
      model: "gpt-4.1",
      messages: [
        system,
        { role: "user", content: "a" },
        { role: "assistant", content: "one" },
        { role: "user", content: "b" },
      ],
      prompt_cache_key: "run-1",
    });
    const cached = second.usage!.prompt_tokens_details!.cached_tokens!;
    expect(cached).toBeGreaterThanOrEqual(3000 - 128);
    expect((cached - 1024) % 128).toBe(0);
    expect(cached).toBeLessThanOrEqual(first.usage!.prompt_tokens);
    // Another key shares nothing.
    const other = await gpt(server).chat.completions.create({
      model: "gpt-4.1",
      messages: [system, { role: "user", content: "a" }],
      prompt_cache_key: "run-2",
    });
    expect(other.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(second.choices[0]!.message.content).toBe("two");
  });

  it("rounds a shared prefix down to 1024 + 128k, and shares nothing under 1024", () => {
    const a = Array.from({ length: 2000 }, (_, i) => i);
    expect(openaiCachedTokens([a], [...a.slice(0, 1500), -1])).toBe(1024 + 3 * 128);
    expect(openaiCachedTokens([a], [...a.slice(0, 1000), -1])).toBe(0);
    expect(openaiCachedTokens([], a)).toBe(0);
  });

  it("gives tool results to the model on the user turn, and the model's tool calls back as tool_calls", async () => {
    const seen: ChatMessage[][] = [];
    const model = new ScriptedModel([
      { content: "", toolCalls: [{ id: "call_2", name: "submit_plan", input: { plan: [1] } }] },
    ]);
    const spy: LanguageModelShape = {
      name: model.name,
      complete: (messages, options) => {
        seen.push([...messages]);
        return model.complete(messages, options);
      },
    };
    const server = await serve(spy, "openai");
    const reply = await gpt(server).chat.completions.create({
      model: "gpt-4.1",
      messages: [
        { role: "user", content: "fix" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "submit_plan", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "received" },
        { role: "user", content: "go" },
      ],
    });
    expect(seen[0]![2]).toEqual({ role: "user", content: "go", toolResults: [{ id: "call_1", content: "received" }] });
    expect(reply.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      id: "call_2",
      function: { name: "submit_plan", arguments: '{"plan":[1]}' },
    });
    expect(reply.choices[0]!.finish_reason).toBe("tool_calls");
  });
});

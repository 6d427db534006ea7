/**
 * The billing stand-in, through the real SDK clients: what it bills (counted with the same tokenizer over the
 * same blocks, or by construction), what the SDKs make of its answers, what the model is handed, and the
 * prefix-stability record. The billing rules are also checked as pure functions, on hand-computed figures.
 */
import Anthropic from "@anthropic-ai/sdk";
import * as Effect from "effect/Effect";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type ChatMessage, type LanguageModelShape, type ModelReply, ScriptedModel } from "../model/model.js";
import {
  anthropicUsage,
  commonPrefix,
  countTokens,
  divergence,
  type ModelServer,
  type ModelServerOptions,
  openaiBlocks,
  openaiCachedTokens,
  type PrefixBlock,
  prefixIds,
  startModelServer,
  tokenize,
} from "./model-server.js";

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(model: LanguageModelShape, options: ModelServerOptions): Promise<ModelServer> {
  const server = await startModelServer(model, options);
  servers.push(server);
  return server;
}

const anthropicClient = (server: ModelServer, maxRetries = 0) =>
  new Anthropic({ apiKey: "test", baseURL: server.origin, maxRetries });
const openaiClient = (server: ModelServer, maxRetries = 0) =>
  new OpenAI({ apiKey: "test", baseURL: `${server.origin}/v1`, maxRetries });

/** A text of at least `tokens` o200k tokens (distinct per `seed`). */
function textOf(tokens: number, seed = "note"): string {
  const words: string[] = [];
  let text = "";
  for (let i = 0; countTokens(text) < tokens; i += 50) {
    for (let j = i; j < i + 50; j++) words.push(`${seed}${j}`);
    text = words.join(" ");
  }
  return text;
}

const EPHEMERAL = { type: "ephemeral" } as const;
const MODEL = "claude-sonnet-4-6";
const text = (t: string, breakpoint = false): Anthropic.TextBlockParam => ({
  type: "text",
  text: t,
  ...(breakpoint ? { cache_control: EPHEMERAL } : {}),
});

describe("Anthropic prompt caching, through the SDK", () => {
  const notes = textOf(1500);
  const system = [text(notes, true)];

  it("a second call with the same prefix up to a breakpoint reads that prefix and writes the new part", async () => {
    const server = await serve(new ScriptedModel(["first answer", "second answer"]), { wire: "anthropic" });
    const client = anthropicClient(server);
    const q1 = "What do the notes say?";
    const q2 = "And the last one?";
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      system,
      messages: [{ role: "user", content: [text(q1)] }],
    });
    expect(first.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: countTokens(notes),
      cache_creation: { ephemeral_5m_input_tokens: countTokens(notes), ephemeral_1h_input_tokens: 0 },
      input_tokens: countTokens(q1),
      output_tokens: countTokens("first answer"),
    });
    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      system,
      messages: [
        { role: "user", content: [text(q1)] },
        { role: "assistant", content: [text("first answer")] },
        { role: "user", content: [text(q2, true)] },
      ],
    });
    const added = countTokens(q1) + countTokens("first answer") + countTokens(q2);
    expect(second.usage).toMatchObject({
      cache_read_input_tokens: countTokens(notes),
      cache_creation_input_tokens: added,
      input_tokens: 0,
    });
    expect(server.requests[1]?.usage).toEqual({
      inputTokens: countTokens(notes) + added,
      outputTokens: countTokens("second answer"),
      cacheReadTokens: countTokens(notes),
      cacheWriteTokens: added,
    });
  });

  it("a call without any cache_control reads and writes nothing, however often it is sent", async () => {
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic" });
    const client = anthropicClient(server);
    const request = {
      model: MODEL,
      max_tokens: 100,
      system: notes,
      messages: [{ role: "user" as const, content: "Hi" }],
    };
    for (const _ of [1, 2]) {
      const message = await client.messages.create(request);
      expect(message.usage).toMatchObject({
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        input_tokens: countTokens(notes) + countTokens("Hi"),
      });
    }
  });

  it("refuses 5 breakpoints with the API's 400 invalid_request_error, without asking the model", async () => {
    const model = new ScriptedModel(["never"]);
    const server = await serve(model, { wire: "anthropic" });
    const error = await anthropicClient(server)
      .messages.create({
        model: MODEL,
        max_tokens: 100,
        system: [text("a", true), text("b", true)],
        messages: [{ role: "user", content: [text("c", true), text("d", true), text("e", true)] }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as { type: string | null }).type).toBe("invalid_request_error");
    expect((error as Error).message).toContain("A maximum of 4 blocks with cache_control may be provided. Found 5.");
    expect(model.requests).toHaveLength(0);
    expect(server.requests).toHaveLength(0);
  });

  it("does not cache a prefix under 1024 tokens (minCacheableTokens lowers the bar)", async () => {
    const short = textOf(600);
    const request = {
      model: MODEL,
      max_tokens: 100,
      system: [text(short, true)],
      messages: [{ role: "user" as const, content: "Hi" }],
    };
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic" });
    for (const _ of [1, 2]) {
      const { usage } = await anthropicClient(server).messages.create(request);
      expect(usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      expect(usage.input_tokens).toBe(countTokens(short) + countTokens("Hi"));
    }
    const lowered = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic", minCacheableTokens: 512 });
    await anthropicClient(lowered).messages.create(request);
    const { usage } = await anthropicClient(lowered).messages.create(request);
    expect(usage.cache_read_input_tokens).toBe(countTokens(short));
  });

  it("reports writes at a 1-hour breakpoint under ephemeral_1h_input_tokens", async () => {
    const server = await serve(new ScriptedModel(["a"]), { wire: "anthropic" });
    const { usage } = await anthropicClient(server).messages.create({
      model: MODEL,
      max_tokens: 100,
      system: [{ type: "text", text: notes, cache_control: { type: "ephemeral", ttl: "1h" } }],
      messages: [{ role: "user", content: "Hi" }],
    });
    expect(usage.cache_creation).toEqual({
      ephemeral_1h_input_tokens: countTokens(notes),
      ephemeral_5m_input_tokens: 0,
    });
  });

  it("a top-level cache_control caches up to the last block", async () => {
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic" });
    const request = {
      model: MODEL,
      max_tokens: 100,
      cache_control: EPHEMERAL,
      system: notes,
      messages: [{ role: "user" as const, content: "Hi" }],
    };
    const all = countTokens(notes) + countTokens("Hi");
    expect((await anthropicClient(server).messages.create(request)).usage.cache_creation_input_tokens).toBe(all);
    expect((await anthropicClient(server).messages.create(request)).usage).toMatchObject({
      cache_read_input_tokens: all,
      cache_creation_input_tokens: 0,
      input_tokens: 0,
    });
  });

  it("changing the thinking settings keeps the system prompt's cache but not the messages'", async () => {
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic" });
    const request = {
      model: MODEL,
      max_tokens: 2048,
      system,
      messages: [{ role: "user" as const, content: [text("Hi", true)] }],
    };
    await anthropicClient(server).messages.create(request);
    const { usage } = await anthropicClient(server).messages.create({
      ...request,
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    expect(usage).toMatchObject({
      cache_read_input_tokens: countTokens(notes),
      cache_creation_input_tokens: countTokens("Hi"),
      input_tokens: 0,
    });
  });

  it("moving a breakpoint does not change a block: cache_control is not content", async () => {
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic" });
    const client = anthropicClient(server);
    await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      system: [text(notes)],
      messages: [{ role: "user", content: [text("Hi", true)] }],
    });
    const { usage } = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      system: [text(notes)],
      messages: [
        { role: "user", content: [text("Hi")] },
        { role: "assistant", content: [text("a")] },
        { role: "user", content: [text("More", true)] },
      ],
    });
    expect(usage.cache_read_input_tokens).toBe(countTokens(notes) + countTokens("Hi"));
    expect(server.stats().prefixStable).toBe(1);
  });
});

describe("Anthropic's lookback, through the SDK", () => {
  const notes = textOf(1500);
  const blocks = Array.from({ length: 26 }, (_, i) => `Observation ${i}: the file has ${i} lines.`);
  const ask = (server: ModelServer, last: number) =>
    anthropicClient(server).messages.create({
      model: MODEL,
      max_tokens: 100,
      system: notes,
      messages: [{ role: "user", content: blocks.slice(0, last + 1).map((b, i) => text(b, i === last)) }],
    });
  const upTo = (last: number) => countTokens(notes) + blocks.slice(0, last + 1).reduce((n, b) => n + countTokens(b), 0);

  it("a breakpoint 3 blocks after the previous one still reads the earlier prefix", async () => {
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic" });
    expect((await ask(server, 0)).usage.cache_creation_input_tokens).toBe(upTo(0));
    const { usage } = await ask(server, 3);
    expect(usage).toMatchObject({ cache_read_input_tokens: upTo(0), cache_creation_input_tokens: upTo(3) - upTo(0) });
  });

  it("a breakpoint 25 blocks after the previous one does not: the whole prefix is written again", async () => {
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "anthropic" });
    await ask(server, 0);
    const { usage } = await ask(server, 25);
    expect(usage).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: upTo(25) });
  });
});

describe("anthropicUsage (pure), on hand-computed figures", () => {
  const block = (key: string, tokens: number, breakpoint?: "5m" | "1h"): PrefixBlock => ({
    where: "system",
    key,
    tokens,
    ...(breakpoint ? { breakpoint } : {}),
  });
  const cacheOf = (...writes: (readonly string[])[]) => new Set(writes.flat());

  it("writes up to the last breakpoint, each stretch under the TTL of the breakpoint ending it", () => {
    const bill = anthropicUsage(new Set(), [
      block("A", 600),
      block("B", 600, "1h"),
      block("C", 100),
      block("D", 50, "5m"),
      block("E", 7),
    ]);
    expect(bill).toMatchObject({
      inputTokens: 7,
      cacheReadTokens: 0,
      cacheWrite1hTokens: 1200,
      cacheWrite5mTokens: 150,
    });
    const ids = prefixIds([block("A", 0), block("B", 0), block("C", 0), block("D", 0)]);
    expect(bill.writes).toEqual([ids[1], ids[3]]);
  });

  it("reads the longest stored prefix within the lookback and writes only what follows it", () => {
    const first = [block("A", 600), block("B", 600, "5m"), block("C", 100), block("D", 50, "5m")];
    const cache = cacheOf(anthropicUsage(new Set(), first).writes);
    const second = [block("A", 600), block("B", 600, "5m"), block("C", 100), block("D", 50), block("E", 30, "5m")];
    expect(anthropicUsage(cache, second)).toMatchObject({
      inputTokens: 0,
      cacheReadTokens: 1350,
      cacheWrite5mTokens: 30,
    });
    // A changed block after B: only B's prefix is still there.
    const changed = [block("A", 600), block("B", 600), block("C'", 100), block("D", 50, "5m")];
    expect(anthropicUsage(cache, changed)).toMatchObject({ cacheReadTokens: 1200, cacheWrite5mTokens: 150 });
  });

  it("looks back exactly 20 blocks from a breakpoint", () => {
    const cache = cacheOf(anthropicUsage(new Set(), [block("X", 2000, "5m")]).writes);
    const after = (n: number) => [
      block("X", 2000),
      ...Array.from({ length: n }, (_, i) => block(`b${i}`, 1, i === n - 1 ? "5m" : undefined)),
    ];
    expect(anthropicUsage(cache, after(20))).toMatchObject({ cacheReadTokens: 2000, cacheWrite5mTokens: 20 });
    expect(anthropicUsage(cache, after(21))).toMatchObject({ cacheReadTokens: 0, cacheWrite5mTokens: 2021 });
  });

  it("neither writes nor reads a prefix under the minimum", () => {
    expect(anthropicUsage(new Set(), [block("A", 1023, "5m")])).toEqual({
      inputTokens: 1023,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      writes: [],
    });
    const cache = cacheOf(anthropicUsage(new Set(), [block("A", 1023, "5m")], 1000).writes);
    expect(anthropicUsage(cache, [block("A", 1023, "5m")], 1024).cacheReadTokens).toBe(0);
  });
});

describe("OpenAI automatic prompt caching, through the SDK", () => {
  const notes = textOf(3000);
  const turns = (key: string | undefined, n: 1 | 2): OpenAI.ChatCompletionCreateParamsNonStreaming => ({
    model: "gpt-4.1",
    ...(key === undefined ? {} : { prompt_cache_key: key }),
    messages: [
      { role: "system", content: notes },
      { role: "user", content: "First question?" },
      ...(n === 2
        ? [
            { role: "assistant" as const, content: "First answer." },
            { role: "user" as const, content: "Second question?" },
          ]
        : []),
    ],
  });
  const promptOf = (server: ModelServer, i: number) =>
    openaiBlocks(server.requests[i]!.body as Parameters<typeof openaiBlocks>[0]).flatMap((b) => tokenize(b.key));

  it("a second request sharing a 3,000-token prefix reads 1024 + 128·k tokens, no more than the shared prefix", async () => {
    const server = await serve(new ScriptedModel(["First answer.", "Second answer."]), { wire: "openai" });
    const client = openaiClient(server);
    const first = await client.chat.completions.create(turns("run-1", 1));
    expect(first.usage?.prompt_tokens_details?.cached_tokens).toBe(0);
    expect(first.usage?.prompt_tokens).toBe(promptOf(server, 0).length);
    const second = await client.chat.completions.create(turns("run-1", 2));
    const shared = commonPrefix(promptOf(server, 0), promptOf(server, 1));
    expect(shared).toBeGreaterThanOrEqual(countTokens(notes));
    const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? -1;
    expect(cached).toBe(1024 + Math.floor((shared - 1024) / 128) * 128);
    expect(cached).toBeLessThanOrEqual(shared);
    expect(second.usage?.prompt_tokens).toBe(promptOf(server, 1).length);
    expect(server.stats()).toMatchObject({ requests: 2, cacheReadTokens: cached, cacheWriteTokens: 0 });
  });

  it("requests of different prompt_cache_keys do not share a cache; those without a key share one", async () => {
    const server = await serve(new ScriptedModel(["a", "b", "c", "d", "e"]), { wire: "openai" });
    const client = openaiClient(server);
    const cachedOf = async (key: string | undefined, n: 1 | 2) =>
      (await client.chat.completions.create(turns(key, n))).usage?.prompt_tokens_details?.cached_tokens;
    await cachedOf("run-1", 1);
    expect(await cachedOf("run-2", 2)).toBe(0);
    expect(await cachedOf("run-1", 2)).toBeGreaterThanOrEqual(1024);
    expect(await cachedOf(undefined, 1)).toBe(0);
    expect(await cachedOf(undefined, 2)).toBeGreaterThanOrEqual(1024);
  });

  it("openaiCachedTokens rounds the shared prefix down to 1024 + a multiple of 128, 0 under 1024", () => {
    const earlier = Array.from({ length: 4000 }, (_, i) => i);
    const sharing = (n: number) => [...earlier.slice(0, n), -1];
    expect([1023, 1024, 1151, 1152, 3000].map((n) => openaiCachedTokens([earlier], sharing(n)))).toEqual([
      0, 1024, 1024, 1152, 2944,
    ]);
    expect(openaiCachedTokens([sharing(1100), sharing(2000)], sharing(3000))).toBe(1920);
  });
});

/** A model answering with the given replies in turn, recording what it is handed. */
function recordingModel(replies: readonly Partial<ModelReply>[]) {
  const seen: { messages: readonly ChatMessage[]; tools: readonly string[] }[] = [];
  const model: LanguageModelShape = {
    name: "test:recording",
    complete: (messages, options) =>
      Effect.sync(() => {
        seen.push({ messages: messages.map((m) => ({ ...m })), tools: (options?.tools ?? []).map((t) => t.name) });
        const reply = replies[seen.length - 1] ?? {};
        return { content: "", model: "test", usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, ...reply };
      }),
  };
  return { model, seen };
}

describe("what the SDKs get and what the model is handed", () => {
  const readFile: Anthropic.Tool = {
    name: "read_file",
    description: "Reads a file",
    input_schema: { type: "object", properties: { path: { type: "string" } } },
  };
  const thinking = { type: "thinking", thinking: "The user wants a.txt read.", signature: "sig-1" };
  const redacted = { type: "redacted_thinking", data: "ENCRYPTED" };

  it("Anthropic: reasoning blocks first, then text, then tool uses, typed by the SDK; thinking sent back reaches the model", async () => {
    const { model, seen } = recordingModel([
      {
        content: "Let me look.",
        reasoning: [thinking, redacted],
        toolCalls: [{ id: "toolu_01", name: "read_file", input: { path: "a.txt" } }],
        stopReason: "tool_use",
      },
      { content: "It says hello.", stopReason: "end_turn" },
    ]);
    const server = await serve(model, { wire: "anthropic" });
    const client = anthropicClient(server);
    const ask: Anthropic.MessageParam = { role: "user", content: "Read a.txt" };
    const first = await client.messages.create({ model: MODEL, max_tokens: 100, tools: [readFile], messages: [ask] });
    expect(first.content).toEqual([
      thinking,
      redacted,
      { type: "text", text: "Let me look.", citations: null },
      { type: "tool_use", id: "toolu_01", name: "read_file", input: { path: "a.txt" }, caller: { type: "direct" } },
    ]);
    expect(first.stop_reason).toBe("tool_use");
    expect(first.model).toBe(MODEL);
    const reasoningTokens = countTokens(thinking.thinking) + countTokens(redacted.data);
    expect(first.usage.output_tokens).toBe(
      countTokens("Let me look.") + countTokens("read_file") + countTokens('{"path":"a.txt"}') + reasoningTokens,
    );
    expect(seen[0]).toEqual({ messages: [{ role: "user", content: "Read a.txt" }], tools: ["read_file"] });

    const sentBack = first.content.map(
      (b): Anthropic.ContentBlockParam =>
        b.type === "tool_use"
          ? { type: "tool_use", id: b.id, name: b.name, input: b.input }
          : (b as Anthropic.ContentBlockParam),
    );
    const second = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      tools: [readFile],
      messages: [
        ask,
        { role: "assistant", content: sentBack },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "hello", cache_control: EPHEMERAL }],
        },
      ],
    });
    expect(second.content).toEqual([{ type: "text", text: "It says hello.", citations: null }]);
    expect(second.stop_reason).toBe("end_turn");
    expect(seen[1]?.messages).toEqual([
      { role: "user", content: "Read a.txt" },
      {
        role: "assistant",
        content: "Let me look.",
        reasoning: [thinking, redacted],
        toolCalls: [{ id: "toolu_01", name: "read_file", input: { path: "a.txt" } }],
      },
      { role: "user", content: "", toolResults: [{ id: "toolu_01", content: "hello" }] },
    ]);
    expect(server.stats().prefixStable).toBe(1);
  });

  it("OpenAI: text and function calls, typed by the SDK; tool messages reach the model as tool results", async () => {
    const model = new ScriptedModel(
      [{ content: "", toolCalls: [{ id: "call_1", name: "read_file", input: { path: "a.txt" } }] }, "It says hello."],
      true,
    );
    const server = await serve(model, { wire: "openai" });
    const client = openaiClient(server);
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: "function",
        function: { name: "read_file", description: "Reads a file", parameters: readFile.input_schema },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Read a.txt" },
    ];
    const first = await client.chat.completions.create({ model: "gpt-4.1", tools, messages });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls).toEqual([
      { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
    ]);
    expect(model.offeredTools[0]).toEqual([
      { name: "read_file", description: "Reads a file", inputSchema: readFile.input_schema },
    ]);
    const second = await client.chat.completions.create({
      model: "gpt-4.1",
      tools,
      messages: [...messages, choice.message, { role: "tool", tool_call_id: "call_1", content: "hello" }],
    });
    expect(second.choices[0]?.message.content).toBe("It says hello.");
    expect(second.choices[0]?.finish_reason).toBe("stop");
    expect(model.requests[1]).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Read a.txt" },
      { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "read_file", input: { path: "a.txt" } }] },
      { role: "user", content: "", toolResults: [{ id: "call_1", content: "hello" }] },
    ]);
    expect(server.stats().prefixStable).toBe(1);
  });
});

describe("prefix stability", () => {
  const conversation = (assistant: string, turns: number): Anthropic.MessageParam[] =>
    Array.from(
      { length: turns },
      (_, i): Anthropic.MessageParam =>
        i % 2 === 0
          ? { role: "user", content: [text(`Question ${i}`, i === turns - 1)] }
          : { role: "assistant", content: [text(i === 1 ? assistant : `Answer ${i}`)] },
    );
  const send = (server: ModelServer, messages: Anthropic.MessageParam[]) =>
    anthropicClient(server).messages.create({
      model: MODEL,
      max_tokens: 100,
      system: [text("Be brief.", true)],
      messages,
    });

  it("a conversation that appends is stable, breakpoints moving along", async () => {
    const server = await serve(new ScriptedModel(["a", "b", "c"]), { wire: "anthropic" });
    for (const turns of [1, 3, 5]) await send(server, conversation("Answer 1", turns));
    expect(server.stats()).toMatchObject({ requests: 3, prefixStable: 2 });
    expect(server.stats().firstUnstable).toBeUndefined();
  });

  it("a conversation that rewrites an earlier message is unstable at that message", async () => {
    const server = await serve(new ScriptedModel(["a", "b", "c", "d"]), { wire: "anthropic" });
    await send(server, conversation("Answer 1", 1));
    await send(server, conversation("Answer 1", 3));
    await send(server, conversation("Answer 1, shortened", 5));
    await send(server, conversation("Answer 1, shortened", 7));
    expect(server.stats()).toMatchObject({
      requests: 4,
      prefixStable: 2,
      firstUnstable: { index: 2, where: "message 1" },
    });
  });

  it("OpenAI: a tool added in front of unchanged messages is a change of the tools", async () => {
    const server = await serve(new ScriptedModel(["a", "b"]), { wire: "openai" });
    const client = openaiClient(server);
    const tool = (name: string): OpenAI.ChatCompletionTool => ({
      type: "function",
      function: { name, parameters: {} },
    });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Hi" }];
    await client.chat.completions.create({ model: "gpt-4.1", tools: [tool("a")], messages });
    await client.chat.completions.create({ model: "gpt-4.1", tools: [tool("a"), tool("b")], messages });
    expect(server.stats()).toMatchObject({ prefixStable: 0, firstUnstable: { index: 1, where: "tools" } });
  });

  it("divergence places a difference in the earlier of the two places, and a shorter request where it stops", () => {
    const b = (where: PrefixBlock["where"], key: string): PrefixBlock => ({ where, key, tokens: 1 });
    const previous = [b("tools", "t"), b("system", "s"), b("message 0", "u")];
    expect(divergence(previous, [...previous, b("message 0", "u2"), b("message 1", "a")])).toBeNull();
    expect(divergence(previous, [b("tools", "t"), b("tools", "t2"), b("system", "s"), b("message 0", "u")])).toBe(
      "tools",
    );
    expect(divergence(previous, [b("tools", "t"), b("system", "s2"), b("message 0", "u")])).toBe("system");
    expect(divergence(previous, previous.slice(0, 2))).toBe("message 0");
  });
});

describe("errors", () => {
  it("a failing model gives a 500 the Anthropic SDK turns into its APIError, with the failure's message, asked once", async () => {
    const model = new ScriptedModel([]);
    const server = await serve(model, { wire: "anthropic" });
    const error = await anthropicClient(server, 2)
      .messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as { status: number }).status).toBe(500);
    expect((error as Error).message).toContain("the scripted model has only 0 replies");
    expect(model.requests).toHaveLength(1);
    expect(server.stats().requests).toBe(0);
  });

  it("a failing model gives a 500 the OpenAI SDK turns into its APIError, with the failure's message", async () => {
    const model: LanguageModelShape = {
      name: "test:dying",
      complete: () => Effect.die(new Error("the replay ran out")),
    };
    const server = await serve(model, { wire: "openai" });
    const error = await openaiClient(server, 2)
      .chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "Hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as Error).message).toContain("the replay ran out");
  });

  it("a malformed body gets a 400 in the provider's error format", async () => {
    const anthropic = await serve(new ScriptedModel(["a"]), { wire: "anthropic" });
    const notJson = await fetch(`${anthropic.origin}/v1/messages`, { method: "POST", body: "{not json" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const error = await anthropicClient(anthropic)
      .messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [{ role: "user", content: [{ type: "text" }] }],
      } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain("messages.0.content");

    const openai = await serve(new ScriptedModel(["a"]), { wire: "openai" });
    const bad = await fetch(`${openai.origin}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "gpt-4.1", messages: [{ role: "wizard", content: "Hi" }] }),
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { type: "invalid_request_error", param: null, code: null } });
  });
});

describe("concurrency", () => {
  it("concurrent requests are each billed once against a consistent cache", async () => {
    const notes = textOf(1500);
    let calls = 0;
    const model: LanguageModelShape = {
      name: "test:slow",
      complete: () => {
        const delay = [30, 5, 20, 0, 10, 25, 15, 1][calls++ % 8]!;
        return Effect.as(Effect.sleep(delay), {
          content: "ok",
          model: "test",
          usage: { inputTokens: 0, outputTokens: 0 },
          costUsd: 0,
        });
      },
    };
    const server = await serve(model, { wire: "anthropic" });
    const client = anthropicClient(server);
    const questions = Array.from({ length: 8 }, (_, i) => `Question ${i}?`);
    const usages = await Promise.all(
      questions.map(async (q) => {
        const message = await client.messages.create({
          model: MODEL,
          max_tokens: 100,
          system: [text(notes, true)],
          messages: [{ role: "user", content: q }],
        });
        return { q, usage: message.usage };
      }),
    );
    const s = countTokens(notes);
    expect(usages.filter(({ usage }) => usage.cache_creation_input_tokens === s)).toHaveLength(1);
    expect(usages.filter(({ usage }) => usage.cache_read_input_tokens === s)).toHaveLength(7);
    for (const { q, usage } of usages) expect(usage.input_tokens).toBe(countTokens(q));
    expect(server.stats()).toMatchObject({
      requests: 8,
      cacheReadTokens: 7 * s,
      cacheWriteTokens: s,
      inputTokens: 8 * s + questions.reduce((n, q) => n + countTokens(q), 0),
    });
  });
});

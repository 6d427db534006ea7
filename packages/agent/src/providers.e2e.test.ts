/**
 * The agent end to end through the providers' real SDKs: `modelLayer` (what `graphplan run` and
 * `bench agent` use) builds the live Anthropic or OpenAI model, pointed at a local HTTP server that
 * speaks the provider's wire format and answers with scripted replies.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox, Workspace } from "@graphplan/runtime";
import { runAgent } from "./agent.js";
import { SUBMIT, bash, configWith, json, read, shopRepo } from "./fixtures/repo.js";
import { modelLayer } from "./layers.js";
import { TrajectorySchema } from "./trajectory.js";

const TASK = "Cart.total() ignores the quantity of each item. Fix it.";
const PLAN = [
  {
    op: "replace_node",
    params: {
      locator: { kind: "method", name: "total", file: "shop/cart.py", parent: { kind: "class", name: "Cart" } },
      replacement: "def total(self):\n    return sum(price * quantity for _name, price, quantity in self.items)",
    },
  },
];
const REPLIES = [bash("cat shop/cart.py"), 'READY_TO_PLAN: ["shop/cart.py"]', json(PLAN), SUBMIT];
const KEY_ENV = "GRAPHPLAN_E2E_TEST_KEY";

interface Received {
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: Record<string, unknown>;
}

/** A reply of the server: text, or a call of the plan tool with this input. */
type Reply = string | { readonly submitPlan: unknown };

/** The provider's answer body for one reply. */
function answerBody(provider: "anthropic" | "openai", reply: Reply, n: number): Record<string, unknown> {
  const usage = { input_tokens: 1000, output_tokens: 100 };
  if (typeof reply !== "string") {
    return provider === "anthropic"
      ? {
          id: `msg_${n}`,
          type: "message",
          role: "assistant",
          model: "claude-e2e",
          content: [
            { type: "text", text: "THOUGHT: the plan." },
            { type: "tool_use", id: "toolu_1", name: "submit_plan", input: reply.submitPlan },
          ],
          stop_reason: "tool_use",
          stop_sequence: null,
          usage,
        }
      : {
          id: `chatcmpl-${n}`,
          object: "chat.completion",
          created: 0,
          model: "gpt-e2e",
          choices: [
            {
              index: 0,
              message: {
                role: "assistant",
                content: null,
                refusal: null,
                tool_calls: [
                  {
                    id: "call_1",
                    type: "function",
                    function: { name: "submit_plan", arguments: JSON.stringify(reply.submitPlan) },
                  },
                ],
              },
              finish_reason: "tool_calls",
            },
          ],
          usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
        };
  }
  return provider === "anthropic"
    ? {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model: "claude-e2e",
        content: [{ type: "text", text: reply }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage,
      }
    : {
        id: `chatcmpl-${n}`,
        object: "chat.completion",
        created: 0,
        model: "gpt-e2e",
        choices: [{ index: 0, message: { role: "assistant", content: reply, refusal: null }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
      };
}

/** A local server answering each request with the next reply, in `provider`'s wire format. */
async function providerServer(provider: "anthropic" | "openai", replies: readonly Reply[]) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => {
      received.push({
        path: request.url ?? "",
        headers: request.headers,
        body: JSON.parse(text) as Record<string, unknown>,
      });
      const body = answerBody(provider, replies[received.length - 1] ?? "no more replies", received.length);
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const servers: Server[] = [];
afterEach(async () => {
  delete process.env[KEY_ENV];
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe.each([
  { provider: "anthropic" as const, model: "claude-e2e", path: "/v1/messages", base: (url: string) => url },
  { provider: "openai" as const, model: "gpt-e2e", path: "/v1/chat/completions", base: (url: string) => `${url}/v1` },
])("the agent through the $provider SDK", ({ provider, model, path, base }) => {
  it("solves the task with the replies the server sends, and counts the provider's usage as cost", async () => {
    const server = await providerServer(provider, REPLIES);
    process.env[KEY_ENV] = "test-key-123";
    const repo = shopRepo();
    const config = await configWith({
      model: {
        provider,
        model,
        baseUrl: base(server.url),
        apiKeyEnv: KEY_ENV,
        maxRetries: 0,
        price: { inputPerMTok: 3, outputPerMTok: 15 },
      },
    });
    const layer = await Effect.runPromise(modelLayer({}, config));

    const program = runAgent({ task: TASK, config }).pipe(
      Effect.provide(Layer.mergeAll(layer, Sandbox.layerLocal({ cwd: repo }), Workspace.layer(repo))),
    );
    const trajectory = await Effect.runPromise(program);

    expect(trajectory.exitStatus).toBe("Submitted");
    expect(TrajectorySchema.parse(trajectory)).toEqual(trajectory);
    expect(read(repo, "shop/cart.py")).toContain(
      "return sum(price * quantity for _name, price, quantity in self.items)",
    );
    expect(trajectory.model).toBe(`${provider}:${model}`);
    // 4 calls of 1,000 input and 100 output tokens at $3 and $15 per million.
    expect(trajectory.totals.modelCalls).toBe(4);
    expect(trajectory.totals.costUsd).toBeCloseTo((4 * (1000 * 3 + 100 * 15)) / 1e6, 10);
    // Tokens in all and per phase: explore (cat, READY_TO_PLAN), plan, review.
    expect(trajectory.totals).toMatchObject({ inputTokens: 4000, outputTokens: 400, cacheReadTokens: 0 });
    expect(
      Object.fromEntries(Object.entries(trajectory.totals.byPhase ?? {}).map(([k, v]) => [k, v.modelCalls])),
    ).toEqual({ explore: 2, plan: 1, review: 1 });
    expect(trajectory.totals.byPhase?.plan?.costUsd).toBeCloseTo((1000 * 3 + 100 * 15) / 1e6, 10);

    // Caching on (the default): every request starts with the one before it, byte for byte once the moving
    // cache breakpoints are left out; nothing sent is ever rewritten.
    const unmarked = (r: Received) =>
      JSON.parse(JSON.stringify(r.body, (k, v) => (k === "cache_control" ? undefined : v))) as {
        messages: unknown[];
        system?: unknown;
        tools?: unknown;
      };
    for (let i = 1; i < server.received.length; i++) {
      const [before, after] = [unmarked(server.received[i - 1]!), unmarked(server.received[i]!)];
      expect(after.system).toEqual(before.system);
      expect(after.tools).toEqual(before.tools);
      expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    }
    if (provider === "anthropic") expect(JSON.stringify(server.received.at(-1)!.body)).toContain('"cache_control"');
    else {
      const keys = new Set(server.received.map((r) => r.body["prompt_cache_key"]));
      expect([...keys]).toEqual([expect.stringMatching(/^graphplan-[0-9a-f-]{36}$/)]);
    }

    // What the SDK sent: the provider's endpoint, the key, the model, and the conversation so far.
    expect(server.received.map((r) => r.path)).toEqual(Array(4).fill(path));
    const auth = `${server.received[0]!.headers["authorization"] ?? ""}${server.received[0]!.headers["x-api-key"] ?? ""}`;
    expect(auth).toContain("test-key-123");
    expect(server.received.every((r) => r.body.model === model)).toBe(true);
    const conversation = (r: Received) => JSON.stringify(r.body);
    expect(conversation(server.received[1]!)).toContain("def total(self):"); // the cat's output, observed
    expect(conversation(server.received[2]!)).toContain("FUNCTION: total"); // the graph view in the plan prompt
    expect(conversation(server.received[3]!)).toContain("+        return sum(price * quantity"); // the diff to review
  });

  it("takes the plan from a call of the submit_plan tool, offered on every request alike (the prompt cache keys on the tools), and answers the call", async () => {
    const server = await providerServer(provider, [
      bash("cat shop/cart.py"),
      'READY_TO_PLAN: ["shop/cart.py"]',
      { submitPlan: { plan: PLAN } },
      SUBMIT,
    ]);
    process.env[KEY_ENV] = "test-key-123";
    const repo = shopRepo();
    const config = await configWith({
      model: { provider, model, baseUrl: base(server.url), apiKeyEnv: KEY_ENV, maxRetries: 0 },
    });
    const layer = await Effect.runPromise(modelLayer({}, config));
    const trajectory = await Effect.runPromise(
      runAgent({ task: TASK, config }).pipe(
        Effect.provide(Layer.mergeAll(layer, Sandbox.layerLocal({ cwd: repo }), Workspace.layer(repo))),
      ),
    );

    expect(trajectory.exitStatus).toBe("Submitted");
    expect(read(repo, "shop/cart.py")).toContain(
      "return sum(price * quantity for _name, price, quantity in self.items)",
    );
    expect(trajectory.plans.map((p) => p.channel)).toEqual(["tool call"]);
    const tools = server.received.map((r) => r.body["tools"] as Record<string, any>[] | undefined);
    expect(tools.every((t) => JSON.stringify(t) === JSON.stringify(tools[0]))).toBe(true);
    expect(tools[0]).toHaveLength(1);
    const offered = provider === "anthropic" ? tools[2]![0]!["input_schema"] : tools[2]![0]!["function"]["parameters"];
    expect(provider === "anthropic" ? tools[2]![0]!["name"] : tools[2]![0]!["function"]["name"]).toBe("submit_plan");
    expect(offered).toMatchObject({
      type: "object",
      required: ["plan"],
      properties: { plan: { type: "array", items: { type: "object" } } },
    });
    // The plan prompt names the tool; the next request answers the call before the review prompt.
    expect(JSON.stringify(server.received[2]!.body)).toContain("a call to the submit_plan tool, or ");
    const messages = server.received[3]!.body["messages"] as Record<string, any>[];
    if (provider === "anthropic") {
      expect(messages.at(-2)).toMatchObject({
        role: "assistant",
        content: [{ type: "text" }, { type: "tool_use", id: "toolu_1", name: "submit_plan" }],
      });
      expect(messages.at(-1)!["content"][0]).toEqual({
        type: "tool_result",
        tool_use_id: "toolu_1",
        content: "plan received; it is verified next",
      });
    } else {
      expect(messages.at(-3)).toMatchObject({
        role: "assistant",
        tool_calls: [{ id: "call_1", function: { name: "submit_plan" } }],
      });
      expect(messages.at(-2)).toEqual({
        role: "tool",
        tool_call_id: "call_1",
        content: "plan received; it is verified next",
      });
      expect(messages.at(-1)).toMatchObject({ role: "user" });
    }
  });
});

/**
 * The example of the README's "Language models" section, verbatim apart from the import path, run against
 * a local server: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY point the layer's defaults at it.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
import { anthropicMessage, startProviderServer } from "../testing/provider-server.js";

const saved = { base: process.env.ANTHROPIC_BASE_URL, key: process.env.ANTHROPIC_API_KEY };
afterEach(() => {
  for (const [name, value] of [
    ["ANTHROPIC_BASE_URL", saved.base],
    ["ANTHROPIC_API_KEY", saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

it("runs the README's language model example, with the key from ANTHROPIC_API_KEY", async () => {
  const server = await startProviderServer([
    anthropicMessage({ content: [{ type: "text", text: "7" }], inputTokens: 20, outputTokens: 1 }),
  ]);
  process.env.ANTHROPIC_BASE_URL = server.origin;
  process.env.ANTHROPIC_API_KEY = "sk-ant-from-env";
  try {
    // --- README example ---
    const Effect = await import("effect/Effect");
    const { LanguageModel } = await import("../index.js");

    const program = Effect.gen(function* () {
      const model = yield* LanguageModel;
      return yield* model.complete([
        { role: "system", content: "Answer with one word." },
        { role: "user", content: "Name a prime number." },
      ]);
    });
    const layer = LanguageModel.layer({ provider: "anthropic", model: "claude-sonnet-5" }); // key from ANTHROPIC_API_KEY
    const reply = await Effect.runPromise(program.pipe(Effect.provide(layer)));
    // --- end ---
    expect(reply.content).toBe("7");
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-ant-from-env");
    // Prompt caching is on by default: the system prompt is a text block carrying a cache breakpoint.
    expect(server.requests[0]?.body.system).toEqual([
      { type: "text", text: "Answer with one word.", cache_control: { type: "ephemeral" } },
    ]);
  } finally {
    await server.close();
  }
});

it("is the code the README shows", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("\n## Language models"));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block).toBeDefined();
  const here = readFileSync(fileURLToPath(import.meta.url), "utf8");
  const lines = (block ?? "").split("\n").filter((line) => line.trim() !== "" && !line.startsWith("import "));
  expect(lines.length).toBeGreaterThan(5);
  for (const line of lines) expect(here).toContain(line);
});

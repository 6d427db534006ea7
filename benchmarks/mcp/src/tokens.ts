/**
 * What `graphplan mcp`'s tool list costs a session on every turn: the real server started over stdio (as
 * agents run it, `tsx apps/agent/src/cli.ts mcp --root ROOT`, an empty scratch root), `tools/list` asked
 * through the MCP SDK's `Client`, and the compact JSON of the answer's `tools` array counted in o200k_base
 * tokens (js-tiktoken) — for all tools and for `--read-only`, and per tool — beside the goal (issue #44).
 * No dataset; a few seconds, most of it the server's start.
 *
 *   pnpm --filter @graphplan/bench-mcp tokens
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const CLI = join(REPO_ROOT, "apps/agent/src/cli.ts");
const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");
/** The most tokens `tools/list` may cost (issue #44, "A lean MCP surface"). */
const GOAL = 4_000;

const encoder = new Tiktoken(o200k);
const tokens = (value: unknown): number => encoder.encode(JSON.stringify(value)).length;
const n = (value: number): string => value.toLocaleString("en-US");

/** The `tools` of `tools/list` from a server started with `args` on `root`. */
async function listTools(root: string, args: readonly string[]): Promise<Tool[]> {
  const client = new Client({ name: "bench-mcp-tokens", version: "0" });
  await client.connect(
    new StdioClientTransport({
      command: TSX,
      args: ["--conditions=source", CLI, "mcp", "--root", root, ...args],
      stderr: "inherit",
      cwd: REPO_ROOT,
    }),
  );
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}

const root = await mkdtemp(join(tmpdir(), "graphplan-bench-mcp-tokens-"));
try {
  const all = await listTools(root, []);
  const readOnly = await listTools(root, ["--read-only"]);
  const verdict = (count: number) => (count <= GOAL ? "within the goal" : "OVER the goal");
  const out = [
    `tools/list, compact JSON of its tools, o200k_base tokens (goal: at most ${n(GOAL)})`,
    `all tools (${all.length}): ${n(tokens(all))} tokens, ${n(JSON.stringify(all).length)} characters: ${verdict(tokens(all))}`,
    `--read-only (${readOnly.length}): ${n(tokens(readOnly))} tokens, ${n(JSON.stringify(readOnly).length)} characters: ${verdict(tokens(readOnly))}`,
    "| tool | tokens | characters | in --read-only |",
    "| --- | ---: | ---: | --- |",
    ...all.map(
      (tool) =>
        `| ${tool.name} | ${n(tokens(tool))} | ${n(JSON.stringify(tool).length)} | ${readOnly.some((t) => t.name === tool.name) ? "yes" : "no"} |`,
    ),
  ];
  process.stdout.write(`${out.join("\n")}\n`);
  if (tokens(all) > GOAL) process.exitCode = 1;
} finally {
  await rm(root, { recursive: true, force: true });
}

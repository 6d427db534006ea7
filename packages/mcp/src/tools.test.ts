/**
 * What a client sees of the tools and what it gets back: `tools/list` in at most 4,000 o200k tokens, schemas
 * every client reads (a `type` on each property, strict Ajv 2020-12), arguments that came as JSON strings,
 * the operator catalog on demand, and long answers in pages — over the SDK's in-memory transport.
 */
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CATALOG } from "@graphplan/catalog";
import { tempDir } from "@graphplan/testkit";
import { diffOf, Engine, utf8 } from "./engine.js";
import { mcpServer } from "./server.js";
import { MAX_TEXT } from "./tools.js";

const GOAL_TOKENS = 4_000;

function project(files: Record<string, string>): string {
  const root = realpathSync(tempDir("graphplan-mcp-tools-"));
  for (const [path, body] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), body);
  }
  return root;
}

async function connect(root: string, readOnly = false): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcpServer({ engine: new Engine({ root }), readOnly, version: "0" }).connect(serverSide);
  const client = new Client({ name: "test", version: "0" });
  await client.connect(clientSide);
  return client;
}

const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;
const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

const OLD = "def old():\n    return 1\n";

describe("tools/list", () => {
  let tools: Tool[];
  let readOnly: Tool[];
  beforeAll(async () => {
    const root = project({ "a.py": OLD });
    tools = (await (await connect(root)).listTools()).tools;
    readOnly = (await (await connect(root, true)).listTools()).tools;
  });

  it(`costs at most ${GOAL_TOKENS} o200k tokens, all tools or read-only`, () => {
    const tokens = (value: unknown) => new Tiktoken(o200k).encode(JSON.stringify(value)).length;
    expect(tools.map((t) => t.name)).toContain("describe_operators");
    expect(tokens(tools)).toBeLessThanOrEqual(GOAL_TOKENS);
    expect(tokens(readOnly)).toBeLessThan(tokens(tools));
  });

  it("gives every property of every tool a top-level type, and only schemas strict Ajv 2020-12 compiles", () => {
    for (const tool of tools) {
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {}))
        expect((property as { type?: unknown }).type, `${tool.name}.${name}`).toEqual(expect.any(String));
      expect(JSON.stringify(tool.inputSchema), tool.name).not.toMatch(/"x-[a-z]+":/);
      expect(() => new Ajv2020({ strict: true }).compile(tool.inputSchema), tool.name).not.toThrow();
    }
  });

  it("offers the plan as an array of steps naming every operator and template of the catalog", () => {
    for (const name of ["verify_plan", "apply_plan"]) {
      const plan = (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, unknown>)["plan"] as {
        type: string;
        items: { properties: Record<string, { enum?: string[] }> };
      };
      expect(plan.type).toBe("array");
      for (const entry of CATALOG.filter((e) => e.step !== "fragment"))
        expect(plan.items.properties[entry.step]?.enum, entry.name).toContain(entry.name);
    }
  });

  it("points the plan tools' descriptions to describe_operators", () => {
    for (const name of ["verify_plan", "apply_plan"])
      expect(tools.find((t) => t.name === name)!.description).toContain("describe_operators");
  });
});

describe("arguments that arrive as JSON strings", () => {
  // A fresh root per test (tempDir removes it after each).
  let client: Client;
  beforeEach(async () => {
    client = await connect(project({ "a.py": OLD }));
  });
  afterEach(() => client.close());

  it("parses a plan sent as a JSON string and says so in one line", async () => {
    const plan = [{ op: "rename_identifier", params: { file: "a.py", name: "old", new_name: "fresh" } }];
    const result = await call(client, "verify_plan", { plan: JSON.stringify(plan) });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe("note: `plan` arrived as a JSON string; it was parsed\nPASSED\n");
    expect(result.structuredContent).toMatchObject({ passed: true });
  });

  it("parses a locator sent as a JSON string", async () => {
    const result = await call(client, "locate", { locator: JSON.stringify({ kind: "function", file: "a.py" }) });
    expect(textOf(result).split("\n").slice(0, 2)).toEqual([
      "note: `locator` arrived as a JSON string; it was parsed",
      "1 node matches",
    ]);
  });

  it("leaves a string that is not JSON to the arguments' check, which says what was expected", async () => {
    const result = await call(client, "rename_symbol", { file: "a.py", name: "old", new_name: "x", scope: "{oops" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^rename_symbol: the arguments are not valid: .*scope/);
  });

  it("takes custom operators beside the steps", async () => {
    const define_operators = [
      {
        define: "bump",
        params_schema: { file: "string" },
        steps: [
          {
            primitive: "replace_node",
            params: {
              locator: { kind: "function", name: "old", file: "a.py" },
              replacement: "def old():\n    return 2",
            },
          },
        ],
      },
    ];
    const plan = [{ op: "bump", params: { file: "a.py" } }];
    expect((await call(client, "verify_plan", { plan })).structuredContent).toMatchObject({ passed: false });
    const applied = await call(client, "apply_plan", { plan, define_operators });
    expect(applied.isError, textOf(applied)).toBeFalsy();
    expect(textOf(applied)).toContain("+    return 2\n");
  });
});

describe("describe_operators", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(project({ "a.py": OLD }));
  });
  afterAll(() => client.close());

  it("answers an operator's description, each param and its example", async () => {
    const result = await call(client, "describe_operators", { names: ["rename_identifier"] });
    expect(result.isError).toBeFalsy();
    const body = textOf(result);
    expect(body).toContain(CATALOG.find((e) => e.name === "rename_identifier")!.description);
    for (const param of ["file", "name", "new_name", "scope"]) expect(body).toContain(`  - ${param} (`);
    expect(body).toContain('e.g. {"op":"rename_identifier"');
  });

  it("gives a primitive's params from its schema, and a name that is an op and a template both ways", async () => {
    const primitive = textOf(await call(client, "describe_operators", { names: ["replace_node"] }));
    expect(primitive).toMatch(/^ {2}- locator \(locator\)/m);
    expect(primitive).toMatch(/^ {2}- replacement \(string\)/m);
    const both = textOf(await call(client, "describe_operators", { names: ["add_method"] }));
    expect(both).toContain('add_method: {"template": "add_method"');
    expect(both).toContain('add_method: {"op": "add_method"');
  });

  it("gives every entry of the catalog a text of its own", async () => {
    const names = [...new Set(CATALOG.map((e) => e.name))];
    const body = textOf(await call(client, "describe_operators", { names }));
    for (const entry of CATALOG) expect(body, entry.name).toContain(entry.description.slice(0, 60));
  });

  it("answers an unknown name with one line naming the nearest and the known ones", async () => {
    const result = await call(client, "describe_operators", { names: ["rename_identifer"] });
    expect(result.isError).toBe(true);
    const body = textOf(result);
    expect(body.split("\n")).toHaveLength(1);
    expect(body).toContain("rename_identifer (did you mean rename_identifier?)");
    for (const entry of CATALOG) expect(body).toContain(entry.name);
  });

  it("with no names, answers one line per operator", async () => {
    const body = textOf(await call(client, "describe_operators", {}));
    expect(body).toMatch(/^- replace_node\(locator: locator, replacement: string\)/m);
    expect(body.length).toBeLessThan(MAX_TEXT);
  });
});

/** `count` Python files, and a diff that adds a long assignment to the function of each. */
function bigChange(count: number): { files: Record<string, string>; diff: string } {
  const files: Record<string, string> = {};
  const before = new Map<string, Uint8Array>();
  const after = new Map<string, Uint8Array>();
  for (let i = 0; i < count; i++) {
    const path = `pkg/m${String(i).padStart(2, "0")}.py`;
    files[path] = `def f${i}(x):\n    return x + ${i}\n`;
    before.set(path, utf8(files[path]));
    after.set(path, utf8(`def f${i}(x):\n    table = "${`${i}-`.repeat(1200)}"\n    return x + ${i} + len(table)\n`));
  }
  return { files, diff: diffOf(before, after) };
}

/** The JSON array of a plan page: from its line `[` to the end. */
const pageSteps = (body: string): unknown[] => JSON.parse(body.slice(body.indexOf("\n[\n") + 1)) as unknown[];

describe("answers in pages", () => {
  it("compile_patch: every page a JSON array of whole steps, together exactly the plan, the next page named, the last said", async () => {
    const { files, diff } = bigChange(15);
    const root = project(files);
    const whole = await new Engine({ root }).compilePatch(diff);
    expect(JSON.stringify(whole.plan).length).toBeGreaterThan(MAX_TEXT);
    const client = await connect(root);
    const steps: unknown[] = [];
    let page = 1;
    for (; page < 20; page++) {
      const result = await call(client, "compile_patch", { diff, page });
      expect(result.isError, textOf(result)).toBeFalsy();
      const body = textOf(result);
      expect(body.length).toBeLessThanOrEqual(MAX_TEXT);
      const shown = pageSteps(body);
      expect(result.structuredContent).toMatchObject({ plan: shown, page, steps: whole.steps, reproduces: true });
      const first = steps.length + 1;
      steps.push(...shown);
      const header = body.split("\n")[1]!;
      if (header.endsWith(", the last")) {
        expect(header).toBe(`steps ${first}–${steps.length} of ${whole.steps}, page ${page} of ${page}, the last`);
        break;
      }
      expect(header).toContain(`steps ${first}–${steps.length} of ${whole.steps}`);
      expect(header).toContain(`; the rest: call compile_patch with the same diff and page: ${page + 1}`);
    }
    expect(page).toBeGreaterThan(1);
    expect(steps).toEqual(whole.plan);
    const beyond = await call(client, "compile_patch", { diff, page: page + 1 });
    expect(beyond.isError).toBe(true);
    expect(textOf(beyond)).toContain(`there is no page ${page + 1}`);
    await client.close();
  });

  it("graph: page after page, each file once, the last page said", async () => {
    const { files } = bigChange(30);
    const client = await connect(project(files));
    const seen: string[] = [];
    let page = 1;
    for (; page < 40; page++) {
      const result = await call(client, "graph", { paths: ["pkg"], page, max_chars: 1000 });
      const body = textOf(result);
      seen.push(...[...body.matchAll(/^FILE: (.*)$/gm)].map((m) => m[1]!));
      if (/, page \d+, the last\)$/.test(body)) break;
      expect(body).toMatch(new RegExp(`; the rest: call graph with the same paths and page: ${page + 1}\\)$`));
    }
    expect(page).toBeGreaterThan(1);
    expect(seen).toEqual(Object.keys(files).sort());
    // A page asked for out of order is found all the same.
    const fresh = await connect(project(files));
    const third = textOf(await call(fresh, "graph", { paths: ["pkg"], page: 3, max_chars: 1000 }));
    expect(third).toContain(
      textOf(await call(client, "graph", { paths: ["pkg"], page: 3, max_chars: 1000 })).split("\n")[0],
    );
    await client.close();
    await fresh.close();
  });
});

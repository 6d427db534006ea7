/**
 * `graphplan mcp` as agents run it: the real CLI spawned as a child process, driven by the MCP SDK's own
 * `Client` over stdio and over streamable HTTP, on a git repository each test makes.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CATALOG } from "@graphplan/catalog";
import { locatorJsonSchema } from "@graphplan/locators";
import { Engine, mcpServer } from "@graphplan/mcp";
import { WRITE_DELAY_ENV } from "./mcp.js";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules/.bin/tsx");
const cliArgs = (...args: string[]) => ["--conditions=source", join(app, "src/cli.ts"), "mcp", ...args];

const PRICING = `def total(items):
    return sum(i.price for i in items)


def tax(amount):
    rate = 0.2
    return amount * rate


def discount(amount):
    rate = 0.1
    return amount * rate
`;
const CART = `from shop.pricing import total


class Cart:
    def __init__(self):
        self.items = []

    def total(self):
        return total(self.items)
`;
const ORIGINAL: Readonly<Record<string, string>> = {
  "shop/pricing.py": PRICING,
  "shop/cart.py": CART,
  "shop/__init__.py": "",
};

/** A new git repository holding the shop files, committed. */
async function makeRepo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "graphplan-mcp-"));
  for (const [path, text] of Object.entries(ORIGINAL)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: dir,
      encoding: "utf8",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "shop");
  return dir;
}

const read = (dir: string, path: string): string => readFileSync(join(dir, path), "utf8");
const gitStatus = (dir: string): string =>
  execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: dir, encoding: "utf8" });
const textOf = (result: unknown): string => ((result as CallToolResult).content[0] as { text: string }).text;

async function stdioClient(
  root: string,
  options: { args?: string[]; env?: Record<string, string> } = {},
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({
    command: tsx,
    args: cliArgs("--root", root, ...(options.args ?? [])),
    env: { ...(process.env as Record<string, string>), ...(options.env ?? {}) },
    stderr: "pipe",
  });
  const client = new Client({ name: "graphplan-test", version: "0" });
  await client.connect(transport);
  return { client, transport };
}

const VAT_PLAN = [
  {
    op: "rename_identifier",
    params: {
      file: "shop/pricing.py",
      name: "rate",
      new_name: "vat",
      scope: { kind: "function", name: "tax", file: "shop/pricing.py" },
    },
  },
];

describe("graphplan mcp over stdio", () => {
  let repo: string;
  let client: Client;

  beforeAll(async () => {
    repo = await makeRepo();
    ({ client } = await stdioClient(repo));
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await rm(repo, { recursive: true, force: true });
  });

  it("lists the eight tools, the plan as the catalog's compact steps schema with every operator, the locator's from the locators", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "apply_plan",
      "compile_patch",
      "describe_operators",
      "graph",
      "locate",
      "rename_symbol",
      "undo_last_apply",
      "verify_plan",
    ]);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["verify_plan", "apply_plan"]) {
      const schema = byName.get(name)!.inputSchema as { properties: { plan: { type?: unknown } }; required: string[] };
      expect(schema.required).toEqual(["plan"]);
      expect(schema.properties.plan.type).toBe("array");
      const shown = JSON.stringify(schema);
      // Every operator of the catalog (new ones included) is a step the schema offers.
      for (const entry of CATALOG)
        if (entry.step !== "fragment") expect(shown, entry.name).toContain(`"${entry.name}"`);
    }
    const { anyOf } = locatorJsonSchema() as { anyOf: { description: string }[] };
    const locate = byName.get("locate")!.inputSchema as {
      properties: { locator: { type: string; anyOf: { description: string }[] } };
    };
    expect(locate.properties.locator.type).toBe("object");
    expect(locate.properties.locator.anyOf.map((form) => form.description)).toEqual(
      anyOf.map((form) => form.description),
    );
    const rename = byName.get("rename_symbol")!.inputSchema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(rename.properties).sort()).toEqual(["file", "importers", "name", "new_name", "scope"]);
    expect(rename.required.sort()).toEqual(["file", "name", "new_name"]);
    expect(byName.get("apply_plan")!.annotations?.readOnlyHint).toBe(false);
    expect(byName.get("verify_plan")!.annotations?.readOnlyHint).toBe(true);
  });

  it("offers the operator catalog and the plan schema as resources", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(["graphplan://catalog", "graphplan://plan-schema"]);
    const catalog = await client.readResource({ uri: "graphplan://catalog" });
    const body = (catalog.contents[0] as { text: string }).text;
    for (const entry of CATALOG) expect(body).toContain(entry.name);
  });

  it("applies a plan: the files hold the new bytes and the answer is the diff", async () => {
    const result = await client.callTool({ name: "apply_plan", arguments: { plan: VAT_PLAN } });
    expect(result.isError).toBeFalsy();
    expect(read(repo, "shop/pricing.py")).toBe(
      PRICING.replace("    rate = 0.2\n    return amount * rate", "    vat = 0.2\n    return amount * vat"),
    );
    expect(textOf(result)).toContain(
      "-    rate = 0.2\n-    return amount * rate\n+    vat = 0.2\n+    return amount * vat\n",
    );
    expect(result.structuredContent).toMatchObject({ applied: true, written: ["shop/pricing.py"] });
    // undo puts every byte back
    const undone = await client.callTool({ name: "undo_last_apply", arguments: {} });
    expect(undone.isError).toBeFalsy();
    expect(read(repo, "shop/pricing.py")).toBe(PRICING);
    expect(gitStatus(repo)).toBe("");
    const again = await client.callTool({ name: "undo_last_apply", arguments: {} });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain("no apply of this session is left to undo");
  });

  it("answers a bad plan with isError and every issue with its fix, and changes nothing", async () => {
    const plan = [
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "totl", file: "shop/pricing.py" },
          replacement: "def total(items):\n    return 0\n",
        },
      },
      { op: "rename_identifier", params: { file: "shop/cart.py", name: "items", new_name: "class" } },
    ];
    const verified = await client.callTool({ name: "verify_plan", arguments: { plan } });
    const result = await client.callTool({ name: "apply_plan", arguments: { plan } });
    expect(result.isError).toBe(true);
    const issues = (verified.structuredContent as { errors: string[] }).errors;
    expect(issues.length).toBeGreaterThanOrEqual(2);
    expect(issues.some((e) => e.startsWith("Step 1"))).toBe(true);
    expect(issues.some((e) => e.startsWith("Step 2"))).toBe(true);
    for (const issue of issues) {
      expect(issue).toContain("— fix:");
      expect(textOf(result)).toContain(`error: ${issue}`);
    }
    expect(textOf(result)).toContain("did you mean function 'total' (line 1)?");
    expect(textOf(result)).toContain("no file was changed");
    expect(gitStatus(repo)).toBe("");
  });

  it("answers an ambiguous locator with its candidates, each with the locator that picks it alone", async () => {
    const result = await client.callTool({
      name: "locate",
      arguments: { locator: { kind: "assignment", name: "rate", file: "shop/pricing.py" } },
    });
    expect(result.isError).toBeFalsy();
    const { matches } = result.structuredContent as {
      matches: { start_line: number; preview: string; locator: unknown }[];
    };
    expect(matches.map((m) => m.start_line)).toEqual([6, 11]);
    expect(matches.map((m) => m.preview)).toEqual(["    rate = 0.2", "    rate = 0.1"]);
    for (const match of matches) {
      const picked = await client.callTool({ name: "locate", arguments: { locator: match.locator } });
      expect((picked.structuredContent as { matches: { start_line: number; locator?: unknown }[] }).matches).toEqual([
        expect.objectContaining({ start_line: match.start_line }),
      ]);
    }
    const none = await client.callTool({
      name: "locate",
      arguments: { locator: { kind: "function", name: "totl", file: "shop/pricing.py" } },
    });
    expect(none.isError).toBe(true);
    expect(textOf(none)).toContain('Did you mean: function "total"');
  });

  it("refuses every path outside the root, in every tool, and writes nothing", async () => {
    const outside = [
      await client.callTool({ name: "graph", arguments: { paths: ["../"] } }),
      await client.callTool({ name: "locate", arguments: { locator: { kind: "function", file: "../escape.py" } } }),
      await client.callTool({
        name: "apply_plan",
        arguments: { plan: [{ op: "create_file", params: { path: "../escape.py", content: "x = 1\n" } }] },
      }),
      await client.callTool({
        name: "compile_patch",
        arguments: { diff: "--- a/../escape.py\n+++ b/../escape.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n" },
      }),
      await client.callTool({ name: "rename_symbol", arguments: { file: "/etc/escape.py", name: "a", new_name: "b" } }),
    ];
    for (const result of outside) {
      expect(result.isError, textOf(result)).toBe(true);
      expect(textOf(result)).toMatch(
        /not inside the workspace|inside it \(no leading \/, no \.\.|is absolute|".." segment/,
      );
    }
    expect(existsSync(join(repo, "..", "escape.py"))).toBe(false);
    expect(gitStatus(repo)).toBe("");
  });

  it("compiles a unified diff to the plan that reproduces it, which apply_plan then applies byte for byte", async () => {
    const after = PRICING.replace(
      "    rate = 0.1\n",
      "    rate = 0.15\n    if amount < 0:\n        raise ValueError(amount)\n",
    );
    await writeFile(join(repo, "shop/pricing.py"), after);
    const diff = execFileSync("git", ["diff"], { cwd: repo, encoding: "utf8" });
    await writeFile(join(repo, "shop/pricing.py"), PRICING);
    const compiled = await client.callTool({ name: "compile_patch", arguments: { diff } });
    expect(compiled.isError, textOf(compiled)).toBeFalsy();
    expect(compiled.structuredContent).toMatchObject({ reproduces: true, passed: true });
    expect(gitStatus(repo)).toBe("");
    const applied = await client.callTool({
      name: "apply_plan",
      arguments: { plan: (compiled.structuredContent as { plan: unknown }).plan },
    });
    expect(applied.isError).toBeFalsy();
    expect(read(repo, "shop/pricing.py")).toBe(after);
    await client.callTool({ name: "undo_last_apply", arguments: {} });
    expect(gitStatus(repo)).toBe("");
  });

  it("renames across files scope-aware, refuses a rename the language would resolve differently, and undoes it", async () => {
    const refused = await client.callTool({
      name: "rename_symbol",
      arguments: {
        file: "shop/pricing.py",
        name: "rate",
        new_name: "amount",
        scope: { kind: "function", name: "tax" },
      },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/amount/);
    expect(gitStatus(repo)).toBe("");
    const renamed = await client.callTool({
      name: "rename_symbol",
      arguments: { file: "shop/pricing.py", name: "total", new_name: "grand_total", importers: ["shop/cart.py"] },
    });
    expect(renamed.isError, textOf(renamed)).toBeFalsy();
    expect(read(repo, "shop/cart.py")).toBe(
      CART.replace("import total", "import grand_total").replace("return total(", "return grand_total("),
    );
    expect(read(repo, "shop/pricing.py")).toBe(PRICING.replace("def total(", "def grand_total("));
    // A file changed since the apply: the undo is refused and touches nothing.
    await writeFile(join(repo, "shop/cart.py"), `${read(repo, "shop/cart.py")}# edited\n`);
    const conflict = await client.callTool({ name: "undo_last_apply", arguments: {} });
    expect(conflict.isError).toBe(true);
    expect(textOf(conflict)).toContain("shop/cart.py changed since the apply");
    expect(read(repo, "shop/pricing.py")).toBe(PRICING.replace("def total(", "def grand_total("));
    await writeFile(
      join(repo, "shop/cart.py"),
      CART.replace("import total", "import grand_total").replace("return total(", "return grand_total("),
    );
    const undone = await client.callTool({ name: "undo_last_apply", arguments: {} });
    expect(undone.isError).toBeFalsy();
    expect(gitStatus(repo)).toBe("");
  });

  it("pages the graph of a large tree, naming the next page", async () => {
    for (let i = 0; i < 30; i++)
      await writeFile(
        join(repo, `shop/m${String(i).padStart(2, "0")}.py`),
        `def f${i}(x):\n    return x + ${i}\n`.repeat(20).replace(/def f(\d+)/g, (_m, n, off) => `def f${n}_${off}`),
      );
    try {
      const seen: string[] = [];
      let page = 1;
      for (; page < 40; page++) {
        const result = await client.callTool({
          name: "graph",
          arguments: { paths: ["shop"], page, max_chars: 2000 },
        });
        const meta = result.structuredContent as { files: number; next_page: number | null };
        expect(textOf(result).length).toBeLessThan(2400);
        seen.push(...[...textOf(result).matchAll(/^FILE: (.*)$/gm)].map((m) => m[1]!));
        if (meta.next_page === null) break;
        expect(textOf(result)).toContain(`call graph with the same paths and page: ${meta.next_page}`);
      }
      expect(seen).toHaveLength(33);
      expect(new Set(seen).size).toBe(33);
      expect(page).toBeGreaterThan(1);
    } finally {
      for (let i = 0; i < 30; i++) await rm(join(repo, `shop/m${String(i).padStart(2, "0")}.py`));
    }
  });
});

describe("graphplan mcp: calls at once, and clients that go away", () => {
  const slow = { [WRITE_DELAY_ENV]: "300" };
  const CART_PLAN = [{ op: "rename_identifier", params: { file: "shop/cart.py", name: "Cart", new_name: "Basket" } }];
  const BOTH = [...VAT_PLAN, ...CART_PLAN];

  it("serialises two applies on the same file: both land", async () => {
    const repo = await makeRepo();
    const { client } = await stdioClient(repo, { env: slow });
    try {
      const amount = [
        {
          op: "rename_identifier",
          params: {
            file: "shop/pricing.py",
            name: "amount",
            new_name: "value",
            scope: { kind: "function", name: "tax", file: "shop/pricing.py" },
          },
        },
      ];
      const [a, b] = await Promise.all([
        client.callTool({ name: "apply_plan", arguments: { plan: VAT_PLAN } }),
        client.callTool({ name: "apply_plan", arguments: { plan: amount } }),
      ]);
      expect(a.isError, textOf(a)).toBeFalsy();
      expect(b.isError, textOf(b)).toBeFalsy();
      expect(read(repo, "shop/pricing.py")).toContain("def tax(value):\n    vat = 0.2\n    return value * vat\n");
    } finally {
      await client.close();
      await rm(repo, { recursive: true, force: true });
    }
  });

  /** Calls apply_plan with BOTH and resolves once its journal is on disk (the commit has begun). */
  async function applyUntilJournal(client: Client, repo: string): Promise<void> {
    const verified = await client.callTool({ name: "verify_plan", arguments: { plan: BOTH } });
    expect(verified.structuredContent, textOf(verified)).toMatchObject({ passed: true });
    void client.callTool({ name: "apply_plan", arguments: { plan: BOTH } }).catch(() => undefined);
    for (let i = 0; i < 600 && !existsSync(join(repo, ".graphplan", "journal.json")); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(repo, ".graphplan", "journal.json"))).toBe(true);
  }

  it("leaves the repository whole when the client disconnects mid-apply: the commit finishes", async () => {
    const repo = await makeRepo();
    const { client } = await stdioClient(repo, { env: slow });
    try {
      await applyUntilJournal(client, repo);
      await client.close();
      expect(existsSync(join(repo, ".graphplan"))).toBe(false);
      expect(gitStatus(repo)).toBe(" M shop/cart.py\n M shop/pricing.py\n");
      expect(read(repo, "shop/cart.py")).toContain("class Basket:");
      expect(read(repo, "shop/pricing.py")).toContain("vat = 0.2");
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });

  it("leaves the repository whole when the server is killed mid-apply: the next start puts every file back", async () => {
    const repo = await makeRepo();
    const { client, transport } = await stdioClient(repo, { env: slow });
    try {
      await applyUntilJournal(client, repo);
      // The server is tsx's child: kill it (and tsx) at once, as a crash would.
      const pids = execFileSync("pgrep", ["-P", String(transport.pid)], { encoding: "utf8" })
        .trim()
        .split("\n")
        .map(Number);
      for (const pid of [...pids, transport.pid!]) process.kill(pid, "SIGKILL");
      await client.close();
      const { client: next } = await stdioClient(repo);
      await next.close();
      expect(existsSync(join(repo, ".graphplan"))).toBe(false);
      for (const [path, text] of Object.entries(ORIGINAL)) expect(read(repo, path)).toBe(text);
      expect(gitStatus(repo)).toBe("");
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});

describe("graphplan mcp --read-only", () => {
  it("offers only the tools that write nothing, and refuses a call to one that writes", async () => {
    const repo = await makeRepo();
    const { client } = await stdioClient(repo, { args: ["--read-only"] });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        "compile_patch",
        "describe_operators",
        "graph",
        "locate",
        "verify_plan",
      ]);
      await expect(client.callTool({ name: "apply_plan", arguments: { plan: VAT_PLAN } })).rejects.toThrow(
        /--read-only/,
      );
      expect(gitStatus(repo)).toBe("");
    } finally {
      await client.close();
      await rm(repo, { recursive: true, force: true });
    }
  });
});

describe("graphplan mcp --http", () => {
  let child: ChildProcess | undefined;
  afterAll(() => void child?.kill("SIGTERM"));

  it("serves the same tools over streamable HTTP on loopback, one session per client", async () => {
    const repo = await makeRepo();
    child = spawn(tsx, cliArgs("--root", repo, "--http", "0"), { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      child!.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr);
        if (found) resolve(found[1]!);
      });
      child!.once("exit", (code) => reject(new Error(`the server exited (${code}): ${stderr}`)));
    });
    const client = new Client({ name: "graphplan-http-test", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(8);
    const applied = await client.callTool({ name: "apply_plan", arguments: { plan: VAT_PLAN } });
    expect(applied.isError, textOf(applied)).toBeFalsy();
    expect(read(repo, "shop/pricing.py")).toContain("    vat = 0.2\n    return amount * vat\n");
    // A second client is its own session: it has no apply to undo.
    const other = new Client({ name: "graphplan-http-test-2", version: "0" });
    await other.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await other.callTool({ name: "undo_last_apply", arguments: {} })).isError).toBe(true);
    expect((await client.callTool({ name: "undo_last_apply", arguments: {} })).isError).toBeFalsy();
    expect(gitStatus(repo)).toBe("");
    // A page on another origin cannot reach it (DNS rebinding): the Host must be loopback.
    const port = new URL(url).port;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        url,
        {
          method: "POST",
          headers: {
            host: `evil.example:${port}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once("error", reject);
      req.end("{}");
    });
    expect(status).toBe(403);
    await client.close();
    await other.close();
    const exited = new Promise<number | null>((resolve) => child!.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    child = undefined;
    await rm(repo, { recursive: true, force: true });
  });
});

describe("graphplan mcp: bad input", () => {
  it("exits 2 with one line for a root that is not a directory or a port that is not one", () => {
    const missing = spawnSync(tsx, cliArgs("--root", "/nonexistent/graphplan"), { encoding: "utf8" });
    expect(missing.status).toBe(2);
    expect(missing.stderr.trim().split("\n")).toEqual([
      "error: --root /nonexistent/graphplan is not a directory; pass the directory the tools may read and edit",
    ]);
    const port = spawnSync(tsx, cliArgs("--root", app, "--http", "eighty"), { encoding: "utf8" });
    expect(port.status).toBe(2);
    expect(port.stderr.trim().split("\n")).toEqual([
      "error: --http eighty is not a port; pass a number from 0 to 65535 (0: any free port)",
    ]);
  });
});

describe("the root README's worked example (locate, verify_plan, apply_plan on the demo project)", () => {
  it("answers as the README shows", async () => {
    const root = await mkdtemp(join(tmpdir(), "graphplan-mcp-readme-"));
    await cp(join(app, "examples/textstats/project"), root, { recursive: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcpServer({ engine: new Engine({ root: await realpath(root) }), readOnly: false, version: "0" }).connect(
      serverSide,
    );
    const client = new Client({ name: "readme", version: "0" });
    await client.connect(clientSide);
    try {
      const readme = readFileSync(join(app, "..", "..", "README.md"), "utf8");
      const locator = { kind: "return", parent: { kind: "function", name: "word_count" }, file: "textstats/words.py" };
      const located = textOf(
        await client.callTool({
          name: "locate",
          arguments: { locator: { kind: "return", file: "textstats/words.py" } },
        }),
      );
      const typo = textOf(
        await client.callTool({
          name: "verify_plan",
          arguments: { plan: [{ op: "replace_node", params: { locator, replacement: "return len(word(text))" } }] },
        }),
      );
      const applied = textOf(
        await client.callTool({
          name: "apply_plan",
          arguments: { plan: [{ op: "replace_node", params: { locator, replacement: "return len(words(text))" } }] },
        }),
      );
      // The lines the README quotes: the first two matches of the locate, the whole verify, the apply but its ---/+++ and blank context lines.
      const quoted = [
        ...located.split("\n").slice(0, 7),
        ...typo.trim().split("\n"),
        ...applied.split("\n").filter((line) => !/^(---|\+\+\+) /.test(line) && line.trim() !== ""),
      ];
      for (const line of quoted) expect(readme, line).toContain(`\n${line}\n`);
      expect(readFileSync(join(root, "textstats/words.py"), "utf8")).toContain("    return len(words(text))\n");
    } finally {
      await client.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});

/**
 * The engine and the tools in-process (the CLI's tests in apps/agent drive the same through a child
 * process): undo of file operations, cancellation, the call queue, the derived schemas, and one
 * connection end to end over the SDK's in-memory transport.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { CATALOG, planStepsJsonSchema } from "@graphplan/catalog";
import { tempDir } from "@graphplan/testkit";
import { CallCancelled, Engine } from "./engine.js";
import { CallQueue } from "./lock.js";
import { mcpServer } from "./server.js";
import { listedTool, offeredTools, TOOLS } from "./tools.js";

function project(files: Record<string, string>): string {
  const root = realpathSync(tempDir("graphplan-mcp-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const OLD = "def old():\n    return 1\n";
const KEEP = "from pkg.old import old\n\n\ndef keep():\n    return old()\n";

describe("Engine", () => {
  it("undoes file operations: a created file goes, a deleted and a renamed one come back, byte for byte", async () => {
    const root = project({ "pkg/old.py": OLD, "pkg/keep.py": KEEP, "pkg/__init__.py": "" });
    const engine = new Engine({ root });
    const outcome = await engine.apply([
      { op: "create_file", params: { path: "pkg/new.py", content: "def new():\n    return 2\n" } },
      { op: "rename_file", params: { from: "pkg/keep.py", to: "pkg/kept.py" } },
    ]);
    expect(outcome.kind, JSON.stringify(outcome)).toBe("applied");
    if (outcome.kind !== "applied") return;
    expect(existsSync(join(root, "pkg/new.py"))).toBe(true);
    expect(readFileSync(join(root, "pkg/kept.py"), "utf8")).toBe(KEEP);
    expect(existsSync(join(root, "pkg/keep.py"))).toBe(false);
    const undone = await engine.undo(outcome.change);
    expect([...undone.restored].sort()).toEqual(["pkg/keep.py", "pkg/kept.py", "pkg/new.py"]);
    expect(existsSync(join(root, "pkg/new.py"))).toBe(false);
    expect(existsSync(join(root, "pkg/kept.py"))).toBe(false);
    expect(readFileSync(join(root, "pkg/keep.py"), "utf8")).toBe(KEEP);
    expect(readFileSync(join(root, "pkg/old.py"), "utf8")).toBe(OLD);
  });

  it("undoes a mode change: the executable bit goes back as it was", async () => {
    const root = project({ "run.py": OLD });
    const engine = new Engine({ root });
    const executable = () => (statSync(join(root, "run.py")).mode & 0o111) !== 0;
    expect(executable()).toBe(false);
    const outcome = await engine.apply([{ op: "set_file_mode", params: { path: "run.py", mode: "100755" } }]);
    if (outcome.kind !== "applied") throw new Error(JSON.stringify(outcome));
    expect(executable()).toBe(true);
    await engine.undo(outcome.change);
    expect(executable()).toBe(false);
    expect(readFileSync(join(root, "run.py"), "utf8")).toBe(OLD);
  });

  it("writes nothing for a call the client cancelled before the write began", async () => {
    const root = project({ "a.py": OLD });
    const engine = new Engine({ root });
    const cancelled = new AbortController();
    cancelled.abort();
    await expect(
      engine.apply(
        [{ op: "rename_identifier", params: { file: "a.py", name: "old", new_name: "fresh" } }],
        cancelled.signal,
      ),
    ).rejects.toBeInstanceOf(CallCancelled);
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe(OLD);
    expect(existsSync(join(root, ".graphplan"))).toBe(false);
  });

  it("compiles a diff that creates and deletes files into a plan that reproduces it", async () => {
    const root = project({ "pkg/old.py": OLD, "pkg/__init__.py": "" });
    const diff = [
      "diff --git a/pkg/old.py b/pkg/old.py",
      "deleted file mode 100644",
      "--- a/pkg/old.py",
      "+++ /dev/null",
      "@@ -1,2 +0,0 @@",
      "-def old():",
      "-    return 1",
      "diff --git a/pkg/new.py b/pkg/new.py",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/pkg/new.py",
      "@@ -0,0 +1,2 @@",
      "+def new():",
      "+    return 2",
      "",
    ].join("\n");
    const compiled = await new Engine({ root }).compilePatch(diff);
    expect(compiled).toMatchObject({ reproduces: true, verification: { passed: true } });
    expect(JSON.stringify(compiled.plan)).toContain("delete_file");
    expect(readFileSync(join(root, "pkg/old.py"), "utf8")).toBe(OLD); // nothing written
  });
});

describe("CallQueue", () => {
  it("starts a call only when the one before it has settled, failed ones included", async () => {
    const queue = new CallQueue();
    const events: string[] = [];
    const task =
      (name: string, ms: number, fail = false) =>
      () =>
        new Promise<string>((resolve, reject) => {
          events.push(`start ${name}`);
          setTimeout(() => {
            events.push(`end ${name}`);
            if (fail) reject(new Error(name));
            else resolve(name);
          }, ms);
        });
    const results = await Promise.allSettled([
      queue.run(task("a", 30)),
      queue.run(task("b", 5, true)),
      queue.run(task("c", 1)),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(events).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });
});

describe("the tools' schemas", () => {
  it("show the catalog's compact steps schema (every operator and template by name, no shared definitions) for verify_plan and apply_plan", () => {
    const plan = planStepsJsonSchema();
    for (const name of ["verify_plan", "apply_plan"]) {
      const listed = listedTool(TOOLS.find((t) => t.name === name)!);
      const schema = listed.inputSchema as {
        properties: Record<string, unknown>;
        required?: string[];
        $defs?: unknown;
      };
      expect(schema.properties["plan"]).toEqual(plan);
      expect(schema.required).toEqual(["plan"]);
      expect(schema.$defs).toBeUndefined();
      for (const entry of CATALOG)
        if (entry.step !== "fragment") expect(JSON.stringify(schema), entry.name).toContain(`"${entry.name}"`);
    }
  });

  it("leave out every tool that writes under --read-only", () => {
    expect(offeredTools(true).map((t) => t.name)).toEqual([
      "graph",
      "locate",
      "verify_plan",
      "compile_patch",
      "describe_operators",
    ]);
    expect(offeredTools(false)).toHaveLength(8);
  });
});

describe("one connection over the SDK's in-memory transport", () => {
  it("locates, verifies, applies and undoes, and offers the catalog and a prompt", async () => {
    const root = project({ "a.py": OLD });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await mcpServer({ engine: new Engine({ root }), readOnly: false, version: "0" }).connect(serverSide);
    const client = new Client({ name: "test", version: "0" });
    await client.connect(clientSide);
    const located = await client.callTool({
      name: "locate",
      arguments: { locator: { kind: "function", name: "old", file: "a.py" } },
    });
    expect(located.structuredContent).toEqual({
      matches: [{ file: "a.py", start_line: 1, end_line: 2, kind: "function", preview: "def old():\n    return 1" }],
    });
    const plan = [{ op: "rename_identifier", params: { file: "a.py", name: "old", new_name: "fresh" } }];
    expect((await client.callTool({ name: "verify_plan", arguments: { plan } })).content).toEqual([
      { type: "text", text: "PASSED\n" },
    ]);
    expect((await client.callTool({ name: "apply_plan", arguments: { plan } })).isError).toBeFalsy();
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe("def fresh():\n    return 1\n");
    expect((await client.callTool({ name: "undo_last_apply", arguments: {} })).isError).toBeFalsy();
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe(OLD);
    const prompt = await client.getPrompt({ name: "change_with_a_plan", arguments: { task: "rename old" } });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain("Task: rename old");
    await client.close();
  });
});

/** The real command line, spawned as a user runs it. */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GraphSchema } from "@graphplan/graph";

const app = join(import.meta.dirname, "..");
const root = join(app, "..", "..");

function graphplan(...args: string[]) {
  const result = spawnSync(join(app, "node_modules/.bin/tsx"), ["--conditions=source", "src/cli.ts", ...args], {
    cwd: app,
    encoding: "utf8",
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const SAMPLE_VIEW = `FILE: examples/sample/cmd/main.go
  IMPORT: import fmt [line 4]
  IMPORT: import os [line 5]
  STRUCT: Item (lines 8-11)
  METHOD: String (lines 13-15)
  FUNCTION: main (lines 17-25)
FILE: examples/sample/inventory/__init__.py
  IMPORT: from .models import Item [line 2]
  IMPORT: from .models import Stock [line 2]
  IMPORT: from .service import restock [line 3]
FILE: examples/sample/inventory/models.py
  IMPORT: from dataclasses import dataclass [line 1]
  IMPORT: from dataclasses import field [line 1]
  CLASS: Item (lines 5-12)
  FUNCTION: discounted (lines 9-12)
  CLASS: Stock (lines 16-26)
  FUNCTION: add (lines 19-20)
  FUNCTION: remove (lines 22-26)
FILE: examples/sample/inventory/service.py
  IMPORT: import logging [line 1]
  IMPORT: from .models import Item [line 3]
  IMPORT: from .models import Stock [line 3]
  FUNCTION: restock (lines 8-17)
FILE: examples/sample/web/client.ts
  INTERFACE: ItemDto (lines 1-4)
  CLASS: InventoryClient (lines 6-16)
  METHOD: constructor (lines 7-7)
  METHOD: items (lines 9-15)
  FUNCTION: total (lines 18-18)
`;

describe("graphplan graph", () => {
  it("prints the graph view of the sample project", () => {
    const { code, stdout, stderr } = graphplan("graph", "examples/sample");
    expect(stderr).toBe("");
    expect(stdout).toBe(SAMPLE_VIEW);
    expect(code).toBe(0);
  });

  it("prints the Graph JSON with --json", () => {
    const { code, stdout } = graphplan("graph", "--json", "examples/sample/inventory/service.py");
    expect(code).toBe(0);
    const graph = GraphSchema.parse(JSON.parse(stdout));
    expect(graph.symbols).toEqual([
      { name: "restock", kind: "function", file: "examples/sample/inventory/service.py", start_line: 8, end_line: 17 },
    ]);
    expect(graph.line_kinds["examples/sample/inventory/service.py"]).toEqual({
      "11": "for_statement",
      "13": "if_statement",
      "17": "return_statement",
    });
  });

  it("exits 2 with one line on stderr for a path that does not exist", () => {
    const { code, stdout, stderr } = graphplan("graph", "examples/sample", "no/such/file.py");
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe("graphplan: no such file or directory: no/such/file.py\n");
  });

  it("exits 2 with one line on stderr when no path is given or an option is unknown", () => {
    for (const args of [["graph"], ["graph", "--bogus", "examples/sample"]]) {
      const { code, stderr } = graphplan(...args);
      expect(code).toBe(2);
      expect(stderr.trim().split("\n")).toHaveLength(1);
      expect(stderr).toMatch(/^error: /);
    }
  });

  it("reports an unreadable file in errors and exits 0 while another file was read; 2 when none was", async () => {
    const dir = await mkdtemp(join(tmpdir(), "graphplan-cli-"));
    try {
      await writeFile(join(dir, "ok.py"), "def ok():\n    pass\n");
      await symlink("loop.py", join(dir, "loop.py"));
      const some = graphplan("graph", "--json", join(dir, "ok.py"), join(dir, "loop.py"));
      expect(some.code).toBe(0);
      expect(JSON.parse(some.stdout).errors).toEqual([`Cannot read ${join(dir, "loop.py")}: ELOOP`]);
      const none = graphplan("graph", join(dir, "loop.py"));
      expect(none.code).toBe(2);
      expect(none.stderr).toBe(`graphplan: no file could be read (Cannot read ${join(dir, "loop.py")}: ELOOP)\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("runs from the repository root as `pnpm -s graphplan graph apps/agent/examples/sample`", () => {
    const result = spawnSync("pnpm", ["-s", "graphplan", "graph", "apps/agent/examples/sample"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(SAMPLE_VIEW.replaceAll("FILE: examples/", "FILE: apps/agent/examples/"));
  });

  it("runs the README's main job from the repository root: `pnpm -s graphplan demo`", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(readme).toContain("pnpm install --frozen-lockfile && pnpm -s graphplan demo\n");
    const result = spawnSync("pnpm", ["-s", "graphplan", "demo"], { cwd: root, encoding: "utf8" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /fails \(exit 1\)[\s\S]*\[submit\] [\s\S]*\+ {4}return len\(words\(text\)\)\n[\s\S]*\npasses\n/,
    );
  });
});

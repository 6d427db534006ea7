/**
 * The package's three scripts themselves, short, so that CI keeps them running: `bench` on a small tree
 * (one round, one worker), `bench:cache` on a two-commit repository this test makes (plain clone, then
 * bare), `recall` against Universal Ctags (`bash .ci/ctags-setup.sh`) on a bare clone of it; and the
 * usage error (exit 2) of each. The README's figures come from real repositories.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bareClone, makeRepo } from "@graphplan/testkit/git";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "graphplan-bench-graph-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
const script = (file: string, args: string[]) =>
  spawnSync(TSX, ["--expose-gc", "--conditions=source", join(import.meta.dirname, file), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
  });

const SHOP =
  "class Cart:\n    def total(self, items):\n        return sum(items)\n\n\ndef checkout(cart):\n    return cart.total([1, 2])\n";
let commits: [string, string];

beforeAll(() => {
  const repo = makeRepo(root, "work");
  commits = [
    repo.commit({ "shop/cart.py": SHOP, "shop/util.js": "export function twice(x) {\n  return 2 * x;\n}\n" }, "first"),
    repo.commit(
      { "shop/cart.py": SHOP.replace("sum(items)", "sum(items) + 1"), "shop/more.py": "def more():\n    return 1\n" },
      "second",
    ),
  ];
  mkdirSync(join(root, "repos"));
  bareClone(repo, join(root, "repos", "acme__shop"));
});

// Each script is a new process (tsx, the grammars): seconds each, more on a loaded machine.
describe("the graph benchmarks, short", { timeout: 180_000 }, () => {
  it("bench: graphs a tree against ast-grep, one round on one worker", () => {
    const run = script("main.ts", ["work", "--repeat", "1", "--workers", "1"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`graph benchmark: ${join(root, "work")} (`);
    expect(run.stdout).toMatch(/re-graph after a one-file change \(GraphCache\): median [\d.]+ ms/);
  });

  it("bench:cache: the persistent cache at two commits, of a plain clone and of a bare one", () => {
    for (const repo of ["work", "repos/acme__shop"]) {
      const run = script("cache.ts", ["--git-dir", repo, "--commits", commits.join(","), "--repeat", "1"]);
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toContain(
        `persistent graph cache, ${join(root, repo)} ${commits.map((c) => c.slice(0, 7)).join(" → ")}`,
      );
      expect(run.stdout).toMatch(/second commit, B \(2 parsed\)/);
    }
  });

  it("recall: Universal Ctags' definitions found in the graph of a bare clone", () => {
    const version = spawnSync("ctags", ["--version"], { encoding: "utf8" });
    if (!version.stdout?.includes("Universal Ctags"))
      throw new Error("Universal Ctags is not installed: run `bash .ci/ctags-setup.sh` (as root) first");
    const run = script("recall.ts", ["--repos", "repos", "--misses", "0"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^python\s+2\s+4 \/ 4\s+100\.0%\s+acme__shop$/m);
    expect(run.stdout).toMatch(/^javascript\s+1\s+1 \/ 1\s+100\.0%\s+acme__shop$/m);
  });

  it("each prints its usage and exits 2 on bad input", () => {
    for (const [file, args] of [
      ["main.ts", ["work", "--repeat", "x"]],
      ["cache.ts", ["--git-dir", "work", "--commits", "a,b"]],
      ["recall.ts", ["--repos", "nowhere"]],
    ] as const) {
      const run = script(file, [...args]);
      expect(run.status, `${file} ${args.join(" ")}`).toBe(2);
      expect(run.stderr).toContain("usage: pnpm --filter @graphplan/bench-graph ");
    }
  });
});

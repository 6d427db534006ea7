/**
 * The benchmark itself, short: `src/main.ts` on a tiny Python project this test writes, as a plain clone and
 * as a bare one (`--repos` holds both), with a directory that is no clone beside them. CI runs it so that
 * the benchmark cannot rot; the README's figures come from real repositories.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bareClone, git, makeRepo } from "@graphplan/testkit/git";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "graphplan-rename-across-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");

/** Runs the benchmark with its own temporary directory (TMPDIR), from `cwd`. */
function bench(args: string[], cwd: string, temp: string) {
  return spawnSync(TSX, ["--conditions=source", join(import.meta.dirname, "main.ts"), ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, TMPDIR: temp },
  });
}

describe("the rename-across benchmark, short", () => {
  it("renames on a plain and a bare clone, judged by CPython, reads --repos from the caller's folder and leaves no temporary tree", () => {
    const repos = join(root, "repos");
    const repo = makeRepo(root, "work");
    repo.commit({
      "shop/__init__.py": "",
      "shop/prices.py": "def total(items):\n    return sum(items)\n\n\nclass Cart:\n    pass\n",
      "shop/checkout.py": "from shop.prices import total, Cart\n\n\ndef pay(items):\n    return total(items), Cart()\n",
      "shop/report.py": "from shop import prices\n\n\ndef show(items):\n    return prices.total(items)\n",
    });
    mkdirSync(repos);
    git(root, "clone", "-q", repo.dir, join(repos, "acme__plain"));
    bareClone(repo, join(repos, "acme__bare"));
    mkdirSync(join(repos, "acme__notaclone"));
    const temp = join(root, "tmp");
    mkdirSync(temp);
    const run = bench(["--repos", "repos", "--names", "2"], root, temp);
    // Both clones measured, the same way; the directory that is no clone skipped with one line.
    for (const name of ["acme__bare", "acme__plain"]) {
      expect(run.stdout).toContain(
        `${name}: 4 Python files, 2 imported module-level names; 2 renamed across files:\n  renamed 2 (`,
      );
    }
    expect(
      run.stdout.match(/CPython: compile failures 0, symtable\/ast mismatches 0; renaming back differs 0/g),
    ).toHaveLength(2);
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^acme__notaclone: skipped, its HEAD cannot be read \(.*\); give a git clone, bare or plain$/,
      ),
    ]);
    expect(run.status).toBe(1);
    expect(readdirSync(temp).filter((name) => name.startsWith("graphplan-rename-"))).toEqual([]);
  });

  it("prints its usage and exits 2 on bad input", () => {
    for (const args of [[], ["--repos", join(root, "nowhere")], ["--repos", root, "--names", "0"]]) {
      const run = bench(args, root, root);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("Usage: bench [options]");
    }
  });
});

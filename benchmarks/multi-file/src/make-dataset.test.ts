/**
 * The dataset maker itself, short: `src/make-dataset.ts` on two tiny repositories this test writes (a
 * bare clone and a plain one), whose history has commits that change two or three files, add one, or touch one only. CI runs it so that the benchmark cannot rot.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bareClone, git, makeRepo } from "@graphplan/testkit/git";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "graphplan-multi-file-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");

const makeDataset = (args: string[]) =>
  spawnSync(TSX, ["--conditions=source", join(import.meta.dirname, "make-dataset.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
  });

describe("make-dataset, short", () => {
  it("writes the commits that change 2-10 files, from bare and plain clones, with paths from the caller's folder", () => {
    const repo = makeRepo(root, "work");
    const first = repo.commit(
      { "pkg/a.py": "def a():\n    return 1\n", "pkg/b.py": "def b():\n    return 2\n", "README.md": "hi\n" },
      "start",
    );
    const two = repo.commit(
      { "pkg/a.py": "def a():\n    return 10\n", "pkg/b.py": "def b():\n    return 20\n", "README.md": "changed\n" },
      "change both",
    );
    repo.commit({ "pkg/a.py": "def a():\n    return 11\n" }, "one file only");
    const added = repo.commit(
      { "pkg/c.py": "def c():\n    return 3\n", "pkg/b.py": "from pkg.c import c\n\n\ndef b():\n    return c()\n" },
      "add c",
    );
    mkdirSync(join(root, "repos"));
    bareClone(repo, join(root, "repos", "acme__bare"));
    git(root, "clone", "-q", repo.dir, join(root, "repos", "acme__plain"));
    const run = makeDataset(["--repos", "repos", "--out", "multi.jsonl", "--per-repo", "5"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      "multi.jsonl: 4 commits\nacme/bare: 2 commits (1 adding, deleting or renaming a file; 2 eligible of 4 scanned)",
    );
    const lines = readFileSync(join(root, "multi.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { repo: string; instance_id: string; base_commit: string; patch: string });
    expect(lines.map((l) => [l.repo, l.instance_id, l.base_commit])).toEqual([
      ["acme/bare", `acme__bare-${added.slice(0, 10)}`, expect.any(String)],
      ["acme/bare", `acme__bare-${two.slice(0, 10)}`, first],
      ["acme/plain", `acme__plain-${added.slice(0, 10)}`, expect.any(String)],
      ["acme/plain", `acme__plain-${two.slice(0, 10)}`, first],
    ]);
    // The whole commit, docs included.
    expect(lines[1]!.patch).toContain("diff --git a/pkg/a.py b/pkg/a.py");
    expect(lines[1]!.patch).toContain("diff --git a/README.md b/README.md");
  });

  it("prints its usage and exits 2 on bad input", () => {
    for (const args of [
      [],
      ["--repos", "nowhere", "--out", "x.jsonl"],
      ["--repos", root, "--out", "x.jsonl", "--per-repo", "0"],
    ]) {
      const run = makeDataset(args);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("Usage: make-dataset [options]");
    }
  });
});

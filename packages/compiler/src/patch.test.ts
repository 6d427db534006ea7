import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { git, makeRepo } from "@graphplan/testkit";
import { changedBytes, gitDiff, parseUnifiedDiff, PatchError, postImages, preImagePaths } from "./patch.js";

const repo = makeRepo();
afterAll(() => repo.remove());

describe("unified diffs", () => {
  const before = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
  const after = "def f():\n    return 10\n\n\ndef g():\n    return 2\n\n\ndef h():\n    pass";
  const a = repo.commit({ "pkg/m.py": before, "other.py": "x = 1\n" });
  const b = repo.commit({ "pkg/m.py": after });
  const gold = repo.diff(a, b);

  it("computes the post-image of a git diff in memory, without a trailing newline too", () => {
    const files = parseUnifiedDiff(gold);
    expect(files.map((f) => [f.oldPath, f.newPath])).toEqual([["pkg/m.py", "pkg/m.py"]]);
    expect(preImagePaths(files)).toEqual(["pkg/m.py"]);
    expect(postImages(files, new Map([["pkg/m.py", before]])).get("pkg/m.py")).toBe(after);
  });

  it("counts the bytes of removed and added lines, newline included", () => {
    const diff = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-ab\n+abc\n keep\n";
    expect(changedBytes(parseUnifiedDiff(diff))).toBe(3 + 4);
  });

  it("fails with PatchError when the patch does not apply", () => {
    const files = parseUnifiedDiff(gold);
    expect(() => postImages(files, new Map([["pkg/m.py", "something else\n"]]))).toThrow(PatchError);
    expect(() => parseUnifiedDiff("not a diff")).toThrow(PatchError);
  });

  it("writes a diff --git patch that git applies to the base commit", () => {
    const patch = gitDiff(new Map([["pkg/m.py", before]]), new Map([["pkg/m.py", after]]));
    expect(patch.startsWith("diff --git a/pkg/m.py b/pkg/m.py\n--- a/pkg/m.py\n+++ b/pkg/m.py\n@@ ")).toBe(true);
    git(repo.dir, "checkout", "-q", a);
    const file = join(repo.dir, "..", "model.patch");
    writeFileSync(file, patch);
    git(repo.dir, "apply", "--check", file);
    git(repo.dir, "apply", file);
    expect(git(repo.dir, "diff", b, "--", "pkg/m.py")).toBe("");
    git(repo.dir, "checkout", "-q", "--", ".");
    git(repo.dir, "checkout", "-q", "main");
  });

  it("writes created and deleted files with git's headers", () => {
    const patch = gitDiff(
      new Map<string, string | null>([
        ["new.py", null],
        ["old.py", "x\n"],
      ]),
      new Map<string, string | null>([
        ["new.py", "y\n"],
        ["old.py", null],
      ]),
    );
    expect(patch).toContain("diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n");
    expect(patch).toContain("diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n");
    expect(gitDiff(new Map([["same.py", "z\n"]]), new Map([["same.py", "z\n"]]))).toBe("");
  });
});

describe("what git prints", () => {
  it("reads `git show` output: the commit's header and message before the diff are skipped", () => {
    const diff = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n";
    const shown = `commit 0123456789abcdef\nAuthor: A <a@example.com>\nDate:   Fri Nov 27 2026\n\n    Fix it\n    \n    --- not a diff line\n\n${diff}`;
    expect(parseUnifiedDiff(shown).map((f) => f.newPath)).toEqual(["a.txt"]);
    expect(postImages(parseUnifiedDiff(shown), new Map([["a.txt", "a\n"]])).get("a.txt")).toBe("b\n");
  });
});

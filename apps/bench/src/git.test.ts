import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bareClone, makeRepo } from "@graphplan/testkit";
import { GitObjectReader, gitApplyCheck, isGitRepository, NotText, repositoryPath, UnknownRepository } from "./git.js";

const repo = makeRepo();
const first = repo.commit({ "a.py": "x = 1\n", "latin1.py": Buffer.from([0x78, 0x3d, 0xe9, 0x0a]) });
const second = repo.commit({ "a.py": "x = 2\n", "b.py": "y = 1\n" });
const bare = bareClone(repo, join(repo.dir, "..", "bare.git"));
afterAll(() => repo.remove());

describe("reading pre-images from git without a checkout", () => {
  for (const [label, path] of [
    ["a work tree", repo.dir],
    ["a bare repository", bare],
  ] as const) {
    it(`reads files at a commit from ${label}`, async () => {
      const reader = new GitObjectReader("o/r", path);
      try {
        const [a1, a2, b1, b2] = await Promise.all([
          reader.file(first, "a.py"),
          reader.file(second, "a.py"),
          reader.file(first, "b.py"),
          reader.file(second, "b.py"),
        ]);
        expect([a1, a2, b1, b2]).toEqual(["x = 1\n", "x = 2\n", undefined, "y = 1\n"]);
        expect(await reader.commit(first)).toBe(first);
        expect(await reader.commit("0".repeat(40))).toBeUndefined();
      } finally {
        reader.close();
      }
    });
  }

  it("refuses a file that is not UTF-8 (its bytes could not be written back)", async () => {
    const reader = new GitObjectReader("o/r", bare);
    try {
      await expect(reader.file(first, "latin1.py")).rejects.toBeInstanceOf(NotText);
      // The reader stays usable after an error.
      expect(await reader.file(first, "a.py")).toBe("x = 1\n");
    } finally {
      reader.close();
    }
  });

  it("says which repository is missing and how to provide it", () => {
    const path = repositoryPath("nobody/nothing", join(repo.dir, ".."), {});
    expect(path.endsWith("nobody__nothing")).toBe(true);
    expect(isGitRepository(path)).toBe(false);
    expect(() => new GitObjectReader("nobody/nothing", path)).toThrow(UnknownRepository);
    expect(repositoryPath("nobody/nothing", undefined, { "nobody/nothing": bare })).toBe(bare);
  });

  it("checks a patch with git apply against the base commit, without a work tree", async () => {
    const good = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 3\n";
    expect(await gitApplyCheck(bare, first, good)).toBeUndefined();
    // The same patch does not apply at the second commit (a.py is x = 2 there).
    expect(await gitApplyCheck(bare, second, good)).toMatch(/patch does not apply|error/);
  });
});

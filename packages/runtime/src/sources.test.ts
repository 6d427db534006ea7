import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findSourceFiles } from "./sources.js";
import { tempDir } from "./fixtures/tmp.js";

describe("findSourceFiles", () => {
  it("lists supported files relative to the directory, sorted, skipping node_modules, .git and directory symlinks", async () => {
    const root = tempDir();
    for (const dir of ["src/deep", "node_modules/x", ".git/hooks", ".github", "outside"])
      mkdirSync(join(root, dir), { recursive: true });
    for (const file of [
      "src/a.py",
      "src/deep/B.TS",
      "src/notes.txt",
      "node_modules/x/i.js",
      ".git/hooks/h.py",
      ".github/c.py",
      "outside/o.go",
    ]) {
      writeFileSync(join(root, file), "");
    }
    symlinkSync(join(root, "outside"), join(root, "src/link"));
    expect(await findSourceFiles(root)).toEqual([".github/c.py", "outside/o.go", "src/a.py", "src/deep/B.TS"]);
  });
});

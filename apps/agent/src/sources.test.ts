import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NoSourceFiles, PathNotFound, readSources, walk } from "./sources.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "graphplan-sources-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function put(relative: string, text = "x = 1\n"): Promise<string> {
  const path = join(dir, relative);
  await mkdir(join(path, ".."), { recursive: true });
  await writeFile(path, text);
  return path;
}

describe("walk", () => {
  it("finds source files and documents (data, Markdown, reST) at any depth, skipping node_modules, .git and symbolic links to folders, but not other dot folders", async () => {
    await put("src/a.py");
    await put("src/deep/er/b.TS");
    await put("src/notes.md");
    await put("src/notes.txt");
    await put(".github/workflows/ci.yml");
    await put("node_modules/lib/index.js");
    await put("src/node_modules/x.js");
    await put(".git/hooks/hook.py");
    await put(".github/scripts/check.py");
    await symlink(join(dir, "src"), join(dir, "linked"));
    expect(await walk(dir)).toEqual([
      join(dir, ".github/scripts/check.py"),
      join(dir, ".github/workflows/ci.yml"),
      join(dir, "src/a.py"),
      join(dir, "src/deep/er/b.TS"),
      join(dir, "src/notes.md"),
    ]);
  });
});

describe("readSources", () => {
  it("reads named files whatever their extension, and walks directories", async () => {
    const notes = await put("notes.txt", "hello");
    await put("pkg/m.py", "import os\n");
    const { files, errors } = await readSources([notes, join(dir, "pkg")]);
    expect(files).toEqual([
      { path: notes, source: "hello" },
      { path: join(dir, "pkg/m.py"), source: "import os\n" },
    ]);
    expect(errors).toEqual([]);
  });

  it("reads a file named twice once", async () => {
    const a = await put("a.py");
    expect((await readSources([a, a, dir])).files.map((f) => f.path)).toEqual([a]);
  });

  it("throws PathNotFound for a path that does not exist", async () => {
    await expect(readSources([join(dir, "missing.py")])).rejects.toBeInstanceOf(PathNotFound);
  });

  it("turns a file that exists but cannot be read into an error entry", async () => {
    const good = await put("good.py");
    await symlink("loop.py", join(dir, "loop.py"));
    const { files, errors } = await readSources([good, join(dir, "loop.py")]);
    expect(files.map((f) => f.path)).toEqual([good]);
    expect(errors).toEqual([`Cannot read ${join(dir, "loop.py")}: ELOOP`]);
  });

  it("throws NoSourceFiles when nothing could be read", async () => {
    await put("notes.txt", "nothing to graph");
    const empty = readSources([dir]);
    await expect(empty).rejects.toBeInstanceOf(NoSourceFiles);
    await expect(empty).rejects.toThrow(/^no supported source files in .* \(GraphPlan reads \.py/);
    await symlink("loop.py", join(dir, "loop.py"));
    await expect(readSources([join(dir, "loop.py")])).rejects.toThrow(
      /^no file could be read \(Cannot read .*loop\.py: ELOOP\)$/,
    );
  });
});

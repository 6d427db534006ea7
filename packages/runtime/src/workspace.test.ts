import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import type * as Layer from "effect/Layer";
import { describe, expect, it } from "vitest";
import { snapshot, tempDir } from "./fixtures/tmp.js";
import type { WorkspaceRootInvalid } from "./errors.js";
import { Workspace } from "./workspace.js";

const run = <A, E>(effect: Effect.Effect<A, E, Workspace>, layer: Layer.Layer<Workspace, WorkspaceRootInvalid>) =>
  Effect.runPromise(Effect.provide(effect, layer));
const fail = <A, E>(effect: Effect.Effect<A, E, Workspace>, layer: Layer.Layer<Workspace, WorkspaceRootInvalid>) =>
  Effect.runPromise(Effect.flip(Effect.provide(effect, layer)));

/** The contract every Workspace layer keeps, run over the local directory and the in-memory layer. */
const layers: Array<[string, (files: Record<string, string>) => Layer.Layer<Workspace, WorkspaceRootInvalid>]> = [
  [
    "layer (local directory)",
    (files) => {
      const root = tempDir();
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(join(root, path, ".."), { recursive: true });
        writeFileSync(join(root, path), text);
      }
      return Workspace.layer(root);
    },
  ],
  ["layerMemory", (files) => Workspace.layerMemory(files)],
];

describe.each(layers)("Workspace contract: %s", (_name, make) => {
  it("reads what it writes, creating parent directories", async () => {
    const layer = make({ "a.txt": "old" });
    const out = await run(
      Effect.gen(function* () {
        const ws = yield* Workspace;
        const before = yield* ws.read("a.txt");
        yield* ws.write("a.txt", "new é");
        yield* ws.write("deep/er/b.txt", "b");
        return [before, yield* ws.read("a.txt"), yield* ws.read("./deep/er/b.txt"), yield* ws.exists("deep/er")];
      }),
      layer,
    );
    expect(out).toEqual(["old", "new é", "b", true]);
  });

  it("rejects absolute paths and '..' segments with PathOutsideWorkspace", async () => {
    const layer = make({ "a.txt": "x" });
    for (const path of ["/etc/passwd", "../a.txt", "sub/../../a.txt", "sub/../a.txt", "C:\\x", ""]) {
      const error = await fail(
        Workspace.use((ws) => ws.read(path)),
        layer,
      );
      expect(error._tag, path).toBe("PathOutsideWorkspace");
      const writeError = await fail(
        Workspace.use((ws) => ws.write(path, "y")),
        layer,
      );
      expect(writeError._tag, path).toBe("PathOutsideWorkspace");
    }
    const error = await fail(
      Workspace.use((ws) => ws.exists("../x")),
      layer,
    );
    expect(error.message).toContain('".." segment');
  });

  it("reports a missing file as FileNotFound and answers exists", async () => {
    const layer = make({ "src/a.py": "x" });
    const error = await fail(
      Workspace.use((ws) => ws.read("src/nope.py")),
      layer,
    );
    expect(error._tag).toBe("FileNotFound");
    expect(error.message).toContain('"src/nope.py" does not exist');
    const found = await run(
      Workspace.use((ws) => Effect.all([ws.exists("src/a.py"), ws.exists("src"), ws.exists("src/nope.py")])),
      layer,
    );
    expect(found).toEqual([true, true, false]);
  });

  it("lists a directory's entries sorted by name, and FileNotFound for a missing one", async () => {
    const layer = make({ "b.txt": "", "a/x.py": "", "a/sub/y.py": "" });
    const entries = await run(
      Workspace.use((ws) => Effect.all([ws.list("."), ws.list("a")])),
      layer,
    );
    expect(entries[0].map((e) => [e.path, e.kind])).toEqual([
      ["a", "directory"],
      ["b.txt", "file"],
    ]);
    expect(entries[1].map((e) => [e.path, e.kind])).toEqual([
      ["a/sub", "directory"],
      ["a/x.py", "file"],
    ]);
    expect(
      (
        await fail(
          Workspace.use((ws) => ws.list("missing")),
          layer,
        )
      )._tag,
    ).toBe("FileNotFound");
  });

  it("removes files, answers false for a missing path and keeps a non-empty directory", async () => {
    const layer = make({ "a/x.py": "x", "b.txt": "b" });
    const out = await run(
      Workspace.use((ws) =>
        Effect.all([ws.remove("b.txt"), ws.remove("b.txt"), ws.remove("a"), ws.exists("a/x.py"), ws.exists("b.txt")]),
      ),
      layer,
    );
    expect(out).toEqual([true, false, false, true, false]);
  });

  it("refuses bytes that are not UTF-8 as text but reads them as bytes, and keeps a BOM and CRLF byte-identical", async () => {
    const layer = make({});
    const bom = Uint8Array.from([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a]);
    const out = await run(
      Effect.gen(function* () {
        const ws = yield* Workspace;
        yield* ws.writeBytes("latin1.txt", Uint8Array.from([0x63, 0x61, 0x66, 0xe9]));
        yield* ws.writeBytes("bom.txt", bom);
        const error = yield* Effect.flip(ws.read("latin1.txt"));
        yield* ws.write("bom.txt", yield* ws.read("bom.txt"));
        return { error, bytes: [...(yield* ws.readBytes("latin1.txt"))], bom: [...(yield* ws.readBytes("bom.txt"))] };
      }),
      layer,
    );
    expect(out.error._tag).toBe("NotUtf8Text");
    expect(out.bytes).toEqual([0x63, 0x61, 0x66, 0xe9]);
    expect(out.bom).toEqual([...bom]);
  });
});

describe("Workspace.layer (local directory)", () => {
  it("fails with WorkspaceRootInvalid when the root is missing or a file", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "file"), "");
    for (const root of [join(dir, "missing"), join(dir, "file")]) {
      const error = await Effect.runPromise(
        Effect.flip(
          Effect.provide(
            Workspace.use((ws) => ws.exists("x")),
            Workspace.layer(root),
          ),
        ),
      );
      expect(error._tag).toBe("WorkspaceRootInvalid");
    }
  });

  it("writes atomically: no temporary file is left, the permission bits are kept", async () => {
    const root = tempDir();
    writeFileSync(join(root, "run.sh"), "echo old\n");
    chmodSync(join(root, "run.sh"), 0o751);
    await run(
      Workspace.use((ws) => ws.write("run.sh", "echo new\n")),
      Workspace.layer(root),
    );
    expect(readFileSync(join(root, "run.sh"), "utf8")).toBe("echo new\n");
    expect(statSync(join(root, "run.sh")).mode & 0o777).toBe(0o751);
    expect(readdirSync(root)).toEqual(["run.sh"]);
  });

  it("rejects a symlinked directory leading outside the root before reading or writing anything", async () => {
    const outside = tempDir("graphplan-outside-");
    const root = tempDir();
    execFileSync("mkfifo", [join(outside, "fifo")]); // reading a FIFO with no writer would hang the test
    writeFileSync(join(outside, "secret.txt"), "secret");
    symlinkSync(outside, join(root, "link"));
    const layer = Workspace.layer(root);
    for (const path of ["link/fifo", "link/secret.txt", "link/new.txt", "link"]) {
      const error = await fail(
        Workspace.use((ws) => ws.readBytes(path)),
        layer,
      );
      expect(error._tag, path).toBe("PathOutsideWorkspace");
      expect(error.message).toContain(`resolves to ${outside}`);
    }
    const writeError = await fail(
      Workspace.use((ws) => ws.write("link/new.txt", "x")),
      layer,
    );
    expect(writeError._tag).toBe("PathOutsideWorkspace");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    expect(
      (
        await fail(
          Workspace.use((ws) => ws.list("link")),
          layer,
        )
      )._tag,
    ).toBe("PathOutsideWorkspace");
  });

  it("rejects a symlinked file and a dangling symlink that point outside the root", async () => {
    const outside = tempDir("graphplan-outside-");
    const root = tempDir();
    writeFileSync(join(outside, "secret.txt"), "secret");
    symlinkSync(join(outside, "secret.txt"), join(root, "file-link"));
    symlinkSync(join(outside, "not-yet.txt"), join(root, "dangling"));
    const layer = Workspace.layer(root);
    expect(
      (
        await fail(
          Workspace.use((ws) => ws.read("file-link")),
          layer,
        )
      )._tag,
    ).toBe("PathOutsideWorkspace");
    expect(
      (
        await fail(
          Workspace.use((ws) => ws.write("file-link", "x")),
          layer,
        )
      )._tag,
    ).toBe("PathOutsideWorkspace");
    expect(
      (
        await fail(
          Workspace.use((ws) => ws.write("dangling", "x")),
          layer,
        )
      )._tag,
    ).toBe("PathOutsideWorkspace");
    expect(
      (
        await fail(
          Workspace.use((ws) => ws.remove("file-link")),
          layer,
        )
      )._tag,
    ).toBe("PathOutsideWorkspace");
    expect(snapshot(outside)).toEqual({ "secret.txt": Buffer.from("secret").toString("hex") });
  });

  it("follows symlinks that stay inside the root, writing the target and keeping the link", async () => {
    const root = tempDir();
    mkdirSync(join(root, "real"));
    writeFileSync(join(root, "real", "a.py"), "old");
    symlinkSync(join(root, "real"), join(root, "alias"));
    symlinkSync("real/a.py", join(root, "a-link.py"));
    const layer = Workspace.layer(root);
    await run(
      Workspace.use((ws) => ws.write("a-link.py", "new")),
      layer,
    );
    expect(
      await run(
        Workspace.use((ws) => ws.read("alias/a.py")),
        layer,
      ),
    ).toBe("new");
    expect(snapshot(root)).toEqual({
      "a-link.py": "-> real/a.py",
      alias: `-> ${join(root, "real")}`,
      "real/": "dir",
      "real/a.py": Buffer.from("new").toString("hex"),
    });
  });

  it("works when the root itself is reached through a symlink", async () => {
    const real = tempDir();
    const holder = tempDir();
    writeFileSync(join(real, "a.txt"), "a");
    symlinkSync(real, join(holder, "root"));
    const layer = Workspace.layer(join(holder, "root"));
    await run(
      Workspace.use((ws) => ws.write("a.txt", "b")),
      layer,
    );
    expect(readFileSync(join(real, "a.txt"), "utf8")).toBe("b");
  });
});

/**
 * The Workspace service: the files of one project, addressed by paths relative to its root, and never a
 * byte outside it. Every operation is an Effect over a path string, so the same interface can be
 * implemented over a local directory (here), an in-memory map (tests) or a container (`docker exec`).
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import * as Context from "effect/Context";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { FileNotFound, NotUtf8Text, PathOutsideWorkspace, WorkspaceIOError, WorkspaceRootInvalid } from "./errors.js";
import { confine } from "./paths.js";

export interface WorkspaceEntry {
  readonly name: string;
  /** Relative to the workspace root. */
  readonly path: string;
  readonly kind: "file" | "directory" | "symlink" | "other";
}

/**
 * Operations on the workspace. Every path is relative to the root; a path that is absolute, has a `..`
 * segment or resolves outside the root through a symlink fails with `PathOutsideWorkspace` before the
 * file is touched.
 *
 * Contract for implementations (a container-backed one included):
 * - `writeBytes`/`write` are atomic: after a crash the file holds either its old or its new bytes,
 *   never a mix. A write may leave a temporary file `<name>${TEMP_MARKER}<anything>` next to the
 *   target if the process dies mid-way; `recover` removes those. Missing parent directories are created.
 *   An existing file keeps its permission bits.
 * - `remove` deletes a file or an empty directory and answers whether something was removed; a missing
 *   path or a non-empty directory is left alone (false).
 */
export interface WorkspaceShape {
  /** Where the workspace lives, for messages (a directory path, or e.g. `container:abc:/repo`). */
  readonly root: string;
  /**
   * The files do not outlive this process: they live only in a container that is removed when the
   * process ends (an instance container, no bind mount). A crash then leaves nothing to recover, so
   * such a workspace need not make its writes atomic and `applyPlan` writes no journal (a write that
   * fails is still rolled back at once, in the process). Absent: the files are durable.
   */
  readonly ephemeral?: boolean;
  readonly readBytes: (
    path: string,
  ) => Effect.Effect<Uint8Array, PathOutsideWorkspace | FileNotFound | WorkspaceIOError>;
  /** The file as UTF-8 text (a byte-order mark is kept as U+FEFF so writing the text back is byte-identical). */
  readonly read: (
    path: string,
  ) => Effect.Effect<string, PathOutsideWorkspace | FileNotFound | NotUtf8Text | WorkspaceIOError>;
  readonly writeBytes: (
    path: string,
    bytes: Uint8Array,
  ) => Effect.Effect<void, PathOutsideWorkspace | WorkspaceIOError>;
  readonly write: (path: string, text: string) => Effect.Effect<void, PathOutsideWorkspace | WorkspaceIOError>;
  readonly exists: (path: string) => Effect.Effect<boolean, PathOutsideWorkspace | WorkspaceIOError>;
  /** The entries directly inside a directory (`"."` is the root), sorted by name. */
  readonly list: (
    dir: string,
  ) => Effect.Effect<ReadonlyArray<WorkspaceEntry>, PathOutsideWorkspace | FileNotFound | WorkspaceIOError>;
  readonly remove: (path: string) => Effect.Effect<boolean, PathOutsideWorkspace | WorkspaceIOError>;
  /** Whether a file is executable (git's mode 100755 rather than 100644). */
  readonly executable: (path: string) => Effect.Effect<boolean, PathOutsideWorkspace | FileNotFound | WorkspaceIOError>;
  /** Makes a file executable for everyone who may read it (`chmod a+x` as git does), or not. */
  readonly setExecutable: (
    path: string,
    executable: boolean,
  ) => Effect.Effect<void, PathOutsideWorkspace | FileNotFound | WorkspaceIOError>;
}

/** The texts of `paths` read through the Workspace; a file that is missing, outside the root or not text is left out. */
export function readTexts(paths: Iterable<string>): Effect.Effect<Map<string, string>, never, Workspace> {
  return Effect.gen(function* () {
    const ws = yield* Workspace;
    const files = new Map<string, string>();
    for (const path of paths) {
      const text = yield* ws.read(path).pipe(Effect.orElseSucceed(() => undefined));
      if (text !== undefined) files.set(path, text);
    }
    return files;
  });
}

/** A file's permission bits with the execute bits git's mode 100755 gives (x wherever r is) or takes away. */
export function withExecutable(mode: number, executable: boolean): number {
  return executable ? mode | ((mode & 0o444) >> 2) : mode & ~0o111;
}

/** Marks the temporary files of atomic writes: `<name>.graphplan-tmp-<pid>-<random>`. */
export const TEMP_MARKER = ".graphplan-tmp-";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** UTF-8 decoding that refuses invalid bytes instead of replacing them (a lossy read would corrupt the file on write). */
export function decodeText(path: string, bytes: Uint8Array): Effect.Effect<string, NotUtf8Text> {
  return Effect.try({ try: () => decoder.decode(bytes), catch: () => new NotUtf8Text({ path }) });
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

const errno = (error: unknown): string | undefined =>
  error && typeof error === "object" && "code" in error && typeof error.code === "string" ? error.code : undefined;
const detail = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export class Workspace extends Context.Service<Workspace, WorkspaceShape>()("@graphplan/runtime/Workspace") {
  /** A workspace over a local directory. Fails with `WorkspaceRootInvalid` when `root` is not a directory. */
  static layer(root: string): Layer.Layer<Workspace, WorkspaceRootInvalid> {
    return Layer.effect(
      Workspace,
      Effect.tryPromise({
        try: async () => {
          const rootReal = await fs.realpath(resolve(root));
          if (!(await fs.stat(rootReal)).isDirectory()) throw new Error("not a directory");
          return makeLocal(resolve(root), rootReal);
        },
        catch: (error) => new WorkspaceRootInvalid({ root, detail: detail(error) }),
      }),
    );
  }

  /**
   * A workspace in memory, seeded with `files` (path → text or bytes): for simulations (the gold
   * replay applies each plan in one) and tests. It rejects absolute and `..` paths like the live one;
   * it has no symlinks and no directories other than those implied by files.
   */
  static layerMemory(
    files: Iterable<readonly [string, string | Uint8Array]> | Record<string, string | Uint8Array> = {},
  ): Layer.Layer<Workspace> {
    return Layer.sync(Workspace, () => makeMemory(files));
  }
}

// ---------------------------------------------------------------------------------------------------
// Live: a local directory.

/** Long on purpose: the live Workspace service: its methods (read, write, exists, list, remove, …) share the root and its symlink confinement, as a service implementation does. */
function makeLocal(rootShown: string, rootReal: string): WorkspaceShape {
  const rootPrefix = rootReal.endsWith(sep) ? rootReal : rootReal + sep;
  const inside = (real: string) => real === rootReal || real.startsWith(rootPrefix);

  /**
   * The real path `abs` designates, following symlinks, or why it is outside the root. The deepest
   * existing ancestor is resolved with realpath; a dangling symlink is followed to its target.
   */
  const resolveReal = async (
    abs: string,
    depth = 0,
  ): Promise<{ ok: true; real: string } | { ok: false; reason: string }> => {
    if (depth > 40) return { ok: false, reason: "too many levels of symlinks" };
    let current = abs;
    const rest: string[] = [];
    for (;;) {
      try {
        const real = await fs.realpath(current);
        if (!inside(real)) return { ok: false, reason: `it resolves to ${join(real, ...rest)} through a symlink` };
        return { ok: true, real: join(real, ...rest) };
      } catch (error) {
        const code = errno(error);
        if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      }
      const stat = await fs.lstat(current).catch(() => undefined);
      if (stat?.isSymbolicLink()) {
        // A dangling symlink: where it points decides.
        const parent = await fs.realpath(dirname(current));
        const target = resolve(parent, await fs.readlink(current));
        return resolveReal(join(target, ...rest), depth + 1);
      }
      const parent = dirname(current);
      if (parent === current) return { ok: false, reason: "no part of it exists" };
      rest.unshift(basename(current));
      current = parent;
    }
  };

  const locate = (path: string, operation: WorkspaceIOError["operation"]) =>
    Effect.gen(function* () {
      const lexical = confine(path);
      if (!lexical.ok) return yield* new PathOutsideWorkspace({ path, root: rootShown, reason: lexical.reason });
      const resolved = yield* Effect.tryPromise({
        try: () => resolveReal(join(rootReal, lexical.path)),
        catch: (error) => new WorkspaceIOError({ operation, path, detail: detail(error) }),
      });
      if (!resolved.ok) return yield* new PathOutsideWorkspace({ path, root: rootShown, reason: resolved.reason });
      return { rel: lexical.path, real: resolved.real };
    });

  const io = <A>(operation: WorkspaceIOError["operation"], path: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (error) => new WorkspaceIOError({ operation, path, detail: detail(error) }) });
  /** Like `io`, but a missing file is `FileNotFound`. */
  const ioFind = <A>(operation: WorkspaceIOError["operation"], path: string, run: () => Promise<A>) =>
    Effect.tryPromise({
      try: run,
      catch: (error) =>
        errno(error) === "ENOENT"
          ? new FileNotFound({ path, root: rootShown })
          : new WorkspaceIOError({ operation, path, detail: detail(error) }),
    });

  const readBytes: WorkspaceShape["readBytes"] = (path) =>
    Effect.gen(function* () {
      const { real } = yield* locate(path, "read");
      const buffer = yield* ioFind("read", path, () => fs.readFile(real));
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    });

  const writeBytes: WorkspaceShape["writeBytes"] = (path, bytes) =>
    Effect.gen(function* () {
      const { real } = yield* locate(path, "write");
      yield* io("write", path, () => atomicWrite(real, bytes));
    });

  return {
    root: rootShown,
    readBytes,
    read: (path) => Effect.flatMap(readBytes(path), (bytes) => decodeText(path, bytes)),
    writeBytes,
    write: (path, text) => writeBytes(path, encodeText(text)),
    exists: (path) =>
      Effect.gen(function* () {
        const { real } = yield* locate(path, "exists");
        return yield* io("exists", path, () =>
          fs.stat(real).then(
            () => true,
            (error) => {
              if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return false;
              throw error;
            },
          ),
        );
      }),
    list: (dir) =>
      Effect.gen(function* () {
        const { rel, real } = yield* locate(dir, "list");
        const entries = yield* ioFind("list", dir, () => fs.readdir(real, { withFileTypes: true }));
        return entries
          .map(
            (entry): WorkspaceEntry => ({
              name: entry.name,
              path: rel === "." ? entry.name : `${rel}/${entry.name}`,
              kind: entry.isFile()
                ? "file"
                : entry.isDirectory()
                  ? "directory"
                  : entry.isSymbolicLink()
                    ? "symlink"
                    : "other",
            }),
          )
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      }),
    executable: (path) =>
      Effect.gen(function* () {
        const { real } = yield* locate(path, "read");
        const stat = yield* ioFind("read", path, () => fs.stat(real));
        return (stat.mode & 0o100) !== 0;
      }),
    setExecutable: (path, executable) =>
      Effect.gen(function* () {
        const { real } = yield* locate(path, "write");
        const stat = yield* ioFind("write", path, () => fs.stat(real));
        yield* io("write", path, () => fs.chmod(real, withExecutable(stat.mode & 0o7777, executable)));
      }),
    remove: (path) =>
      Effect.gen(function* () {
        const { real } = yield* locate(path, "remove");
        if (real === rootReal) return false;
        return yield* io("remove", path, async () => {
          const stat = await fs.lstat(real).catch((error) => {
            if (errno(error) === "ENOENT" || errno(error) === "ENOTDIR") return undefined;
            throw error;
          });
          if (!stat) return false;
          if (!stat.isDirectory()) {
            await fs.unlink(real);
          } else {
            try {
              await fs.rmdir(real);
            } catch (error) {
              if (errno(error) === "ENOTEMPTY" || errno(error) === "EEXIST") return false;
              throw error;
            }
          }
          await syncDir(dirname(real));
          return true;
        });
      }),
  };
}

/** Write `bytes` to `target` through a synced temporary file in the same directory and a rename. */
async function atomicWrite(target: string, bytes: Uint8Array): Promise<void> {
  const dir = dirname(target);
  await fs.mkdir(dir, { recursive: true });
  const mode = await fs.stat(target).then(
    (stat) => stat.mode & 0o7777,
    () => undefined,
  );
  const temp = join(dir, `${basename(target)}${TEMP_MARKER}${process.pid}-${randomBytes(6).toString("hex")}`);
  try {
    const handle = await fs.open(temp, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(bytes);
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  await syncDir(dir);
}

/** Make a rename or unlink in `dir` durable. */
async function syncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------------
// Test: in memory.

function makeMemory(
  seed: Iterable<readonly [string, string | Uint8Array]> | Record<string, string | Uint8Array>,
): WorkspaceShape {
  const root = "memory:";
  const files = new Map<string, Uint8Array>();
  const executables = new Set<string>();
  const entries =
    Symbol.iterator in seed ? [...(seed as Iterable<readonly [string, string | Uint8Array]>)] : Object.entries(seed);
  for (const [path, content] of entries) {
    const lexical = confine(path);
    if (!lexical.ok) throw new Error(`layerMemory: ${path}: ${lexical.reason}`);
    files.set(lexical.path, typeof content === "string" ? encodeText(content) : Uint8Array.from(content));
  }
  const isDir = (rel: string) => rel === "." || [...files.keys()].some((f) => f.startsWith(`${rel}/`));
  const locate = (path: string) => {
    const lexical = confine(path);
    return lexical.ok
      ? Effect.succeed(lexical.path)
      : Effect.fail(new PathOutsideWorkspace({ path, root, reason: lexical.reason }));
  };

  const readBytes: WorkspaceShape["readBytes"] = (path) =>
    Effect.flatMap(locate(path), (rel): Effect.Effect<Uint8Array, FileNotFound | WorkspaceIOError> => {
      const bytes = files.get(rel);
      if (bytes) return Effect.succeed(Uint8Array.from(bytes));
      return isDir(rel)
        ? Effect.fail(new WorkspaceIOError({ operation: "read", path, detail: "it is a directory" }))
        : Effect.fail(new FileNotFound({ path, root }));
    });
  const writeBytes: WorkspaceShape["writeBytes"] = (path, bytes) =>
    Effect.flatMap(locate(path), (rel): Effect.Effect<void, WorkspaceIOError> => {
      if (isDir(rel))
        return Effect.fail(new WorkspaceIOError({ operation: "write", path, detail: "it is a directory" }));
      const parents = rel
        .split("/")
        .slice(0, -1)
        .map((_, i, all) => all.slice(0, i + 1).join("/"));
      const blocking = parents.find((p) => files.has(p));
      if (blocking)
        return Effect.fail(new WorkspaceIOError({ operation: "write", path, detail: `"${blocking}" is a file` }));
      files.set(rel, Uint8Array.from(bytes));
      return Effect.void;
    });

  return {
    root,
    readBytes,
    read: (path) => Effect.flatMap(readBytes(path), (bytes) => decodeText(path, bytes)),
    writeBytes,
    write: (path, text) => writeBytes(path, encodeText(text)),
    exists: (path) => Effect.map(locate(path), (rel) => files.has(rel) || isDir(rel)),
    list: (dir) =>
      Effect.flatMap(locate(dir), (rel): Effect.Effect<ReadonlyArray<WorkspaceEntry>, FileNotFound> => {
        if (!isDir(rel)) return Effect.fail(new FileNotFound({ path: dir, root }));
        const prefix = rel === "." ? "" : `${rel}/`;
        const children = new Map<string, WorkspaceEntry>();
        for (const file of files.keys()) {
          if (!file.startsWith(prefix)) continue;
          const [name, ...deeper] = file.slice(prefix.length).split("/");
          if (name === undefined || children.has(name)) continue;
          children.set(name, { name, path: prefix + name, kind: deeper.length > 0 ? "directory" : "file" });
        }
        return Effect.succeed([...children.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
      }),
    remove: (path) =>
      Effect.map(locate(path), (rel) => {
        executables.delete(rel);
        return files.delete(rel);
      }),
    executable: (path) =>
      Effect.flatMap(locate(path), (rel) =>
        files.has(rel) ? Effect.succeed(executables.has(rel)) : Effect.fail(new FileNotFound({ path, root })),
      ),
    setExecutable: (path, executable) =>
      Effect.flatMap(locate(path), (rel): Effect.Effect<void, FileNotFound> => {
        if (!files.has(rel)) return Effect.fail(new FileNotFound({ path, root }));
        if (executable) executables.add(rel);
        else executables.delete(rel);
        return Effect.void;
      }),
  };
}

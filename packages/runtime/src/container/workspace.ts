/**
 * The workspace and the sandbox of one container: the repository lives in the container (e.g. a
 * SWE-bench image's /testbed), files are read and written through the engine — no bind mount — and
 * the model's commands run there, in the image's own environment.
 *
 * Reads come from a snapshot of the work tree (.git left out): the first read takes it in one exec,
 * a `find` (every path, size, mtime and mode) and a `tar` of every file (or, with `prefetch`, of the
 * files with those endings: any other is read on its first use); after a command ran — it may have
 * changed any file — the next read lists the tree again and reads only the files that are new or whose
 * size, mtime or mode changed (the check git makes with core.checkStat=minimal). The workspace's own writes update it as they go. Writes are atomic: the bytes go to a temporary file next to
 * the target (tar through the engine), which `mv` renames over it, keeping the target's mode. In an
 * `ephemeral` session (the repository lives only in this container, which dies with the process)
 * the bytes go straight to the target with its mode, in one copy: a crash leaves nothing to
 * recover, and each command saved is a round trip to the engine.
 */
import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import * as Effect from "effect/Effect";
import * as tar from "tar-stream";
import { FileNotFound, PathOutsideWorkspace, WorkspaceIOError } from "../errors.js";
import { confine } from "../paths.js";
import type { ExecOptions, ExecResult, SandboxShape } from "../sandbox/sandbox.js";
import { SandboxFailed } from "../sandbox/sandbox.js";
import {
  decodeText,
  encodeText,
  TEMP_MARKER,
  withExecutable,
  type WorkspaceEntry,
  type WorkspaceShape,
} from "../workspace.js";
import type { ContainerShape } from "./engine.js";

interface Snapshot {
  readonly files: Map<string, Uint8Array>;
  /** Size, modification time and permission bits (octal) of each file when it was read (to see what a command changed). */
  readonly meta: Map<string, string>;
  /** Directories (relative, "." for the root) → their entries' names and kinds. */
  readonly dirs: Map<string, Map<string, WorkspaceEntry["kind"]>>;
  /** Symbolic links → their targets. */
  readonly links: Map<string, string>;
}

export interface ContainerSession {
  readonly workspace: WorkspaceShape;
  readonly sandbox: SandboxShape;
}

export interface ContainerSessionOptions {
  /** The repository's directory in the container (absolute), e.g. /testbed. */
  readonly root: string;
  /** Environment of every command, e.g. `{ BASH_ENV: "/root/.bashrc" }` (as mini-swe-agent runs commands). */
  readonly env?: Readonly<Record<string, string>>;
  /** Default timeout of a command (default 120 s). */
  readonly timeoutMs?: number;
  /**
   * The repository lives only in this container, which is removed when the process ends (no bind
   * mount): the workspace is `ephemeral` (see `WorkspaceShape`), and writes copy the bytes straight
   * to the target. Default false: writes go through a temporary file and a rename.
   */
  readonly ephemeral?: boolean;
  /**
   * File-name endings (`.py`, matched without regard to case) whose contents every snapshot reads
   * at once; any other file is read on its first use, one exec each. For a repository whose work tree
   * is mostly files the caller never reads (django: 42 MB, of which 18 MB are source). Default: every file.
   */
  readonly prefetch?: readonly string[];
}

/** Every file (with size, mtime and permission bits), directory and symlink under the root, .git left out: one `find`. */
const LISTING = String.raw`find . -path ./.git -prune -o \( -type f -printf 'f\t%P\t%s %T@ %m\0' \) -o \( -type d -printf 'd\t%P\0' \) -o \( -type l -printf 'l\t%P\t%l\0' \) -o -printf 'o\t%P\0'`;

/**
 * The first snapshot in one exec (each exec is a round trip to the engine): the listing written to
 * a temporary file `$1`, which tar puts first in its archive, then every file the listing names,
 * from the root `$2`.
 */
const FIRST_SNAPSHOT = `l="$1"; r="$2"; shift 2; ${LISTING} >"$l" && find . -path ./.git -prune -o -type f \\( "$@" \\) -printf '%P\\0' >"$l.files" && tar -cf - -C / "\${l#/}" -C "$r" --null -T "$l.files"; s=$?; rm -f "$l" "$l.files"; exit $s`;

/** The `find` tests of the files to prefetch (`-true`: all), as the arguments after FIRST_SNAPSHOT's first two. */
const prefetchTests = (endings: readonly string[] | undefined): string[] =>
  endings === undefined
    ? ["-true"]
    : endings.length === 0
      ? ["-false"]
      : endings.flatMap((ending, i) => [...(i ? ["-o"] : []), "-iname", `*${ending}`]);

interface Listing {
  readonly files: Map<string, string>;
  readonly dirs: string[];
  readonly links: Map<string, string>;
  readonly others: string[];
}

function parseListing(text: string): Listing {
  const listing: Listing = { files: new Map(), dirs: [], links: new Map(), others: [] };
  for (const record of text.split("\0")) {
    if (record === "") continue;
    const [kind, path = "", extra = ""] = record.split("\t");
    if (path === "") continue;
    if (kind === "f") listing.files.set(path, extra);
    else if (kind === "d") listing.dirs.push(path);
    else if (kind === "l") listing.links.set(path, extra);
    else listing.others.push(path);
  }
  return listing;
}

/** The snapshot's tree (directories, links) from a listing; file contents are kept where their size and mtime did not change. */
function fromListing(listing: Listing, previous: Snapshot | undefined): { snapshot: Snapshot; missing: string[] } {
  const snapshot: Snapshot = {
    files: new Map(),
    meta: new Map(),
    dirs: new Map([[".", new Map()]]),
    links: new Map(listing.links),
  };
  const add = (path: string, kind: WorkspaceEntry["kind"]) => {
    const parent = posix.dirname(path);
    if (!snapshot.dirs.has(parent)) snapshot.dirs.set(parent, new Map());
    snapshot.dirs.get(parent)!.set(posix.basename(path), kind);
  };
  for (const dir of listing.dirs) {
    if (!snapshot.dirs.has(dir)) snapshot.dirs.set(dir, new Map());
    add(dir, "directory");
  }
  for (const path of listing.links.keys()) add(path, "symlink");
  for (const path of listing.others) add(path, "other");
  const missing: string[] = [];
  for (const [path, meta] of listing.files) {
    add(path, "file");
    snapshot.meta.set(path, meta);
    const kept = previous?.meta.get(path) === meta ? previous.files.get(path) : undefined;
    if (kept === undefined) missing.push(path);
    else snapshot.files.set(path, kept);
  }
  return { snapshot, missing };
}

/** The regular files of a tar archive, by path relative to its root. */
function filesOfTar(bytes: Uint8Array): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const extract = tar.extract();
  const done = new Promise<Map<string, Uint8Array>>((resolve, reject) => {
    extract.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: unknown) => chunks.push(Buffer.from(chunk as Uint8Array)));
      stream.on("end", () => {
        if (header.type === "file") files.set(header.name.replace(/^\.\//, ""), Buffer.concat(chunks));
        next();
      });
    });
    extract.on("finish", () => resolve(files));
    extract.on("error", reject);
  });
  extract.end(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)); // a view, not a copy (django's tree is 42 MB)
  return done;
}

/**
 * A workspace over `root` in `container`, and a sandbox running commands there; see the module comment.
 * Long on purpose: the Workspace and Sandbox services over one container: their methods share its root, the path confinement and the tar transfers, as a service implementation does.
 */
export function containerSession(container: ContainerShape, options: ContainerSessionOptions): ContainerSession {
  const root = options.root.replace(/\/+$/, "") || "/";
  const shown = `container:${container.name}:${root}`;
  let snapshot: Snapshot | undefined;
  /** A command ran since the snapshot was taken: it is checked against a new listing before the next use. */
  let stale = true;

  const ioError = (operation: WorkspaceIOError["operation"], path: string) => (error: { readonly message: string }) =>
    new WorkspaceIOError({ operation, path, detail: error.message });
  const endings = options.prefetch?.map((ending) => ending.toLowerCase());
  /** Whether the snapshots read the file at once (else on its first use). */
  const prefetched = (rel: string): boolean =>
    endings === undefined || endings.some((ending) => rel.toLowerCase().endsWith(ending));
  /** The files (relative to the root) in one tar, one exec. */
  const readTar = (rels: readonly string[]) =>
    Effect.flatMap(container.readFiles(root, rels), (tarBytes) => Effect.promise(() => filesOfTar(tarBytes)));

  const first = Effect.gen(function* () {
    const listingFile = `/tmp/graphplan-listing-${randomUUID()}`;
    const archive = yield* container.readStdout(
      ["sh", "-c", FIRST_SNAPSHOT, "graphplan-snapshot", listingFile, root, ...prefetchTests(options.prefetch)],
      { workdir: root },
    );
    const files = yield* Effect.promise(() => filesOfTar(archive));
    const listingEntry = listingFile.slice(1);
    const listing = files.get(listingEntry);
    if (listing === undefined) return yield* Effect.fail({ message: `the snapshot of ${root} has no listing` });
    files.delete(listingEntry);
    const { snapshot: next } = fromListing(parseListing(Buffer.from(listing).toString("utf8")), undefined);
    for (const [file, bytes] of files) next.files.set(file, bytes);
    snapshot = next;
    stale = false;
    return next;
  });

  /**
   * The snapshot, brought up to date after a command: one `find` lists every file with its size,
   * mtime and mode, and only the prefetched files that are new or whose listing changed are read
   * again (one `tar`); the others are read when used.
   */
  const current = (
    operation: WorkspaceIOError["operation"],
    path: string,
  ): Effect.Effect<Snapshot, WorkspaceIOError> =>
    !stale && snapshot !== undefined
      ? Effect.succeed(snapshot)
      : snapshot === undefined
        ? first.pipe(Effect.mapError(ioError(operation, path)))
        : Effect.gen(function* () {
            const listed = yield* container.execArgv(["sh", "-c", LISTING], { workdir: root });
            if (listed.exitCode !== 0)
              return yield* Effect.fail({ message: `listing ${root} failed: ${listed.output.trim().slice(0, 500)}` });
            const { snapshot: next, missing } = fromListing(parseListing(listed.output), snapshot);
            for (const [file, bytes] of yield* readTar(missing.filter(prefetched))) next.files.set(file, bytes);
            snapshot = next;
            stale = false;
            return next;
          }).pipe(Effect.mapError(ioError(operation, path)));

  /** The normalised path, after refusing what is outside the root lexically or through a symlink of the snapshot. */
  const locate = (path: string, operation: WorkspaceIOError["operation"]) =>
    Effect.gen(function* () {
      const lexical = confine(path);
      if (!lexical.ok) return yield* new PathOutsideWorkspace({ path, root: shown, reason: lexical.reason });
      const snap = yield* current(operation, path);
      // Symlinks of the snapshot are followed while they stay inside the root (at most 40 hops, as the kernel).
      let rel = lexical.path;
      for (let hops = 0; hops < 40; hops++) {
        const parts = rel === "." ? [] : rel.split("/");
        let followed = false;
        for (let i = 1; i <= parts.length; i++) {
          const prefix = parts.slice(0, i).join("/");
          const target = snap.links.get(prefix);
          if (target === undefined) continue;
          // The last part itself stays a link for exists/remove/list of its parent; it is followed to read or write it.
          if (i === parts.length && (operation === "remove" || operation === "exists")) break;
          const resolved = posix.normalize(
            posix.isAbsolute(target) ? target : posix.join(root, posix.dirname(prefix), target),
          );
          if (resolved !== root && !resolved.startsWith(`${root}/`)) {
            return yield* new PathOutsideWorkspace({
              path,
              root: shown,
              reason: `${prefix} is a symlink leading outside the workspace (${target})`,
            });
          }
          rel = [posix.relative(root, resolved) || ".", ...parts.slice(i)].join("/").replace(/^\.\//, "");
          followed = true;
          break;
        }
        if (!followed) return { rel, snap };
      }
      return yield* new WorkspaceIOError({ operation, path, detail: "too many levels of symbolic links" });
    });

  const record = (snap: Snapshot, rel: string, bytes: Uint8Array | undefined) => {
    const parts = rel.split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      const parent = posix.dirname(dir);
      if (!snap.dirs.has(dir)) snap.dirs.set(dir, new Map());
      if (!snap.dirs.has(parent)) snap.dirs.set(parent, new Map());
      snap.dirs.get(parent)!.set(posix.basename(dir), "directory");
    }
    const parent = posix.dirname(rel);
    if (!snap.dirs.has(parent)) snap.dirs.set(parent, new Map());
    if (bytes === undefined) {
      snap.files.delete(rel);
      snap.dirs.get(parent)!.delete(posix.basename(rel));
      snap.dirs.delete(rel);
      snap.meta.delete(rel);
    } else {
      snap.files.set(rel, bytes);
      // Size and mtime unknown until the next listing, which then reads it once more (they are new);
      // the mode stays known (a write keeps it).
      const mode = snap.meta.get(rel)?.split(" ")[2] ?? "644";
      snap.meta.set(rel, `? ? ${mode}`);
      snap.dirs.get(parent)!.set(posix.basename(rel), "file");
    }
  };

  const readBytes: WorkspaceShape["readBytes"] = (path) =>
    Effect.gen(function* () {
      const { rel, snap } = yield* locate(path, "read");
      let bytes = snap.files.get(rel);
      if (bytes === undefined && snap.meta.has(rel)) {
        // A file the snapshots do not prefetch: read now, kept until a command changes it.
        bytes = (yield* readTar([rel]).pipe(Effect.mapError(ioError("read", path)))).get(rel);
        if (bytes !== undefined) snap.files.set(rel, bytes);
      }
      if (bytes === undefined) {
        if (snap.dirs.has(rel))
          return yield* new WorkspaceIOError({ operation: "read", path, detail: "it is a directory" });
        return yield* new FileNotFound({ path, root: shown });
      }
      return bytes;
    });

  /** The permission bits of a file as last listed (a new file: 0644, what a copy through the engine gives). */
  const modeOf = (snap: Snapshot, rel: string): number => {
    const mode = snap.meta.get(rel)?.split(" ")[2];
    return mode === undefined ? 0o644 : Number.parseInt(mode, 8);
  };

  const writeBytes: WorkspaceShape["writeBytes"] = (path, bytes) =>
    Effect.gen(function* () {
      const { rel, snap } = yield* locate(path, "write");
      const target = posix.join(root, rel);
      if (options.ephemeral) {
        yield* container
          .putFiles([{ path: target, content: bytes, mode: modeOf(snap, rel) }])
          .pipe(Effect.mapError(ioError("write", path)));
        record(snap, rel, bytes);
        return;
      }
      const temp = `${target}${TEMP_MARKER}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
      yield* container.putFiles([{ path: temp, content: bytes }]).pipe(Effect.mapError(ioError("write", path)));
      const moved = yield* container
        .execArgv([
          "sh",
          "-c",
          'if [ -e "$2" ]; then chmod --reference="$2" "$1" 2>/dev/null; fi; mv -f "$1" "$2"',
          "graphplan-write",
          temp,
          target,
        ])
        .pipe(Effect.mapError(ioError("write", path)));
      if (moved.exitCode !== 0)
        return yield* new WorkspaceIOError({ operation: "write", path, detail: moved.output.trim() });
      record(snap, rel, bytes);
    });

  const workspace: WorkspaceShape = {
    root: shown,
    ...(options.ephemeral ? { ephemeral: true } : {}),
    readBytes,
    read: (path) => Effect.flatMap(readBytes(path), (bytes) => decodeText(path, bytes)),
    writeBytes,
    write: (path, text) => writeBytes(path, encodeText(text)),
    exists: (path) =>
      Effect.map(
        locate(path, "exists"),
        ({ rel, snap }) =>
          rel === "." || snap.meta.has(rel) || snap.files.has(rel) || snap.dirs.has(rel) || snap.links.has(rel),
      ),
    list: (dir) =>
      Effect.gen(function* () {
        const { rel, snap } = yield* locate(dir, "list");
        const entries = snap.dirs.get(rel);
        if (entries === undefined) return yield* new FileNotFound({ path: dir, root: shown });
        return [...entries]
          .map(([name, kind]): WorkspaceEntry => ({ name, path: rel === "." ? name : `${rel}/${name}`, kind }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      }),
    executable: (path) =>
      Effect.gen(function* () {
        const { rel, snap } = yield* locate(path, "read");
        if (!snap.meta.has(rel) && !snap.files.has(rel)) return yield* new FileNotFound({ path, root: shown });
        return (modeOf(snap, rel) & 0o100) !== 0;
      }),
    setExecutable: (path, executable) =>
      Effect.gen(function* () {
        const { rel, snap } = yield* locate(path, "write");
        if (!snap.meta.has(rel) && !snap.files.has(rel)) return yield* new FileNotFound({ path, root: shown });
        const mode = withExecutable(modeOf(snap, rel), executable);
        const result = yield* container
          .execArgv(["chmod", mode.toString(8), posix.join(root, rel)])
          .pipe(Effect.mapError(ioError("write", path)));
        if (result.exitCode !== 0)
          return yield* new WorkspaceIOError({ operation: "write", path, detail: result.output.trim() });
        const [size = "?", mtime = "?"] = snap.meta.get(rel)?.split(" ") ?? [];
        snap.meta.set(rel, `${size} ${mtime} ${mode.toString(8)}`);
      }),
    remove: (path) =>
      Effect.gen(function* () {
        const { rel, snap } = yield* locate(path, "remove");
        if (rel === ".") return false;
        const result = yield* container
          .execArgv([
            "sh",
            "-c",
            'if [ -d "$1" ] && [ ! -L "$1" ]; then rmdir "$1" 2>/dev/null && echo removed; elif [ -e "$1" ] || [ -L "$1" ]; then rm -f "$1" && echo removed; fi; true',
            "graphplan-remove",
            posix.join(root, rel),
          ])
          .pipe(Effect.mapError(ioError("remove", path)));
        const removed = result.output.trim() === "removed";
        if (removed) record(snap, rel, undefined);
        return removed;
      }),
  };

  const defaultTimeout = options.timeoutMs ?? 120_000;
  const sandbox: SandboxShape = {
    description: `container:${container.name}:${root}`,
    exec: (command: string, exec?: ExecOptions) =>
      Effect.suspend(() => {
        // Any file may change: the next read checks the snapshot against a new listing.
        stale = true;
        return container.exec(command, {
          workdir: root,
          env: options.env,
          timeoutMs: exec?.timeoutMs ?? defaultTimeout,
        });
      }).pipe(
        Effect.map((r): ExecResult => ({ exitCode: r.exitCode, output: r.output, timedOut: r.timedOut })),
        Effect.mapError(
          (error) => new SandboxFailed({ sandbox: `container:${container.name}`, command, detail: error.detail }),
        ),
      ),
  };
  return { workspace, sandbox };
}

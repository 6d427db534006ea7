/**
 * The live ContainerEngine: the Docker Engine API through dockerode, which Docker and podman
 * (`podman system service`) both serve. Commands run with `docker exec`; a timeout kills every
 * process the command started, inside the container; files go in and out as tar archives.
 */
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import type { Duplex } from "node:stream";
import Docker from "dockerode";
import * as Effect from "effect/Effect";
import * as Schedule from "effect/Schedule";
import * as tar from "tar-stream";
import {
  CONTAINER_LABEL,
  ContainerFailed,
  EngineUnavailable,
  ImageUnavailable,
  type CommitOptions,
  type ContainerEngineShape,
  type ContainerExecOptions,
  type ContainerExecResult,
  type ContainerFile,
  type ContainerShape,
  type ContainerSpec,
  type ImageInfo,
} from "./engine.js";

export interface EngineOptions {
  /** `unix:///path`, a bare socket path, `tcp://host:port`, `ssh://user@host[:port]`; default `DOCKER_HOST`, else /var/run/docker.sock. */
  readonly host?: string;
  /** Default timeout of a command (default 120 s). */
  readonly timeoutMs?: number;
}

/** dockerode's options for a Docker host URL, and the label used in messages. */
export function dockerOptionsFor(host: string | undefined): {
  readonly label: string;
  readonly options: Docker.DockerOptions | undefined;
} {
  const given = host ?? process.env.DOCKER_HOST;
  if (given === undefined || given === "")
    return { label: "unix:///var/run/docker.sock", options: { socketPath: "/var/run/docker.sock" } };
  if (given.startsWith("/")) return { label: `unix://${given}`, options: { socketPath: given } };
  if (given.startsWith("unix://")) return { label: given, options: { socketPath: given.slice("unix://".length) } };
  let url: URL;
  try {
    url = new URL(given.includes("//") ? given : `tcp://${given}`);
  } catch {
    throw new Error(
      `the Docker host "${given}" is not a URL: give unix:///path/to.sock, tcp://host:port or ssh://user@host`,
    );
  }
  if (url.protocol === "ssh:") {
    return {
      label: given,
      options: {
        protocol: "ssh",
        host: url.hostname,
        port: url.port || 22,
        username: url.username || undefined,
        sshOptions: { agent: process.env.SSH_AUTH_SOCK },
      },
    };
  }
  if (url.protocol === "tcp:" || url.protocol === "http:" || url.protocol === "https:") {
    const port = url.port || (url.protocol === "https:" ? "2376" : "2375");
    return {
      label: given,
      options: { protocol: url.protocol === "https:" || port === "2376" ? "https" : "http", host: url.hostname, port },
    };
  }
  throw new Error(
    `the Docker host "${given}" has the scheme ${url.protocol} this engine client does not speak: use unix://, tcp:// or ssh://`,
  );
}

/** Every process of one exec carries this variable (with the exec's id): the timeout kills them by it. */
export const EXEC_MARKER = "GRAPHPLAN_SANDBOX_EXEC";

/**
 * PID 1 of the container: lives as long as its stdin is open, and its `wait` reaps processes
 * re-parented to it. The process that started the container holds that stdin through an attach
 * connection (its lease): when the process ends in any way — its scope closed, a crash, SIGKILL, a
 * test runner killed mid-run — the connection closes, `cat` reads EOF, PID 1 exits and the engine
 * removes the container (`AutoRemove`). So no container outlives its owner, whatever killed it.
 * (stdin is moved to fd 3 first: a shell gives a background job /dev/null as its stdin.)
 */
const KEEPALIVE_SCRIPT = "trap 'exit 0' TERM INT; exec 3<&0; cat <&3 >/dev/null 3<&- & wait $!; exit 0";

/**
 * `bash -c` where the image has bash, else `sh -c` (the command is `$1`). stderr goes to stdout's pipe
 * (`exec 2>&1`): the engine reads the two streams of an exec separately (podman's conmon reorders
 * them), and one pipe keeps the output in the order the command wrote it, as in a terminal.
 */
const RUN_SCRIPT = 'exec 2>&1; if command -v bash >/dev/null; then exec bash -c "$1"; fi; exec sh -c "$1"';

/**
 * Kills every process whose environment has `EXEC_MARKER=$1`, in rounds until none is left (a process
 * forked during a round is caught by the next): each round stops them all (SIGSTOP, so no shell among
 * them reacts to its children dying, e.g. by printing "Killed"), then SIGKILLs them. POSIX sh, `tr`,
 * `grep` and /proc only; it finds children that were re-parented or started their own process group
 * or session.
 */
const KILL_SCRIPT = [
  'm="' + EXEC_MARKER + '=$1"; round=0',
  'while [ "$round" -lt 50 ]; do',
  "  pids=",
  "  for d in /proc/[0-9]*; do",
  '    p="${d#/proc/}"',
  '    [ "$p" = "$$" ] && continue',
  '    if tr "\\000" "\\n" <"$d/environ" 2>/dev/null | grep -qx "$m"; then pids="$pids $p"; fi',
  "  done",
  '  [ -z "$pids" ] && exit 0',
  "  kill -STOP $pids 2>/dev/null",
  "  kill -KILL $pids 2>/dev/null",
  "  round=$((round + 1))",
  "done",
].join("\n");

/** How long a timed-out exec's stream may stay open after its processes were killed. */
const DRAIN_AFTER_KILL_MS = 2_000;

export const errorText = (error: unknown): string => {
  if (error instanceof Error) {
    const json = (error as { json?: unknown }).json;
    const message =
      typeof json === "object" && json !== null && "message" in json
        ? String((json as { message: unknown }).message)
        : undefined;
    return message ?? error.message;
  }
  return String(error);
};

/** How many times a container's removal is tried again when its scope closes (0.25 s, 0.5 s, … 4 s apart). */
const REMOVE_RETRIES = 5;

/** The engine's address does not accept connections (no socket, nothing listening): it is gone, not busy. */
const unreachable = (error: unknown): boolean =>
  typeof error === "object" &&
  error !== null &&
  "code" in error &&
  ["ECONNREFUSED", "ENOENT", "EACCES", "EHOSTUNREACH"].includes(String((error as { code: unknown }).code));

const statusOf = (error: unknown): number | undefined =>
  typeof error === "object" && error !== null && "statusCode" in error
    ? Number((error as { statusCode: unknown }).statusCode)
    : undefined;

/** Long on purpose: the live ContainerEngine service: its methods (images, build, create, run, remove, …) share one dockerode client and its error mapping, as a service implementation does. */
export function makeDockerEngine(options: EngineOptions): ContainerEngineShape {
  const { label, options: dockerOptions } = dockerOptionsFor(options.host);
  const docker = new Docker(dockerOptions);
  const unavailable = (error: unknown) => new EngineUnavailable({ endpoint: label, detail: errorText(error) });
  const call = <A>(f: () => Promise<A>) => Effect.tryPromise({ try: f, catch: unavailable });
  const defaultTimeout = options.timeoutMs ?? 120_000;

  const inspectImage = (image: string): Effect.Effect<ImageInfo | undefined, EngineUnavailable> =>
    Effect.tryPromise({
      try: async () => {
        try {
          const info = await docker.getImage(image).inspect();
          return {
            id: info.Id,
            labels: { ...(info.Config?.Labels ?? {}) },
            env: [...(info.Config?.Env ?? [])],
            workdir: info.Config?.WorkingDir ?? "",
            sizeBytes: info.Size,
          } satisfies ImageInfo;
        } catch (error) {
          if (statusOf(error) === 404) return undefined;
          throw error;
        }
      },
      catch: unavailable,
    });

  /**
   * A container's removal when its scope closes. An engine under load sometimes refuses or drops a
   * forced removal (podman: a container whose exec sessions are still being torn down, a reset
   * connection); one such failure once left a container running for hours. So the removal is
   * retried, and if the container still will not go, a warning names it and the command that removes it.
   */
  const removeOnRelease = (container: Docker.Container, name: string): Effect.Effect<void> =>
    Effect.tryPromise({
      try: () =>
        container
          .remove({ force: true, v: true })
          .catch((error: unknown) => (statusOf(error) === 404 ? undefined : Promise.reject(error))),
      catch: (error) => ({ detail: errorText(error), unreachable: unreachable(error) }),
    }).pipe(
      // An engine that no longer accepts connections will not remove anything: no waiting on it.
      Effect.retry({
        times: REMOVE_RETRIES,
        schedule: Schedule.exponential("250 millis"),
        while: (failure) => !failure.unreachable,
      }),
      Effect.catch((failure) =>
        Effect.logWarning(
          `the container ${name} could not be removed (${failure.detail}); remove it with \`docker rm -f ${name}\` (podman: \`podman rm -f ${name}\`)`,
        ),
      ),
      Effect.asVoid,
    );

  const removeContainer = (container: Docker.Container): Effect.Effect<void, EngineUnavailable> =>
    call(() =>
      container
        .remove({ force: true, v: true })
        .catch((error: unknown) => (statusOf(error) === 404 ? undefined : Promise.reject(error))),
    ).pipe(Effect.asVoid);

  const pullImage = (image: string): Effect.Effect<void, ImageUnavailable> =>
    Effect.tryPromise({
      try: async () => {
        const stream = await docker.pull(image);
        // An engine reports a failed pull inside the progress stream (HTTP 200), not as an HTTP error.
        await new Promise<void>((resolve, reject) =>
          docker.modem.followProgress(
            stream,
            (error: Error | null, events: readonly { error?: string; errorDetail?: { message?: string } }[] = []) => {
              const failed = events.find((event) => event.error !== undefined || event.errorDetail !== undefined);
              if (error) reject(error);
              else if (failed) reject(new Error(failed.errorDetail?.message ?? failed.error));
              else resolve();
            },
          ),
        );
      },
      catch: (error) => new ImageUnavailable({ endpoint: label, image, detail: errorText(error) }),
    });

  const start = (spec: ContainerSpec) =>
    Effect.gen(function* () {
      const name = spec.name ?? `graphplan-${randomUUID().slice(0, 12)}`;
      const failed = (operation: ContainerFailed["operation"]) => (error: unknown) =>
        new ContainerFailed({ endpoint: label, container: name, operation, detail: errorText(error) });
      const { container } = yield* Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const created = await docker.createContainer({
              name,
              Image: spec.image,
              // The container only has to stay alive (commands come by exec) while its owner holds
              // its stdin; its first process reaps the orphans a killed command leaves.
              Entrypoint: ["sh", "-c", KEEPALIVE_SCRIPT],
              Cmd: [],
              ...(spec.workdir === undefined ? {} : { WorkingDir: spec.workdir }),
              ...(spec.user === undefined ? {} : { User: spec.user }),
              Env: Object.entries(spec.env ?? {}).map(([key, value]) => `${key}=${value}`),
              Labels: { ...spec.labels, [CONTAINER_LABEL]: "1" },
              Tty: false,
              OpenStdin: true,
              StdinOnce: true,
              AttachStdin: true,
              HostConfig: { Binds: [...(spec.binds ?? [])], AutoRemove: true },
            });
            const lease = await holdLease(created).catch(async (error: unknown) => {
              await created.remove({ force: true }).catch(() => undefined);
              throw error;
            });
            return { container: created, lease };
          },
          catch: failed("create"),
        }),
        ({ container: created, lease }) =>
          removeOnRelease(created, name).pipe(Effect.ensuring(Effect.sync(() => lease.destroy()))),
      );
      yield* Effect.tryPromise({ try: () => container.start(), catch: failed("start") });
      return containerShape(docker, label, container, name, spec, defaultTimeout);
    });

  return {
    endpoint: label,
    ping: call(() => docker.ping()).pipe(
      Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(unavailable("no answer within 10 s")) }),
      Effect.asVoid,
    ),
    inspectImage,
    pullImage,
    removeImage: (image) =>
      call(() =>
        docker
          .getImage(image)
          .remove({ force: true })
          .catch((error: unknown) => (statusOf(error) === 404 ? undefined : Promise.reject(error))),
      ).pipe(Effect.asVoid),
    start,
    containersLabelled: (labels) =>
      call(() =>
        docker.listContainers({
          all: true,
          filters: { label: Object.entries(labels).map(([k, v]) => (v === "" ? k : `${k}=${v}`)) },
        }),
      ).pipe(Effect.map((list) => list.map((c) => c.Id))),
    removeContainer: (idOrName) => removeContainer(docker.getContainer(idOrName)),
  };
}

/**
 * Attaches to the container's stdin and keeps the connection: the container's lease (see
 * KEEPALIVE_SCRIPT). The socket does not keep the process alive (unref): a process that ends with the
 * container still open ends its lease, and the container with it.
 */
async function holdLease(container: Docker.Container): Promise<Duplex> {
  const stream = (await container.attach({
    stream: true,
    stdin: true,
    stdout: false,
    stderr: false,
    hijack: true,
  })) as unknown as Duplex & { unref?: () => void; socket?: { unref?: () => void } };
  stream.on("error", () => undefined); // the connection ends with the container: not an error of the run
  stream.unref?.();
  stream.socket?.unref?.();
  return stream;
}

function containerShape(
  docker: Docker,
  endpoint: string,
  container: Docker.Container,
  name: string,
  spec: ContainerSpec,
  defaultTimeout: number,
): ContainerShape {
  const failed = (operation: ContainerFailed["operation"]) => (error: unknown) =>
    new ContainerFailed({ endpoint, container: name, operation, detail: errorText(error) });
  const putArchive = (dir: string, archive: NodeJS.ReadableStream | Uint8Array) =>
    Effect.tryPromise({
      try: () =>
        container.putArchive(
          archive instanceof Uint8Array ? Buffer.from(archive) : (archive as NodeJS.ReadableStream),
          { path: dir },
        ),
      catch: failed("copy"),
    }).pipe(Effect.asVoid);
  return {
    id: container.id,
    name,
    image: spec.image,
    exec: (command, options) =>
      runExec(docker, container, endpoint, name, ["sh", "-c", RUN_SCRIPT, "sh", command], options, defaultTimeout),
    execArgv: (argv, options) => runExec(docker, container, endpoint, name, argv, options, defaultTimeout),
    putArchive,
    putFiles: (files) => putArchive("/", tarOf(files)),
    readFile: (path) => Effect.tryPromise({ try: () => readOneFile(container, path), catch: failed("read") }),
    readFiles: (dir, paths) =>
      Effect.tryPromise({
        try: async () => {
          if (paths.length === 0) return new Uint8Array(1024); // an empty archive: two zero blocks
          const list = `/tmp/graphplan-list-${randomUUID()}`;
          await container.putArchive(tarOf([{ path: list, content: `${paths.join("\0")}\0` }]), { path: "/" });
          return execStdout(docker, container, [
            "sh",
            "-c",
            'tar -C "$1" --null -T "$2" -cf -; s=$?; rm -f "$2"; exit $s',
            "graphplan-read",
            dir,
            list,
          ]);
        },
        catch: failed("read"),
      }),
    readStdout: (argv, options) =>
      Effect.tryPromise({ try: () => execStdout(docker, container, argv, options?.workdir), catch: failed("read") }),
    commit: (image, options) =>
      Effect.tryPromise({ try: () => commitAs(container, image, options), catch: failed("commit") }).pipe(
        Effect.asVoid,
      ),
  };
}

/** A tar archive (rooted at /) of the files, with their parent directories. */
export function tarOf(files: readonly ContainerFile[]): Readable {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const file of files) {
    if (!file.path.startsWith("/")) throw new Error(`a container path must be absolute: ${file.path}`);
    const parts = file.path.slice(1).split("/");
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      pack.entry({ name: `${dir}/`, type: "directory", mode: 0o755 });
    }
    const content = typeof file.content === "string" ? Buffer.from(file.content, "utf8") : Buffer.from(file.content);
    pack.entry({ name: parts.join("/"), mode: file.mode ?? 0o644 }, content);
  }
  pack.finalize();
  return pack as unknown as Readable;
}

/**
 * Splits the Docker API's multiplexed stream of an exec (8-byte frame headers: the stream — 1 stdout,
 * 2 stderr — and the payload's length) into `write(stream, payload)` calls, in order. Linear in the
 * bytes: the chunks of a frame are kept as they arrive and joined once (dockerode's demuxStream
 * copies its whole pending buffer at every chunk and every frame — a third of a second for the
 * 42 MB snapshot of django's work tree). A stream that does not start with a valid header is not
 * multiplexed (a TTY): it all goes to stdout.
 */
export function demultiplex(stream: NodeJS.ReadableStream, write: (kind: 1 | 2, payload: Buffer) => void): void {
  const pending: Buffer[] = [];
  let first = 0; // pending[first] is the oldest chunk not yet taken (no shift: it is O(chunks))
  let pendingBytes = 0;
  let kind: 1 | 2 | 0 | null = null; // the current frame's stream, once its header is read
  let remaining = 0;
  let raw = false;
  const take = (n: number): Buffer => {
    // The first n pending bytes, leaving the rest pending.
    const parts: Buffer[] = [];
    let need = n;
    while (need > 0) {
      const head = pending[first]!;
      if (head.length <= need) {
        parts.push(head);
        first++;
        need -= head.length;
      } else {
        parts.push(head.subarray(0, need));
        pending[first] = head.subarray(need);
        need = 0;
      }
    }
    if (first === pending.length || first > 1024) pending.splice(0, first), (first = 0);
    pendingBytes -= n;
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, n);
  };
  stream.on("data", (chunk: Buffer) => {
    if (raw) return write(1, chunk);
    pending.push(chunk);
    pendingBytes += chunk.length;
    for (;;) {
      if (kind === null) {
        if (pendingBytes < 8) return;
        const header = take(8);
        const type = header.readUInt8(0);
        if (type !== 0 && type !== 1 && type !== 2) {
          raw = true;
          write(1, Buffer.concat([header, ...pending.splice(first)]));
          pendingBytes = 0;
          return;
        }
        kind = type;
        remaining = header.readUInt32BE(4);
      }
      if (pendingBytes < remaining) return;
      const payload = take(remaining);
      if (kind !== 0) write(kind, payload);
      kind = null;
    }
  });
}

/** Runs argv and returns its stdout as bytes; fails with its stderr when it exits non-zero. */
async function execStdout(
  docker: Docker,
  container: Docker.Container,
  argv: readonly string[],
  workdir?: string,
): Promise<Uint8Array> {
  const exec = await container.exec({
    Cmd: [...argv],
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    ...(workdir === undefined ? {} : { WorkingDir: workdir }),
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  demultiplex(stream, (kind, payload) => (kind === 1 ? out : err).push(payload));
  await new Promise<void>((resolve, reject) => {
    stream.once("end", resolve);
    stream.once("close", resolve);
    stream.once("error", reject);
  });
  for (let attempt = 0; ; attempt++) {
    const info = await exec.inspect();
    if (!info.Running && info.ExitCode !== null) {
      if (info.ExitCode !== 0)
        throw new Error(`${argv.join(" ")} exited ${info.ExitCode}: ${Buffer.concat(err).toString("utf8").trim()}`);
      return Buffer.concat(out);
    }
    if (attempt >= 100) throw new Error(`the engine still reports ${argv[0]} as running after its output ended`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function readOneFile(container: Docker.Container, path: string): Promise<Uint8Array> {
  const stream = (await container.getArchive({ path })) as NodeJS.ReadableStream;
  const extract = tar.extract();
  const chunks: Buffer[] = [];
  let found = false;
  await new Promise<void>((resolve, reject) => {
    extract.on("entry", (header, entry, next) => {
      if (!found && header.type === "file") {
        found = true;
        entry.on("data", (chunk: unknown) => chunks.push(Buffer.from(chunk as Uint8Array)));
      } else entry.resume();
      entry.on("end", next);
    });
    extract.on("finish", resolve);
    extract.on("error", reject);
    stream.on("error", reject);
    stream.pipe(extract);
  });
  if (!found) throw new Error(`${path} is not a regular file`);
  return Buffer.concat(chunks);
}

async function commitAs(container: Docker.Container, image: string, options: CommitOptions | undefined): Promise<void> {
  const colon = image.lastIndexOf(":");
  const [repo, tag] =
    colon > image.lastIndexOf("/") ? [image.slice(0, colon), image.slice(colon + 1)] : [image, "latest"];
  for (const [key, value] of Object.entries(options?.labels ?? {})) {
    // podman keeps backslashes of a quoted LABEL value as they are: such values would not read back.
    if (/["\\\n]/.test(key + value))
      throw new Error(
        `the label ${key}=${value} has a quote, backslash or newline, which engines do not read back alike; keep structured data in a file of the image`,
      );
  }
  const changes = [
    ...Object.entries(options?.labels ?? {}).map(([k, v]) => `LABEL ${k}="${v}"`),
    ...Object.entries(options?.env ?? {}).map(([k, v]) => `ENV ${k}=${JSON.stringify(v)}`),
    ...(options?.workdir === undefined ? [] : [`WORKDIR ${options.workdir}`]),
    // The keepalive entrypoint of the build container must not become the image's.
    `ENTRYPOINT []`,
    `CMD ["/bin/bash"]`,
  ];
  await container.commit({ repo, tag, comment: options?.comment ?? "", changes, pause: false });
}

/** Kills every process of the exec `execId` (see KILL_SCRIPT) through a second exec; never fails. */
async function killExec(container: Docker.Container, execId: string): Promise<void> {
  try {
    const killer = await container.exec({
      Cmd: ["sh", "-c", KILL_SCRIPT, "graphplan-kill", execId],
      AttachStdout: true,
      AttachStderr: true,
      User: "root",
    });
    const stream = await killer.start({ hijack: true, stdin: false });
    stream.resume();
    await new Promise<void>((resolve) => {
      stream.once("end", resolve);
      stream.once("close", resolve);
      stream.once("error", () => resolve());
    });
  } catch {
    // The container is gone, or the engine: nothing left to kill.
  }
}

/** Long on purpose: one exec from start to its exit code: the demultiplexed output, the timeout that kills the process group and the engine errors, which share the stream and its timer. */
function runExec(
  docker: Docker,
  container: Docker.Container,
  endpoint: string,
  name: string,
  argv: readonly string[],
  options: ContainerExecOptions | undefined,
  defaultTimeout: number,
): Effect.Effect<ContainerExecResult, ContainerFailed> {
  const timeoutMs = options?.timeoutMs ?? defaultTimeout;
  return Effect.callback<ContainerExecResult, ContainerFailed>((resume) => {
    const execId = randomUUID();
    const chunks: Buffer[] = [];
    let stream: Duplex | undefined;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let finished = false;
    let cancelled = false;

    const output = () => Buffer.concat(chunks).toString("utf8");
    const finish = (result: Effect.Effect<ContainerExecResult, ContainerFailed>) => {
      if (finished) return;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      resume(result);
    };

    const run = async () => {
      const exec = await container.exec({
        Cmd: [...argv],
        Env: [...Object.entries(options?.env ?? {}).map(([k, v]) => `${k}=${v}`), `${EXEC_MARKER}=${execId}`],
        ...(options?.workdir === undefined ? {} : { WorkingDir: options.workdir }),
        ...(options?.user === undefined ? {} : { User: options.user }),
        AttachStdin: false,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
      });
      if (cancelled) return;
      const started = await exec.start({ hijack: true, stdin: false });
      stream = started;
      if (cancelled) {
        started.destroy();
        await killExec(container, execId);
        return;
      }
      // One sink for both streams: the output keeps the order in which the engine sent the frames.
      demultiplex(started, (_kind, payload) => chunks.push(payload));
      const ended = new Promise<void>((resolve, reject) => {
        started.once("end", resolve);
        started.once("close", resolve);
        started.once("error", reject);
      });
      timer = setTimeout(() => {
        timedOut = true;
        void killExec(container, execId).then(() => {
          // A process that escaped the kill may still hold the stream open: stop waiting for it.
          setTimeout(() => started.destroy(), DRAIN_AFTER_KILL_MS).unref();
        });
      }, timeoutMs);
      await ended;
      if (timer !== undefined) clearTimeout(timer);
      if (cancelled) return;
      if (timedOut) return finish(Effect.succeed({ exitCode: -1, output: output(), timedOut: true }));
      // The engine may report the exec as running for a moment after its stream ended.
      for (let attempt = 0; ; attempt += 1) {
        const info = await exec.inspect();
        if (!info.Running && info.ExitCode !== null)
          return finish(Effect.succeed({ exitCode: info.ExitCode, output: output(), timedOut: false }));
        if (attempt >= 100)
          throw new Error(`the engine still reports the command as running after its output ended (exec ${exec.id})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    run().catch((error: unknown) => {
      if (cancelled) return;
      finish(
        Effect.fail(
          new ContainerFailed({
            endpoint,
            container: name,
            operation: "exec",
            detail: `${JSON.stringify(argv.join(" ").slice(0, 200))}: ${errorText(error)}`,
          }),
        ),
      );
    });

    // Interrupted: stop reading and kill what the command started.
    return Effect.promise(async () => {
      if (finished) return;
      cancelled = true;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      stream?.destroy();
      await killExec(container, execId);
    });
  });
}

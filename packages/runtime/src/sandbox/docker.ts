/**
 * The container sandbox: one long-lived container per layer scope, driven through the Docker Engine
 * API (dockerode), which Docker and podman (`podman system service`) both serve. Commands run with
 * `docker exec`; a timeout kills every process the command started, inside the container.
 */
import { randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import type { Duplex } from "node:stream";
import Docker from "dockerode";
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { SandboxFailed, SandboxUnavailable, type ExecOptions, type ExecResult, type SandboxShape } from "./sandbox.js";

export interface DockerSandboxOptions {
  /** The image, e.g. `python:3.12-slim` or `graphplan-busybox:test`. It must exist locally: it is never pulled. It needs a POSIX `sh`. */
  readonly image: string;
  /** The working directory of the container and of every command (absolute path inside the container; created if missing). */
  readonly workdir: string;
  /** Bind mounts, Docker's `host:container[:ro]` form, e.g. `${repo}:/work/repo`. The host path must exist. */
  readonly binds?: readonly string[];
  /** Environment variables of the container (every command sees them). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * The engine's Unix socket. Default: the path of `DOCKER_HOST` when it is `unix://PATH`; any other
   * `DOCKER_HOST` (`tcp://`, `ssh://`) is used as dockerode reads it; without `DOCKER_HOST`,
   * `/var/run/docker.sock`. For podman: `podman system service --time=0 unix:///tmp/podman.sock` and
   * `socketPath: "/tmp/podman.sock"` (or `DOCKER_HOST=unix:///tmp/podman.sock`).
   */
  readonly socketPath?: string;
  /** Default timeout of a command, when `exec` is given none (default 120 s). */
  readonly timeoutMs?: number;
  /** Extra labels on the container (it always has `graphplan.sandbox=1`). */
  readonly labels?: Readonly<Record<string, string>>;
}

/** The label every sandbox container carries: `docker ps -a --filter label=graphplan.sandbox=1` lists leftovers. */
export const SANDBOX_LABEL = "graphplan.sandbox";

/** Every process of one exec carries this variable (with the exec's id): the timeout kills them by it. */
const EXEC_MARKER = "GRAPHPLAN_SANDBOX_EXEC";

/** PID 1 of the container: sleeps forever, and its `wait` reaps processes re-parented to it. */
const KEEPALIVE_SCRIPT = "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done";

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

interface Endpoint {
  /** For messages: the socket path or the DOCKER_HOST value. */
  readonly label: string;
  readonly docker: Docker;
}

function endpoint(socketPath: string | undefined): Endpoint {
  if (socketPath !== undefined) return { label: socketPath, docker: new Docker({ socketPath }) };
  const host = process.env.DOCKER_HOST;
  if (host !== undefined && host !== "") {
    if (host.startsWith("unix://") && host.length > "unix://".length) {
      const path = host.slice("unix://".length);
      return { label: path, docker: new Docker({ socketPath: path }) };
    }
    return { label: `DOCKER_HOST=${host}`, docker: new Docker() };
  }
  return { label: "/var/run/docker.sock", docker: new Docker({ socketPath: "/var/run/docker.sock" }) };
}

const errorText = (error: unknown): string => {
  if (error instanceof Error) {
    const json = (error as { json?: unknown }).json;
    const message = typeof json === "object" && json !== null && "message" in json ? String((json as { message: unknown }).message) : undefined;
    return message ?? error.message;
  }
  return String(error);
};

const statusOf = (error: unknown): number | undefined => (typeof error === "object" && error !== null && "statusCode" in error ? Number((error as { statusCode: unknown }).statusCode) : undefined);

/**
 * Creates and starts the sandbox's container, removed (forced) when the scope closes, however it closes.
 * Fails with `SandboxUnavailable` when the engine does not answer, the image is missing, or the
 * container cannot be created or started.
 */
export function makeDockerSandbox(options: DockerSandboxOptions): Effect.Effect<SandboxShape, SandboxUnavailable, Scope.Scope> {
  return Effect.gen(function* () {
    const { label, docker } = endpoint(options.socketPath);
    const name = `docker:${options.image}`;
    const unavailable = (detail: string, hint: string) => new SandboxUnavailable({ sandbox: name, detail, hint });

    yield* Effect.tryPromise({ try: () => docker.ping(), catch: (error) => error }).pipe(
      Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(new Error("no answer within 10 s")) }),
      Effect.mapError((error) =>
        unavailable(
          `the container engine at ${label} does not answer (${errorText(error)})`,
          `start one: as root, \`bash .ci/podman-setup.sh\` (installs podman and serves it on /tmp/podman.sock), or \`podman system service --time=0 unix://${label.startsWith("/") ? label : "/tmp/podman.sock"} &\`, or start Docker; then pass its socket as \`socketPath\` or set DOCKER_HOST=unix://PATH`,
        ),
      ),
    );

    yield* Effect.tryPromise({ try: () => docker.getImage(options.image).inspect(), catch: (error) => error }).pipe(
      Effect.mapError((error) =>
        statusOf(error) === 404
          ? unavailable(
              `the image ${options.image} is not in the engine at ${label} (it is never pulled)`,
              `pull it (\`docker pull ${options.image}\` / \`podman pull ${options.image}\`) or build it; the test image graphplan-busybox:test is built by \`bash .ci/podman-setup.sh\``,
            )
          : unavailable(`the engine at ${label} could not inspect the image ${options.image}: ${errorText(error)}`, "check that the engine is healthy (`podman info` / `docker info`)"),
      ),
    );

    const container = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          docker.createContainer({
            Image: options.image,
            // Overrides the image's entrypoint: the container only has to stay alive (commands come by
            // exec), and its first process reaps the orphans a killed command leaves (no zombies).
            Entrypoint: ["sh", "-c", KEEPALIVE_SCRIPT],
            Cmd: [],
            WorkingDir: options.workdir,
            Env: Object.entries(options.env ?? {}).map(([key, value]) => `${key}=${value}`),
            Labels: { ...options.labels, [SANDBOX_LABEL]: "1" },
            Tty: false,
            AttachStdin: false,
            AttachStdout: false,
            AttachStderr: false,
            HostConfig: { Binds: [...(options.binds ?? [])], AutoRemove: false },
          }),
        catch: (error) =>
          unavailable(
            `the engine at ${label} could not create a container of ${options.image}: ${errorText(error)}`,
            "check the bind mounts (each host path must exist; form host:container[:ro]) and the working directory (an absolute path)",
          ),
      }),
      (created) => Effect.promise(() => created.remove({ force: true, v: true }).catch(() => undefined)),
    );

    yield* Effect.tryPromise({
      try: () => container.start(),
      catch: (error) => unavailable(`the container of ${options.image} did not start: ${errorText(error)}`, "the image needs `sh` and `sleep` on its PATH (the container's first process is a `sh -c` loop around `sleep 3600`)"),
    });

    const description = `docker:${options.image}@${container.id.slice(0, 12)}`;
    const defaultTimeout = options.timeoutMs ?? 120_000;
    return {
      description,
      exec: (command: string, exec?: ExecOptions) => runExec(docker, container, description, options.workdir, command, exec?.timeoutMs ?? defaultTimeout),
    } satisfies SandboxShape;
  });
}

/** Kills every process of the exec `execId` (see KILL_SCRIPT) through a second exec; never fails. */
async function killExec(container: Docker.Container, execId: string): Promise<void> {
  try {
    const killer = await container.exec({ Cmd: ["sh", "-c", KILL_SCRIPT, "graphplan-kill", execId], AttachStdout: true, AttachStderr: true });
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

function runExec(docker: Docker, container: Docker.Container, sandbox: string, workdir: string, command: string, timeoutMs: number): Effect.Effect<ExecResult, SandboxFailed> {
  return Effect.callback<ExecResult, SandboxFailed>((resume) => {
    const execId = randomUUID();
    const chunks: Buffer[] = [];
    let stream: Duplex | undefined;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let finished = false;
    let cancelled = false;

    const output = () => Buffer.concat(chunks).toString("utf8");
    const finish = (result: Effect.Effect<ExecResult, SandboxFailed>) => {
      if (finished) return;
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      resume(result);
    };

    const run = async () => {
      const exec = await container.exec({
        Cmd: ["sh", "-c", RUN_SCRIPT, "sh", command],
        Env: [`${EXEC_MARKER}=${execId}`],
        WorkingDir: workdir,
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
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(Buffer.from(chunk));
          callback();
        },
      });
      docker.modem.demuxStream(started, sink, sink);
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
        if (!info.Running && info.ExitCode !== null) return finish(Effect.succeed({ exitCode: info.ExitCode, output: output(), timedOut: false }));
        if (attempt >= 100) throw new Error(`the engine still reports the command as running after its output ended (exec ${exec.id})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };

    run().catch((error: unknown) => {
      if (cancelled) return;
      finish(Effect.fail(new SandboxFailed({ sandbox, command, detail: errorText(error) })));
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

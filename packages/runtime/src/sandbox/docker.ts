/**
 * The container sandbox: one long-lived container per layer scope, started through the
 * ContainerEngine (the Docker Engine API, which Docker and podman's `podman system service` both
 * serve). Commands run with `docker exec`; a timeout kills every process the command started.
 */
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { makeDockerEngine } from "../container/docker.js";
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

/**
 * Creates and starts the sandbox's container, removed (forced) when the scope closes, however it closes.
 * Fails with `SandboxUnavailable` when the engine does not answer, the image is missing, or the
 * container cannot be created or started.
 */
export function makeDockerSandbox(
  options: DockerSandboxOptions,
): Effect.Effect<SandboxShape, SandboxUnavailable, Scope.Scope> {
  return Effect.gen(function* () {
    const engine = makeDockerEngine({ host: options.socketPath, timeoutMs: options.timeoutMs });
    const label = engine.endpoint.startsWith("unix://") ? engine.endpoint.slice("unix://".length) : engine.endpoint;
    const name = `docker:${options.image}`;
    const unavailable = (detail: string, hint: string) => new SandboxUnavailable({ sandbox: name, detail, hint });

    yield* engine.ping.pipe(
      Effect.mapError((error) =>
        unavailable(
          `the container engine at ${label} does not answer (${error.detail})`,
          `start one: as root, \`bash .ci/podman-setup.sh\` (installs podman and serves it on /tmp/podman.sock), or \`podman system service --time=0 unix://${label.startsWith("/") ? label : "/tmp/podman.sock"} &\`, or start Docker; then pass its socket as \`socketPath\` or set DOCKER_HOST=unix://PATH`,
        ),
      ),
    );

    const image = yield* engine
      .inspectImage(options.image)
      .pipe(
        Effect.mapError((error) =>
          unavailable(
            `the engine at ${label} could not inspect the image ${options.image}: ${error.detail}`,
            "check that the engine is healthy (`podman info` / `docker info`)",
          ),
        ),
      );
    if (image === undefined) {
      return yield* Effect.fail(
        unavailable(
          `the image ${options.image} is not in the engine at ${label} (it is never pulled)`,
          `pull it (\`docker pull ${options.image}\` / \`podman pull ${options.image}\`) or build it; the test image graphplan-busybox:test is built by \`bash .ci/podman-setup.sh\``,
        ),
      );
    }

    const container = yield* engine
      .start({
        image: options.image,
        workdir: options.workdir,
        env: options.env,
        binds: options.binds,
        labels: { ...options.labels, [SANDBOX_LABEL]: "1" },
      })
      .pipe(
        Effect.mapError((error) =>
          error.operation === "start"
            ? unavailable(
                `the container of ${options.image} did not start: ${error.detail}`,
                "the image needs `sh` and `sleep` on its PATH (the container's first process is a `sh -c` loop around `sleep 3600`)",
              )
            : unavailable(
                `the engine at ${label} could not create a container of ${options.image}: ${error.detail}`,
                "check the bind mounts (each host path must exist; form host:container[:ro]) and the working directory (an absolute path)",
              ),
        ),
      );

    const description = `docker:${options.image}@${container.id.slice(0, 12)}`;
    return {
      description,
      exec: (command: string, exec?: ExecOptions) =>
        container.exec(command, { timeoutMs: exec?.timeoutMs }).pipe(
          Effect.map(
            (result): ExecResult => ({ exitCode: result.exitCode, output: result.output, timedOut: result.timedOut }),
          ),
          Effect.mapError((error) => new SandboxFailed({ sandbox: description, command, detail: error.detail })),
        ),
    } satisfies SandboxShape;
  });
}

/**
 * The ContainerEngine service: containers and images of one engine that speaks the Docker Engine API
 * (Docker, or podman's `podman system service`). The SWE-bench evaluation, the image builder and the
 * docker sandbox all run through it. `ContainerEngine.layer` talks to a real engine (dockerode);
 * `FakeEngine` (from `@graphplan/runtime/testing`) is a deterministic in-memory one for tests.
 */
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import type * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import type * as Scope from "effect/Scope";
import { makeDockerEngine, type EngineOptions } from "./docker.js";

/** The outcome of one command in a container. */
export interface ContainerExecResult {
  /** Exit code; -1 when the command was killed by its timeout. */
  readonly exitCode: number;
  /** stdout and stderr, interleaved as written (both go to one pipe). */
  readonly output: string;
  readonly timedOut: boolean;
}

export interface ContainerExecOptions {
  /** Kill the command and every process it started after this long (default: the engine's, 120 s). */
  readonly timeoutMs?: number;
  /** Working directory (default: the container's). */
  readonly workdir?: string;
  /** User to run as (default: the image's). */
  readonly user?: string;
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A file to copy into a container. */
export interface ContainerFile {
  /** Absolute path inside the container; missing parent directories are created. */
  readonly path: string;
  readonly content: string | Uint8Array;
  /** Permission bits (default 0o644). */
  readonly mode?: number;
}

export interface ContainerSpec {
  readonly image: string;
  /** Container name (default: the engine picks one). Names must be unique per engine. */
  readonly name?: string;
  /** Working directory of the container (default: the image's). */
  readonly workdir?: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Labels; every container also carries `graphplan.container=1`. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Bind mounts, Docker's `host:container[:ro]` form. */
  readonly binds?: readonly string[];
  /** User of the container's processes (default: the image's). */
  readonly user?: string;
}

/** Changes recorded with a commit (Dockerfile-like instructions). */
export interface CommitOptions {
  readonly labels?: Readonly<Record<string, string>>;
  readonly env?: Readonly<Record<string, string>>;
  readonly workdir?: string;
  /** Commit message. */
  readonly comment?: string;
}

/** A running container; removed (forced) when the scope that started it closes. */
export interface ContainerShape {
  readonly id: string;
  readonly name: string;
  readonly image: string;
  /** Runs `command` with `bash -c` (`sh -c` where the image has no bash). */
  readonly exec: (
    command: string,
    options?: ContainerExecOptions,
  ) => Effect.Effect<ContainerExecResult, ContainerFailed>;
  /** Runs `argv` with no shell in between (as docker-py's `exec_run` of a string splits it). */
  readonly execArgv: (
    argv: readonly string[],
    options?: ContainerExecOptions,
  ) => Effect.Effect<ContainerExecResult, ContainerFailed>;
  /** Copies files in (a tar through the engine: no bind mount needed). */
  readonly putFiles: (files: readonly ContainerFile[]) => Effect.Effect<void, ContainerFailed>;
  /** Streams a tar archive into the directory `dir` (which must exist). */
  readonly putArchive: (dir: string, tar: NodeJS.ReadableStream | Uint8Array) => Effect.Effect<void, ContainerFailed>;
  /** Reads one regular file out of the container. */
  readonly readFile: (path: string) => Effect.Effect<Uint8Array, ContainerFailed>;
  /** A tar archive of just these files (paths relative to `dir`), in one exec. */
  readonly readFiles: (dir: string, paths: readonly string[]) => Effect.Effect<Uint8Array, ContainerFailed>;
  /** Runs `argv` (no shell in between) and answers its standard output as bytes; fails with its standard error when it exits non-zero. */
  readonly readStdout: (
    argv: readonly string[],
    options?: Pick<ContainerExecOptions, "workdir">,
  ) => Effect.Effect<Uint8Array, ContainerFailed>;
  /** Saves the container's file system as the image `image` (`name:tag`). */
  readonly commit: (image: string, options?: CommitOptions) => Effect.Effect<void, ContainerFailed>;
}

/** What `inspectImage` tells. */
export interface ImageInfo {
  readonly id: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly env: readonly string[];
  readonly workdir: string;
  readonly sizeBytes: number;
}

export interface ContainerEngineShape {
  /** The engine's address, for messages (`unix:///tmp/podman.sock`, `tcp://10.0.0.5:2375`, ...). */
  readonly endpoint: string;
  /** Fails when the engine does not answer. */
  readonly ping: Effect.Effect<void, EngineUnavailable>;
  /** The image, or `undefined` when the engine does not have it. */
  readonly inspectImage: (image: string) => Effect.Effect<ImageInfo | undefined, EngineUnavailable>;
  /** Pulls the image from its registry. */
  readonly pullImage: (image: string) => Effect.Effect<void, ImageUnavailable>;
  /** Removes an image (no error when it is missing). */
  readonly removeImage: (image: string) => Effect.Effect<void, EngineUnavailable>;
  /**
   * Creates and starts a container that stays up until its scope closes, then is removed; if the
   * process ends without closing the scope (crash, SIGKILL), the engine removes it (the process's lease).
   */
  readonly start: (spec: ContainerSpec) => Effect.Effect<ContainerShape, ContainerFailed, Scope.Scope>;
  /** Ids of the containers (running or not) that carry every given label `key=value` (`key` with any value when value is ""). */
  readonly containersLabelled: (
    labels: Readonly<Record<string, string>>,
  ) => Effect.Effect<readonly string[], EngineUnavailable>;
  /** Removes a container by id or name, forced (no error when it is missing). */
  readonly removeContainer: (idOrName: string) => Effect.Effect<void, EngineUnavailable>;
}

/** The label every container started through the engine carries. */
export const CONTAINER_LABEL = "graphplan.container";

/** The engine does not answer, or answered an error to a request that should not fail. */
export class EngineUnavailable extends Data.TaggedError("EngineUnavailable")<{
  readonly endpoint: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `the container engine at ${this.endpoint} does not answer (${this.detail}); start one (as root: \`bash .ci/podman-setup.sh\`, which serves podman on unix:///tmp/podman.sock), or pass its address with --docker-host / DOCKER_HOST`;
  }
}

/** An image that the engine neither has nor can pull. */
export class ImageUnavailable extends Data.TaggedError("ImageUnavailable")<{
  readonly endpoint: string;
  readonly image: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `the image ${this.image} is not in the engine at ${this.endpoint} and could not be pulled (${this.detail}); build it (\`pnpm -s bench images build\`) or pull it where a registry is reachable`;
  }
}

/** A container could not be created, started, or used (exec, copy, commit). */
export class ContainerFailed extends Data.TaggedError("ContainerFailed")<{
  readonly endpoint: string;
  readonly container: string;
  readonly operation: "create" | "start" | "exec" | "copy" | "read" | "commit";
  readonly detail: string;
}> {
  override get message(): string {
    return `${this.operation} in the container ${this.container} (engine ${this.endpoint}) failed: ${this.detail}`;
  }
}

export type ContainerError = EngineUnavailable | ImageUnavailable | ContainerFailed;

export class ContainerEngine extends Context.Service<ContainerEngine, ContainerEngineShape>()(
  "@graphplan/runtime/ContainerEngine",
) {
  /**
   * A real engine through the Docker Engine API. `host` is a Docker host URL: `unix:///path`,
   * `tcp://host:port`, `ssh://user@host`, or a bare socket path; without it, `DOCKER_HOST`, else
   * `/var/run/docker.sock`. The engine is not contacted until used (`ping` checks it).
   */
  static layer(options: EngineOptions = {}): Layer.Layer<ContainerEngine> {
    return Layer.sync(ContainerEngine, () => makeDockerEngine(options));
  }

  /** The same engine as a plain value, for code that spreads work over several engines. Throws on a malformed `host`. */
  static make(options: EngineOptions = {}): ContainerEngineShape {
    return makeDockerEngine(options);
  }
}

/**
 * The Sandbox service: where the agent's shell commands run. Live layers run them in a local
 * directory or in a container (through the Docker API, which podman also serves);
 * `TestSandbox` of `@graphplan/runtime/testing` answers from a table, for tests with no processes at all.
 */
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import type * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { z } from "zod";
import { makeDockerSandbox, type DockerSandboxOptions } from "./docker.js";
import { makeLocalSandbox, type LocalSandboxOptions } from "./local.js";

export const ExecResultSchema = z.object({
  /** The command's exit code; -1 when it was killed by the timeout. */
  exitCode: z.number().int(),
  /** stdout and stderr, interleaved as the command wrote them (or stdout then stderr where the engine cannot interleave). */
  output: z.string(),
  timedOut: z.boolean(),
});
export type ExecResult = z.infer<typeof ExecResultSchema>;

export interface ExecOptions {
  /** Kill the command (and everything it started) after this long; the result has `timedOut: true`. */
  readonly timeoutMs?: number;
}

/** The sandbox could not run a command at all (the engine is unreachable, the container is gone...). */
export class SandboxFailed extends Data.TaggedError("SandboxFailed")<{
  readonly sandbox: string;
  readonly command: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `the sandbox ${this.sandbox} could not run ${JSON.stringify(this.command.slice(0, 200))}: ${this.detail}`;
  }
}

/** The sandbox could not be created (bad directory, image not found, engine unreachable). */
export class SandboxUnavailable extends Data.TaggedError("SandboxUnavailable")<{
  readonly sandbox: string;
  readonly detail: string;
  readonly hint: string;
}> {
  override get message(): string {
    return `the sandbox ${this.sandbox} could not be started: ${this.detail}; ${this.hint}`;
  }
}

export interface SandboxShape {
  /** Where commands run, for messages and trajectories (`local:/path`, `docker:image@container`). */
  readonly description: string;
  /** Runs `command` with `bash -c` (or `sh -c` where there is no bash) in the sandbox's working directory. */
  readonly exec: (command: string, options?: ExecOptions) => Effect.Effect<ExecResult, SandboxFailed>;
}

export class Sandbox extends Context.Service<Sandbox, SandboxShape>()("@graphplan/runtime/Sandbox") {
  /** Commands run with `bash -c` in a local directory; a timeout kills the command's whole process group. */
  static layerLocal(options: LocalSandboxOptions): Layer.Layer<Sandbox, SandboxUnavailable> {
    return Layer.effect(Sandbox, makeLocalSandbox(options));
  }

  /**
   * Commands run in one container of `options.image` (through the Docker API: Docker, or podman's
   * `podman system service`), created and started when the layer is built and removed (forced) when
   * its scope closes — on success, failure or interruption. A timeout kills every process the command
   * started inside the container. See {@link DockerSandboxOptions}.
   */
  static layerDocker(options: DockerSandboxOptions): Layer.Layer<Sandbox, SandboxUnavailable> {
    return Layer.effect(Sandbox, makeDockerSandbox(options));
  }
}

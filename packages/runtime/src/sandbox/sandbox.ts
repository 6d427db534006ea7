/**
 * The Sandbox service: where the agent's shell commands run. Live layers run them in a local
 * directory or in a container (through the Docker API, which podman also serves);
 * `Sandbox.layerTest` answers from a table, for tests with no processes at all.
 */
import * as Context from "effect/Context";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
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

/** A test sandbox's answer to one command: an exec result, or just the output (exit code 0). */
export type TestAnswer = string | ExecResult;

/**
 * A sandbox that runs nothing: each command is answered by `answer(command)` (a function, or a
 * table from exact command text to answer). A command with no answer exits 127 with
 * `command not found`, like a shell. `commands` records every command received.
 */
export class TestSandbox implements SandboxShape {
  readonly description = "test:sandbox";
  readonly commands: string[] = [];

  constructor(readonly answers: ((command: string) => TestAnswer | undefined) | Readonly<Record<string, TestAnswer>>) {}

  readonly exec = (command: string): Effect.Effect<ExecResult, SandboxFailed> =>
    Effect.sync(() => {
      this.commands.push(command);
      const answer = typeof this.answers === "function" ? this.answers(command) : this.answers[command];
      if (answer === undefined) return { exitCode: 127, output: `${command.split(/\s+/)[0]}: command not found\n`, timedOut: false };
      return typeof answer === "string" ? { exitCode: 0, output: answer, timedOut: false } : answer;
    });
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

  /** A sandbox answering from `answers` (see {@link TestSandbox}); pass a `TestSandbox` to inspect its commands afterwards. */
  static layerTest(answers: TestSandbox | ConstructorParameters<typeof TestSandbox>[0]): Layer.Layer<Sandbox> {
    return Layer.succeed(Sandbox, answers instanceof TestSandbox ? answers : new TestSandbox(answers));
  }
}

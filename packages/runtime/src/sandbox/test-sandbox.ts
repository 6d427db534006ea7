/**
 * A sandbox for tests that runs no process: each command is answered from a table or a function.
 * Exported from `@graphplan/runtime/testing`.
 */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Sandbox, type ExecResult, type SandboxFailed, type SandboxShape } from "./sandbox.js";

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
      if (answer === undefined)
        return { exitCode: 127, output: `${command.split(/\s+/)[0]}: command not found\n`, timedOut: false };
      return typeof answer === "string" ? { exitCode: 0, output: answer, timedOut: false } : answer;
    });
}

/** A sandbox layer answering from `answers`; pass a `TestSandbox` to inspect its commands afterwards. */
export function testSandboxLayer(
  answers: TestSandbox | ConstructorParameters<typeof TestSandbox>[0],
): Layer.Layer<Sandbox> {
  return Layer.succeed(Sandbox, answers instanceof TestSandbox ? answers : new TestSandbox(answers));
}

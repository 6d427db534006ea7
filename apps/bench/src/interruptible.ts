/**
 * How every long-running `bench` command runs its Effect: Ctrl-C interrupts it (its scopes remove
 * containers and worktrees, its finalizers write reports) and exits 130, a second Ctrl-C quits at
 * once; bad input (the tagged errors named in `inputErrors`) becomes one line and exit 2 (thrown for
 * the CLI to print); anything else is printed with its stack and exits 1.
 */
import { InvalidArgumentError } from "commander";
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Logger from "effect/Logger";
import * as Option from "effect/Option";
import * as Predicate from "effect/Predicate";

/**
 * What the libraries log (a container that could not be removed, ...) goes to stderr as one
 * `warning: ...` line, like the commands' own warnings, and never into the tables on stdout.
 */
export const stderrLogger = Logger.layer([
  Logger.make(({ message, logLevel }) => {
    const text = (Array.isArray(message) ? message : [message])
      .map((m) => (typeof m === "string" ? m : JSON.stringify(m)))
      .join(" ");
    process.stderr.write(`${logLevel === "Warn" ? "warning" : logLevel.toLowerCase()}: ${text}\n`);
  }),
]);

/** The `_tag`s of an error union. */
type TagOf<E> = E extends { readonly _tag: infer Tag extends string } ? Tag : never;

export interface InterruptibleOptions<A, E> {
  /** The command's name, for unexpected errors (`bench eval: ...`). */
  readonly name: string;
  /** Said on stderr at the first Ctrl-C: what is being cleaned up. */
  readonly onInterrupt: string;
  /** Said on stderr once the interrupted run has stopped. */
  readonly interrupted: string;
  /** `_tag`s of the errors that are bad input: tags of the effect's own errors, checked by the compiler. */
  readonly inputErrors: readonly TagOf<E>[];
  readonly onSuccess: (value: A) => void;
  /** Called however the run ends, before anything is printed (e.g. to close a progress display). */
  readonly onEnd?: () => void;
}

export async function runInterruptible<A, E>(
  effect: Effect.Effect<A, E>,
  options: NoInfer<InterruptibleOptions<A, E>>,
): Promise<void> {
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    if (++interrupts > 1) process.exit(130);
    process.stderr.write(`\ninterrupted: ${options.onInterrupt} (Ctrl-C again to quit at once)\n`);
    controller.abort();
  };
  process.on("SIGINT", onSigint);
  // SIGTERM (scancel, a time limit, `docker stop`, Kubernetes) stops the run as Ctrl-C does.
  process.on("SIGTERM", onSigint);
  try {
    const exit = await Effect.runPromiseExit(Effect.provide(effect, stderrLogger), { signal: controller.signal });
    options.onEnd?.();
    if (Exit.isSuccess(exit)) return options.onSuccess(exit.value);
    if (Cause.hasInterruptsOnly(exit.cause)) {
      process.stderr.write(`${options.interrupted}\n`);
      process.exitCode = 130;
      return;
    }
    const failure = Cause.findErrorOption(exit.cause);
    if (Option.isSome(failure) && isInputError(failure.value, options.inputErrors))
      throw new InvalidArgumentError(`error: ${failure.value.message}`);
    const error = Cause.squash(exit.cause);
    process.stderr.write(
      `${options.name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  } finally {
    options.onEnd?.();
    process.off("SIGINT", onSigint);
    process.off("SIGTERM", onSigint);
  }
}

/** True when the effect's failure is one of the tagged errors named bad input. */
function isInputError<E>(
  error: E,
  tags: readonly TagOf<E>[],
): error is E & { readonly _tag: TagOf<E>; readonly message: string } {
  return Predicate.hasProperty(error, "_tag") && tags.some((tag) => tag === error._tag);
}

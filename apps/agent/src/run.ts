/** Runs a commander program and turns every way it can end into an exit code. */
import { CommanderError, type Command } from "commander";
import { isSourcesError } from "./sources.js";

/**
 * Parses `argv` (as `process.argv`: node, script, args...) and runs the chosen command.
 * Returns 0 on success; 2 for bad input (commander's usage errors, and `PathNotFound` /
 * `NoSourceFiles`, reported on one line of stderr); the exit code a command chose with
 * `command.error(message, {exitCode})`; 1 for anything else (its first line on stderr).
 */
export async function run(program: Command, argv: readonly string[]): Promise<number> {
  program.exitOverride();
  for (const command of program.commands) command.exitOverride();
  try {
    await program.parseAsync([...argv]);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // The message (or the help text) is already printed. commander's own usage errors exit
      // with 1; they are bad input, so 2. A command's `command.error(msg, {exitCode})` keeps its code.
      return error.code.startsWith("commander.") && error.exitCode === 1 ? 2 : error.exitCode;
    }
    // Errors whose message tells the user how to fix their input: exit code 2, one line.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${program.name()}: ${message.split("\n")[0]}\n`);
    return isSourcesError(error) ? 2 : 1;
  }
}

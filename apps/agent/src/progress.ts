/**
 * Live lines of a run as it happens: each phase the agent enters (with why) and each command the
 * model runs, from the trajectory `runAgent` reports after every change. Pure: the caller prints.
 */
import { bashBlocks, type Trajectory } from "@graphplan/agent";

/** What is new in `trajectory` since `seen` (transitions and messages already shown), as lines. */
export function progressLines(trajectory: Trajectory, seen: { transitions: number; messages: number }): string[] {
  const lines: string[] = [];
  const transitions = trajectory.transitions.slice(seen.transitions);
  const messages = trajectory.messages.slice(seen.messages);
  for (const transition of transitions) lines.push(`[${transition.to}] ${transition.reason}`);
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const command of bashBlocks(message.content)) {
      const first = command.split("\n")[0]!;
      lines.push(
        `  $ ${first.length > 100 ? `${first.slice(0, 97)}...` : first}${command.includes("\n") ? " ..." : ""}`,
      );
    }
  }
  seen.transitions = trajectory.transitions.length;
  seen.messages = trajectory.messages.length;
  return lines;
}

/** A `runAgent` `onProgress` that writes the new lines to `write`. */
export function progressPrinter(write: (text: string) => void): (trajectory: Trajectory) => void {
  const seen = { transitions: 0, messages: 0 };
  return (trajectory) => {
    const lines = progressLines(trajectory, seen);
    if (lines.length > 0) write(`${lines.join("\n")}\n`);
  };
}

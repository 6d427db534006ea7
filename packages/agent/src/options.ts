/**
 * The options every command that runs the agent takes — the config, the model and the sandbox —
 * shared by `graphplan run` and `bench agent`, so both spell and explain them the same way.
 */
import { Option, type Command } from "commander";
import { PROVIDERS, SANDBOXES } from "./layers.js";

/** Adds `--config`, `--provider`, `--model`, `--script`, `--sandbox`, `--image` and `--workdir`; `mounted` names what the container sees at `--workdir` ("repository", "worktree"). */
export function addAgentOptions(command: Command, mounted: string): Command {
  return command
    .option(
      "--config <file>",
      "a YAML file merged over the agent's default config (packages/agent/config/default.yaml)",
    )
    .addOption(
      new Option(
        "--provider <name>",
        "the model's provider (scripted: replies from --script, for demos and tests)",
      ).choices([...PROVIDERS]),
    )
    .option("--model <name>", "the provider's model id, e.g. claude-sonnet-4-5 or gpt-4.1")
    .option("--script <file>", "with --provider scripted: a JSON array of the model's replies, handed out in order")
    .addOption(
      new Option("--sandbox <kind>", "where the model's commands run").choices([...SANDBOXES]).default("local"),
    )
    .option("--image <image>", `with --sandbox docker: the image (the ${mounted} is mounted into it at --workdir)`)
    .option("--workdir <path>", `with --sandbox docker: where the ${mounted} is mounted in the container`, "/repo");
}

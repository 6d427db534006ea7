/** `graphplan graph [--json] PATH...`: the code graph of files and directories. */
import type { Command } from "commander";
import { buildGraph, graphView } from "@graphplan/graph";
import { readSources, SKIPPED_DIRECTORIES } from "../sources.js";

export function graphCommand(program: Command): void {
  program
    .command("graph")
    .description(
      "print the code graph (symbols, imports, control-flow lines) of source files, and the keys and headings of data files and docs",
    )
    .argument(
      "<paths...>",
      `files, or directories to walk for supported files (skipping ${SKIPPED_DIRECTORIES.join(", ")})`,
    )
    .option("--json", "print the Graph JSON instead of the text view")
    .action(async (paths: string[], options: { json?: boolean }) => {
      const { files, errors } = await readSources(paths);
      const graph = await buildGraph(files, { extraErrors: errors, documents: true });
      process.stdout.write(options.json ? `${JSON.stringify(graph, null, 2)}\n` : `${graphView(graph)}\n`);
    });
}

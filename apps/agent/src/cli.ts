#!/usr/bin/env node
/** The `graphplan` command line. Each command lives in ./commands/<name>.ts; list it here. */
import { Command } from "commander";
import { applyCommand } from "./commands/apply.js";
import { demoCommand } from "./commands/demo.js";
import { graphCommand } from "./commands/graph.js";
import { mcpCommand } from "./commands/mcp.js";
import { runCommand } from "./commands/run.js";
import { verifyCommand } from "./commands/verify.js";
import { viewCommand } from "./commands/view.js";
import { run } from "./run.js";

const program = new Command("graphplan").description("structural, tree-sitter based code editing for coding agents");

graphCommand(program);
applyCommand(program);
verifyCommand(program);
runCommand(program);
demoCommand(program);
viewCommand(program);
mcpCommand(program);

process.exitCode = await run(program, process.argv);

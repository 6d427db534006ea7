/**
 * `graphplan mcp --root DIR [--http PORT] [--read-only]`: the engine as an MCP server (@graphplan/mcp), for the
 * coding agents that take tools through the Model Context Protocol. stdio by default; `--http PORT` serves
 * streamable HTTP on 127.0.0.1 instead. Log lines go to stderr (stdout is the protocol on stdio).
 *
 * Exit codes: 0 when the client went away or the server was stopped (SIGINT/SIGTERM, after the call
 * running then has finished); 2 for bad input (a root that is not a directory, a port that is not one).
 */
import { readFileSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import type { Command } from "commander";
import * as Effect from "effect/Effect";
import { Engine, serveHttp, serveStdio, type EngineOptions } from "@graphplan/mcp";

const VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

/**
 * Tests only: milliseconds to wait before each file write of a commit, so a test can disconnect while an
 * apply is writing. Unset, writes are not delayed.
 */
export const WRITE_DELAY_ENV = "GRAPHPLAN_MCP_TEST_WRITE_DELAY_MS";

export function mcpCommand(program: Command): void {
  program
    .command("mcp")
    .description(
      "serve the engine to coding agents over the Model Context Protocol: graph, locate, verify_plan, apply_plan, rename_symbol, compile_patch, undo_last_apply",
    )
    .requiredOption("--root <dir>", "the directory the tools read and edit; every path is confined to it")
    .option("--http <port>", "serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio (0: any free port)")
    .option("--read-only", "offer only the tools that write nothing (graph, locate, verify_plan, compile_patch)")
    .action(async (options: { root: string; http?: string; readOnly?: boolean }, command: Command) => {
      const root = await rootDir(options.root, command);
      const port = options.http === undefined ? undefined : portNumber(options.http, command);
      const engine = new Engine(engineOptions(root));
      const recovered = await engine.recover();
      if (recovered.interrupted)
        process.stderr.write(
          `graphplan mcp: recovered an interrupted apply in ${root} (restored ${recovered.restored.join(", ") || "no file"})\n`,
        );
      const serverOptions = { engine, readOnly: options.readOnly === true, version: VERSION };
      // Stopped by a signal: let the call that is writing finish first (a commit is never cut in half).
      const stopped = new Promise<void>((resolve) => {
        for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => resolve());
      });
      if (port === undefined) {
        await Promise.race([serveStdio(serverOptions), stopped]);
        await engine.queue.idle();
        return;
      }
      const serving = await serveHttp(serverOptions, port);
      process.stderr.write(
        `graphplan mcp: serving ${root} at ${serving.url}${serverOptions.readOnly ? " (read-only)" : ""}\n`,
      );
      await stopped;
      await serving.close();
    });
}

async function rootDir(path: string, command: Command): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory())
    return command.error(`error: --root ${path} is not a directory; pass the directory the tools may read and edit`, {
      exitCode: 2,
      code: "graphplan.rootInvalid",
    });
  return realpath(path);
}

function portNumber(text: string, command: Command): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    return command.error(`error: --http ${text} is not a port; pass a number from 0 to 65535 (0: any free port)`, {
      exitCode: 2,
      code: "graphplan.badPort",
    });
  return port;
}

function engineOptions(root: string): EngineOptions {
  const delay = Number(process.env[WRITE_DELAY_ENV] ?? "");
  return delay > 0 ? { root, onBeforeWrite: () => Effect.sleep(delay) } : { root };
}

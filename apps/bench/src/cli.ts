#!/usr/bin/env node
/**
 * `pnpm -s bench replay --dataset FILE.jsonl --repos DIR [--repo-map FILE.json]
 *   [--instances ID,...] [-w N] --out DIR [--no-git-check]`: the gold-patch replay.
 * `pnpm -s bench agent --dataset FILE.jsonl --repos DIR --out DIR --provider P --model M ...`: the
 *   agent on each instance, writing SWE-bench predictions (see README.md).
 */
import { buildProgram } from "./program.js";

// `pnpm -s bench` runs this in the repository's root whatever folder it was called from, and says which
// folder in INIT_CWD: relative paths on the command line are the caller's.
if (process.env.npm_lifecycle_event === "bench" && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}

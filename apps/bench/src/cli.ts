#!/usr/bin/env node
/**
 * `pnpm -s bench replay --dataset FILE.jsonl --repos DIR [--repo-map FILE.json]
 *   [--instances ID,...] [-w N] --out DIR [--no-git-check]`: the gold-patch replay.
 * `pnpm -s bench agent --dataset FILE.jsonl --repos DIR --out DIR --provider P --model M ...`: the
 *   agent on each instance, writing SWE-bench predictions (see README.md).
 */
import { buildProgram } from "./program.js";

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}

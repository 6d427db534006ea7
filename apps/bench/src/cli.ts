#!/usr/bin/env -S tsx --conditions=source
/**
 * `pnpm -s bench replay --dataset FILE.jsonl --repos DIR [--repo-map FILE.json]
 *   [--instances ID,...] [-w N] --out DIR [--no-git-check]`
 */
import { buildProgram } from "./program.js";

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}

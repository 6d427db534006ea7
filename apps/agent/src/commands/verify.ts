/**
 * `graphplan verify PLAN.json [--root DIR] [--json]`: check a plan against a directory without
 * changing a file (every check of @graphplan/verifier: the design's (docs/design.md, Origins) 7 layers and the L1–L6 hierarchy).
 *
 * Exit codes: 0 when the plan passes (warnings allowed); 1 when it has errors; 2 when the input
 * is unusable (plan file unreadable or not JSON, root not a directory).
 */
import { readFile } from "node:fs/promises";
import { relative, resolve, sep } from "node:path";
import type { Command } from "commander";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { buildGraph, detectLanguage } from "@graphplan/graph";
import { planFiles } from "@graphplan/primitives";
import { readTexts, Workspace } from "@graphplan/runtime";
import { formatResult, verifyPlan, type VerifyResult } from "@graphplan/verifier";
import { walk } from "../sources.js";

export function verifyCommand(program: Command): void {
  program
    .command("verify")
    .description("check a plan against a directory without changing it: every error and warning, each with its fix")
    .argument("<plan>", "the plan, a JSON file (paths in it are relative to the root)")
    .option("--root <dir>", "the directory the plan edits", ".")
    .option(
      "--json",
      "print {passed, errors, warnings, issues, places} as JSON (places: where each step changed the code)",
    )
    .action(async (planPath: string, options: { root: string; json?: boolean }, command: Command) => {
      const plan = await readPlanJson(planPath, command);
      const result = await verifyAt(plan, options.root, command);
      process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : formatResult(result));
      if (!result.passed) throw new VerificationFailed({ result });
    });
}

/** The JSON in PLAN.json (any shape: the verifier reports what is wrong with it), or exit code 2. */
export async function readPlanJson(path: string, command: Command): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return command.error(`error: cannot read ${path}: ${(error as Error).message}`, {
      exitCode: 2,
      code: "graphplan.planUnreadable",
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return command.error(`error: ${path} is not valid JSON: ${(error as Error).message}`, {
      exitCode: 2,
      code: "graphplan.planNotJson",
    });
  }
}

/**
 * The workspace the verifier needs, read through the root-confined Workspace service: every
 * supported source file under the root (for the import graph) and every file the plan names.
 * A named file that is missing or outside the root is left out (the verifier reports it).
 */
export async function readWorkspace(plan: unknown, root: string): Promise<Map<string, string>> {
  const listed = (await walk(root)).map((path) => relative(root, path).split(sep).join("/"));
  const wanted = new Set([...listed, ...planFiles(plan)]);
  const program = readTexts(wanted).pipe(Effect.provide(Workspace.layer(root)));
  return Effect.runPromise(program);
}

/** Verifies a plan against the files under `root`. */
export async function verifyAt(plan: unknown, root: string, command: Command): Promise<VerifyResult> {
  let files: Map<string, string>;
  try {
    files = await readWorkspace(plan, root.replace(/\/+$/, "") || "/");
  } catch (error) {
    return command.error(`error: cannot read the workspace at ${root}: ${(error as Error).message}`, {
      exitCode: 2,
      code: "graphplan.rootInvalid",
    });
  }
  const graph = await buildGraph(
    [...files].filter(([path]) => detectLanguage(path)).map(([path, source]) => ({ path, source })),
  );
  return verifyPlan(plan, files, graph, { root: resolve(root) });
}

/** `verify` found errors (exit code 1). */
export class VerificationFailed extends Data.TaggedError("VerificationFailed")<{ readonly result: VerifyResult }> {
  override get message(): string {
    const errors = this.result.errors.length;
    return `the plan did not pass verification: ${errors} error${errors === 1 ? "" : "s"}`;
  }
}

/** The plan did not pass verification, so `apply` did not run it. */
export class PlanNotVerified extends Data.TaggedError("PlanNotVerified")<{ readonly result: VerifyResult }> {
  override get message(): string {
    const errors = this.result.errors.length;
    return `the plan did not pass verification (${errors} error${errors === 1 ? "" : "s"}); no file was changed`;
  }
}

/**
 * For `apply`: verifies the plan against the root and, when it does not pass, prints why (as
 * JSON under `--json`) and throws {@link PlanNotVerified} (exit code 1) before any file is touched.
 */
export async function requireVerified(
  plan: unknown,
  root: string,
  json: boolean | undefined,
  command: Command,
): Promise<void> {
  const result = await verifyAt(plan, root, command);
  if (result.passed) return;
  // A plan that is unusable as input (not a plan, a path outside the root) is apply's own exit 2.
  if (
    result.issues.some(
      (i) => i.severity === "error" && (i.check === "plan" || (i.file !== undefined && outsideRoot(i.file))),
    )
  )
    return;
  if (json) process.stdout.write(`${JSON.stringify({ ok: false, verification: result }, null, 2)}\n`);
  else process.stderr.write(formatResult(result));
  throw new PlanNotVerified({ result });
}

const outsideRoot = (path: string): boolean =>
  path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.split(/[\\/]/).includes("..");

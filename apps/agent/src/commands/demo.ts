/**
 * `graphplan demo`: the agent on a small buggy project that ships with GraphPlan, from a fresh copy
 * to the test passing — the project is copied into a new git repository, its test is run (it
 * fails), the agent fixes the task (each phase printed as it happens), and the test is run again.
 * With no options the model is the replay model (the example's reference patch, no API key); with
 * `--provider anthropic|openai --model NAME` a real model solves the same task.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Option, type Command } from "commander";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import { z } from "zod";
import {
  loadConfig,
  modelLayer,
  replayWire,
  PROVIDERS,
  runAgent,
  sandboxLayer,
  type Provider,
  type Trajectory,
} from "@graphplan/agent";
import { Workspace } from "@graphplan/runtime";
import { usageLine } from "./usage.js";
import { progressPrinter } from "../progress.js";

/** The example that ships with GraphPlan. */
export const DEFAULT_EXAMPLE = resolve(import.meta.dirname, "..", "..", "examples", "textstats");

/** An example's `example.json`: the project, the task, the reference patch and the test command. */
export const ExampleSchema = z.strictObject({
  description: z.string(),
  project: z.string().min(1),
  task: z.string().min(1),
  patch: z.string().min(1),
  test: z.string().min(1),
});
export type Example = z.infer<typeof ExampleSchema>;

interface DemoOptions {
  example: string;
  provider: Provider;
  model?: string;
  config?: string;
  keep?: string;
}

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "demo",
  GIT_AUTHOR_EMAIL: "demo@example.com",
  GIT_COMMITTER_NAME: "demo",
  GIT_COMMITTER_EMAIL: "demo@example.com",
  GIT_CONFIG_NOSYSTEM: "1",
};
const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, env: GIT_ENV, encoding: "utf8" });

/** Reads and checks `<dir>/example.json`; a one-line message on a missing or malformed one. */
export function readExample(dir: string): { ok: true; example: Example } | { ok: false; error: string } {
  const path = join(dir, "example.json");
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return {
      ok: false,
      error: `cannot read the example ${path}: ${(error as Error).message.split("\n")[0]} (an example is a directory with example.json; see ${DEFAULT_EXAMPLE})`,
    };
  }
  const parsed = ExampleSchema.safeParse(json);
  if (!parsed.success)
    return {
      ok: false,
      error: `the example ${path} is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    };
  for (const key of ["project", "task", "patch"] as const) {
    if (!existsSync(join(dir, parsed.data[key])))
      return { ok: false, error: `the example's ${key} ${join(dir, parsed.data[key])} does not exist` };
  }
  return { ok: true, example: parsed.data };
}

/** The test command's result, as one line and the tail of its output. */
function runTest(command: string, cwd: string): { passed: boolean; report: string } {
  const result = spawnSync("sh", ["-c", `${command} 2>&1`], { cwd, encoding: "utf8", timeout: 120_000 });
  const tail = (result.stdout ?? "")
    .trimEnd()
    .split("\n")
    .slice(-12)
    .map((l) => `  | ${l}`)
    .join("\n");
  const passed = result.status === 0;
  return { passed, report: `${passed ? "passes" : `fails (exit ${result.status ?? result.signal})`}\n${tail}` };
}

/** A fresh git repository holding the project, at `keep` or in a new temporary directory. */
function freshRepository(project: string, keep: string | undefined): string {
  const dir = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), "graphplan-demo-"));
  if (keep) {
    if (existsSync(dir) && readdirSync(dir).length > 0) throw new KeepNotEmpty({ keep });
    mkdirSync(dir, { recursive: true });
  }
  cpSync(project, dir, { recursive: true });
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["add", "-A"],
    ["commit", "-qm", "the example project"],
  ]) {
    const result = git(dir, ...args);
    if (result.status !== 0) throw new Error(`git ${args[0]} failed in ${dir}: ${result.stderr.trim()}`);
  }
  return dir;
}

/** `--keep` names a directory that already holds files: the demo makes its repository in a new one. */
class KeepNotEmpty extends Data.TaggedError("KeepNotEmpty")<{ readonly keep: string }> {
  override get message(): string {
    return `--keep ${this.keep} is not empty; name a new directory`;
  }
}

export function demoCommand(program: Command): void {
  program
    .command("demo")
    .description(
      "the agent on a small buggy project that ships with GraphPlan: the test fails, the agent fixes the task, the test passes",
    )
    .option("--example <dir>", "an example directory (example.json: project, task, patch, test)", DEFAULT_EXAMPLE)
    .addOption(
      new Option("--provider <name>", "the model: replay replays the example's reference patch (no API key)")
        .choices(PROVIDERS.filter((p) => p !== "scripted"))
        .default("replay"),
    )
    .option("--model <name>", "with a real provider: the model id, e.g. claude-sonnet-4-5 or gpt-4.1")
    .option("--config <file>", "a YAML file merged over the agent's default config")
    .option(
      "--keep <dir>",
      "make the repository in this new directory and keep it (default: a temporary one, removed afterwards)",
    )
    .action(async (options: DemoOptions, command: Command) => {
      const fail = (message: string): never =>
        command.error(`error: ${message}`, { exitCode: 2, code: "graphplan.demoInput" });
      const exampleDir = resolve(options.example);
      const read = readExample(exampleDir);
      if (!read.ok) return fail(read.error);
      const { example } = read;
      if (options.provider !== "replay" && options.model === undefined)
        return fail(`--provider ${options.provider} needs --model NAME`);
      let repo: string;
      try {
        repo = freshRepository(join(exampleDir, example.project), options.keep);
      } catch (error) {
        return fail((error as Error).message);
      }
      const out = (text: string) => process.stdout.write(text);
      try {
        out(
          `${example.description}\nrepository: ${repo}\n\n$ ${example.test}\n${runTest(example.test, repo).report}\n\n`,
        );
        const trajectory = await solve(example, exampleDir, repo, options, out);
        if (Result.isFailure(trajectory)) return fail(trajectory.failure);
        const { t, billedAs } = trajectory.success;
        out(`\n${t.exitStatus}: ${t.exitReason}; ${usageLine(t, billedAs)}\n`);
        if (t.patch) out(`\n${t.patch.trimEnd()}\n`);
        const after = runTest(example.test, repo);
        out(`\n$ ${example.test}\n${after.report}\n`);
        if (t.exitStatus !== "Submitted" || !after.passed) process.exitCode = 1;
      } finally {
        if (!options.keep) rmSync(repo, { recursive: true, force: true });
      }
    });
}

/** The agent on `repo` with the example's task; each phase printed as it happens. */
async function solve(
  example: Example,
  exampleDir: string,
  repo: string,
  options: DemoOptions,
  out: (text: string) => void,
): Promise<Result.Result<{ t: Trajectory; billedAs?: string }, string>> {
  const program = Effect.gen(function* () {
    const { config, name: configName } = yield* loadConfig(options.config);
    const task = readFileSync(join(exampleDir, example.task), "utf8");
    const model = yield* modelLayer(
      { provider: options.provider, model: options.model, patch: join(exampleDir, example.patch) },
      config,
      repo,
    );
    const sandbox = yield* sandboxLayer({ sandbox: "local", workdir: "/repo" }, repo, config);
    const layers = Layer.mergeAll(model, sandbox, Workspace.layer(repo));
    out(
      `the agent (${options.provider === "replay" ? "the replay model: the example's reference patch" : `${options.provider} ${options.model}`}):\n`,
    );
    const t = yield* runAgent(
      { task, config, configName, instanceId: "demo" },
      { onProgress: progressPrinter(out) },
    ).pipe(Effect.provide(layers));
    const wire = options.provider === "replay" ? replayWire(config) : undefined;
    return { t, ...(wire ? { billedAs: `${wire.provider}:${wire.model}` } : {}) };
  });
  const result = await Effect.runPromise(Effect.result(program));
  return Result.isFailure(result) ? Result.fail(result.failure.message) : Result.succeed(result.success);
}

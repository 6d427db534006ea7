/**
 * `graphplan run --repo DIR --task FILE|--task-text TEXT [--config FILE] [--provider P --model M]
 * [--sandbox local|docker --image IMG] [--output DIR]`: the GraphPlan agent on a git repository.
 * Writes `<output>/trajectory.json` and `<output>/patch.diff` and prints a one-line summary.
 *
 * Exit codes: 0 when the agent submitted a patch that passed the checks; 1 when the run ended
 * otherwise (limits, a model or sandbox failure: the trajectory says why); 2 when the input is
 * unusable (no task, a repository that is not a clean git work tree, a bad config, a model or
 * sandbox that cannot be set up).
 */
import { execFileSync } from "node:child_process";
import { realpath, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Option, type Command } from "commander";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import { LanguageModel, Workspace } from "@graphplan/runtime";
import { progressPrinter } from "../progress.js";
import { usageLine } from "./usage.js";
import {
  addAgentOptions,
  loadConfig,
  modelLayer,
  readText,
  replayWire,
  RepoDirty,
  RepoNotGitWorkTree,
  runAgent,
  RunInputInvalid,
  sandboxLayer,
  type AgentConfig,
  type ModelOptions,
  type Proposer,
  type SandboxOptions,
  type Strategy,
  type Trajectory,
  STRATEGIES,
  TrajectoryWriter,
} from "@graphplan/agent";

interface RunOptions extends ModelOptions, SandboxOptions {
  repo: string;
  task?: string;
  taskText?: string;
  instanceId?: string;
  config?: string;
  output: string;
  allowDirty?: boolean;
  patch?: string;
  quiet?: boolean;
  strategy: Strategy;
  failingTest: string[];
  testCommand: string;
  models?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function runCommand(program: Command): void {
  const command = program
    .command("run")
    .description("solve a task on a git repository with the GraphPlan agent; writes trajectory.json and patch.diff")
    .requiredOption("--repo <dir>", "the repository: the top level of a git work tree with at least one commit")
    .option("--task <file>", "a file holding the task (e.g. an issue's text)")
    .option("--task-text <text>", "the task itself")
    .option("--instance-id <id>", "an id for the trajectory (e.g. a SWE-bench instance id)");
  addAgentOptions(command, "repository")
    .option("--output <dir>", "where trajectory.json and patch.diff are written", "graphplan-output")
    .option(
      "--allow-dirty",
      "run on a repository with uncommitted changes (they end up in the patch; nothing is reverted)",
    )
    .option(
      "--patch <file>",
      "with --provider replay: the reference patch (a unified diff) the replay model plans with",
    )
    .option("-q, --quiet", "print only the closing line (not each phase and command as it happens, on stderr)")
    .addOption(
      new Option(
        "--strategy <name>",
        "graphplan: the model explores and plans; baseline: free-form shell edits from the first step (mini-swe-agent's loop); rfsn: the RFSN planner drives (reproduce, localize, patch, test)",
      )
        .choices([...STRATEGIES])
        .default("graphplan"),
    )
    .option(
      "--failing-test <id>",
      "with --strategy rfsn: a test that must pass (repeatable; none: the whole suite is run)",
      collect,
      [],
    )
    .option(
      "--test-command <cmd>",
      "with --strategy rfsn: how tests run; {tests} is replaced by the tests",
      "python3 -m pytest -x -q {tests}",
    )
    .option(
      "--models <names>",
      "with --strategy rfsn: several models of --provider propose each patch, comma-separated; the planner's ScoringEngine picks",
    )
    .action(async (options: RunOptions, command: Command) => {
      const fail = (message: string): never =>
        command.error(`error: ${message}`, { exitCode: 2, code: "graphplan.runInput" });
      const setup = await Effect.runPromise(Effect.result(prepare(options)));
      if (Result.isFailure(setup)) return fail(setup.failure.message);
      const { repo, task, config, configName, layers, rfsn } = setup.success;

      const output = resolve(options.output);
      // The trajectory is written as it grows (atomically, at most once a second), so a killed run leaves the one it had.
      const writer = new TrajectoryWriter(join(output, "trajectory.json"));
      const printer = options.quiet ? undefined : progressPrinter((text) => process.stderr.write(text));
      const onProgress = (t: Trajectory) => {
        writer.update(t);
        printer?.(t);
      };
      const input = {
        task,
        config,
        configName,
        ...(options.instanceId !== undefined ? { instanceId: options.instanceId } : {}),
      };
      const program = runAgent(input, {
        onProgress,
        ...(rfsn ? { rfsn } : {}),
        ...(options.strategy === "baseline" ? { strategy: "baseline" as const } : {}),
      }).pipe(Effect.provide(layers));
      // runAgent itself always answers a trajectory: a failure here is a layer that could not be built
      // (ModelConfigInvalid: no API key; SandboxUnavailable: no engine or image), so bad input.
      let outcome: Result.Result<Trajectory, Effect.Error<typeof program>>;
      try {
        outcome = await Effect.runPromise(Effect.result(program));
      } finally {
        writer.close();
      }
      if (Result.isFailure(outcome)) return fail(outcome.failure.message);
      const trajectory = outcome.success;
      writer.finish(trajectory);
      await writeFile(join(output, "patch.diff"), trajectory.patch);
      const wire = options.provider === "replay" ? replayWire(config) : undefined;
      process.stdout.write(`${summary(trajectory, repo, output, wire && `${wire.provider}:${wire.model}`)}\n`);
      if (trajectory.exitStatus !== "Submitted") throw new RunNotSubmitted({ exitStatus: trajectory.exitStatus });
    });
}

/** The run ended without a submitted patch (exit code 1; the summary line says why). */
export class RunNotSubmitted extends Data.TaggedError("RunNotSubmitted")<{ readonly exitStatus: string }> {
  override get message(): string {
    return `the run ended with ${this.exitStatus}; see trajectory.json`;
  }
}

/** One line: status, patch size, calls and cost, where the files are. */
export function summary(t: Trajectory, repo: string, output: string, billedAs?: string): string {
  const files = (t.patch.match(/^diff --git /gm) ?? []).length;
  const added = t.patch.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++")).length;
  const removed = t.patch.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---")).length;
  const path = t.transitions
    .map((tr) => tr.to)
    .filter((p, i, all) => p !== all[i - 1])
    .join(">");
  const what =
    t.exitStatus === "Submitted"
      ? `patch of ${files} file${files === 1 ? "" : "s"} (+${added} -${removed})`
      : t.exitReason;
  return `${t.exitStatus}: ${what}; ${usageLine(t, billedAs)}; phases ${path}; repo ${repo}; wrote ${join(output, "trajectory.json")} and patch.diff`;
}

/** git's output, untrimmed (`status --porcelain` lines start with a space). */
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** The repository's real path, after checking it is the top level of a git work tree with a commit and, unless allowed, clean. */
function checkRepo(dir: string, allowDirty: boolean): Effect.Effect<string, RepoNotGitWorkTree | RepoDirty> {
  return Effect.gen(function* () {
    const repo = yield* Effect.tryPromise({
      try: async () => {
        const real = await realpath(dir);
        if (!(await stat(real)).isDirectory()) throw new Error("not a directory");
        return real;
      },
      catch: (error) =>
        new RepoNotGitWorkTree({ repo: dir, detail: `${(error as Error).message}; pass an existing directory` }),
    });
    const top = yield* Effect.try({
      try: () => git(repo, "rev-parse", "--show-toplevel").trim(),
      catch: () =>
        new RepoNotGitWorkTree({
          repo: dir,
          detail: "it is not inside a git work tree; run `git init` and commit the project first",
        }),
    });
    if ((yield* Effect.promise(() => realpath(top))) !== repo) {
      return yield* new RepoNotGitWorkTree({
        repo: dir,
        detail: `it is inside the git work tree ${top}; pass its top level (patches are relative to it)`,
      });
    }
    yield* Effect.try({
      try: () => git(repo, "rev-parse", "--verify", "--quiet", "HEAD"),
      catch: () =>
        new RepoNotGitWorkTree({
          repo: dir,
          detail: "it has no commit yet; commit the project first (the patch is made against HEAD)",
        }),
    });
    const dirty = git(repo, "status", "--porcelain", "--untracked-files=all")
      .split("\n")
      .filter((line) => line !== "");
    if (dirty.length > 0 && !allowDirty)
      return yield* new RepoDirty({ repo: dir, files: dirty.map((line) => line.slice(3)) });
    return repo;
  });
}

/** `--strategy rfsn`'s options, with a model for each of `--models`; the rfsn options given without it are refused. */
function rfsnOptions(options: RunOptions, config: AgentConfig, repo: string) {
  return Effect.gen(function* () {
    if (options.strategy !== "rfsn") {
      if (options.failingTest.length > 0 || options.models !== undefined)
        return yield* new RunInputInvalid({ detail: "--failing-test and --models go with --strategy rfsn" });
      return undefined;
    }
    if (!options.testCommand.includes("{tests}"))
      return yield* new RunInputInvalid({
        detail: `--test-command "${options.testCommand}" has no {tests}; write where the tests go, e.g. "python3 -m pytest {tests}"`,
      });
    const names =
      options.models
        ?.split(",")
        .map((m) => m.trim())
        .filter((m) => m !== "") ?? [];
    if (options.models !== undefined && names.length === 0)
      return yield* new RunInputInvalid({ detail: "--models needs model names, comma-separated" });
    const proposers: Proposer[] = [];
    for (const name of names) {
      const layer = yield* modelLayer({ ...options, model: name }, config, repo);
      const model = yield* Effect.gen(function* () {
        return yield* LanguageModel;
      }).pipe(
        Effect.provide(layer),
        Effect.mapError((error) => new RunInputInvalid({ detail: error.message })),
      );
      proposers.push({ name: model.name, model });
    }
    return {
      failingTests: options.failingTest,
      testCommand: options.testCommand,
      ...(proposers.length > 0 ? { proposers } : {}),
    };
  });
}

/** Everything the run needs, checked before the agent starts. */
function prepare(options: RunOptions) {
  return Effect.gen(function* () {
    if ((options.task === undefined) === (options.taskText === undefined)) {
      return yield* new RunInputInvalid({
        detail: "give the task with exactly one of --task FILE and --task-text TEXT",
      });
    }
    const task = options.task !== undefined ? yield* readText(options.task, "the task file") : options.taskText!;
    if (task.trim() === "") return yield* new RunInputInvalid({ detail: "the task is empty" });
    const { config, name: configName } = yield* loadConfig(options.config);
    const repo = yield* checkRepo(options.repo, options.allowDirty === true);
    const model = yield* modelLayer(options, config, repo);
    const sandbox = yield* sandboxLayer(options, repo, config);
    const rfsn = yield* rfsnOptions(options, config, repo);
    return { repo, task, config, configName, rfsn, layers: Layer.mergeAll(model, sandbox, Workspace.layer(repo)) };
  });
}

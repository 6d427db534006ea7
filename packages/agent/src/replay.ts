/**
 * The replay model: a stand-in for a language model that "solves" a task with a known reference
 * patch, through the agent's own phases — it explores with a real command, names the patch's files,
 * sends the plan the patch compiler (@graphplan/compiler) makes from the patch, and submits after
 * review. Every plan it sends is verified and executed like a real model's. For demos, for CI of the
 * whole pipeline, and for measuring the harness without spending money.
 */
import {
  compile,
  CompileError,
  parseUnifiedDiff,
  PatchError,
  preImagePaths,
  type CompiledPlan,
} from "@graphplan/compiler";
import { ScriptedModel, type LanguageModelShape } from "@graphplan/runtime";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";

/** The model's name in trajectories and predictions. */
export const REPLAY_MODEL_NAME = "replay:gold";

/** The reference patch cannot be replayed as a plan (not a diff, or a change the compiler cannot reproduce). */
export class ReplayUnavailable extends Data.TaggedError("ReplayUnavailable")<{
  readonly source: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `the replay model cannot replay ${this.source}: ${this.detail}`;
  }
}

const bash = (command: string, thought: string) => `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``;

/** The replies of one replayed run: explore, name the files, the plan, submit after review. */
export function replayReplies(files: readonly string[], plan: unknown): string[] {
  return [
    bash(
      "git status --short && git log --oneline -1 && git ls-files | head -40",
      "I replay the reference patch; first a look at the repository.",
    ),
    `THOUGHT: The reference patch changes ${files.join(", ")}.\n\nREADY_TO_PLAN: ${JSON.stringify(files)}`,
    `THOUGHT: The reference patch as a plan.\n\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\``,
    bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "The diff is the reference change; submit."),
  ];
}

/**
 * The replies of one replayed `--strategy baseline` run (free-form shell edits): a look at the
 * repository, the reference patch applied by `git apply` from a here-document, submit. No plan, no
 * compiler: the patch goes in as a model editing with shell commands would put it.
 */
export function baselineReplayReplies(patch: string): string[] {
  const text = patch.endsWith("\n") ? patch : `${patch}\n`;
  // Every line of a unified diff starts with a prefix (+, -, space, @@, diff, index, ---, +++, \\), so none equals the delimiter.
  const delimiter = "GRAPHPLAN_PATCH";
  return [
    bash(
      "git status --short && git log --oneline -1 && git ls-files | head -40",
      "I replay the reference patch; first a look at the repository.",
    ),
    bash(
      `git apply --verbose - <<'${delimiter}'\n${text}${delimiter}\ngit diff --stat`,
      "The reference patch, applied with a shell command.",
    ),
    bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "The diff is the reference change; submit."),
  ];
}

/** The replay model of `--strategy baseline`: the reference patch applied through shell commands. */
export function baselineReplayModel(patch: string): LanguageModelShape {
  const scripted = new ScriptedModel(baselineReplayReplies(patch));
  return { name: REPLAY_MODEL_NAME, complete: scripted.complete };
}

/**
 * The reply of the replay model of `--strategy rfsn` to every patch request: the reference patch's plan.
 * The RFSN planner drives that run (it runs the tests, reads, searches) and asks the model only for a
 * patch of its suspect, so the replay answers each request with the same plan. The planner never
 * submits a change that failed again, so a run whose tests the plan does not make pass ends STUCK.
 */
export function rfsnReplayReply(plan: unknown): string {
  return `THOUGHT: The reference patch as a plan.\n\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\``;
}

/** The replay model of `--strategy rfsn`: every reply is the plan of the reference patch (see `rfsnReplayReply`). */
export function rfsnReplayModel(plan: unknown): LanguageModelShape {
  const content = rfsnReplayReply(plan);
  return {
    name: REPLAY_MODEL_NAME,
    complete: () =>
      Effect.succeed({ content, model: REPLAY_MODEL_NAME, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 }),
  };
}

/** The files a unified diff reads (its pre-images), or why the text is not a diff. */
export function patchFiles(patch: string, source: string): Result.Result<string[], ReplayUnavailable> {
  try {
    return Result.succeed(preImagePaths(parseUnifiedDiff(patch)));
  } catch (error) {
    if (error instanceof PatchError)
      return Result.fail(new ReplayUnavailable({ source, detail: `it is not a unified diff (${error.message})` }));
    throw error;
  }
}

/**
 * The replay model of `patch` over `files` (the pre-images of the files it changes): the compiled
 * plan scripted as the replies above. `source` names the patch in errors (a path, an instance id).
 * Needs the grammars loaded (`loadGrammars` of @graphplan/graph).
 */
export function replayModelOf(
  files: ReadonlyMap<string, string>,
  patch: string,
  source: string,
): Result.Result<LanguageModelShape, ReplayUnavailable> {
  // EXPLORE names files that exist: the patch's pre-images (a file the patch adds is made by the plan's create_file).
  return Result.map(compiledPlan(files, patch, source), (plan) => replayModel([...files.keys()], plan));
}

/** The plan the patch compiler makes from `patch` over `files` (its pre-images); needs the grammars loaded. */
export function compiledPlan(
  files: ReadonlyMap<string, string>,
  patch: string,
  source: string,
): Result.Result<unknown, ReplayUnavailable> {
  let compiled: CompiledPlan;
  try {
    compiled = compile(files, patch);
  } catch (error) {
    if (error instanceof CompileError || error instanceof PatchError)
      return Result.fail(new ReplayUnavailable({ source, detail: error.message }));
    throw error;
  }
  return Result.succeed(compiled.plan);
}

/** The replay model of an already compiled plan that changes `files`. */
export function replayModel(files: readonly string[], plan: unknown): LanguageModelShape {
  const scripted = new ScriptedModel(replayReplies(files, plan));
  return { name: REPLAY_MODEL_NAME, complete: scripted.complete };
}

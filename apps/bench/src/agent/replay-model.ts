/**
 * `--provider replay`: a model that replays each instance's reference (gold) patch through the
 * agent's own phases, so the whole pipeline — exploration commands, GRAPH, PLAN ⇄ VERIFY, EXECUTE,
 * REVIEW, SUBMIT, and then `bench eval` — runs with no API key and no cost. Its plan is the one the
 * patch compiler makes from the reference patch (the gold replay's `plan.json`, verified there);
 * it explores with a real command, names the patch's files, sends the plan and submits. For demos,
 * CI of the whole pipeline, and measuring the harness without spending money.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { baselineReplayModel, replayModel, ReplayUnavailable, rfsnReplayModel } from "@graphplan/agent";
import type { LanguageModelShape } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import { parseDataset } from "../dataset.js";
import { Repositories, instanceDir, replayInstance } from "../replay/instance.js";

export { REPLAY_MODEL_NAME, ReplayUnavailable } from "@graphplan/agent";

/**
 * The replay model of one dataset instance (its `patch` is the reference): the gold replay compiles
 * and verifies the plan from the pre-images in `--repos`, then the agent's `replayModel` sends that plan
 * in its scripted replies.
 */
export function instanceReplayModel(
  instance: Readonly<Record<string, unknown>>,
  repos: { readonly reposDir: string | undefined; readonly repoMap: Readonly<Record<string, string>> },
  strategy?: "graphplan" | "baseline" | "rfsn",
): Effect.Effect<LanguageModelShape, ReplayUnavailable> {
  const id = String(instance.instance_id);
  return Effect.tryPromise({
    try: async () => {
      const [line] = parseDataset(JSON.stringify(instance));
      if (line === undefined || !line.ok)
        throw new Error(line && !line.ok ? line.error : "the dataset line has no reference patch (`patch`)");
      const dir = await mkdtemp(join(tmpdir(), "graphplan-replay-model-"));
      const repositories = new Repositories(repos);
      try {
        const entry = await replayInstance(line, repositories, { outDir: dir, ...repos, gitCheck: false });
        if (entry.status !== "exact")
          throw new Error(`the gold replay of it is ${entry.status}${entry.cause ? ` (${entry.cause})` : ""}`);
        const plan = JSON.parse(await readFile(join(dir, instanceDir(id), "plan.json"), "utf8")) as unknown;
        // rfsn: the planner asks only for patches, each answered with the plan.
        return strategy === "rfsn" ? rfsnReplayModel(plan) : replayModel(entry.files, plan);
      } finally {
        repositories.close();
        await rm(dir, { recursive: true, force: true });
      }
    },
    catch: (error) =>
      new ReplayUnavailable({ source: id, detail: error instanceof Error ? error.message : String(error) }),
  });
}

/**
 * The replay model for the run's strategy: `baseline` applies the instance's reference patch with
 * shell commands (`git apply` in a here-document; no plan, so no pre-images are read), otherwise `plan`
 * (for `rfsn`, a model answering each of the planner's patch requests with the plan).
 */
export function strategyReplayModel(
  strategy: "graphplan" | "baseline" | "rfsn" | undefined,
  instance: Readonly<Record<string, unknown>>,
  plan: () => Effect.Effect<LanguageModelShape, ReplayUnavailable>,
): Effect.Effect<LanguageModelShape, ReplayUnavailable> {
  if (strategy !== "baseline") return plan();
  const patch = instance.patch;
  if (typeof patch !== "string" || patch.trim() === "")
    return Effect.fail(
      new ReplayUnavailable({
        source: String(instance.instance_id),
        detail: "the dataset line has no reference patch (`patch`)",
      }),
    );
  return Effect.succeed(baselineReplayModel(patch));
}

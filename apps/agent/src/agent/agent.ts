/**
 * The GraphPlan agent: EXPLORE → GRAPH → PLAN → VERIFY → EXECUTE → (REVIEW →) SUBMIT, falling back
 * to the plain step loop whenever a phase cannot go on. Each phase is its own function over the
 * services (LanguageModel, Sandbox, Workspace); this file only strings them together.
 */
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { planParts } from "@graphplan/primitives";
import { LanguageModel, Sandbox, Workspace } from "@graphplan/runtime";
import type { ModelError, SandboxFailed } from "@graphplan/runtime";
import { revisionPrompt } from "@graphplan/verifier";
import type { AgentConfig } from "./config.js";
import type { LimitsExceeded } from "./errors.js";
import { executePhase } from "./execute.js";
import { explore } from "./explore.js";
import { graphPhase } from "./graph.js";
import { stepLoop } from "./loop.js";
import { askForPlan, requestPlan } from "./plan.js";
import { Session } from "./session.js";
import { patchOfWorkTree, submit } from "./submit.js";
import type { Submission, Trajectory } from "./trajectory.js";
import { verifyPhase } from "./verify.js";

export interface AgentInput {
  readonly task: string;
  readonly instanceId?: string;
  readonly config: AgentConfig;
  /** For the trajectory: `default` or the config file's path. */
  readonly configName?: string;
}

type Services = LanguageModel | Sandbox | Workspace;
type RunError = LimitsExceeded | ModelError | SandboxFailed;
type Outcome = { readonly kind: "submitted"; readonly submission: Submission } | { readonly kind: "fallback"; readonly reason: string };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** GRAPH → PLAN ⇄ VERIFY → EXECUTE → (REVIEW →) SUBMIT on the files EXPLORE named. */
export function planAndExecute(session: Session, files: readonly string[]): Effect.Effect<Outcome, RunError, Services> {
  return Effect.gen(function* () {
    const { limits, plan_destination } = session.config;
    session.enter("graph", `explore named ${files.join(", ")}`);
    const graph = yield* graphPhase(files, session.graphCache);
    if (graph.kind === "fallback") return graph;

    session.enter("plan", `the graph has ${plural(graph.graph.symbols.length, "symbol")} and ${plural(graph.graph.imports.length, "import")}`);
    askForPlan(session, files, graph.view);
    let revisions = 0;
    let executeRevisions = 0;
    for (;;) {
      const planned = yield* requestPlan(session);
      if (planned.kind === "fallback") return planned;

      session.enter("verify", `plan attempt ${planned.record.attempt} is a valid plan of ${plural(planParts(planned.plan).steps.length, "step")}`);
      const { result: verified, importers } = yield* verifyPhase(session, planned.plan, files);
      planned.record.verify = verified;
      planned.record.importers = { added: importers.added, parsed: importers.parsed.length, ...(importers.skipped ? { skipped: importers.skipped } : {}) };
      if (!verified.passed) {
        if (revisions >= limits.max_plan_revisions) {
          return { kind: "fallback", reason: `plan verification failed after ${plural(revisions, "revision")}` } as const;
        }
        revisions++;
        session.enter("plan", `verification failed with ${plural(verified.errors.length, "error")}; revision ${revisions} of ${limits.max_plan_revisions}`);
        session.prompt("revision", {
          revision_prompt: revisionPrompt(verified, { attempt: revisions, maxAttempts: limits.max_plan_revisions, planPath: plan_destination }),
          revision: revisions,
          max_revisions: limits.max_plan_revisions,
          plan_destination,
        });
        continue;
      }

      session.enter("execute", `verification passed${verified.warnings.length ? ` with ${plural(verified.warnings.length, "warning")}` : ""}`);
      const applied = yield* executePhase(planned.plan);
      planned.record.apply = applied;
      if (!applied.ok) {
        if (executeRevisions >= limits.max_execute_revisions) {
          return { kind: "fallback", reason: `plan execution failed after ${plural(executeRevisions, "revision")}: ${applied.error}` } as const;
        }
        executeRevisions++;
        session.enter("plan", `execution failed${applied.step !== null ? ` at step ${applied.step} (${applied.op})` : ""}; revision ${executeRevisions} of ${limits.max_execute_revisions}`);
        session.prompt("execute_failed", {
          step: applied.step,
          op: applied.op,
          error: applied.error,
          revision: executeRevisions,
          max_revisions: limits.max_execute_revisions,
          plan_destination,
        });
        continue;
      }

      const changed = applied.written.join(", ") || "no file";
      if (!session.config.review) {
        session.enter("submit", `the plan changed ${changed}`);
        const submission = yield* submit(session);
        if (submission.ok) return { kind: "submitted", submission } as const;
        return { kind: "fallback", reason: `the applied plan's patch is not usable: ${submission.problems.join("; ")}` } as const;
      }
      const patch = yield* patchOfWorkTree(session.config.command.timeout_seconds * 1000);
      if (!patch.ok) return { kind: "fallback", reason: `the applied plan's patch is not usable: ${patch.problems.join("; ")}` } as const;
      session.enter("review", `the plan changed ${changed}`);
      session.prompt("review", { diff: patch.patch.trimEnd(), files: changed });
      return { kind: "submitted", submission: yield* stepLoop(session, "review") } as const;
    }
  });
}

/** The whole run: explore, plan and execute, or fall back; always answers a trajectory (the run's failure is its exit status). */
export function runAgent(input: AgentInput): Effect.Effect<Trajectory, never, Services> {
  return Effect.gen(function* () {
    const session = new Session(input.config);
    const model = yield* LanguageModel;
    const sandbox = yield* Sandbox;
    const workspace = yield* Workspace;

    const main = Effect.gen(function* () {
      session.enter("explore", "start");
      session.prompt("system");
      session.prompt("instance", { task: input.task, max_explore_steps: input.config.limits.max_explore_steps });
      const explored = yield* explore(session);
      session.files = explored.kind === "ready" ? explored.files : null;
      const outcome = explored.kind === "ready" ? yield* planAndExecute(session, explored.files) : explored;
      if (outcome.kind === "submitted") return outcome.submission;
      session.enter("fallback", outcome.reason);
      session.prompt("fallback", { reason: outcome.reason });
      return yield* stepLoop(session, "fallback");
    });

    const exit = yield* Effect.exit(main);
    let exitStatus: Trajectory["exitStatus"];
    let exitReason: string;
    let patch = "";
    if (Exit.isSuccess(exit)) {
      exitStatus = "Submitted";
      exitReason = "the model submitted and the patch passed the checks";
      patch = exit.value.patch;
    } else {
      const error = Cause.squash(exit.cause);
      const tag = (error as { _tag?: unknown })?._tag;
      exitStatus = tag === "LimitsExceeded" ? "LimitsExceeded" : "Failed";
      exitReason = error instanceof Error ? error.message : String(error);
      if (typeof tag === "string" && tag !== "LimitsExceeded") exitReason = `${tag}: ${exitReason}`;
    }
    return {
      format: "graphplan-trajectory/1",
      instance: { id: input.instanceId ?? null, task: input.task },
      config: { name: input.configName ?? "default", limits: { ...input.config.limits, command_timeout_seconds: input.config.command.timeout_seconds } },
      model: model.name,
      sandbox: sandbox.description,
      workspace: workspace.root,
      messages: session.messages,
      transitions: session.transitions,
      files: session.files,
      plans: session.plans,
      submissions: session.submissions,
      exitStatus,
      exitReason,
      patch,
      totals: { costUsd: session.costUsd, modelCalls: session.modelCalls },
    } satisfies Trajectory;
  });
}

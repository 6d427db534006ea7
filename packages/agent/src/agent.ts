/**
 * The GraphPlan agent: EXPLORE → GRAPH → PLAN → VERIFY → EXECUTE → (REVIEW →) SUBMIT, falling back
 * to the plain step loop whenever a phase cannot go on. Each phase is its own function over the
 * services (LanguageModel, Sandbox, Workspace); this file only strings them together.
 */
import * as Cause from "effect/Cause";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Option from "effect/Option";
import * as Predicate from "effect/Predicate";
import type { GraphStore } from "@graphplan/graph";
import { writtenSteps } from "@graphplan/primitives";
import { LanguageModel, Sandbox, Workspace } from "@graphplan/runtime";
import type { ModelError, SandboxFailed } from "@graphplan/runtime";
import { revisionPrompt } from "@graphplan/verifier";
import type { AgentConfig } from "./config.js";
import type { LimitsExceeded } from "./errors.js";
import { executePhase } from "./execute.js";
import { explore } from "./explore.js";
import { graphPhase } from "./graph.js";
import { baselineStrategy, type Strategy } from "./baseline.js";
import { stepLoop } from "./step-loop.js";
import { askForPlan, planToolSpec, requestPlan } from "./plan.js";
import { rfsnStrategy, type RfsnOptions, type RfsnStuck } from "./rfsn.js";
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
type Outcome =
  | { readonly kind: "submitted"; readonly submission: Submission }
  | { readonly kind: "fallback"; readonly reason: string };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** GRAPH → PLAN ⇄ VERIFY → EXECUTE → (REVIEW →) SUBMIT on the files EXPLORE named. */
export function planAndExecute(session: Session, files: readonly string[]): Effect.Effect<Outcome, RunError, Services> {
  return Effect.gen(function* () {
    const { limits } = session.config;
    const plan_destination = session.planDestination;
    session.enter("graph", `explore named ${files.join(", ")}`);
    const graph = yield* graphPhase(files, session.graphCache, (effect) => session.graphing(effect));
    if (graph.kind === "fallback") return graph;

    session.enter(
      "plan",
      `the graph has ${plural(graph.graph.symbols.length, "symbol")} and ${plural(graph.graph.imports.length, "import")}`,
    );
    askForPlan(session, files, graph.view);
    let revisions = 0;
    let executeRevisions = 0;
    for (;;) {
      const planned = yield* requestPlan(session);
      if (planned.kind === "fallback") return planned;

      session.enter(
        "verify",
        `plan attempt ${planned.record.attempt} is a plan of ${plural(writtenSteps(planned.json)?.length ?? 0, "step")}`,
      );
      const { result: verified, importers, plan } = yield* verifyPhase(session, planned.json, files);
      planned.record.verify = verified;
      planned.record.importers = {
        added: importers.added,
        parsed: importers.parsed.length,
        ...(importers.skipped ? { skipped: importers.skipped } : {}),
      };
      if (!verified.passed || !plan) {
        if (revisions >= limits.max_plan_revisions) {
          return {
            kind: "fallback",
            reason: `plan verification failed after ${plural(revisions, "revision")}`,
          } as const;
        }
        revisions++;
        session.enter(
          "plan",
          `verification failed with ${plural(verified.errors.length, "error")}; revision ${revisions} of ${limits.max_plan_revisions}`,
        );
        session.prompt("revision", {
          revision_prompt: revisionPrompt(verified, {
            attempt: revisions,
            maxAttempts: limits.max_plan_revisions,
            planPath: plan_destination,
          }),
          revision: revisions,
          max_revisions: limits.max_plan_revisions,
          plan_destination,
        });
        continue;
      }

      session.enter(
        "execute",
        `verification passed${verified.warnings.length ? ` with ${plural(verified.warnings.length, "warning")}` : ""}`,
      );
      const applied = yield* executePhase(plan);
      planned.record.apply = applied;
      if (!applied.ok) {
        if (executeRevisions >= limits.max_execute_revisions) {
          return {
            kind: "fallback",
            reason: `plan execution failed after ${plural(executeRevisions, "revision")}: ${applied.error}`,
          } as const;
        }
        executeRevisions++;
        session.enter(
          "plan",
          `execution failed${applied.step !== null ? ` at step ${applied.step} (${applied.op})` : ""}; revision ${executeRevisions} of ${limits.max_execute_revisions}`,
        );
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
        return {
          kind: "fallback",
          reason: `the applied plan's patch is not usable: ${submission.problems.join("; ")}`,
        } as const;
      }
      const patch = yield* patchOfWorkTree(session.config.command.timeout_seconds * 1000);
      if (!patch.ok)
        return {
          kind: "fallback",
          reason: `the applied plan's patch is not usable: ${patch.problems.join("; ")}`,
        } as const;
      session.enter("review", `the plan changed ${changed}`);
      session.prompt("review", { diff: patch.patch.trimEnd(), files: changed });
      return { kind: "submitted", submission: yield* stepLoop(session, "review") } as const;
    }
  });
}

/** The trajectory as it stands (`Running` until the run ends). */
function snapshot(
  input: AgentInput,
  session: Session,
  names: { model: string; sandbox: string; workspace: string },
  end?: Pick<Trajectory, "exitStatus" | "exitReason" | "patch" | "autoSubmitted" | "retryable">,
): Trajectory {
  return {
    format: "graphplan-trajectory/1",
    instance: { id: input.instanceId ?? null, task: input.task },
    config: {
      name: input.configName ?? "default",
      limits: { ...input.config.limits, command_timeout_seconds: input.config.command.timeout_seconds },
    },
    ...names,
    messages: session.messages,
    transitions: session.transitions,
    files: session.files,
    plans: session.plans,
    submissions: session.submissions,
    ...(end ?? {
      exitStatus: "Running",
      exitReason: "the run is going on",
      patch: "",
      autoSubmitted: false,
      retryable: false,
    }),
    startedAt: session.startedAt,
    ...(end ? { finishedAt: new Date().toISOString() } : {}),
    totals: session.totals,
  };
}

/** An outage rather than the model's doing: the provider failing after its retries, the sandbox gone. */
function isRetryable(error: RunError | RfsnStuck): boolean {
  switch (error._tag) {
    case "ModelRequestFailed":
      return error.retryable;
    case "SandboxFailed":
      return true;
    case "LimitsExceeded":
    case "ModelScriptExhausted":
    case "RfsnStuck":
      return false;
    default: {
      const unhandled: never = error;
      return unhandled;
    }
  }
}

/** A defect (a bug, not one of the run's errors) as the exit reason: its tag when it has one, and its message. */
function describeDefect(defect: unknown): string {
  const message = defect instanceof Error ? defect.message : String(defect);
  return Predicate.hasProperty(defect, "_tag") && typeof defect._tag === "string"
    ? `${defect._tag}: ${message}`
    : message;
}

/**
 * When a limit ends the run after the work tree was changed (a plan applied, or the model's own
 * edits in the fallback loop), the work tree's diff is submitted, as SWE-agent does on exit_cost.
 */
function autoSubmit(session: Session): Effect.Effect<string | undefined, never, Sandbox> {
  return patchOfWorkTree(session.config.command.timeout_seconds * 1000).pipe(
    Effect.map((patch) => (patch.ok && patch.patch.trim() !== "" ? patch.patch : undefined)),
    Effect.orElseSucceed(() => undefined),
  );
}

export interface RunAgentOptions {
  /** `rfsn`: the RFSN planner drives the run (see rfsn.ts) instead of the model's own exploration. */
  readonly rfsn?: RfsnOptions;
  /** `baseline`: the step loop from the first step, free-form shell edits (see baseline.ts); default `graphplan`. `rfsn` needs `rfsn`. */
  readonly strategy?: Exclude<Strategy, "rfsn">;
  /** Called with the trajectory so far after every message and phase change (to write it as it grows). */
  readonly onProgress?: (trajectory: Trajectory) => void;
  /**
   * Where file graphs outlive the run (`DiskGraphStore` of `@graphplan/graph/disk`), so that the next
   * instance of the same repository parses only the files that differ.
   */
  readonly graphStore?: GraphStore;
}

/** The whole run: explore, plan and execute, or fall back; always answers a trajectory (the run's failure is its exit status). */
export function runAgent(input: AgentInput, options: RunAgentOptions = {}): Effect.Effect<Trajectory, never, Services> {
  return Effect.gen(function* () {
    const model = yield* LanguageModel;
    const sandbox = yield* Sandbox;
    const workspace = yield* Workspace;
    const names = { model: model.name, sandbox: sandbox.description, workspace: workspace.root };
    const onProgress = options.onProgress;
    const session: Session = new Session(
      input.config,
      onProgress ? () => onProgress(snapshot(input, session, names)) : undefined,
      options.graphStore,
    );
    const planTool = input.config.plan_tool && model.supportsTools === true && options.strategy !== "baseline";
    session.offerTools(planTool ? [planToolSpec()] : []);

    const main = options.rfsn
      ? rfsnStrategy(session, input.task, options.rfsn)
      : options.strategy === "baseline"
        ? baselineStrategy(session, input.task)
        : Effect.gen(function* () {
            session.enter("explore", "start");
            session.prompt("system");
            session.prompt("instance", { task: input.task, max_explore_steps: input.config.limits.max_explore_steps });
            const explored = yield* explore(session);
            session.settleFiles(explored.kind === "ready" ? explored.files : null);
            const outcome = explored.kind === "ready" ? yield* planAndExecute(session, explored.files) : explored;
            if (outcome.kind === "submitted") return outcome.submission;
            session.enter("fallback", outcome.reason);
            session.prompt("fallback", { reason: outcome.reason });
            return yield* stepLoop(session, "fallback");
          });

    const exit = yield* Effect.exit(main);
    if (Exit.isSuccess(exit)) {
      return snapshot(input, session, names, {
        exitStatus: "Submitted",
        exitReason: "the model submitted and the patch passed the checks",
        patch: exit.value.patch,
        autoSubmitted: false,
        retryable: false,
      });
    }
    const failure = Cause.findErrorOption(exit.cause);
    if (Option.isNone(failure)) {
      return snapshot(input, session, names, {
        exitStatus: "Failed",
        exitReason: describeDefect(Cause.squash(exit.cause)),
        patch: "",
        autoSubmitted: false,
        retryable: false,
      });
    }
    const error = failure.value;
    if (error._tag === "LimitsExceeded") {
      const patch = yield* autoSubmit(session);
      const exitReason =
        patch === undefined ? error.message : `${error.message}; the work tree's changes were submitted as the patch`;
      return snapshot(input, session, names, {
        exitStatus: "LimitsExceeded",
        exitReason,
        patch: patch ?? "",
        autoSubmitted: patch !== undefined,
        retryable: false,
      });
    }
    return snapshot(input, session, names, {
      exitStatus: "Failed",
      exitReason: `${error._tag}: ${error.message}`,
      patch: "",
      autoSubmitted: false,
      retryable: isRetryable(error),
    });
  });
}

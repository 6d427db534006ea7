/**
 * `--strategy baseline`: mini-swe-agent's way from the first step — the model explores and edits the
 * files with free-form shell commands, one per reply, and submits with the marker; no READY_TO_PLAN, no
 * graph, no plan. It is the agent's own fallback step loop (step-loop.ts) run from the start, with the
 * same limits, sandbox, observations and submission checks, and its own two prompts
 * (`baseline_system`, `baseline_instance` in config/default.yaml). The run is one `fallback` phase
 * entered at the start (a transition from no phase), so reports tell it from a run that fell back.
 * It is the other arm of `bench compare` (apps/bench/README.md).
 */
import type * as Effect from "effect/Effect";
import type { LanguageModel, ModelError, Sandbox, SandboxFailed } from "@graphplan/runtime";
import type { LimitsExceeded } from "./errors.js";
import type { Session } from "./session.js";
import { stepLoop } from "./step-loop.js";
import type { Submission } from "./trajectory.js";

/** The agent's strategies: `graphplan` (explore, then a verified plan), `baseline` (free-form shell edits), `rfsn` (the RFSN planner drives). */
export const STRATEGIES = ["graphplan", "baseline", "rfsn"] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Why a baseline run is in the step loop from its first message (the transition's reason). */
export const BASELINE_REASON = "strategy baseline: free-form shell edits from the first step";

export function baselineStrategy(
  session: Session,
  task: string,
): Effect.Effect<Submission, LimitsExceeded | ModelError | SandboxFailed, LanguageModel | Sandbox> {
  session.enter("fallback", BASELINE_REASON);
  session.prompt("baseline_system");
  session.prompt("baseline_instance", { task });
  return stepLoop(session, "fallback");
}

/**
 * The plain step loop (mini-swe-agent's DefaultAgent): one bash command per reply, run in the
 * Sandbox, its observation sent back, until a command's output starts with the submit marker
 * (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`) and the patch passes the checks. Used by FALLBACK
 * and by REVIEW (after a plan was applied). Only the limits end it otherwise.
 */
import * as Effect from "effect/Effect";
import type { LanguageModel, ModelError, Sandbox, SandboxFailed } from "@graphplan/runtime";
import { SUBMIT_MARKER } from "./config.js";
import type { LimitsExceeded } from "./errors.js";
import { isSubmission, parseAction } from "./parse.js";
import type { Session } from "./session.js";
import { submit } from "./submit.js";
import type { Submission } from "./trajectory.js";

export function stepLoop(
  session: Session,
  phase: "fallback" | "review",
): Effect.Effect<Submission, LimitsExceeded | ModelError | SandboxFailed, LanguageModel | Sandbox> {
  return Effect.gen(function* () {
    for (;;) {
      const action = parseAction(yield* session.query());
      if (action.kind === "format_error") {
        yield* session.formatError(() => session.prompt("format_error", { blocks: action.blocks }));
        continue;
      }
      session.formatOk();
      const result = yield* session.exec(action.command);
      if (!isSubmission(result.output, SUBMIT_MARKER)) {
        session.observe(result);
        continue;
      }
      session.enter("submit", `the model submitted during ${phase}`);
      const submission = yield* submit(session);
      if (submission.ok) return submission;
      session.enter(phase, `the submission was rejected: ${submission.problems.join("; ")}`);
      session.prompt("submit_rejected", { problems: submission.problems });
    }
  });
}

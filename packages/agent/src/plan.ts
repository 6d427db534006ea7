/**
 * Phase 3, PLAN: the prompt (graph view and the operator catalog, one line per operator — or, where
 * the config's prompt asks for them, the full catalog and the plan's JSON Schema — all generated from the
 * zod schemas of @graphplan/catalog), and reading replies until one holds a valid plan.
 * Replies without one get the zod error back (prompts.plan_invalid); after
 * `limits.max_plan_attempts` of them in all → fallback.
 */
import * as Effect from "effect/Effect";
import type { Plan } from "@graphplan/primitives";
import type { LanguageModel, ModelError, Sandbox, SandboxFailed } from "@graphplan/runtime";
import { catalogPrompt, compactCatalogPrompt, planJsonSchema, planStepsJsonSchema } from "@graphplan/catalog";
import type { ToolSpec } from "@graphplan/runtime";
import { detectLanguage, type LanguageId } from "@graphplan/graph";
import type { LimitsExceeded } from "./errors.js";
import {
  extractPlan,
  jsonBlocks,
  parseAction,
  PLAN_TOOL_NAME,
  planOfJson,
  planOfToolCalls,
  type ExtractedPlan,
} from "./parse.js";
import type { Session } from "./session.js";
import type { PlanRecord } from "./trajectory.js";

/** Sends the plan prompt for the graph of `files`. */
export function askForPlan(session: Session, files: readonly string[], graphView: string): void {
  const schema = planJsonSchema();
  session.prompt("plan", {
    graph_view: graphView,
    // Legacy operators stay valid in a plan, but the prompt offers the text steps that replace them; only the
    // operators the files' languages can use are listed.
    catalog: compactCatalogPrompt({ legacy: false, languages: languagesOf(files) }),
    catalog_full: catalogPrompt(),
    plan_schema: session.config.pretty_plan_schema ? JSON.stringify(schema, null, 2) : JSON.stringify(schema),
    files: files.join(", "),
    plan_destination: session.planDestination,
  });
}

/** The languages of `files` (a file of no known language adds none: text and data steps are always listed). */
export const languagesOf = (files: readonly string[]): LanguageId[] => [
  ...new Set(files.flatMap((file) => detectLanguage(file) ?? [])),
];

let planTool: ToolSpec | undefined;

/**
 * The plan tool: its input is `{"plan": PLAN}` (providers want an object at the top of a tool's input), the
 * plan as the compact steps schema (operator names from the catalog, parameters as objects): it is offered on
 * every request, so the full plan schema (~14k tokens) would be paid on each; the PLAN prompt's catalog says
 * what each operator takes, and `parsePlan`'s errors say what a step got wrong.
 */
export function planToolSpec(): ToolSpec {
  planTool ??= {
    name: PLAN_TOOL_NAME,
    description:
      "Submit the change as a plan: the JSON array of steps the operator catalog describes, run in order, all or nothing, checked before anything is written.",
    inputSchema: { type: "object", properties: { plan: planStepsJsonSchema() }, required: ["plan"] },
  };
  return planTool;
}

/** A reply's plan as written (`json`: it passed the plan-integrity gate; the verifier checks the rest), or fallback. */
export type PlanOutcome =
  | { readonly kind: "plan"; readonly json: unknown; readonly record: PlanRecord }
  | { readonly kind: "fallback"; readonly reason: string };

/** Model replies until one holds a valid plan (each recorded in `session.plans`), or fallback. The request is already in the conversation. */
export function requestPlan(
  session: Session,
): Effect.Effect<PlanOutcome, LimitsExceeded | ModelError | SandboxFailed, LanguageModel | Sandbox> {
  return Effect.gen(function* () {
    const max = session.config.limits.max_plan_attempts;
    for (;;) {
      const answer = yield* session.queryReply();
      const reply = answer.content;
      const called = planOfToolCalls(answer.toolCalls);
      let extracted: ExtractedPlan = called ?? extractPlan(reply);
      if (!called && !extracted.ok && jsonBlocks(reply).length === 0)
        extracted = yield* planFromFile(session, reply, extracted);
      if (called?.callId !== undefined)
        session.answerToolCall(
          called.callId,
          called.ok ? "plan received; it is verified next" : called.error,
          !called.ok,
        );
      const record: PlanRecord = {
        attempt: session.plans.length + 1,
        atMessage: session.lastIndex,
        valid: extracted.ok,
        ...(extracted.ok ? { channel: extracted.channel } : { error: extracted.error }),
        ...(extracted.json !== undefined ? { plan: extracted.json } : {}),
      };
      session.plans.push(record);
      if (extracted.ok) {
        session.formatOk();
        return { kind: "plan", json: extracted.json, record } as const;
      }
      session.countInvalidPlan();
      if (session.lastReplyCutOff)
        record.error = `the reply was cut off by the output token limit (${extracted.error})`;
      if (session.invalidPlans >= max) {
        return { kind: "fallback", reason: `no valid plan after ${max} attempts (last: ${record.error})` } as const;
      }
      yield* session.formatError(() =>
        session.prompt("plan_invalid", {
          error: extracted.error,
          attempt: session.invalidPlans,
          max_attempts: max,
          plan_destination: session.planDestination,
        }),
      );
    }
  });
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The design's (docs/design.md, Origins) file channel: a reply whose one command writes the plan to `plan_file` (a heredoc into
 * /tmp/edit_plan.json) — the command is run, and the file read and removed. `fallback` is what the
 * reply itself gave, kept when the reply has no command or the command wrote no file.
 */
function planFromFile(
  session: Session,
  reply: string,
  fallback: ExtractedPlan,
): Effect.Effect<ExtractedPlan, SandboxFailed, Sandbox> {
  return Effect.gen(function* () {
    const action = parseAction(reply);
    if (action.kind !== "command") return fallback;
    const file = session.config.plan_file;
    const ran = yield* session.exec(action.command);
    const read = yield* session.exec(`cat ${quote(file)} && rm -f ${quote(file)}`);
    if (read.exitCode !== 0) {
      const tail = ran.output.trim().split("\n").slice(-3).join(" / ");
      return {
        ok: false,
        error: `the reply's command did not write a plan to ${file} (it exited ${ran.exitCode}${tail ? `: ${tail}` : ""}); write the plan there or in a \`\`\`json block`,
      } as const;
    }
    return planOfJson(read.output, `plan file ${file}`, "plan file");
  });
}

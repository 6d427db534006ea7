/**
 * The trajectory of a run: everything needed to see what the agent did and why, written by the CLI
 * as `trajectory.json`. Described once here; types are inferred.
 */
import { z } from "zod";
import {
  addCall,
  ChatMessageSchema,
  emptyTotals,
  UsageSchema,
  UsageTotalsSchema,
  type UsageTotals,
} from "@graphplan/runtime";
import { VerifyResultSchema } from "@graphplan/verifier";

export const PHASES = ["explore", "graph", "plan", "verify", "execute", "review", "submit", "fallback"] as const;
export const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

export const EXIT_STATUSES = ["Submitted", "LimitsExceeded", "Failed"] as const;
export const ExitStatusSchema = z.enum(EXIT_STATUSES);
export type ExitStatus = z.infer<typeof ExitStatusSchema>;

export const TrajectoryMessageSchema = ChatMessageSchema.extend({
  /** The phase the message belongs to. */
  phase: PhaseSchema,
  /** Assistant messages: the dollars and tokens of the reply. */
  costUsd: z.number().nonnegative().optional(),
  usage: UsageSchema.optional(),
  /** User and system messages: the config prompt that made it (`plan`, `observation`, `revision`...). */
  prompt: z.string().optional(),
  /** When the message was added (ISO 8601). */
  at: z.string().optional(),
  /** Assistant messages: why the model stopped (`end_turn`, `max_tokens`, `length`...), when the provider says. */
  stopReason: z.string().optional(),
});
export type TrajectoryMessage = z.infer<typeof TrajectoryMessageSchema>;

export const TransitionSchema = z.object({
  from: PhaseSchema.nullable(),
  to: PhaseSchema,
  /** Why, e.g. `fallback: plan verification failed after 3 revisions`. */
  reason: z.string(),
  /** Index in `messages` of the first message of the new phase. */
  atMessage: z.number().int().nonnegative(),
});
export type Transition = z.infer<typeof TransitionSchema>;

export const ApplyRecordSchema = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    written: z.array(z.string()),
    created: z.array(z.string()),
    deleted: z.array(z.string()).default([]),
  }),
  z.object({ ok: z.literal(false), step: z.number().int().nullable(), op: z.string().nullable(), error: z.string() }),
]);
export type ApplyRecord = z.infer<typeof ApplyRecordSchema>;

export const PlanRecordSchema = z.object({
  /** 1-based count of model replies in the planning phases. */
  attempt: z.number().int().positive(),
  /** Index in `messages` of the assistant message holding the plan. */
  atMessage: z.number().int().nonnegative(),
  /** Whether the reply held a plan (the plan-integrity gate of `planIntegrity`; for RFSN candidates, `parsePlan`); `error` says why not. */
  valid: z.boolean(),
  error: z.string().optional(),
  /** Where the plan was found: a ```json block, an untagged fence, bare JSON in the reply. */
  channel: z.enum(["tool call", "json block", "untagged fence", "bare JSON", "plan file"]).optional(),
  /** The plan as parsed (the JSON even when it is not a valid plan; absent when it was not JSON). */
  plan: z.unknown().optional(),
  verify: VerifyResultSchema.optional(),
  /**
   * VERIFY: the repository's files that import the plan's files, given to the verifier besides the
   * listed and planned ones (`added`); how many other repository files the search parsed (the rest
   * came from the run's cache); why the repository was not searched (`skipped`), if it was not.
   */
  importers: z
    .object({ added: z.array(z.string()), parsed: z.number().int().nonnegative(), skipped: z.string().optional() })
    .optional(),
  apply: ApplyRecordSchema.optional(),
});
export type PlanRecord = z.infer<typeof PlanRecordSchema>;

export const PatchChecksSchema = z.object({
  /**
   * Each check of the design's (docs/design.md, Origins) post-submission patch verification. The design asks for `+` lines
   * (`additions`); a patch that only deletes (`deletions`, a real fix may only remove code) passes too.
   */
  diffHeader: z.boolean(),
  fileMarkers: z.boolean(),
  hunks: z.boolean(),
  additions: z.boolean(),
  deletions: z.boolean().default(false),
  applies: z.boolean(),
});
export type PatchChecks = z.infer<typeof PatchChecksSchema>;

export const SubmissionSchema = z.object({
  phase: PhaseSchema,
  atMessage: z.number().int().nonnegative(),
  ok: z.boolean(),
  patch: z.string(),
  checks: PatchChecksSchema,
  problems: z.array(z.string()),
});
export type Submission = z.infer<typeof SubmissionSchema>;

export const TrajectorySchema = z.object({
  format: z.literal("graphplan-trajectory/1"),
  instance: z.object({ id: z.string().nullable(), task: z.string() }),
  config: z.object({
    name: z.string(),
    limits: z.record(z.string(), z.number()),
  }),
  model: z.string(),
  sandbox: z.string(),
  workspace: z.string(),
  messages: z.array(TrajectoryMessageSchema),
  transitions: z.array(TransitionSchema),
  /** The files EXPLORE settled on (null when it fell back). */
  files: z.array(z.string()).nullable(),
  plans: z.array(PlanRecordSchema),
  /** Every submission attempt (patch + checks), in order; the last accepted one is `patch`. */
  submissions: z.array(SubmissionSchema),
  /** How the run ended; `Running` in the snapshots written while it runs. */
  exitStatus: z.union([ExitStatusSchema, z.literal("Running")]),
  /** Why the run ended (the limit hit, the error). */
  exitReason: z.string(),
  /**
   * The submitted patch: the model's submission, or — when a limit ended the run after the work tree
   * was changed (`autoSubmitted`) — the diff of the work tree, as SWE-agent submits on exit_cost.
   */
  patch: z.string(),
  autoSubmitted: z.boolean().default(false),
  /**
   * The run ended on an outage, not on the model's own doing (the provider still failing after the
   * SDK's retries, the sandbox gone): running the instance again may give a result. Harnesses do not
   * count such a run as done.
   */
  retryable: z.boolean().default(false),
  /** ISO 8601 start and end of the run (`finishedAt` absent while it runs). */
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  totals: z.object({
    costUsd: z.number().nonnegative(),
    modelCalls: z.number().int().nonnegative(),
    /** Milliseconds waiting for the model, and running the model's commands. */
    modelMs: z.number().nonnegative().optional(),
    commandMs: z.number().nonnegative().optional(),
    /** Of the rest (the harness's), milliseconds building code graphs: GRAPH, and VERIFY's graphs of the plan's files and of the repository (for importers). */
    graphMs: z.number().nonnegative().optional(),
    /** Tokens of every model call as the provider billed them (absent in trajectories written before they were counted). */
    inputTokens: z.number().int().nonnegative().optional(),
    outputTokens: z.number().int().nonnegative().optional(),
    cacheReadTokens: z.number().int().nonnegative().optional(),
    cacheWriteTokens: z.number().int().nonnegative().optional(),
    /** Calls, dollars and tokens per phase (the phase the run was in when it called the model). */
    byPhase: z.partialRecord(PhaseSchema, UsageTotalsSchema).optional(),
  }),
});
export type Trajectory = z.infer<typeof TrajectorySchema>;

/** The replies among `messages` summed: calls, dollars and tokens (0 tokens where a reply has no usage). */
export function repliesUsage(messages: readonly TrajectoryMessage[]): UsageTotals {
  let sum = emptyTotals();
  for (const m of messages)
    if (m.role === "assistant") sum = addCall(sum, m.usage ?? { inputTokens: 0, outputTokens: 0 }, m.costUsd ?? 0);
  return sum;
}

/**
 * A run's calls, dollars and tokens: its totals, or — for a trajectory written before the totals held
 * tokens — its replies' tokens summed.
 */
export function trajectoryUsage(t: Trajectory): UsageTotals {
  const { totals } = t;
  const tokens =
    totals.inputTokens === undefined
      ? repliesUsage(t.messages)
      : {
          inputTokens: totals.inputTokens,
          outputTokens: totals.outputTokens ?? 0,
          cacheReadTokens: totals.cacheReadTokens ?? 0,
          cacheWriteTokens: totals.cacheWriteTokens ?? 0,
        };
  return {
    modelCalls: totals.modelCalls,
    costUsd: totals.costUsd,
    inputTokens: tokens.inputTokens,
    outputTokens: tokens.outputTokens,
    cacheReadTokens: tokens.cacheReadTokens,
    cacheWriteTokens: tokens.cacheWriteTokens,
  };
}

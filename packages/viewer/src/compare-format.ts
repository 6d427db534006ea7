/**
 * \`DIR/compare.json\` of \`bench compare\` (apps/bench/README.md): the comparison's identity (\`spec\`: the
 * arms, the model, the dataset), written before anything runs so that a later run with the same \`--out\`
 * can be checked against it, and its \`results\` once both arms were graded. \`bench compare\` writes it,
 * the viewer shows it: described once, here.
 */
import { z } from "zod";

export const ARM_STRATEGIES = ["graphplan", "baseline", "rfsn"] as const;

export const ArmSpecSchema = z.object({
  /** Names the arm's output directory, `DIR/<label>` (the strategy's name unless given as `label:strategy`). */
  label: z.string(),
  strategy: z.enum(ARM_STRATEGIES),
  /** The YAML merged over the agent's default config for this arm (`--arms-config`), or null. */
  config: z.string().nullable(),
});
export type ArmSpec = z.infer<typeof ArmSpecSchema>;

export const CompareSpecSchema = z.object({
  arms: z.tuple([ArmSpecSchema, ArmSpecSchema]),
  /** `--provider` and `--model` (the same model in both arms). */
  provider: z.string().nullable(),
  model: z.string().nullable(),
  dataset: z.string(),
});
export type CompareSpec = z.infer<typeof CompareSpecSchema>;

/** How an arm's run of an instance ended: a patch submitted by its own path, after falling back, a limit, or none (failed, not run). */
export const ENDINGS = ["submitted", "fallback", "limit", "failed"] as const;
export const EVAL_OUTCOMES = ["resolved", "unresolved", "error", "empty_patch", "not_graded"] as const;

export const InstanceArmSchema = z.object({
  resolved: z.boolean(),
  /** bench eval's verdict (`not_graded`: no prediction, e.g. an input or harness error). */
  eval: z.enum(EVAL_OUTCOMES),
  /** bench agent's status (Submitted, LimitsExceeded, Failed, input_error, harness_error, skipped); null: not run. */
  agent: z.string().nullable(),
  ending: z.enum(ENDINGS),
  model_calls: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  ms: z.number().nonnegative(),
  /** The trajectory, relative to DIR (null: the agent did not run it). */
  trajectory: z.string().nullable(),
});
export type InstanceArm = z.infer<typeof InstanceArmSchema>;

export const GraphplanStatsSchema = z.object({
  /** Runs whose EXPLORE named files (so PLAN started), and of them those whose first verified plan passed. */
  planned: z.number().int().nonnegative(),
  verified_first_time: z.number().int().nonnegative(),
  /** Plans sent back after a failed verification or execution, in all. */
  revisions: z.number().int().nonnegative(),
  /** Runs that fell back to the step loop, by the phase they fell back from. */
  fallbacks_by_phase: z.record(z.string(), z.number().int().nonnegative()),
});

export const ArmResultSchema = ArmSpecSchema.extend({
  instances: z.number().int().nonnegative(),
  resolved: z.number().int().nonnegative(),
  resolve_rate: z.number(),
  endings: z.object({
    submitted: z.number().int(),
    fallback: z.number().int(),
    limit: z.number().int(),
    failed: z.number().int(),
  }),
  model_calls: z.number().int().nonnegative(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  /** The agent's wall time summed over the instances (each instance's `ms` in the arm's report.json). */
  agent_ms: z.number().nonnegative(),
  /** This invocation's wall time for the arm (agent and evaluation; small when it resumed). */
  wall_ms: z.number().nonnegative(),
  /** For a graphplan arm; null for the baseline. */
  graphplan: GraphplanStatsSchema.nullable(),
});
export type GraphplanStats = z.infer<typeof GraphplanStatsSchema>;
export type ArmResult = z.infer<typeof ArmResultSchema>;

export const CompareResultsSchema = z.object({
  instances: z.number().int().nonnegative(),
  arms: z.tuple([ArmResultSchema, ArmResultSchema]),
  /** Arm A is the first of `--arms`, B the second. */
  paired: z.object({
    both: z.number().int(),
    onlyA: z.number().int(),
    onlyB: z.number().int(),
    neither: z.number().int(),
  }),
  /** Resolve rate of A − resolve rate of B. */
  difference: z.number(),
  interval: z
    .object({
      low: z.number(),
      high: z.number(),
      level: z.number(),
      resamples: z.number().int(),
      seed: z.number().int(),
    })
    .nullable(),
  /** McNemar's exact test on the discordant pairs (two-sided); 1 without discordant pairs. */
  mcnemar_p: z.number(),
  per_instance: z.array(z.object({ instance_id: z.string(), arms: z.tuple([InstanceArmSchema, InstanceArmSchema]) })),
});
export type CompareResults = z.infer<typeof CompareResultsSchema>;

export const CompareReportSchema = z.object({
  format: z.literal("graphplan-bench-compare/1"),
  created: z.string(),
  spec: CompareSpecSchema,
  /** Null until both arms ran and were graded (then the whole report). */
  results: CompareResultsSchema.nullable(),
});
export type CompareReport = z.infer<typeof CompareReportSchema>;

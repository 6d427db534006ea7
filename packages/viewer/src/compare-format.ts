/**
 * \`DIR/compare.json\` of \`bench compare\` (apps/bench/README.md): the comparison's identity (\`spec\`: the
 * arms, the model, the dataset), written before anything runs so that a later run with the same \`--out\`
 * can be checked against it, and its \`results\` once both arms were graded. \`bench compare\` writes it,
 * the viewer shows it: described once, here.
 */
import { z } from "zod";
import { UsageFiguresSchema } from "./usage-format.js";

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
  /** The run's calls, dollars and tokens (its trajectory's totals; summed from its replies for an older trajectory). */
  ...UsageFiguresSchema.shape,
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
  /** Calls, dollars and tokens summed over the arm's instances. */
  ...UsageFiguresSchema.shape,
  /** The agent's wall time summed over the instances (each instance's `ms` in the arm's report.json). */
  agent_ms: z.number().nonnegative(),
  /** This invocation's wall time for the arm (agent and evaluation; small when it resumed). */
  wall_ms: z.number().nonnegative(),
  /** For a graphplan arm; null for the baseline. */
  graphplan: GraphplanStatsSchema.nullable(),
});
export type GraphplanStats = z.infer<typeof GraphplanStatsSchema>;
export type ArmResult = z.infer<typeof ArmResultSchema>;

/**
 * Arm A's spend against arm B's, figure by figure: input tokens (all, and those billed at the full input price:
 * neither read from nor written to the cache), cache reads and writes, output tokens, dollars.
 */
export const SpendDifferenceSchema = z.object({
  input_tokens: z.number(),
  uncached_input_tokens: z.number(),
  cache_read_tokens: z.number(),
  cache_write_tokens: z.number(),
  output_tokens: z.number(),
  cost_usd: z.number(),
});
export type SpendDifference = z.infer<typeof SpendDifferenceSchema>;
/** The same figures as ratios A / B; null where B's figure is 0. */
export const SpendRatioSchema = z.object({
  input_tokens: z.number().nullable(),
  uncached_input_tokens: z.number().nullable(),
  cache_read_tokens: z.number().nullable(),
  cache_write_tokens: z.number().nullable(),
  output_tokens: z.number().nullable(),
  cost_usd: z.number().nullable(),
});
export type SpendRatio = z.infer<typeof SpendRatioSchema>;

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
  /** The arms' totals as ratios A / B (absent in reports written before they were compared). */
  spend_ratio: SpendRatioSchema.optional(),
  /** Instances on which A cost fewer dollars than B, B fewer than A, both the same. */
  cheaper: z.object({ a: z.number().int(), b: z.number().int(), same: z.number().int() }).optional(),
  per_instance: z.array(
    z.object({
      instance_id: z.string(),
      arms: z.tuple([InstanceArmSchema, InstanceArmSchema]),
      /** A's figures minus B's on this instance (negative: A spent less). */
      difference: SpendDifferenceSchema.optional(),
    }),
  ),
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

/**
 * Every data shape of the planner, described once with zod; the TypeScript types are inferred.
 *
 * Proposals are the wire format an LLM (or the planner itself) writes, so their keys are snake_case as in the design;
 * everything else is the TypeScript API and uses camelCase.
 */
import { z } from "zod";
import { PlanSchema, type Plan } from "./plan.js";

const text = z.string().regex(/\S/, "must not be blank");

// ---------------------------------------------------------------------------------------------------------------
// Proposal
// ---------------------------------------------------------------------------------------------------------------

export const ProposalIntentSchema = z.enum(["repair", "refactor", "feature", "test", "analyze"]);
export const ActionTypeSchema = z.enum(["edit_file", "read_file", "run_tests", "search_repo", "explain_stuck"]);
/** The vocabulary of risk. A proposal may only carry `low` or `medium`: HIGH risk is rejected by the schema. */
export const RiskLevelSchema = z.enum(["low", "medium", "high"]);
const ProposalRiskSchema = z.enum(["low", "medium"], {
  error: (issue) => (issue.input === "high" ? "HIGH risk proposals are rejected" : undefined),
});

export const TargetSchema = z.strictObject({
  path: text.describe("File (or directory, for searches and suites) the proposal is about"),
  symbol: text.nullable().describe("Function, class or test the proposal is about; null when it is about a whole file"),
});

export const ExpectedEffectSchema = z.strictObject({
  tests: z.array(text).describe("Test ids whose outcome the proposal is expected to change or confirm"),
  behavior: text.describe("The observable behaviour expected after the proposal is carried out"),
});

const proposalFields = {
  id: text,
  intent: ProposalIntentSchema,
  hypothesis: text.regex(/^[^\n]*$/, "a hypothesis is one sentence on one line"),
  target: TargetSchema,
  change_summary: text,
  expected_effect: ExpectedEffectSchema,
  risk_level: ProposalRiskSchema,
  rollback_plan: text,
};

export const EditFileProposalSchema = z.strictObject({
  ...proposalFields,
  action_type: z.literal("edit_file"),
  change: PlanSchema.describe("The edit, as a GraphPlan plan"),
});
export const ReadFileProposalSchema = z.strictObject({ ...proposalFields, action_type: z.literal("read_file") });
export const RunTestsProposalSchema = z.strictObject({
  ...proposalFields,
  action_type: z.literal("run_tests"),
  tests: z.array(text).describe("Test ids or paths to run; empty runs the project's default suite"),
  scope: z.enum(["targeted", "broad"]).describe("targeted: the failing tests; broad: a regression sweep"),
});
export const SearchRepoProposalSchema = z.strictObject({
  ...proposalFields,
  action_type: z.literal("search_repo"),
  query: text.describe("Text or regular expression to search for"),
});
export const ExplainStuckProposalSchema = z.strictObject({
  ...proposalFields,
  action_type: z.literal("explain_stuck"),
});

/** A proposal: every field is required; `edit_file` carries its `change` as a GraphPlan plan. */
export const ProposalSchema = z.discriminatedUnion("action_type", [
  EditFileProposalSchema,
  ReadFileProposalSchema,
  RunTestsProposalSchema,
  SearchRepoProposalSchema,
  ExplainStuckProposalSchema,
]);

/**
 * `T` with every property and array readonly. A parsed `Plan` stays as `parsePlan` typed it: its brand is what
 * `runPlan` takes, and no reader here changes it (a proposal is still frozen at run time).
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends Plan
    ? T
    : T extends readonly (infer U)[]
      ? readonly DeepReadonly<U>[]
      : T extends object
        ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
        : T;

export type ProposalIntent = z.infer<typeof ProposalIntentSchema>;
export type ActionType = z.infer<typeof ActionTypeSchema>;
export type RiskLevel = z.infer<typeof RiskLevelSchema>;
export type Target = z.infer<typeof TargetSchema>;
export type ExpectedEffect = z.infer<typeof ExpectedEffectSchema>;
/** A validated proposal. Deeply frozen at run time, deeply readonly in the type. */
export type Proposal = DeepReadonly<z.infer<typeof ProposalSchema>>;
export type EditFileProposal = Extract<Proposal, { action_type: "edit_file" }>;
export type RunTestsProposal = Extract<Proposal, { action_type: "run_tests" }>;
/** What `createProposal` accepts (before validation). */
export type ProposalInput = z.input<typeof ProposalSchema>;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Validates `input` and returns a deeply frozen proposal; throws a `ZodError` when a field is missing or wrong. */
export function createProposal(input: unknown): Proposal {
  return deepFreeze(ProposalSchema.parse(input)) as Proposal;
}

// ---------------------------------------------------------------------------------------------------------------
// Phases, controller feedback, gate
// ---------------------------------------------------------------------------------------------------------------

/** The meta-planner's phases; DONE (all targeted and broad tests pass) is the terminal success phase. */
export const PhaseSchema = z.enum(["REPRODUCE", "LOCALIZE", "PATCH", "VERIFY", "EXPAND", "STUCK", "DONE"]);
export type Phase = z.infer<typeof PhaseSchema>;

/** What the controller reports after executing an accepted proposal. */
export const ControllerFeedbackSchema = z.strictObject({
  proposalId: z
    .string()
    .optional()
    .describe("The proposal this is about; checked against the last proposal when given"),
  ok: z.boolean().describe("The action ran (tests ran, file was read, edit applied)"),
  output: z.string().default("").describe("Raw output: test run output, file content, search hits, error text"),
  testsFailed: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("Failed + errored tests; parsed from output when absent"),
  testsPassed: z.number().int().nonnegative().optional(),
});
export type ControllerFeedback = z.input<typeof ControllerFeedbackSchema>;

export const RejectionTypeSchema = z.enum([
  "SCHEMA_VIOLATION",
  "ORDERING_VIOLATION",
  "BOUNDS_VIOLATION",
  "INVARIANT_VIOLATION",
]);
export type RejectionType = z.infer<typeof RejectionTypeSchema>;

export const ViolationSchema = z.strictObject({
  rule: z.string().describe("Machine-readable rule name, e.g. test-file-edit, skip-marker-added, assertion-removed"),
  path: z.string().nullable(),
  detail: z.string(),
});
export type Violation = z.infer<typeof ViolationSchema>;

export const ScopeSchema = z.strictObject({
  files: z.number().int().nonnegative(),
  lines: z.number().int().nonnegative(),
});
export type Scope = z.infer<typeof ScopeSchema>;

export const GateRejectionSchema = z.strictObject({
  _tag: z.literal("Rejected"),
  type: RejectionTypeSchema,
  reason: z.string(),
  proposalId: z.string().nullable(),
  violations: z.array(ViolationSchema).default([]),
  requiredPhase: PhaseSchema.optional().describe("ORDERING_VIOLATION: the phase that must come first"),
  measured: ScopeSchema.optional().describe("BOUNDS_VIOLATION: files and lines the edit touches"),
  limits: ScopeSchema.optional().describe("BOUNDS_VIOLATION: the configured maxima"),
});
export type GateRejection = z.infer<typeof GateRejectionSchema>;
export interface GateAcceptance {
  readonly _tag: "Accepted";
  readonly proposal: Proposal;
}
export type GateResult = GateAcceptance | GateRejection;

export const FileChangeSchema = z.strictObject({ path: text, before: z.string(), after: z.string() });
export type FileChange = z.infer<typeof FileChangeSchema>;

export const GatePolicySchema = z.strictObject({
  allowTestEdits: z.boolean().default(false).describe("Edits to test files are allowed (e.g. adding assertions)"),
  allowTestWeakening: z
    .boolean()
    .default(false)
    .describe("Skips, xfails, removed or loosened assertions are allowed too (implies allowTestEdits)"),
});
export type GatePolicy = z.input<typeof GatePolicySchema>;

export const GateOptionsSchema = z.strictObject({
  maxFiles: z.number().int().positive().default(3).describe("Most files one edit may touch"),
  maxLines: z.number().int().positive().default(100).describe("Most lines one edit may add + remove"),
  policy: GatePolicySchema.default({ allowTestEdits: false, allowTestWeakening: false }),
});
export type GateOptions = z.input<typeof GateOptionsSchema>;

/** What the gate is told about the run: where the planner is, what has happened, and the simulated edit. */
export const GateContextSchema = z.strictObject({
  phase: PhaseSchema.optional().describe("The planner's current phase"),
  localized: z.boolean().default(false).describe("A localization step (read_file or search_repo) has been executed"),
  targetedPassed: z.boolean().default(false).describe("The targeted tests passed after the latest edit"),
  fileChanges: z
    .array(FileChangeSchema)
    .optional()
    .describe("The edit simulated by the caller; when absent the gate inspects the plan's code strings"),
  task: z
    .string()
    .optional()
    .describe("The task's text: an expected value of an existing test that it states may change"),
});
export type GateContext = z.input<typeof GateContextSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Evidence
// ---------------------------------------------------------------------------------------------------------------

export const TestFrameworkSchema = z.enum(["pytest", "django", "sympy", "unknown"]);
export type TestFramework = z.infer<typeof TestFrameworkSchema>;

export const TracebackFrameSchema = z.strictObject({
  file: z.string(),
  line: z.number().int().nonnegative(),
  name: z.string().nullable().describe("Function the frame is in, when printed"),
  project: z.boolean().describe("false for standard-library, site-packages and interpreter frames"),
});
export type TracebackFrame = z.infer<typeof TracebackFrameSchema>;

export const FailingTestSchema = z.strictObject({
  id: z.string().describe("Id as SWE-bench writes it: path::name (pytest), name (module.Class) (Django), name (SymPy)"),
  name: z.string(),
  file: z.string().nullable(),
});
export type FailingTest = z.infer<typeof FailingTestSchema>;

export const TestSummarySchema = z.strictObject({
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative().describe("Failures plus errors"),
});
export type TestSummary = z.infer<typeof TestSummarySchema>;

export const EvidenceSchema = z.strictObject({
  framework: TestFrameworkSchema,
  failingTests: z.array(FailingTestSchema),
  exceptionType: z.string().nullable(),
  frames: z.array(TracebackFrameSchema).describe("Frames of the first traceback, outermost first"),
  tracebackFile: z.string().nullable(),
  summary: TestSummarySchema.nullable(),
  signature: z.string().describe("Symptom fingerprint: exception type, failing frame, failing tests (no line numbers)"),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Scoring
// ---------------------------------------------------------------------------------------------------------------

export const ScoringWeightsSchema = z.strictObject({
  fileCount: z.number().default(1),
  tracebackRelevance: z.number().default(3),
  guardQuality: z.number().default(2),
  apiPreservation: z.number().default(1.5),
  refactorPenalty: z.number().max(0, "the refactor penalty weight is negative (or 0)").default(-1),
  testNarrativeMatch: z.number().default(2),
});
export type ScoringWeights = z.infer<typeof ScoringWeightsSchema>;
export type ScoringFactor = keyof ScoringWeights;

export const ScoreBreakdownSchema = z.strictObject({
  proposalId: z.string(),
  total: z.number(),
  factors: z
    .strictObject({
      fileCount: z.number(),
      tracebackRelevance: z.number(),
      guardQuality: z.number(),
      apiPreservation: z.number(),
      refactorPenalty: z.number(),
      testNarrativeMatch: z.number(),
    })
    .describe("Raw factor values in [0, 1]; total = Σ weight × factor"),
});
export type ScoreBreakdown = z.infer<typeof ScoreBreakdownSchema>;

/** A candidate proposal from a named model; the proposal is validated before it is scored. */
export const ModelCandidateSchema = z.strictObject({ model: text, proposal: z.unknown() });
export type ModelCandidate = z.infer<typeof ModelCandidateSchema>;

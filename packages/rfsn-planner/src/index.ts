/**
 * @graphplan/rfsn-planner — a proposal-only repair planner and the gate that judges its proposals.
 */
export {
  ProposalSchema,
  GateContextSchema,
  GateOptionsSchema,
  GatePolicySchema,
  ScoringWeightsSchema,
  createProposal,
} from "./schemas.js";
export type {
  Proposal,
  ProposalInput,
  ProposalIntent,
  ActionType,
  RiskLevel,
  Target,
  ExpectedEffect,
  Phase,
  ControllerFeedback,
  RejectionType,
  Violation,
  GateRejection,
  GateAcceptance,
  GateResult,
  GateContext,
  GateOptions,
  GatePolicy,
  FileChange,
  Evidence,
  FailingTest,
  TracebackFrame,
  TestSummary,
  ScoringWeights,
  ScoreBreakdown,
  ModelCandidate,
} from "./schemas.js";
export { Gate } from "./gate.js";
export { MetaPlanner } from "./meta-planner.js";
export type { MetaPlannerOptions, NextProposalInput, PatchRequest, PlannerMode, PlannerStep } from "./meta-planner.js";
export { ProposalPlanner } from "./proposal-planner.js";
export type { GuardType } from "./proposal-planner.js";
export { ScoringEngine } from "./scoring.js";
export type { ScoringContext, ScoredProposal, CandidateSelection } from "./scoring.js";
export { StateTracker } from "./state-tracker.js";
export type { StateTrackerOptions, Suspect, HypothesisRecord, RejectionRecord, StuckReason } from "./state-tracker.js";
export {
  extractEvidence,
  extractTracebackFile,
  extractTracebackFrames,
  extractExceptionType,
  parseFailingTests,
  parsePytestNodeids,
  parseTestSummary,
} from "./evidence.js";
export { isTestPath } from "./test-paths.js";
export { counterIds, logicalClock } from "./ids.js";
export type { Clock, IdGenerator } from "./ids.js";

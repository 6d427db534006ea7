/**
 * @graphplan/rfsn-planner — a proposal-only repair planner and the gate that judges its proposals.
 */
export { createProposal } from "./schemas.js";
export type { Proposal, ControllerFeedback, FileChange, ModelCandidate } from "./schemas.js";
export { Gate } from "./gate.js";
export { MetaPlanner } from "./meta-planner.js";
export type { NextProposalInput, PatchRequest } from "./meta-planner.js";
export { parseTestSummary } from "./evidence.js";

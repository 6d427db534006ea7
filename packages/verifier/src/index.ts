export { verifyPlan, verifyPlanSync, PlanVerifier } from "./verify.js";
export type { VerifyOptions } from "./verify.js";
export { renderIssue, revisionPrompt, toResult, IssueSchema, VerifyResultSchema, LAYERS, LEVELS } from "./issues.js";
export type { Issue, StepPlace, VerifyResult, Layer, Level, Severity, RevisionPromptOptions } from "./issues.js";

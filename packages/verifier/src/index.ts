export { verifyPlan, verifyPlanSync, verifyAndParse, PlanVerifier } from "./verify.js";
export type { VerifyOptions, VerifiedPlan } from "./verify.js";
export { renderIssue, revisionPrompt, toResult, IssueSchema, StoredIssueSchema, VerifyResultSchema, CHECKS } from "./issues.js";
export type { Issue, StepPlace, VerifyResult, Check, Severity, RevisionPromptOptions } from "./issues.js";
export { NameCheck } from "./names.js";
export type { UnresolvedName } from "./names.js";
export { formatResult } from "./format.js";

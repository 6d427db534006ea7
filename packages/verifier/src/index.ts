export { verifyPlan, verifyAndParse, PlanVerifier } from "./verify.js";
export { renderIssue, revisionPrompt, VerifyResultSchema } from "./issues.js";
export type { VerifyResult } from "./issues.js";
export { NameCheck } from "./names.js";
export { formatResult } from "./format.js";

export { detectTier, stepEdits, formalHandlers, runFormalPlan, dataFileCheck } from "./execute.js";
export { CATALOG, catalogEntry, planJsonSchema, catalogPrompt, compactCatalogPrompt } from "./catalog.js";
export { planStepsJsonSchema } from "./steps-schema.js";
export { isStepError } from "./step-error.js";
export type { StepError } from "./step-error.js";
export { parsePlan, parsePlanSteps, planIntegrity, loadPlanGrammars, didYouMean } from "./parse.js";
export type { PlanIssue, PlanSteps, StepParse } from "./parse.js";
export { dataStepEdits } from "./data/edit.js";
export type { DataOp } from "./data/edit.js";

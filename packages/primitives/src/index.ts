export {
  StepSchema,
  OperatorDefinitionSchema,
  planParts,
  planFiles,
  writtenSteps,
  stepFiles,
  stepLabel,
  stepLocator,
} from "./plan.js";
export type { Plan, WrittenPlan, Step, OperatorDefinition } from "./plan.js";
// Named by the declarations rfsn-planner emits for its schemas that hold a plan (recursive, so TypeScript cannot
// spell it out: TS2742 without it).
export type { DslStep } from "./plan.js";
export { applyEdits, editedRanges, mapOffset } from "./edits.js";
export type { Edit } from "./edits.js";
export { primitiveEdits, locate } from "./api.js";
export { isRunError } from "./run-error.js";
export type { RunError } from "./run-error.js";
export { deleteEditsFor, MUTATORS } from "./primitives.js";
export type { ParsedDoc } from "./primitives.js";
export { errorSpans, newSyntaxErrors, preprocessorExplains } from "./check.js";
export type { ErrorSpan } from "./check.js";
export { placements, normalizeCode, indentUnit, lineIndent } from "./indent.js";
export { pythonIndentProblems } from "./pyindent.js";
export { outerNode } from "./targets.js";
export { runPlan, paramIssues } from "./run.js";
export type { RunOptions, RunResult, StepHandler, HandlerContext } from "./run.js";
export { PlanSession } from "./session.js";
export type { SessionOptions, CodeChange, TextChange } from "./session.js";
export { reparse, lineStartsOf } from "./reparse.js";
export { closestMatchPlace, findPattern, partialSimilarity } from "./legacy.js";
export { OPERATORS, OPERATOR_BY_NAME, TEXT_OPS, FILE_OPS } from "./registry.js";
export type { OperatorInfo } from "./registry.js";
export { PostconditionFailed, FileNotInPlan, StepFailed } from "./errors.js";

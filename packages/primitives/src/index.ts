export { PlanSchema, StepSchema, StepsSchema, OpStepSchema, TemplateStepSchema, FragmentStepSchema, OperatorDefinitionSchema, DslStepSchema, planParts, planFiles, writtenSteps, stepFiles, stepLabel, stepLocator } from "./plan.js";
export type { Plan, Step, OpStep, TemplateStep, FragmentStep, OperatorDefinition, DslStep } from "./plan.js";
export { applyEdits, sortEdits, mapOffset, composeEdits, OverlappingEdits, EditOutOfRange } from "./edits.js";
export type { Edit } from "./edits.js";
export { primitiveEdits, applyPrimitive, locate, locateRegion } from "./api.js";
export type { PrimitiveError } from "./api.js";
export { isRunError } from "./run-error.js";
export type { RunError } from "./run-error.js";
export { deleteEditsFor, applyChecked, MUTATORS } from "./primitives.js";
export type { Doc, ParsedDoc, Alternatives, Applied, LocateOutput, LocatedNode, RegionOutput, MutatorName } from "./primitives.js";
export { errorSpans, errorSpansAfter, newSyntaxErrors } from "./check.js";
export type { ErrorSpan } from "./check.js";
export { placements, placeCode, normalizeCode, notesOf, indentBlock, indentUnit, lineIndent } from "./indent.js";
export type { NormalizedCode, Placement } from "./indent.js";
export { pythonIndentProblems, scanPython } from "./pyindent.js";
export type { IndentProblem, PythonLines } from "./pyindent.js";
export { outerNode } from "./targets.js";
export { runPlan, validatePlan, isValidPlan, closestOperators, paramIssues } from "./run.js";
export type { RunOptions, RunResult, StepResult, StepHandler, HandlerContext, HandlerResult } from "./run.js";
export { PlanSession } from "./session.js";
export type { SessionOptions, SessionStepResult, StepChange } from "./session.js";
export { reparse, reparseWithRanges, widenEdits, lineStartsOf } from "./reparse.js";
export type { Reparsed } from "./reparse.js";
export { substitute, evaluateCondition, runDsl } from "./dsl.js";
export { COMPOSED } from "./composed.js";
export type { View } from "./composed.js";
export { closestMatchPlace, findPattern, mostSimilar, partialSimilarity } from "./legacy.js";
export type { TextMatch, MatchLayer } from "./legacy.js";
export { OPERATORS, OPERATOR_BY_NAME, LEGACY_TO_PRIMITIVE, operatorJsonSchema } from "./registry.js";
export type { OperatorInfo } from "./registry.js";
export * as Params from "./params.js";
export {
  PostconditionFailed,
  PreconditionFailed,
  InvalidParams,
  UnknownOperator,
  FileNotInPlan,
  FileExists,
  FileDeleted,
  UnsupportedLanguage,
  PatternNotFound,
  PatternAmbiguous,
  LineOutOfRange,
  UnresolvedVariable,
  InvalidCondition,
  InvalidPlan,
  OperatorRedefined,
  RecursionLimit,
  StepFailed,
} from "./errors.js";
export type { SyntaxProblem, SimilarLine } from "./errors.js";

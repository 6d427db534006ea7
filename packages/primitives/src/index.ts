export { StepSchema, OperatorDefinitionSchema, planParts, planFiles, writtenSteps, stepFiles, stepLabel, stepLocator } from "./plan.js";
export type { Plan, Step, OpStep, TemplateStep, FragmentStep, OperatorDefinition, DslStep } from "./plan.js";
export { applyEdits, editedRanges, mapOffset, OverlappingEdits, EditOutOfRange } from "./edits.js";
export type { Edit } from "./edits.js";
export { primitiveEdits, applyPrimitive, locate, locateRegion } from "./api.js";
export type { PrimitiveError } from "./api.js";
export { isRunError } from "./run-error.js";
export type { RunError } from "./run-error.js";
export { deleteEditsFor, MUTATORS } from "./primitives.js";
export type { Doc, ParsedDoc, Applied, LocateOutput, LocatedNode, RegionOutput, MutatorName } from "./primitives.js";
export { errorSpans, newSyntaxErrors } from "./check.js";
export type { ErrorSpan } from "./check.js";
export { placements, normalizeCode, indentUnit, lineIndent } from "./indent.js";
export type { NormalizedCode } from "./indent.js";
export { pythonIndentProblems } from "./pyindent.js";
export type { IndentProblem } from "./pyindent.js";
export { outerNode } from "./targets.js";
export { runPlan, paramIssues } from "./run.js";
export type { RunOptions, RunResult, StepResult, StepHandler, HandlerContext, HandlerResult } from "./run.js";
export { PlanSession } from "./session.js";
export type { SessionOptions, SessionStepResult, StepChange, CodeChange, TextChange, TextDoc, FileMode } from "./session.js";
export { isBinaryText } from "./text.js";
export { reparse, lineStartsOf } from "./reparse.js";
export type { View } from "./composed.js";
export { closestMatchPlace, findPattern, partialSimilarity } from "./legacy.js";
export type { TextMatch, MatchLayer } from "./legacy.js";
export { OPERATORS, OPERATOR_BY_NAME, TEXT_OPS, FILE_OPS } from "./registry.js";
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
  BinaryFile,
  PatternNotFound,
  PatternAmbiguous,
  LineOutOfRange,
  UnresolvedVariable,
  InvalidCondition,
  OperatorRedefined,
  RecursionLimit,
  StepFailed,
} from "./errors.js";
export type { SyntaxProblem, SimilarLine } from "./errors.js";

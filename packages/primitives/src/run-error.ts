/**
 * Every error a step can fail with in the primitives' runner (before any handler): the one type
 * callers switch over, exhaustively, instead of matching `_tag` strings through casts.
 */
import { errorGuard, isGraphError, type GraphError } from "@graphplan/graph";
import { isLocatorError, type LocatorError } from "@graphplan/locators";
import { EditOutOfRange, OverlappingEdits } from "./edits.js";
import {
  BinaryFile,
  FileDeleted,
  FileExists,
  FileNotInPlan,
  InvalidCondition,
  InvalidParams,
  LineOutOfRange,
  OperatorRedefined,
  PatternAmbiguous,
  PatternNotFound,
  PostconditionFailed,
  PreconditionFailed,
  RecursionLimit,
  UnknownOperator,
  UnresolvedVariable,
  UnsupportedLanguage,
} from "./errors.js";

const PRIMITIVE_ERRORS = [
  OverlappingEdits,
  EditOutOfRange,
  BinaryFile,
  FileDeleted,
  FileExists,
  FileNotInPlan,
  InvalidCondition,
  InvalidParams,
  LineOutOfRange,
  OperatorRedefined,
  PatternAmbiguous,
  PatternNotFound,
  PostconditionFailed,
  PreconditionFailed,
  RecursionLimit,
  UnknownOperator,
  UnresolvedVariable,
  UnsupportedLanguage,
] as const;

/** The primitives' own errors (beside the locators' and the graph's). */
type OwnError = InstanceType<(typeof PRIMITIVE_ERRORS)[number]>;
const isOwnError = errorGuard(...PRIMITIVE_ERRORS);

/** What a step fails with in `runPlan`/`PlanSession` without handlers (`StepFailed.cause`): the primitives' errors, the locators' and the graph's. */
export type RunError = GraphError | LocatorError | OwnError;

export const isRunError = (error: unknown): error is RunError =>
  isOwnError(error) || isLocatorError(error) || isGraphError(error);

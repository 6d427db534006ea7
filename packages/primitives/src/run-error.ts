/**
 * Every error a step can fail with in the primitives' runner (before any handler): the one type
 * callers switch over, exhaustively, instead of matching `_tag` strings through casts.
 */
import { GrammarNotLoaded } from "@graphplan/graph";
import { isLocatorError, type LocatorError } from "@graphplan/locators";
import { EditOutOfRange, OverlappingEdits } from "./edits.js";
import {
  FileDeleted,
  FileExists,
  FileNotInPlan,
  InvalidCondition,
  InvalidParams,
  InvalidPlan,
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

const RUN_ERRORS = [
  GrammarNotLoaded,
  OverlappingEdits,
  EditOutOfRange,
  FileDeleted,
  FileExists,
  FileNotInPlan,
  InvalidCondition,
  InvalidParams,
  InvalidPlan,
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

/** What a step fails with in `runPlan`/`PlanSession` without handlers (`StepFailed.cause`). */
export type RunError = LocatorError | InstanceType<(typeof RUN_ERRORS)[number]>;

export const isRunError = (error: unknown): error is RunError => isLocatorError(error) || RUN_ERRORS.some((c) => error instanceof c);

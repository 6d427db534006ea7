/**
 * Every error a plan's step can fail with when it runs with the formal handlers bound: the
 * primitives' `RunError`s and what fragments, surgery and templates add. Switch over `_tag`
 * exhaustively; `isStepError` tells these from a bug.
 */
import { isFragmentError, type FragmentError } from "@graphplan/fragments";
import { errorGuard } from "@graphplan/graph";
import { isRunError, type RunError } from "@graphplan/primitives";
import { UnknownTemplate } from "./execute.js";
import { ParamsInvalid } from "./params.js";
import { BindingNotFound, NameCollision } from "./surgery/rename.js";
import { LanguageNotSupported, TransformBrokeSyntax, TransformRejected } from "./workspace.js";
import { DataEditBrokeFile, DataFileUnparsable, NotADataFile, ValueNotWritable } from "./data/errors.js";

const CATALOG_ERRORS = [
  UnknownTemplate,
  ParamsInvalid,
  BindingNotFound,
  NameCollision,
  LanguageNotSupported,
  TransformBrokeSyntax,
  TransformRejected,
  NotADataFile,
  DataFileUnparsable,
  ValueNotWritable,
  DataEditBrokeFile,
] as const;

/** The catalog's own errors (surgery, templates, their params). */
export type CatalogError = InstanceType<(typeof CATALOG_ERRORS)[number]>;
const isCatalogError: (error: unknown) => error is CatalogError = errorGuard(...CATALOG_ERRORS);

export type StepError = RunError | FragmentError | CatalogError;

export const isStepError = (error: unknown): error is StepError =>
  isRunError(error) || isFragmentError(error) || isCatalogError(error);

/**
 * Every error a plan's step can fail with when it runs with the formal handlers bound: the
 * primitives' `RunError`s and what fragments, surgery and templates add. Switch over `_tag`
 * exhaustively; `isStepError` tells these from a bug.
 */
import { FragmentInvalid, FragmentLanguageUnsupported } from "@graphplan/fragments";
import { isRunError, type RunError } from "@graphplan/primitives";
import { UnknownTemplate } from "./execute.js";
import { ParamsInvalid } from "./params.js";
import { BindingNotFound, NameCollision } from "./surgery/rename.js";
import { LanguageNotSupported, TransformBrokeSyntax, TransformRejected } from "./workspace.js";

const FORMAL_ERRORS = [
  FragmentInvalid,
  FragmentLanguageUnsupported,
  UnknownTemplate,
  ParamsInvalid,
  BindingNotFound,
  NameCollision,
  LanguageNotSupported,
  TransformBrokeSyntax,
  TransformRejected,
] as const;

export type StepError = RunError | InstanceType<(typeof FORMAL_ERRORS)[number]>;

export const isStepError = (error: unknown): error is StepError => isRunError(error) || FORMAL_ERRORS.some((c) => error instanceof c);

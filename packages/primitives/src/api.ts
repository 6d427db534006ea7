/**
 * One primitive on one document, for callers outside a plan (runtime, fragments, templates):
 * parse, compute the edits, check them, return values. Errors are returned, not thrown.
 */
import { errorGuard, withTree } from "@graphplan/graph";
import { isLocatorError, type LocatorError } from "@graphplan/locators";
import type { Edit } from "./edits.js";
import { OverlappingEdits, EditOutOfRange } from "./edits.js";
import { OPERATOR_BY_NAME } from "./registry.js";
import {
  MUTATORS,
  locateIn,
  locateRegionIn,
  mutatorCheck,
  mutatorEdits,
  applyChecked,
  type Doc,
  type LocateOutput,
  type MutatorName,
  type RegionOutput,
} from "./primitives.js";
import { InvalidParams, PostconditionFailed, PreconditionFailed, UnknownOperator } from "./errors.js";
import { closestOperators, paramIssues } from "./validate.js";

export type PrimitiveError =
  | LocatorError
  | InvalidParams
  | PreconditionFailed
  | PostconditionFailed
  | UnknownOperator
  | OverlappingEdits
  | EditOutOfRange;

const isOwnError = errorGuard(
  InvalidParams,
  PreconditionFailed,
  PostconditionFailed,
  UnknownOperator,
  OverlappingEdits,
  EditOutOfRange,
);
const isPrimitiveError = (e: unknown): e is PrimitiveError => isLocatorError(e) || isOwnError(e);

function validated(name: string, params: unknown): Record<string, unknown> {
  if (!(MUTATORS as readonly string[]).includes(name) && name !== "locate" && name !== "locate_region") {
    throw new UnknownOperator(
      name,
      closestOperators(name).filter((n) => OPERATOR_BY_NAME.get(n)?.kind === "primitive"),
    );
  }
  const parsed = OPERATOR_BY_NAME.get(name)!.paramsSchema.safeParse(params);
  if (!parsed.success) throw new InvalidParams(name, paramIssues(parsed.error, params));
  return parsed.data as Record<string, unknown>;
}

function guard<T>(f: () => T): T | PrimitiveError {
  try {
    return f();
  } catch (error) {
    if (isPrimitiveError(error)) return error;
    throw error;
  }
}

/** One mutator on `doc`, checked: the new text and the edits (throws the primitive's tagged errors). */
function runMutator(name: string, doc: Doc, params: unknown): { source: string; edits: Edit[] } {
  const p = validated(name, params);
  if (!(MUTATORS as readonly string[]).includes(name))
    throw new InvalidParams(name, ["read-only primitive: use locate()"]);
  return withTree(doc.source, doc.language, (tree) => {
    const parsed = { ...doc, tree };
    const applied = applyChecked(
      parsed,
      name,
      mutatorEdits(name as MutatorName, parsed, p as never),
      mutatorCheck(name as MutatorName, parsed, p as never),
    );
    applied.tree.delete();
    return { source: applied.source, edits: [...applied.edits] };
  });
}

/**
 * The checked edits of one mutator (`replace_node`, `insert_before_node`, `insert_after_node`,
 * `delete_node`, `wrap_node`, `replace_all_matching`) on `doc`: the first reading whose result
 * adds no syntax error and meets the primitive's postconditions. Apply them with `applyEdits`.
 */
export function primitiveEdits(name: string, doc: Doc, params: unknown): Edit[] | PrimitiveError {
  return guard(() => runMutator(name, doc, params).edits);
}

/** `primitiveEdits`, applied: the new text and the edits. */
export function applyPrimitive(
  name: string,
  doc: Doc,
  params: unknown,
): { source: string; edits: Edit[] } | PrimitiveError {
  return guard(() => runMutator(name, doc, params));
}

/** The read-only primitives on a document. */
export function locate(doc: Doc, params: unknown): LocateOutput | PrimitiveError {
  return guard(() => {
    const p = validated("locate", params);
    return withTree(doc.source, doc.language, (tree) => {
      return locateIn({ ...doc, tree }, p as never);
    });
  });
}

export function locateRegion(doc: Doc, params: unknown): RegionOutput | PrimitiveError {
  return guard(() => {
    const p = validated("locate_region", params);
    return withTree(doc.source, doc.language, (tree) => {
      return locateRegionIn({ ...doc, tree }, p as never);
    });
  });
}

/**
 * A validated fragment placed at a resolved node: the pure core of `execute_fragment`.
 */
import type { LanguageId, Node } from "@graphplan/graph";
import { indentUnit, type Edit } from "@graphplan/primitives";
import { definitionGap, placeBlock, statementOf, type PlaceAction } from "./place.js";
import type { Fragment } from "./schema.js";
import { serialize } from "./serialize.js";
import { FragmentInvalid, validateFragment } from "./validate.js";

/** Fragments serialize to Python only; the target file was another language. */
export class FragmentLanguageUnsupported extends Error {
  readonly _tag = "FragmentLanguageUnsupported";
  constructor(
    readonly file: string,
    readonly language: LanguageId | undefined,
  ) {
    super(
      `Fragments serialize to Python, but ${file} is ${language ?? "not a recognised language"}: use a template (replace_expression, replace_function_body, ...) or replace_node with code for this file.`,
    );
  }
}

/**
 * The edit that applies `fragment` at `node` of `source` (Python). The fragment is validated
 * (throws {@link FragmentInvalid}) and serialized with the target's indentation and the file's
 * indentation unit. A def/class with decorators is replaced or preceded as a whole (decorators
 * included) when the fragment brings its own decorators or is inserted before it.
 */
export function fragmentEdit(source: string, node: Node, action: PlaceAction, fragment: unknown, file = "(file)", language: LanguageId = "python"): Edit {
  if (language !== "python") throw new FragmentLanguageUnsupported(file, language);
  const issues = validateFragment(fragment);
  if (issues.length > 0) throw new FragmentInvalid(issues);
  const typed = fragment as Fragment;
  const bringsDecorators = Array.isArray(typed.properties?.["decorators"]) && (typed.properties["decorators"] as unknown[]).length > 0;
  const anchor = action === "insert_before" || (action === "replace" && bringsDecorators) ? statementOf(node) : node;
  const code = serialize(typed, 0, { unit: indentUnit(source) });
  const spaced = action !== "replace" && (typed.kind === "function_definition" || typed.kind === "class_definition");
  return placeBlock(source, language, anchor, action, code, spaced ? { blankLines: definitionGap(anchor, language) } : {});
}

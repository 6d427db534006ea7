/**
 * A validated fragment placed at a resolved node: the pure core of `execute_fragment`.
 */
import type { LanguageId, Node } from "@graphplan/graph";
import { indentUnit, type Edit } from "@graphplan/primitives";
import type { CodeLanguage } from "./code.js";
import { JS_LANGUAGES } from "./javascript.js";
import { definitionGap, placeBlock, statementOf, type PlaceAction } from "./place.js";
import type { Fragment } from "./schema.js";
import { serialize } from "./serialize.js";
import { FragmentInvalid, validateFragment } from "./validate.js";

/** Fragments are written in Python, JavaScript, TypeScript, Java and Go; the target file was another language. */
export class FragmentLanguageUnsupported extends Error {
  readonly _tag = "FragmentLanguageUnsupported";
  constructor(
    readonly file: string,
    readonly language: LanguageId | undefined,
  ) {
    super(
      `Fragments are written in Python, JavaScript, TypeScript, Java and Go, but ${file} is ${language ?? "not a recognised language"}: use a template (replace_expression, replace_function_body, ...) or replace_node with code for this file.`,
    );
  }
}

/** The languages a fragment can be written in. */
export const FRAGMENT_LANGUAGES = ["python", ...JS_LANGUAGES, "java", "go"] as const;
export const isFragmentLanguage = (language: LanguageId | undefined): language is CodeLanguage => (FRAGMENT_LANGUAGES as readonly string[]).includes(language ?? "");

/** Whether code placed at `node` stands in a JavaScript or Java class body (a method or a field). */
export const inClassBody = (node: Node): boolean => node.parent?.type === "class_body";

/**
 * The edit that applies `fragment` at `node` of `source` (Python, JavaScript, TypeScript, TSX, Java or Go).
 * The fragment is validated for the language and the place (throws {@link FragmentInvalid}) and
 * serialized with the target's indentation and the file's indentation unit. A def/class with
 * decorators is replaced or preceded as a whole (decorators included) when the fragment brings
 * its own decorators or is inserted before it. In a JavaScript or Java class body, a function is
 * written as a method and an assignment as a field.
 */
export function fragmentEdit(source: string, node: Node, action: PlaceAction, fragment: unknown, file = "(file)", language: LanguageId = "python"): Edit {
  if (!isFragmentLanguage(language)) throw new FragmentLanguageUnsupported(file, language);
  const bringsDecorators = isRecord(fragment) && isRecord(fragment["properties"]) && Array.isArray(fragment["properties"]["decorators"]) && fragment["properties"]["decorators"].length > 0;
  const anchor = action === "insert_before" ? statementOf(node, { exported: true }) : action === "replace" && bringsDecorators ? statementOf(node) : node;
  const inClass = language !== "python" && inClassBody(anchor);
  const topLevel = language === "go" ? anchor.parent?.type === "source_file" : undefined;
  const issues = validateFragment(fragment, { language, inClass, ...(topLevel === undefined ? {} : { topLevel }) });
  if (issues.length > 0) throw new FragmentInvalid(issues);
  const typed = fragment as Fragment;
  const code = serialize(typed, 0, { unit: indentUnit(source, language), language, inClass, topLevel: topLevel ?? false });
  const spaced = action !== "replace" && (typed.kind === "function_definition" || typed.kind === "class_definition");
  return placeBlock(source, language, anchor, action, code, spaced ? { blankLines: definitionGap(anchor, language) } : {});
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A validated fragment placed at a resolved node: the pure core of `execute_fragment`.
 */
import { errorGuard, TaggedError } from "@graphplan/graph";
import type { LanguageId, Node } from "@graphplan/graph";
import { indentUnit, type Edit } from "@graphplan/primitives";
import type { CodeLanguage } from "./code.js";
import { definitionGap, placeBlock, statementOf, type PlaceAction } from "./place.js";
import type { Fragment } from "./schema.js";
import { FRAGMENT_LANGUAGE, serialize } from "./languages.js";
import { FragmentInvalid, validateFragment } from "./validate.js";

/** Fragments are written in Python, JavaScript, TypeScript, Java and Go; the target file was another language. */
export class FragmentLanguageUnsupported extends TaggedError("FragmentLanguageUnsupported") {
  constructor(
    readonly file: string,
    readonly language: LanguageId | undefined,
  ) {
    super(
      `Fragments are written in Python, JavaScript, TypeScript, Java and Go, but ${file} is ${language ?? "not a recognised language"}: use a template (replace_expression, replace_function_body, ...) or replace_node with code for this file.`,
    );
  }
}

/** Every error of the fragments package. */
export type FragmentError = FragmentInvalid | FragmentLanguageUnsupported;
export const isFragmentError: (error: unknown) => error is FragmentError = errorGuard(
  FragmentInvalid,
  FragmentLanguageUnsupported,
);

/** Whether fragments are written in `language` (it has an entry in {@link FRAGMENT_LANGUAGE}). */
export const isFragmentLanguage = (language: LanguageId | undefined): language is CodeLanguage =>
  language !== undefined && Object.hasOwn(FRAGMENT_LANGUAGE, language);

/**
 * The edit that applies `fragment` at `node` of `source` (Python, JavaScript, TypeScript, TSX, Java or Go).
 * The fragment is validated for the language and the place (throws {@link FragmentInvalid}) and
 * serialized with the target's indentation and the file's indentation unit. A def/class with
 * decorators is replaced or preceded as a whole (decorators included) when the fragment brings
 * its own decorators or is inserted before it. In a JavaScript or Java class body, a function is
 * written as a method and an assignment as a field.
 */
export function fragmentEdit(
  source: string,
  node: Node,
  action: PlaceAction,
  fragment: unknown,
  file = "(file)",
  language: LanguageId = "python",
): Edit {
  if (!isFragmentLanguage(language)) throw new FragmentLanguageUnsupported(file, language);
  const bringsDecorators =
    isRecord(fragment) &&
    isRecord(fragment["properties"]) &&
    Array.isArray(fragment["properties"]["decorators"]) &&
    fragment["properties"]["decorators"].length > 0;
  const anchor =
    action === "insert_before"
      ? statementOf(node, { exported: true })
      : action === "replace" && bringsDecorators
        ? statementOf(node)
        : node;
  // Where the code goes, as the language sees it (a class body, the top of the file): known now that the target is.
  const place = FRAGMENT_LANGUAGE[language].place?.(anchor) ?? {};
  const issues = validateFragment(fragment, { language, ...place });
  if (issues.length > 0) throw new FragmentInvalid(issues);
  const typed = fragment as Fragment;
  const code = serialize(typed, 0, {
    unit: indentUnit(source, language),
    language,
    inClass: place.inClass ?? false,
    topLevel: place.topLevel ?? false,
  });
  const spaced = action !== "replace" && (typed.kind === "function_definition" || typed.kind === "class_definition");
  return placeBlock(
    source,
    language,
    anchor,
    action,
    code,
    spaced ? { blankLines: definitionGap(anchor, language) } : {},
  );
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

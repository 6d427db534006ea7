/**
 * `execute_fragment`: a tier 3 step `{fragment, action, locator}` on in-memory files — validate,
 * serialize with the target's indentation, apply, and check the result still parses.
 */
import { detectLanguage, withTree } from "@graphplan/graph";
import { LocatorSchema, resolveOne, InvalidLocator } from "@graphplan/locators";
import {
  applyEdits,
  errorSpans,
  newSyntaxErrors,
  FileNotInPlan,
  PostconditionFailed,
  type Edit,
} from "@graphplan/primitives";
import { pythonProblems } from "./code.js";
import { fragmentEdit, FragmentLanguageUnsupported, isFragmentLanguage } from "./edit.js";
import type { PlaceAction } from "./place.js";

export interface FragmentStep {
  readonly fragment: unknown;
  readonly action?: PlaceAction | undefined;
  readonly locator: unknown;
}

export interface FragmentResult {
  readonly file: string;
  readonly edit: Edit;
  /** The file's new text. */
  readonly source: string;
}

/**
 * Applies a fragment step to `files` (path → text). Throws tagged errors: `FragmentInvalid`,
 * `InvalidLocator` / `LocatorNotFound` / `LocatorAmbiguous`, `FileNotInPlan`,
 * `FragmentLanguageUnsupported`, `PostconditionFailed` (the result would not parse). Pure.
 */
export function executeFragment(
  step: FragmentStep,
  files: ReadonlyMap<string, string> | Readonly<Record<string, string>>,
): FragmentResult {
  const locator = LocatorSchema.safeParse(step.locator);
  if (!locator.success)
    throw new InvalidLocator(
      step.locator,
      locator.error.issues.map((i) => `${i.path.join(".") || "locator"}: ${i.message}`),
    );
  const file = locator.data.file;
  const all = files instanceof Map ? files : new Map(Object.entries(files as Record<string, string>));
  const source = all.get(file);
  if (source === undefined) throw new FileNotInPlan(file, [...all.keys()]);
  const language = detectLanguage(file);
  if (!isFragmentLanguage(language)) throw new FragmentLanguageUnsupported(file, language);
  return withTree(source, language, (tree) => {
    const node = resolveOne(tree, source, language, locator.data);
    const edit = fragmentEdit(source, node, step.action ?? "replace", step.fragment, file, language);
    const after = applyEdits(source, [edit]);
    withTree(after, language, (next) => {
      const introduced = newSyntaxErrors(errorSpans(tree), errorSpans(next), [edit]);
      if (introduced.length > 0)
        throw new PostconditionFailed(
          file,
          "fragment",
          "the fragment does not fit there (e.g. an elif_clause must follow an if)",
          introduced,
        );
      const problems =
        language === "python" ? pythonProblems(next.rootNode).length - pythonProblems(tree.rootNode).length : 0;
      if (problems > 0)
        throw new PostconditionFailed(file, "fragment", "the result has an empty block or a misplaced parameter");
    });
    return { file, edit, source: after };
  });
}

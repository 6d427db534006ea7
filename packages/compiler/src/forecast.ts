/**
 * Cheap forecasts of what the commonest tier 2–3 steps write (modify_condition,
 * change_return_value, replace_expression, fragments), from the same placement helpers the
 * templates use and the tree the compiler already has: no parse of the file, no whole-file
 * checks. Like the primitives' forecast it is a filter; the run of the plan is the judge.
 * Other steps get `undefined` and are forecast by the templates themselves (`stepEdits`).
 */
import { withTree, type LanguageId } from "@graphplan/graph";
import { checkCode, fragmentEdit, isCodeLanguage, placeBlock, type CodeKind } from "@graphplan/fragments";
import { resolveOne } from "@graphplan/locators";
import type { Edit, Step } from "@graphplan/primitives";
import type { Tree } from "web-tree-sitter";

export interface ForecastDoc {
  readonly path: string;
  readonly source: string;
  readonly language: LanguageId;
  readonly tree: Tree;
}

/** A code parameter as the template reads it; the template's validation would refuse it when it throws. */
function codeParam(value: unknown, kind: CodeKind, language: LanguageId): string {
  if (typeof value !== "string") throw new Error("not a string");
  if (!isCodeLanguage(language)) return value.trim();
  const result = checkCode(value, kind, language);
  if (!result.ok) throw new Error(result.message);
  return result.code;
}

const ATOMS = new Set([
  "identifier",
  "call",
  "attribute",
  "subscript",
  "string",
  "concatenated_string",
  "integer",
  "float",
  "true",
  "false",
  "none",
  "list",
  "tuple",
  "dictionary",
  "set",
  "parenthesized_expression",
  "list_comprehension",
  "dictionary_comprehension",
  "set_comprehension",
  "generator_expression",
]);

/** Whether `code` is one primary expression (which no operator context needs to parenthesize). */
function isAtom(code: string, language: LanguageId): boolean {
  return withTree(`(${code})`, language, (tree) => {
    const statement = tree.rootNode.namedChild(0);
    const outer = statement?.type === "expression_statement" ? statement.namedChild(0) : null;
    const inner = outer?.type === "parenthesized_expression" ? outer.namedChild(0) : null;
    return tree.rootNode.namedChildCount === 1 && !!inner && ATOMS.has(inner.type);
  });
}

/** The edits of `step`, or `undefined` when this module does not forecast that kind of step. */
export function forecastFormal(step: Step, doc: ForecastDoc): Edit[] | undefined {
  const { source, language, tree } = doc;
  if ("fragment" in step) {
    const node = resolveOne(tree, source, language, step.locator);
    return [fragmentEdit(source, node, step.action, step.fragment, doc.path, language)];
  }
  if (!("template" in step) || language !== "python") return undefined;
  const params = step.params as Record<string, unknown>;
  switch (step.template) {
    case "modify_condition": {
      const node = resolveOne(tree, source, language, params["target"]);
      const condition = ["if_statement", "elif_clause", "while_statement"].includes(node.type)
        ? node.childForFieldName("condition")
        : node;
      if (!condition) return undefined;
      return [
        placeBlock(source, language, condition, "replace", codeParam(params["condition"], "condition", language)),
      ];
    }
    case "change_return_value": {
      const node = resolveOne(tree, source, language, params["target"]);
      if (node.type !== "return_statement") return undefined;
      return [
        placeBlock(source, language, node, "replace", `return ${codeParam(params["value"], "expression", language)}`),
      ];
    }
    case "replace_expression": {
      let node = resolveOne(tree, source, language, params["target"]);
      if (node.type === "expression_statement" && node.namedChildCount === 1) node = node.namedChild(0)!;
      const code = codeParam(params["expression"], "expression", language);
      // The template parenthesizes an operator expression where grouping might need it; only
      // an atom (a name, a call, a literal, a bracketed expression) is forecast here.
      if (!isAtom(code, language)) return undefined;
      return [placeBlock(source, language, node, "replace", code)];
    }
    default:
      return undefined;
  }
}

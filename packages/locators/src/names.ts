/**
 * The name of a node, read the way the graph reads definitions (`LANGUAGES[lang].definitions`)
 * and, for the other kinds (calls, assignments, imports, parameters, ...), from the obvious child.
 */
import type { Node } from "web-tree-sitter";
import { LANGUAGES, type LanguageId } from "@graphplan/graph";

const IDENTIFIER_LIKE = new Set([
  "identifier",
  "property_identifier",
  "shorthand_property_identifier",
  "field_identifier",
  "type_identifier",
  "namespace_identifier",
  "package_identifier",
  "constant",
  "instance_variable",
  "class_variable",
  "global_variable",
  "name",
  "variable_name",
  "simple_identifier",
  "dotted_name",
  "scoped_identifier",
  "qualified_identifier",
  "qualified_name",
  "namespace_name",
  "primitive_type",
  "scoped_type_identifier",
]);

const unquote = (text: string): string => text.replace(/^[a-zA-Z]*["'`<]+|["'`>]+$/g, "");

/** Definition-rule name for nodes the graph treats as definitions; `null` = "not a definition" (forward declaration...). */
export function definitionName(node: Node, language: LanguageId): string | null | undefined {
  const rule = LANGUAGES[language].definitions[node.type];
  if (!rule) return undefined;
  return rule.name ? rule.name(node) : (node.childForFieldName("name")?.text ?? null);
}

function firstIdentifier(node: Node | null | undefined): string | undefined {
  if (!node) return undefined;
  if (IDENTIFIER_LIKE.has(node.type)) return node.text;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const found = firstIdentifier(child);
    if (found) return found;
  }
  return undefined;
}

/** C/C++ declarators: follow `declarator` fields down to the declared identifier. */
function declaratorName(node: Node): string | undefined {
  let current: Node | null = node.childForFieldName("declarator");
  while (current) {
    if (IDENTIFIER_LIKE.has(current.type) || current.type === "destructor_name" || current.type === "operator_name")
      return current.text;
    const next = current.childForFieldName("declarator") ?? current.childForFieldName("name");
    if (!next) return firstIdentifier(current);
    current = next;
  }
  return undefined;
}

/**
 * The primary name of a node, or undefined when it has none. For definitions this is exactly
 * the graph's symbol name.
 * Long on purpose: one case per kind of named node across the ten languages, each a line or two; a table of functions would scatter the fallbacks they share.
 */
export function nodeName(node: Node, language: LanguageId): string | undefined {
  const def = definitionName(node, language);
  if (def !== undefined) return def ?? undefined;
  if (IDENTIFIER_LIKE.has(node.type)) return node.text;
  switch (node.type) {
    case "string":
    case "string_literal":
    case "interpreted_string_literal":
    case "raw_string_literal":
    case "template_string":
    case "encapsed_string":
      return unquote(node.text);
    case "expression_statement": {
      const inner = node.namedChildren.find((c) => c && !c.type.includes("comment"));
      return inner ? nodeName(inner, language) : undefined;
    }
    case "decorator":
    case "annotation":
    case "marker_annotation": {
      const text = node.text.replace(/^@/, "");
      return text.split("(")[0]?.trim();
    }
    case "attribute_item":
      return firstIdentifier(node);
    case "assignment":
    case "augmented_assignment":
    case "assignment_expression":
    case "augmented_assignment_expression":
    case "compound_assignment_expr":
    case "operator_assignment":
      return (node.childForFieldName("left") ?? node.namedChild(0))?.text;
    case "assignment_statement":
    case "short_var_declaration":
      return (node.childForFieldName("left") ?? node.namedChild(0))?.text;
    case "let_declaration":
      return node.childForFieldName("pattern")?.text;
    case "variable_declarator":
    case "init_declarator":
      return (node.childForFieldName("name") ?? node.childForFieldName("declarator"))?.text;
    case "call":
      return language === "ruby" ? node.childForFieldName("method")?.text : node.childForFieldName("function")?.text;
    case "call_expression":
    case "function_call_expression":
      return node.childForFieldName("function")?.text;
    case "macro_invocation":
      return node.childForFieldName("macro")?.text;
    case "new_expression":
      return node.childForFieldName("constructor")?.text ?? firstIdentifier(node);
    case "object_creation_expression":
      return (
        node.childForFieldName("type") ??
        node.namedChildren.find((c) => c?.type === "name" || c?.type === "qualified_name")
      )?.text;
    case "method_invocation":
    case "member_call_expression":
    case "scoped_call_expression":
      return node.childForFieldName("name")?.text;
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: another language's declaration is named as a field's
    case "declaration":
      // A CSS declaration is named by its property (`color` of `color: red`).
      if (language === "css") return node.namedChildren.find((c) => c?.type === "property_name")?.text;
    // falls through
    case "field_declaration":
    case "parameter_declaration":
    case "optional_parameter_declaration":
      if (language === "c" || language === "cpp") return declaratorName(node);
      return node.childForFieldName("name")?.text ?? firstIdentifier(node.childForFieldName("declarator"));
    case "local_variable_declaration":
    case "lexical_declaration":
    case "variable_declaration":
    case "var_declaration":
    case "const_declaration":
    case "property_declaration":
      return firstIdentifier(node.namedChildren.find((c) => c && /declarator|spec|element/.test(c.type)) ?? null);
    case "parameter":
      return node.childForFieldName("pattern")?.text;
    case "preproc_include":
      return unquote(node.childForFieldName("path")?.text ?? "");
    case "preproc_def":
    case "preproc_function_def":
      return node.childForFieldName("name")?.text;
    default: {
      const named = node.childForFieldName("name") ?? node.childForFieldName("pattern");
      if (named) return named.text;
      if (node.type.endsWith("parameter") || node.type.endsWith("pattern")) return firstIdentifier(node);
      return undefined;
    }
  }
}

/** Every name a node answers to: its name, and the last segment of a dotted/qualified one (`self.save` → `save`). */
export function nodeNames(node: Node, language: LanguageId): string[] {
  const names: string[] = [];
  const primary = nodeName(node, language);
  if (primary) {
    names.push(primary);
    // A CSS selector or an HTML id is one name: `.nav .item` does not also answer to `item`.
    if (language === "css" || language === "html") return names;
    const last = primary.split(/\.|::|->|\\/).pop();
    if (last && last !== primary) names.push(last);
  }
  if (isImport(node, language)) {
    // Imports answer to every module and name they mention: `from a.b import c as d` → a.b, c, d.
    const visit = (n: Node): void => {
      if (IDENTIFIER_LIKE.has(n.type) || n.type.includes("string") || n.type === "system_lib_string") {
        const text = unquote(n.text);
        if (text) names.push(text);
        if (n.type !== "identifier" && n.type !== "name") for (const c of n.namedChildren) if (c) visit(c);
        return;
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(node);
  }
  return [...new Set(names)];
}

const RUBY_IMPORTS = ["require", "require_relative", "load", "autoload"];
const PHP_INCLUDES = ["include_expression", "include_once_expression", "require_expression", "require_once_expression"];

function isImport(node: Node, language: LanguageId): boolean {
  if (language === "ruby")
    return node.type === "call" && RUBY_IMPORTS.includes(node.childForFieldName("method")?.text ?? "");
  if (language === "php" && node.type === "expression_statement")
    return node.namedChildren.some((c) => !!c && PHP_INCLUDES.includes(c.type));
  return LANGUAGES[language].importTypes.includes(node.type);
}

/** Whether `node` answers to `name`. */
export function nameMatches(node: Node, language: LanguageId, name: string): boolean {
  return nodeNames(node, language).includes(name);
}

/**
 * Kind classes for the `kind` check (L1) and degenerate code for `triviality` (L6).
 * A replacement keeps its kind when it stays in the same class: a function stays a function
 * (decorated or not), a statement stays statement-level, an expression stays an expression, a
 * block stays a block, a name stays a name; anything else keeps its exact node type.
 */
import { LANGUAGES, type LanguageId } from "@graphplan/graph";
import type { Node } from "web-tree-sitter";

const NAME_TYPES = new Set([
  "identifier",
  "property_identifier",
  "field_identifier",
  "type_identifier",
  "constant",
  "name",
  "shorthand_property_identifier",
]);
const WRAPPERS = new Set(["decorated_definition", "export_statement", "template_declaration"]);
const STRUCTURAL =
  /(^|_)(parameters|parameter_list|formal_parameters|arguments|argument_list|type_parameters|decorator|clause|case|heritage|superclasses|body)$/;

function definitionKind(node: Node, language: LanguageId): string | undefined {
  const spec = LANGUAGES[language];
  const rule = spec.definitions[node.type];
  if (rule) {
    // JS `variable_declarator` defines a function only when its value is one.
    if (rule.name && rule.name(node) === null) return undefined;
    return rule.kindOf ? rule.kindOf(node) : rule.kind === "method" ? "function" : rule.kind;
  }
  if (WRAPPERS.has(node.type)) {
    const inner =
      node.childForFieldName("definition") ??
      node.childForFieldName("declaration") ??
      node.namedChildren.at(-1) ??
      null;
    return inner ? definitionKind(inner, language) : undefined;
  }
  return undefined;
}

/** The class of a node for the `kind` check. */
export function kindClass(node: Node, language: LanguageId): string {
  const def = definitionKind(node, language);
  if (def) return `definition:${def}`;
  const spec = LANGUAGES[language];
  const parent = node.parent;
  if (spec.blockTypes.includes(node.type) && parent) return "block";
  if (NAME_TYPES.has(node.type) && parent && parent.childForFieldName("name")?.id === node.id) return "name";
  if (parent && spec.blockTypes.includes(parent.type)) return "statement";
  if (/_statement$/.test(node.type)) return "statement";
  if (STRUCTURAL.test(node.type)) return node.type;
  return "expression";
}

/**
 * Whether `after` (the node or nodes now at the edited place) keeps the class of `before`.
 * A definition must still be there as a definition of the same kind (alone, next to others,
 * or wrapped); statement-level code may become definitions.
 */
export function keepsKind(
  before: string,
  after: readonly { cls: string; contains: (cls: string) => boolean }[],
): boolean {
  if (after.length === 0) return false;
  if (before.startsWith("definition:")) {
    return (
      after.some((a) => a.cls === before || a.contains(before)) &&
      after.every((a) => a.cls === "statement" || a.cls.startsWith("definition:"))
    );
  }
  if (before === "statement") return after.every((a) => a.cls === "statement" || a.cls.startsWith("definition:"));
  if (before === "name") return after.length === 1 && (after[0]!.cls === "name" || after[0]!.cls === "expression");
  return after.length === 1 && after[0]!.cls === before;
}

/** True when some descendant of `node` (or itself) is in class `cls`. */
export function containsClass(node: Node, cls: string, language: LanguageId): boolean {
  if (kindClass(node, language) === cls) return true;
  if (!cls.startsWith("definition:")) return false;
  const types = Object.keys(LANGUAGES[language].definitions);
  for (const d of node.descendantsOfType(types)) if (d && kindClass(d, language) === cls) return true;
  return false;
}

const PY_TRIVIAL = (stmt: Node): boolean => {
  switch (stmt.type) {
    case "pass_statement":
      return true;
    case "return_statement": {
      const value = stmt.namedChildren.filter((c) => c && c.type !== "comment");
      return value.length === 0 || (value.length === 1 && value[0]!.type === "none");
    }
    case "expression_statement": {
      const only = stmt.namedChild(0);
      return stmt.namedChildCount === 1 && !!only && (only.type === "ellipsis" || only.type === "string");
    }
    case "comment":
      return true;
    default:
      return false;
  }
};

const C_LIKE_TRIVIAL = (stmt: Node): boolean => {
  if (
    stmt.type === "comment" ||
    stmt.type === "line_comment" ||
    stmt.type === "block_comment" ||
    stmt.type === "empty_statement"
  )
    return true;
  if (stmt.type === "return_statement" || stmt.type === "return_expression") {
    const value = stmt.namedChildren.filter((c) => c && !/comment/.test(c.type));
    return (
      value.length === 0 ||
      (value.length === 1 && ["null", "undefined", "nil", "none", "unit_expression"].includes(value[0]!.type))
    );
  }
  return false;
};

/** Whether a list of statements does nothing useful: `pass`, `...`, a docstring, `return`, `return None`. */
export function trivialStatements(statements: readonly Node[], language: LanguageId): boolean {
  const check = language === "python" ? PY_TRIVIAL : C_LIKE_TRIVIAL;
  return statements.every(check);
}

const bodyOf = (node: Node): Node | null =>
  node.childForFieldName("body") ?? node.childForFieldName("definition")?.childForFieldName("body") ?? null;

/** The statements of a function's (or block's) body, comments included. */
export function bodyStatements(node: Node, language: LanguageId): Node[] | undefined {
  const spec = LANGUAGES[language];
  const block = spec.blockTypes.includes(node.type) ? node : bodyOf(node);
  if (!block) return undefined;
  return block.namedChildren.filter((c): c is Node => c !== null);
}

/** Whether a definition or block node has a degenerate body. */
export function trivialBody(node: Node, language: LanguageId): boolean | undefined {
  const statements = bodyStatements(node, language);
  if (!statements) return undefined;
  // Class bodies with only methods are not degenerate; only function-like bodies and blocks count.
  const def = definitionKind(node, language);
  if (def && def !== "function" && def !== "constructor" && def !== "singleton_method") return undefined;
  return trivialStatements(statements, language);
}

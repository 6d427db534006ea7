/** Node facts the templates share: functions, classes, bodies, docstrings, indentation. */
import { codeEnd, fieldOf, withTree, type LanguageId, type Node } from "@graphplan/graph";
import { reindent } from "@graphplan/fragments";
import { indentUnit, lineIndent } from "@graphplan/primitives";
import { TransformRejected, type Target } from "../workspace.js";

export const JS_LIKE: readonly LanguageId[] = ["javascript", "typescript", "tsx"];
export const PY_AND_JS: readonly LanguageId[] = ["python", "javascript", "typescript", "tsx"];
export const PY_ONLY: readonly LanguageId[] = ["python"];
/** The templates written for every language with fragments: Python, JavaScript/TypeScript, Java and Go. */
export const PY_JS_JAVA_GO: readonly LanguageId[] = [...PY_AND_JS, "java", "go"];
export const isJs = (language: LanguageId): boolean => JS_LIKE.includes(language);

/** The languages' families as the templates see them: what a function, a class, a block and an atom are. */
type Family = "python" | "js" | "java" | "go";
const familyOf = (language: LanguageId): Family =>
  language === "python" ? "python" : language === "java" ? "java" : language === "go" ? "go" : "js";

const FUNCTIONS: Record<Family, ReadonlySet<string>> = {
  python: new Set(["function_definition"]),
  js: new Set([
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
  ]),
  java: new Set(["method_declaration", "constructor_declaration", "lambda_expression"]),
  go: new Set(["function_declaration", "method_declaration", "func_literal"]),
};
const CLASSES: Record<Family, ReadonlySet<string>> = {
  python: new Set(["class_definition"]),
  js: new Set(["class_declaration", "class", "abstract_class_declaration"]),
  java: new Set(["class_declaration", "interface_declaration", "enum_declaration", "record_declaration"]),
  go: new Set(),
};
/** Every function node type of any language: where a function's own statements end. */
export const ANY_FUNCTION: ReadonlySet<string> = new Set(Object.values(FUNCTIONS).flatMap((s) => [...s]));
/** Braced function bodies (an arrow function or a Java lambda may have an expression instead). */
export const BRACED_BODIES: ReadonlySet<string> = new Set(["statement_block", "block", "constructor_body"]);

export interface FunctionParts {
  /** The function node itself (function_definition, function_declaration, arrow_function, ...). */
  readonly fn: Node;
  /** The statement-level node: a decorated definition / export statement / declaration around it. */
  readonly outer: Node;
  readonly parameters: Node | null;
  /** block / statement_block, or an expression body of an arrow function. */
  readonly body: Node;
}

/** The function a locator named (through decorated_definition, variable declarators, export). */
export function functionParts(target: Target, op: string): FunctionParts {
  const { node, language } = target;
  let fn: Node | null = node;
  if (fn.type === "decorated_definition") fn = fn.childForFieldName("definition");
  if (
    fn &&
    (fn.type === "variable_declarator" ||
      fn.type === "pair" ||
      fn.type === "public_field_definition" ||
      fn.type === "field_definition")
  )
    fn = fn.childForFieldName("value");
  if (fn && fn.type === "export_statement") fn = fn.childForFieldName("declaration");
  const kinds = FUNCTIONS[familyOf(language)];
  if (!fn || !kinds.has(fn.type)) {
    // A locator at a function's body, name or parameters (field: "body") means the function.
    const up = node.parent;
    const field = fieldOf(node);
    if (up && kinds.has(up.type) && (field === "body" || field === "name" || field === "parameters")) {
      fn = up;
    } else {
      throw new TransformRejected(
        op,
        target.file,
        `the target (line ${node.startPosition.row + 1}) is a ${node.type}, not a function; point the locator at a function or method`,
      );
    }
  }
  const body = fn.childForFieldName("body");
  if (!body)
    throw new TransformRejected(op, target.file, `the function at line ${fn.startPosition.row + 1} has no body`);
  return {
    fn,
    outer: outerOf(fn),
    parameters: fn.childForFieldName("parameters") ?? fn.childForFieldName("parameter"),
    body,
  };
}

/** The statement-level node around a definition: decorated_definition, export_statement, lexical_declaration. */
export function outerOf(node: Node): Node {
  let n = node;
  for (;;) {
    const p = n.parent;
    if (!p) return n;
    if (p.type === "decorated_definition" || p.type === "export_statement") {
      n = p;
      continue;
    }
    if (n.type === "arrow_function" || n.type === "function_expression" || n.type === "function") {
      if (p.type === "variable_declarator") {
        n = p;
        continue;
      }
    }
    if (
      n.type === "variable_declarator" &&
      (p.type === "lexical_declaration" || p.type === "variable_declaration") &&
      p.namedChildren.filter((c) => c?.type === "variable_declarator").length === 1
    ) {
      n = p;
      continue;
    }
    return n;
  }
}

export interface ClassParts {
  readonly cls: Node;
  readonly outer: Node;
  readonly body: Node;
}

export function classParts(target: Target, op: string): ClassParts {
  const { node, language } = target;
  let cls: Node | null = node;
  if (cls.type === "decorated_definition") cls = cls.childForFieldName("definition");
  if (cls && cls.type === "export_statement") cls = cls.childForFieldName("declaration");
  const kinds = CLASSES[familyOf(language)];
  if (!cls || !kinds.has(cls.type)) {
    if ((node.type === "block" || node.type === "class_body") && node.parent && kinds.has(node.parent.type))
      cls = node.parent;
    else
      throw new TransformRejected(
        op,
        target.file,
        `the target (line ${node.startPosition.row + 1}) is a ${node.type}, not a class; point the locator at a class`,
      );
  }
  const body = cls.childForFieldName("body");
  if (!body) throw new TransformRejected(op, target.file, `the class at line ${cls.startPosition.row + 1} has no body`);
  return { cls, outer: outerOf(cls), body };
}

/** Named, non-comment children of a block. */
export function statementsOf(block: Node): Node[] {
  return block.namedChildren.filter((c): c is Node => !!c && c.type !== "comment" && c.type !== "decorator");
}

/** A Python docstring: a string expression statement that is the first statement of a body. */
export function isDocstring(node: Node | undefined): boolean {
  return (
    !!node &&
    node.type === "expression_statement" &&
    node.namedChildCount === 1 &&
    ["string", "concatenated_string"].includes(node.namedChildren[0]!.type)
  );
}

/** The statements of a body after its docstring (Python). */
export function bodyAfterDocstring(block: Node, language: LanguageId): { docstring: Node | undefined; rest: Node[] } {
  const all = statementsOf(block);
  if (language === "python" && isDocstring(all[0])) return { docstring: all[0], rest: all.slice(1) };
  return { docstring: undefined, rest: all };
}

/** Python placeholder bodies: `pass` or `...`. */
export function isPlaceholder(node: Node): boolean {
  return node.type === "pass_statement" || (node.type === "expression_statement" && node.text.trim() === "...");
}

/** The indentation of statements inside `body` (a block / statement_block / class_body) of a header at `headerStart`. */
export function bodyIndent(target: Target, body: Node, headerStart: number): string {
  const first = statementsOf(body)[0];
  const { source } = target;
  const header = lineIndent(source, headerStart);
  if (first && first.startPosition.row !== source.slice(0, headerStart).split("\n").length - 1) {
    const indent = lineIndent(source, first.startIndex);
    if (indent.length > header.length) return indent;
  }
  return header + indentUnit(source);
}

export const endOf = (node: Node, language: LanguageId): number => codeEnd(node, language).endIndex;

/** Nodes whose children are statements (or members). */
const STATEMENT_PARENTS: Record<Family, readonly string[]> = {
  python: ["block", "module"],
  js: ["statement_block", "program", "class_body", "switch_body", "switch_case", "switch_default"],
  java: ["block", "constructor_body", "program", "class_body", "switch_block_statement_group"],
  go: ["block", "source_file", "expression_case", "default_case", "type_case", "communication_case"],
};

/** The statement that contains `node` and sits directly in a block (its parent holds statements). */
export function enclosingStatement(node: Node, language: LanguageId): Node | null {
  const blocks = STATEMENT_PARENTS[familyOf(language)];
  let n: Node | null = node;
  while (n && n.parent && !blocks.includes(n.parent.type)) n = n.parent;
  if (!n?.parent) return null;
  // A Python def's decorators: the statement is the decorated definition.
  return n;
}

/** True when `outer` contains `inner`. */
export const within = (outer: Node, inner: Node): boolean =>
  outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;

const JAVA_ATOMS = new Set([
  "identifier",
  "method_invocation",
  "field_access",
  "array_access",
  "string_literal",
  "text_block",
  "character_literal",
  "decimal_integer_literal",
  "hex_integer_literal",
  "decimal_floating_point_literal",
  "true",
  "false",
  "null_literal",
  "this",
  "parenthesized_expression",
  "object_creation_expression",
  "array_creation_expression",
  "class_literal",
]);
const GO_ATOMS = new Set([
  "identifier",
  "call_expression",
  "selector_expression",
  "index_expression",
  "slice_expression",
  "type_assertion_expression",
  "interpreted_string_literal",
  "raw_string_literal",
  "rune_literal",
  "int_literal",
  "float_literal",
  "imaginary_literal",
  "true",
  "false",
  "nil",
  "iota",
  "composite_literal",
  "parenthesized_expression",
  "func_literal",
]);
const PY_ATOMS = new Set([
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
  "dictionary",
  "set",
  "tuple",
  "parenthesized_expression",
  "list_comprehension",
  "set_comprehension",
  "dictionary_comprehension",
  "generator_expression",
  "ellipsis",
]);
const JS_ATOMS = new Set([
  "identifier",
  "call_expression",
  "member_expression",
  "subscript_expression",
  "string",
  "template_string",
  "number",
  "true",
  "false",
  "null",
  "undefined",
  "this",
  "array",
  "object",
  "parenthesized_expression",
  "regex",
  "new_expression",
  "property_identifier",
]);
/** Parents in which a replaced child keeps its meaning without parentheses (lists, arguments, assignments, statements). */
const PY_SAFE_PARENTS = new Set([
  "expression_statement",
  "assignment",
  "augmented_assignment",
  "return_statement",
  "argument_list",
  "keyword_argument",
  "list",
  "set",
  "tuple",
  "expression_list",
  "pair",
  "parenthesized_expression",
  "subscript",
  "if_statement",
  "elif_clause",
  "while_statement",
  "interpolation",
  "default_parameter",
  "typed_default_parameter",
  "with_item",
  "for_statement",
  "for_in_clause",
  "if_clause",
  "assert_statement",
  "raise_statement",
  "yield",
  "decorator",
  "slice",
  "lambda",
]);
const JS_SAFE_PARENTS = new Set([
  "expression_statement",
  "variable_declarator",
  "return_statement",
  "arguments",
  "array",
  "pair",
  "parenthesized_expression",
  "assignment_expression",
  "template_substitution",
  "assignment_pattern",
  "public_field_definition",
  "field_definition",
  "throw_statement",
  "spread_element",
  "arrow_function",
  "subscript_expression",
]);

const JAVA_SAFE_PARENTS = new Set([
  "expression_statement",
  "variable_declarator",
  "return_statement",
  "argument_list",
  "array_initializer",
  "parenthesized_expression",
  "assignment_expression",
  "throw_statement",
  "lambda_expression",
  "element_value_pair",
  "array_access",
]);
const GO_SAFE_PARENTS = new Set([
  "expression_list",
  "argument_list",
  "parenthesized_expression",
  "literal_element",
  "keyed_element",
  "expression_statement",
  "if_statement",
  "for_clause",
  "expression_switch_statement",
  "send_statement",
  "index_expression",
]);

/**
 * `code` wrapped in parentheses when putting it in place of `node` would change how it groups
 * (`a * (x + y)`, not `a * x + y`). `codeType` is the node type `code` parses as.
 */
export function parenthesizeFor(node: Node, code: string, codeType: string, language: LanguageId): string {
  const family = familyOf(language);
  const atoms = { python: PY_ATOMS, js: JS_ATOMS, java: JAVA_ATOMS, go: GO_ATOMS }[family];
  if (atoms.has(codeType)) return code;
  const parent = node.parent;
  if (!parent) return code;
  const safe = { python: PY_SAFE_PARENTS, js: JS_SAFE_PARENTS, java: JAVA_SAFE_PARENTS, go: GO_SAFE_PARENTS }[family];
  if (safe.has(parent.type)) {
    // The object of `a.b` / the function of `f()` / the value of `x[i]` are not safe places.
    const field = fieldOf(node);
    const indexed =
      (parent.type === "subscript" && field === "value") ||
      (parent.type === "subscript_expression" && field === "object") ||
      (parent.type === "array_access" && field === "array") ||
      (parent.type === "index_expression" && field === "operand");
    if (!indexed) return code;
  }
  return `(${code})`;
}

/** The field name under which `node` hangs from its parent (the graph's, which the templates import from here). */
export { fieldOf };

/** The node type `code` parses as when used as an expression (`binary_operator`, `call`, ...). */
export function expressionType(code: string, language: LanguageId): string {
  // Java and Go have no expression statement at the top of a file: the value of a field, of a var.
  const [prefix, suffix] =
    language === "java"
      ? ["class _C { Object _x = ", "; }\n"]
      : language === "go"
        ? ["package _p\nvar _ = ", "\n"]
        : ["_ = ", "\n"];
  return withTree(`${prefix}${code}${suffix}`, language, (tree) => {
    const node = tree.rootNode.namedDescendantForIndex(prefix.length, prefix.length + code.length - 1);
    let n: Node | null = node;
    // (Go's var value is an expression list, even of one expression: the expression is the type.)
    while (
      n &&
      n.parent &&
      n.parent.startIndex === prefix.length &&
      n.parent.endIndex === prefix.length + code.length &&
      n.parent.type !== "expression_list"
    )
      n = n.parent;
    return n && n.startIndex === prefix.length && n.endIndex === prefix.length + code.length ? n.type : "unknown";
  });
}

/** End of a class member including the `;` token that follows it (JS/TS fields). */
export function memberEnd(node: Node, language: LanguageId): number {
  const next = node.nextSibling;
  if (next && !next.isNamed && next.type === ";") return next.endIndex;
  return endOf(node, language);
}

/** True when only whitespace precedes `index` on its line. */
export function startsLine(source: string, index: number): boolean {
  const lineStart = source.lastIndexOf("\n", index - 1) + 1;
  return source.slice(lineStart, index).trim() === "";
}

/**
 * The edit that fills an empty braced block (`{}`) with `code`: `{`, the code indented one
 * unit deeper than the header line, then `}` on its own line.
 */
export function fillBraces(target: Target, block: Node, code: string, headerStart: number) {
  const header = lineIndent(target.source, headerStart);
  const inner = header + indentUnit(target.source);
  return {
    start: block.startIndex,
    end: block.endIndex,
    text: `{\n${reindent(code, inner, target.language)}\n${header}}`,
  };
}

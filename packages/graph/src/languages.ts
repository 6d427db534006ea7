/**
 * What GraphPlan knows about each grammar: which files it reads, which nodes are
 * definitions and imports, which are control flow, strings and comments.
 * Everything language-specific in the graph (and in the packages above it) reads from here.
 */
import type { Node } from "web-tree-sitter";

export const LANGUAGE_IDS = [
  "python",
  "javascript",
  "typescript",
  "tsx",
  "java",
  "go",
  "rust",
  "ruby",
  "php",
  "c",
  "cpp",
  "bash",
  "css",
  "html",
] as const;
export type LanguageId = (typeof LANGUAGE_IDS)[number];

export type SymbolKind =
  | "class"
  | "function"
  | "method"
  | "struct"
  | "trait"
  | "interface"
  | "enum"
  | "impl"
  | "module"
  | "namespace"
  | "typedef"
  | "type_alias"
  | "type"
  | "constructor"
  | "singleton_method"
  /** A CSS rule set, named by its selectors; an at-rule (`@media (…)`), named by its prelude. */
  | "rule"
  | "at_rule"
  /** An HTML element with an `id`, named by it; a heading (`h1`…`h6`) without one, named by its text. */
  | "element"
  | "heading";

/** A node type that defines a symbol, and how to read the symbol's name and kind. */
export interface DefinitionRule {
  readonly kind: SymbolKind;
  /** Refines the kind from the node (a Go `type_spec` is a struct, an interface or a plain type). */
  readonly kindOf?: (node: Node) => SymbolKind;
  /** Defaults to the text of the `name` field. Return null to skip the node (e.g. a forward declaration). */
  readonly name?: (node: Node) => string | null;
  /**
   * Every symbol the node defines, when it can define several (`typedef struct {...} A, *PA;`);
   * the graph lists one symbol per name. `name` is then the first of them.
   */
  readonly names?: (node: Node) => readonly string[];
}

export interface LanguageSpec {
  readonly id: LanguageId;
  /** File name of the grammar inside `tree-sitter-wasms/out`. */
  readonly wasm: string;
  readonly extensions: readonly string[];
  readonly definitions: Readonly<Record<string, DefinitionRule>>;
  readonly importTypes: readonly string[];
  /**
   * Nodes that are not import statements but may name a module the file depends on: the graph
   * reads them as imports when they do (`export { a } from "m"`, `require("m")`, `import("m")`)
   * and skips them otherwise (every other call).
   */
  readonly dependencyTypes?: readonly string[];
  /** Node type → normalized line kind (`if_statement`, `for_statement`, ...). */
  readonly lineKinds: Readonly<Record<string, string>>;
  readonly stringTypes: readonly string[];
  readonly commentTypes: readonly string[];
  /** Node types that hold an indented or braced list of statements. */
  readonly blockTypes: readonly string[];
  /**
   * Text that starts or ends a comment (`#`, `//`, `*\/`). A definition whose last line holds
   * none of these cannot end in a comment, so its end line needs no trailing-comment check.
   */
  readonly commentMarkers: readonly string[];
  /**
   * When set, the grammar places every definition, import and control-flow node as a child of
   * one of these node types (statement lists and the statements that own them), so the graph
   * walks only these and skips expressions. Checked against a walk of every node in the tests.
   * Left unset for languages where definitions also live inside expressions (JS callbacks,
   * Java anonymous classes, Rust closures' items...).
   */
  readonly scopeTypes?: readonly string[];
  /**
   * Node types whose statements must all start at the same indentation (Python's off-side
   * rule). tree-sitter accepts a dedent to a level that was never opened; CPython does not.
   */
  readonly indentedBlocks?: readonly string[];
}

const nameField = (node: Node): string | null => node.childForFieldName("name")?.text ?? null;

/** Follows C/C++ `declarator` fields down to the declared name (`int *(*f)(void)` → `f`). */
function declaratorName(node: Node): string | null {
  return nameOfDeclarator(node.childForFieldName("declarator"));
}

/** The name a C/C++ declarator declares (`*(*f)(void)` → `f`). */
function nameOfDeclarator(declarator: Node | null): string | null {
  let current = declarator;
  while (current) {
    switch (current.type) {
      case "qualified_identifier": {
        // `S::operator int() const`: a qualified conversion operator holds its parameters; cut there.
        const cast = current.descendantsOfType("operator_cast")[0];
        const parameters = cast?.descendantsOfType("parameter_list")[0];
        return parameters
          ? current.text
              .slice(0, parameters.startIndex - current.startIndex)
              .replace(/\s+/g, " ")
              .trim()
          : current.text;
      }
      case "identifier":
      case "field_identifier":
      case "type_identifier":
      case "destructor_name":
      case "operator_name":
      case "primitive_type":
        return current.text;
      case "operator_cast": {
        // A conversion operator, `explicit operator const T*() const`: named `operator const T*`, up to its parameters.
        const parameters = current.descendantsOfType("parameter_list")[0];
        const end = parameters ? parameters.startIndex - current.startIndex : current.text.length;
        return current.text.slice(0, end).replace(/\s+/g, " ").trim();
      }
      case "parenthesized_declarator":
        // `void (*get_handler(int))(int)`: the name is inside the parentheses.
        current = current.namedChild(0);
        break;
      case "reference_declarator":
        // `const T& name() const`: the declarator is the node's one named child, in no field.
        current = current.lastNamedChild;
        break;
      default: {
        const next = current.childForFieldName("declarator") ?? current.childForFieldName("name");
        if (!next) return null;
        current = next;
      }
    }
  }
  return null;
}

/** Every name a C/C++ `typedef` declares (`typedef struct {...} A, *PA;` → A, PA). */
function typedefNames(node: Node): string[] {
  const names: string[] = [];
  for (const declarator of node.childrenForFieldName("declarator")) {
    const name = nameOfDeclarator(declarator);
    if (name) names.push(name);
  }
  return names;
}

/**
 * A C/C++ function definition's name; a definition written through a macro, `TEST_IMPL(name) {...}`
 * (which the grammar reads as a function of type `TEST_IMPL` whose declarator is `(name)`), is
 * named as it is written, `TEST_IMPL(name)`.
 */
function functionName(node: Node): string | null {
  const declarator = node.childForFieldName("declarator");
  const type = node.childForFieldName("type");
  if (
    declarator?.type === "parenthesized_declarator" &&
    type &&
    (type.type === "type_identifier" || type.type === "primitive_type")
  ) {
    return `${type.text}${declarator.text.replace(/\s+/g, " ")}`;
  }
  return declaratorName(node);
}

/** struct/enum/class specifiers define a symbol only when they have a body. */
const namedWithBody = (node: Node): string | null => (node.childForFieldName("body") ? nameField(node) : null);

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();

/** A CSS at-rule's name: its text up to its block (`@media (max-width: 600px)`). */
function atRuleName(node: Node): string | null {
  const block = node.namedChildren.find((c) => c?.type === "block" || c?.type === "keyframe_block_list");
  const text = block ? node.text.slice(0, block.startIndex - node.startIndex) : node.text;
  return oneLine(text.replace(/;\s*$/, "")) || null;
}

const HTML_HEADING = /^h[1-6]$/i;

/** An HTML element's start tag (`<div id="x">`), or null. */
const startTag = (node: Node): Node | null =>
  node.namedChildren.find((c) => c?.type === "start_tag" || c?.type === "self_closing_tag") ?? null;

/** The value of an HTML element's attribute, unquoted; undefined when it has none. */
export function htmlAttribute(element: Node, name: string): string | undefined {
  const tag = startTag(element);
  if (!tag) return undefined;
  for (const attribute of tag.namedChildren) {
    if (attribute?.type !== "attribute") continue;
    const key = attribute.namedChildren.find((c) => c?.type === "attribute_name");
    if (key?.text.toLowerCase() !== name) continue;
    const value = attribute.namedChildren.find(
      (c) => c?.type === "attribute_value" || c?.type === "quoted_attribute_value",
    );
    return value ? value.text.replace(/^["']|["']$/g, "") : "";
  }
  return undefined;
}

/** An HTML element's tag name, lower-cased. */
export const htmlTag = (element: Node): string | undefined =>
  startTag(element)
    ?.namedChildren.find((c) => c?.type === "tag_name")
    ?.text.toLowerCase();

/** An element is named by its `id`; a heading without one by its text (tags and template markup stripped). */
function htmlElementName(node: Node): string | null {
  const id = htmlAttribute(node, "id");
  if (id) return id;
  if (!HTML_HEADING.test(htmlTag(node) ?? "")) return null;
  const open = startTag(node);
  const close = node.namedChildren.find((c) => c?.type === "end_tag");
  const inner = node.text.slice(
    (open?.endIndex ?? node.startIndex) - node.startIndex,
    (close?.startIndex ?? node.endIndex) - node.startIndex,
  );
  return oneLine(inner.replace(/<[^>]*>/g, "")) || null;
}
const htmlElementKind = (node: Node): SymbolKind => (htmlAttribute(node, "id") ? "element" : "heading");

const JS_FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function", "generator_function"]);

/**
 * JS/TS `const f = () => ...`, `const f = function () {}` and `const K = class {}` define a
 * function (a class) named by the declarator; any other value defines no symbol.
 */
function variableValueName(node: Node): string | null {
  const value = node.childForFieldName("value");
  if (!value || !(JS_FUNCTION_VALUES.has(value.type) || value.type === "class")) return null;
  return nameField(node);
}
const variableValueKind = (node: Node): SymbolKind =>
  node.childForFieldName("value")?.type === "class" ? "class" : "function";

/** The callee names under which a JS assignment defines a module-level function rather than a method. */
const EXPORT_OBJECTS = new Set(["exports", "module.exports"]);

/**
 * `proto.handle = function handle() {...}`, `exports.f = () => ...`, `module.exports = function name() {...}`,
 * `Foo.prototype.m = function () {...}`, `X.Y = class {...}`: an assignment of a function (a class)
 * defines it, named by the assigned property (by the function's own name, or `module.exports`,
 * when the whole of `module.exports` is assigned). Any other assignment defines nothing.
 */
function assignedName(node: Node): string | null {
  const value = node.childForFieldName("right");
  if (!value || !(JS_FUNCTION_VALUES.has(value.type) || value.type === "class")) return null;
  const left = node.childForFieldName("left");
  if (!left) return null;
  if (left.type === "identifier") return left.text;
  if (left.type !== "member_expression") return null;
  if (left.text === "module.exports") return value.childForFieldName("name")?.text ?? "module.exports";
  return left.childForFieldName("property")?.text ?? null;
}

function assignedKind(node: Node): SymbolKind {
  const value = node.childForFieldName("right");
  if (value?.type === "class") return "class";
  const left = node.childForFieldName("left");
  if (left?.type !== "member_expression") return "function";
  const object = left.childForFieldName("object")?.text;
  return left.text === "module.exports" || (object !== undefined && EXPORT_OBJECTS.has(object)) ? "function" : "method";
}

/**
 * A named function expression, `router.use(function mounted_app(req, res) {...})`, defines its
 * name, unless the assignment, declarator or pair that holds it already gives it that name.
 */
function functionExpressionName(node: Node): string | null {
  const name = nameField(node);
  if (!name) return null;
  const parent = node.parent;
  if (parent) {
    const holder =
      parent.type === "variable_declarator"
        ? variableValueName(parent)
        : parent.type === "assignment_expression"
          ? assignedName(parent)
          : parent.type === "pair"
            ? pairName(parent)
            : null;
    if (holder === name) return null;
  }
  return name;
}

/** An object literal's `key: function () {...}` (or an arrow function) is a method. */
function pairName(node: Node): string | null {
  const value = node.childForFieldName("value");
  if (!value || !JS_FUNCTION_VALUES.has(value.type)) return null;
  const key = node.childForFieldName("key");
  if (!key) return null;
  return key.type === "string" ? key.text.slice(1, -1) : key.text;
}

/** A class field whose value is a function (`onClick = () => {...}`) is a method. */
function fieldFunctionName(node: Node): string | null {
  const value = node.childForFieldName("value");
  if (!value || !JS_FUNCTION_VALUES.has(value.type)) return null;
  return (node.childForFieldName("property") ?? node.childForFieldName("name"))?.text ?? null;
}

/** `declare module "express"` names the module `express`. */
const moduleName = (node: Node): string | null => {
  const name = nameField(node);
  return name === null ? null : name.replace(/^["'`]|["'`]$/g, "");
};

function goTypeKind(node: Node): SymbolKind {
  const type = node.childForFieldName("type")?.type;
  return type === "struct_type" ? "struct" : type === "interface_type" ? "interface" : "type";
}

const JS_LINE_KINDS = {
  if_statement: "if_statement",
  for_statement: "for_statement",
  for_in_statement: "for_statement",
  while_statement: "while_statement",
  do_statement: "while_statement",
  return_statement: "return_statement",
  throw_statement: "throw_statement",
  try_statement: "try_statement",
  switch_statement: "switch_statement",
} as const;

/** Besides import statements, JS/TS files depend on modules through these (when they name one). */
const JS_DEPENDENCIES = ["export_statement", "call_expression"];

const JS_DEFINITIONS: Record<string, DefinitionRule> = {
  class_declaration: { kind: "class" },
  abstract_class_declaration: { kind: "class" },
  function_declaration: { kind: "function" },
  generator_function_declaration: { kind: "function" },
  method_definition: { kind: "method" },
  field_definition: { kind: "method", name: fieldFunctionName },
  variable_declarator: { kind: "function", name: variableValueName, kindOf: variableValueKind },
  assignment_expression: { kind: "method", name: assignedName, kindOf: assignedKind },
  pair: { kind: "method", name: pairName },
  function_expression: { kind: "function", name: functionExpressionName },
  function: { kind: "function", name: functionExpressionName },
  generator_function: { kind: "function", name: functionExpressionName },
};

const TS_DEFINITIONS: Record<string, DefinitionRule> = {
  ...JS_DEFINITIONS,
  interface_declaration: { kind: "interface" },
  enum_declaration: { kind: "enum" },
  type_alias_declaration: { kind: "type_alias" },
  public_field_definition: { kind: "method", name: fieldFunctionName },
  abstract_method_signature: { kind: "method" },
  // Interface and class members without a body, and overloads: `m(x: T): U;`, `function f(x: T): U;`.
  method_signature: { kind: "method" },
  function_signature: { kind: "function" },
  module: { kind: "module", name: moduleName },
  internal_module: { kind: "namespace" },
};

const C_LIKE_LINE_KINDS = {
  if_statement: "if_statement",
  for_statement: "for_statement",
  for_range_loop: "for_statement",
  while_statement: "while_statement",
  do_statement: "while_statement",
  return_statement: "return_statement",
  switch_statement: "switch_statement",
  throw_statement: "throw_statement",
  try_statement: "try_statement",
} as const;

const C_DEFINITIONS: Record<string, DefinitionRule> = {
  function_definition: { kind: "function", name: functionName },
  struct_specifier: { kind: "struct", name: namedWithBody },
  union_specifier: { kind: "struct", name: namedWithBody },
  enum_specifier: { kind: "enum", name: namedWithBody },
  type_definition: { kind: "typedef", name: declaratorName, names: typedefNames },
};

const C_LIKE_COMMENT_MARKERS = ["//", "*/"];

const JS_STRINGS = ["string", "template_string", "string_fragment", "regex", "jsx_text"];

export const LANGUAGES: Readonly<Record<LanguageId, LanguageSpec>> = {
  python: {
    id: "python",
    wasm: "tree-sitter-python.wasm",
    extensions: [".py", ".pyi"],
    definitions: {
      class_definition: { kind: "class" },
      function_definition: { kind: "function" },
    },
    importTypes: ["import_statement", "import_from_statement", "future_import_statement"],
    lineKinds: {
      if_statement: "if_statement",
      for_statement: "for_statement",
      while_statement: "while_statement",
      return_statement: "return_statement",
      raise_statement: "raise_statement",
      try_statement: "try_statement",
      with_statement: "with_statement",
      match_statement: "switch_statement",
    },
    stringTypes: ["string", "string_content", "concatenated_string"],
    commentTypes: ["comment"],
    blockTypes: ["block", "module"],
    commentMarkers: ["#"],
    // Python definitions, imports and control flow are statements: they only sit in the module,
    // in blocks, and in the compound statements and clauses that own blocks.
    scopeTypes: [
      "module",
      "block",
      "decorated_definition",
      "function_definition",
      "class_definition",
      "if_statement",
      "elif_clause",
      "else_clause",
      "for_statement",
      "while_statement",
      "try_statement",
      "except_clause",
      "except_group_clause",
      "finally_clause",
      "with_statement",
      "match_statement",
      "case_clause",
    ],
    indentedBlocks: ["block", "module"],
  },
  javascript: {
    id: "javascript",
    wasm: "tree-sitter-javascript.wasm",
    extensions: [".js", ".jsx", ".mjs", ".cjs"],
    definitions: JS_DEFINITIONS,
    importTypes: ["import_statement"],
    dependencyTypes: JS_DEPENDENCIES,
    lineKinds: JS_LINE_KINDS,
    stringTypes: JS_STRINGS,
    commentTypes: ["comment"],
    blockTypes: ["statement_block", "class_body", "program"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  typescript: {
    id: "typescript",
    wasm: "tree-sitter-typescript.wasm",
    extensions: [".ts", ".mts", ".cts"],
    definitions: TS_DEFINITIONS,
    importTypes: ["import_statement"],
    dependencyTypes: JS_DEPENDENCIES,
    lineKinds: JS_LINE_KINDS,
    stringTypes: JS_STRINGS,
    commentTypes: ["comment"],
    blockTypes: ["statement_block", "class_body", "interface_body", "enum_body", "program"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  tsx: {
    id: "tsx",
    wasm: "tree-sitter-tsx.wasm",
    extensions: [".tsx"],
    definitions: TS_DEFINITIONS,
    importTypes: ["import_statement"],
    dependencyTypes: JS_DEPENDENCIES,
    lineKinds: JS_LINE_KINDS,
    stringTypes: JS_STRINGS,
    commentTypes: ["comment"],
    blockTypes: ["statement_block", "class_body", "interface_body", "enum_body", "program"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  java: {
    id: "java",
    wasm: "tree-sitter-java.wasm",
    extensions: [".java"],
    definitions: {
      class_declaration: { kind: "class" },
      record_declaration: { kind: "class" },
      interface_declaration: { kind: "interface" },
      annotation_type_declaration: { kind: "interface" },
      enum_declaration: { kind: "enum" },
      method_declaration: { kind: "method" },
      constructor_declaration: { kind: "constructor" },
      // The elements of an `@interface`: `String value() default "";`
      annotation_type_element_declaration: { kind: "method" },
    },
    importTypes: ["import_declaration"],
    lineKinds: {
      if_statement: "if_statement",
      for_statement: "for_statement",
      enhanced_for_statement: "for_statement",
      while_statement: "while_statement",
      do_statement: "while_statement",
      return_statement: "return_statement",
      throw_statement: "throw_statement",
      try_statement: "try_statement",
      try_with_resources_statement: "try_statement",
      switch_expression: "switch_statement",
    },
    stringTypes: ["string_literal", "string_fragment", "text_block", "character_literal"],
    commentTypes: ["line_comment", "block_comment"],
    blockTypes: ["block", "class_body", "interface_body", "enum_body", "constructor_body", "program"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  go: {
    id: "go",
    wasm: "tree-sitter-go.wasm",
    extensions: [".go"],
    definitions: {
      function_declaration: { kind: "function" },
      method_declaration: { kind: "method" },
      // An interface's methods: `Bind(*http.Request, any) error`.
      method_spec: { kind: "method" },
      type_spec: { kind: "type", kindOf: goTypeKind },
      type_alias: { kind: "type_alias" },
    },
    importTypes: ["import_declaration"],
    lineKinds: {
      if_statement: "if_statement",
      for_statement: "for_statement",
      return_statement: "return_statement",
      expression_switch_statement: "switch_statement",
      type_switch_statement: "switch_statement",
      select_statement: "switch_statement",
      defer_statement: "defer_statement",
      go_statement: "go_statement",
    },
    stringTypes: ["interpreted_string_literal", "raw_string_literal", "rune_literal"],
    commentTypes: ["comment"],
    blockTypes: ["block", "source_file"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  rust: {
    id: "rust",
    wasm: "tree-sitter-rust.wasm",
    extensions: [".rs"],
    definitions: {
      function_item: { kind: "function" },
      function_signature_item: { kind: "function" },
      struct_item: { kind: "struct" },
      enum_item: { kind: "enum" },
      trait_item: { kind: "trait" },
      impl_item: {
        kind: "impl",
        name: (node) => {
          const type = node.childForFieldName("type")?.text;
          const trait = node.childForFieldName("trait")?.text;
          if (!type) return null;
          return trait ? `${trait} for ${type}` : type;
        },
      },
      mod_item: { kind: "module" },
      type_item: { kind: "type_alias" },
      // A trait's associated type: `type Error;`
      associated_type: { kind: "type_alias" },
      union_item: { kind: "struct" },
    },
    importTypes: ["use_declaration", "extern_crate_declaration"],
    lineKinds: {
      if_expression: "if_statement",
      for_expression: "for_statement",
      while_expression: "while_statement",
      loop_expression: "while_statement",
      return_expression: "return_statement",
      match_expression: "switch_statement",
    },
    stringTypes: ["string_literal", "raw_string_literal", "char_literal", "string_content"],
    commentTypes: ["line_comment", "block_comment"],
    blockTypes: ["block", "declaration_list", "field_declaration_list", "source_file"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  ruby: {
    id: "ruby",
    wasm: "tree-sitter-ruby.wasm",
    extensions: [".rb"],
    definitions: {
      class: { kind: "class" },
      module: { kind: "module" },
      method: { kind: "method" },
      singleton_method: { kind: "singleton_method" },
    },
    importTypes: ["call"],
    lineKinds: {
      if: "if_statement",
      unless: "if_statement",
      if_modifier: "if_statement",
      unless_modifier: "if_statement",
      while: "while_statement",
      until: "while_statement",
      for: "for_statement",
      return: "return_statement",
      case: "switch_statement",
      begin: "try_statement",
    },
    stringTypes: ["string", "string_content", "heredoc_body", "symbol", "regex"],
    commentTypes: ["comment"],
    blockTypes: ["body_statement", "program", "do_block", "block"],
    commentMarkers: ["#", "=end"],
  },
  php: {
    id: "php",
    wasm: "tree-sitter-php.wasm",
    extensions: [".php"],
    definitions: {
      class_declaration: { kind: "class" },
      interface_declaration: { kind: "interface" },
      trait_declaration: { kind: "trait" },
      enum_declaration: { kind: "enum" },
      function_definition: { kind: "function" },
      method_declaration: { kind: "method" },
    },
    importTypes: [
      "namespace_use_declaration",
      "include_expression",
      "include_once_expression",
      "require_expression",
      "require_once_expression",
    ],
    lineKinds: {
      if_statement: "if_statement",
      for_statement: "for_statement",
      foreach_statement: "for_statement",
      while_statement: "while_statement",
      do_statement: "while_statement",
      return_statement: "return_statement",
      throw_expression: "throw_statement",
      try_statement: "try_statement",
      switch_statement: "switch_statement",
    },
    stringTypes: ["string", "encapsed_string", "string_value", "heredoc", "nowdoc"],
    commentTypes: ["comment"],
    blockTypes: ["compound_statement", "declaration_list", "program"],
    commentMarkers: ["#", "//", "*/"],
  },
  c: {
    id: "c",
    wasm: "tree-sitter-c.wasm",
    extensions: [".c", ".h"],
    definitions: C_DEFINITIONS,
    importTypes: ["preproc_include"],
    lineKinds: C_LIKE_LINE_KINDS,
    stringTypes: ["string_literal", "char_literal", "string_content", "system_lib_string"],
    commentTypes: ["comment"],
    blockTypes: ["compound_statement", "field_declaration_list", "translation_unit"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  cpp: {
    id: "cpp",
    wasm: "tree-sitter-cpp.wasm",
    extensions: [".cpp", ".cxx", ".cc", ".hpp", ".hxx", ".hh"],
    definitions: {
      ...C_DEFINITIONS,
      class_specifier: { kind: "class", name: namedWithBody },
      namespace_definition: { kind: "namespace", name: (node) => nameField(node) ?? "(anonymous)" },
      alias_declaration: { kind: "type_alias" },
    },
    importTypes: ["preproc_include", "using_declaration"],
    lineKinds: C_LIKE_LINE_KINDS,
    stringTypes: ["string_literal", "char_literal", "raw_string_literal", "string_content", "system_lib_string"],
    commentTypes: ["comment"],
    blockTypes: ["compound_statement", "field_declaration_list", "declaration_list", "translation_unit"],
    commentMarkers: C_LIKE_COMMENT_MARKERS,
  },
  bash: {
    id: "bash",
    wasm: "tree-sitter-bash.wasm",
    extensions: [".sh", ".bash"],
    definitions: { function_definition: { kind: "function" } },
    // `source lib.sh` is a command like any other: the graph reads no imports in shell scripts.
    importTypes: [],
    lineKinds: {
      if_statement: "if_statement",
      for_statement: "for_statement",
      c_style_for_statement: "for_statement",
      while_statement: "while_statement",
      case_statement: "switch_statement",
    },
    stringTypes: ["string", "raw_string", "ansi_c_string", "heredoc_body", "string_content"],
    commentTypes: ["comment"],
    blockTypes: ["compound_statement", "program", "do_group"],
    commentMarkers: ["#"],
  },
  css: {
    id: "css",
    wasm: "tree-sitter-css.wasm",
    extensions: [".css"],
    definitions: {
      rule_set: {
        kind: "rule",
        name: (node) => {
          const s = node.namedChildren.find((c) => c?.type === "selectors");
          return s ? oneLine(s.text) : null;
        },
      },
      media_statement: { kind: "at_rule", name: atRuleName },
      supports_statement: { kind: "at_rule", name: atRuleName },
      keyframes_statement: { kind: "at_rule", name: atRuleName },
      at_rule: { kind: "at_rule", name: atRuleName },
    },
    importTypes: ["import_statement"],
    lineKinds: {},
    stringTypes: ["string_value"],
    commentTypes: ["comment", "js_comment"],
    blockTypes: ["block", "stylesheet"],
    commentMarkers: ["*/", "//"],
  },
  html: {
    id: "html",
    wasm: "tree-sitter-html.wasm",
    extensions: [".html", ".htm"],
    definitions: {
      element: { kind: "element", name: htmlElementName, kindOf: htmlElementKind },
      script_element: { kind: "element", name: htmlElementName, kindOf: htmlElementKind },
      style_element: { kind: "element", name: htmlElementName, kindOf: htmlElementKind },
    },
    importTypes: [],
    lineKinds: {},
    stringTypes: ["attribute_value", "quoted_attribute_value", "raw_text"],
    commentTypes: ["comment"],
    blockTypes: ["element", "document"],
    commentMarkers: ["-->"],
  },
};

/** Template markup — Jinja/Django `{% %}`, `{{ }}`, `{# #}`, EJS/ERB `<% %>` — which tree-sitter-html reads as text or errors. */
const TEMPLATE_MARKUP = /\{%|\{\{|\{#|<%/;

/**
 * Whether an HTML file is a template: its elements may open in one `{% if %}` branch and close
 * after `{% endif %}`, and markup inside attribute quotes reads as errors, so the tree is not the
 * page's. GraphPlan reads such a file as text (text steps, no syntax judgement); see docs/design.md.
 */
export const isHtmlTemplate = (source: string): boolean => TEMPLATE_MARKUP.test(source);

const BY_EXTENSION: ReadonlyMap<string, LanguageId> = new Map(
  Object.values(LANGUAGES).flatMap((spec) => spec.extensions.map((ext) => [ext, spec.id] as const)),
);

/** The language of a path, by its extension; `undefined` when GraphPlan does not read that kind of file. */
export function detectLanguage(path: string): LanguageId | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  return BY_EXTENSION.get(path.slice(dot).toLowerCase());
}

export const SUPPORTED_EXTENSIONS: readonly string[] = [...BY_EXTENSION.keys()];

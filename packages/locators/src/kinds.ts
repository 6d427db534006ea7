/**
 * Normalized kinds: the words a plan uses (`function`, `class`, `import`, ...) and the
 * tree-sitter node types each one means in each grammar. A few kinds need more than a node
 * type (a Python `method` is a `function_definition` inside a class body); those refinements
 * are in {@link KIND_FILTERS}.
 */
import type { Node } from "web-tree-sitter";
import { htmlTag, LANGUAGES, type LanguageId } from "@graphplan/graph";

type KindTable = Readonly<Record<string, readonly string[]>>;

const PY_STATEMENTS = [
  "expression_statement",
  "return_statement",
  "if_statement",
  "for_statement",
  "while_statement",
  "try_statement",
  "with_statement",
  "raise_statement",
  "pass_statement",
  "assert_statement",
  "delete_statement",
  "global_statement",
  "nonlocal_statement",
  "break_statement",
  "continue_statement",
  "import_statement",
  "import_from_statement",
  "future_import_statement",
  "match_statement",
  "print_statement",
  "exec_statement",
];

const python: KindTable = {
  function: ["function_definition"],
  method: ["function_definition"],
  constructor: ["function_definition"],
  class: ["class_definition"],
  import: ["import_statement", "import_from_statement", "future_import_statement"],
  statement: PY_STATEMENTS,
  decorator: ["decorator"],
  call: ["call"],
  assignment: ["assignment", "augmented_assignment"],
  parameter: [
    "identifier",
    "typed_parameter",
    "default_parameter",
    "typed_default_parameter",
    "list_splat_pattern",
    "dictionary_splat_pattern",
  ],
  argument: ["argument_list"],
  identifier: ["identifier"],
  string: ["string"],
  comment: ["comment"],
  if: ["if_statement"],
  elif: ["elif_clause"],
  else: ["else_clause"],
  for: ["for_statement"],
  while: ["while_statement"],
  return: ["return_statement"],
  try: ["try_statement"],
  except: ["except_clause"],
  with: ["with_statement"],
  raise: ["raise_statement"],
  throw: ["raise_statement"],
  lambda: ["lambda"],
  block: ["block"],
};

const JS_STATEMENTS = [
  "expression_statement",
  "return_statement",
  "if_statement",
  "for_statement",
  "for_in_statement",
  "while_statement",
  "do_statement",
  "try_statement",
  "throw_statement",
  "switch_statement",
  "lexical_declaration",
  "variable_declaration",
  "break_statement",
  "continue_statement",
  "labeled_statement",
];

const javascript: KindTable = {
  function: ["function_declaration", "generator_function_declaration", "variable_declarator"],
  method: ["method_definition"],
  constructor: ["method_definition"],
  class: ["class_declaration"],
  import: ["import_statement"],
  export: ["export_statement"],
  statement: JS_STATEMENTS,
  call: ["call_expression", "new_expression"],
  assignment: ["assignment_expression", "augmented_assignment_expression", "variable_declarator"],
  variable: ["variable_declarator"],
  field: ["field_definition"],
  parameter: ["identifier", "assignment_pattern", "rest_pattern", "object_pattern", "array_pattern"],
  decorator: ["decorator"],
  identifier: ["identifier", "property_identifier", "shorthand_property_identifier"],
  string: ["string", "template_string"],
  comment: ["comment"],
  if: ["if_statement"],
  else: ["else_clause"],
  for: ["for_statement", "for_in_statement"],
  while: ["while_statement", "do_statement"],
  return: ["return_statement"],
  try: ["try_statement"],
  catch: ["catch_clause"],
  throw: ["throw_statement"],
  raise: ["throw_statement"],
  switch: ["switch_statement"],
  lambda: ["arrow_function", "function_expression"],
  block: ["statement_block"],
  object: ["object"],
  array: ["array"],
};

const typescript: KindTable = {
  ...javascript,
  class: ["class_declaration", "abstract_class_declaration"],
  method: ["method_definition", "method_signature", "abstract_method_signature"],
  function: [...(javascript.function ?? []), "function_signature"],
  interface: ["interface_declaration"],
  enum: ["enum_declaration"],
  type_alias: ["type_alias_declaration"],
  type: ["type_alias_declaration", "interface_declaration"],
  module: ["module"],
  namespace: ["internal_module"],
  field: ["public_field_definition", "property_signature"],
  parameter: ["required_parameter", "optional_parameter"],
  identifier: ["identifier", "property_identifier", "shorthand_property_identifier", "type_identifier"],
};

const java: KindTable = {
  function: ["method_declaration", "constructor_declaration"],
  method: ["method_declaration"],
  constructor: ["constructor_declaration"],
  class: ["class_declaration", "record_declaration"],
  interface: ["interface_declaration", "annotation_type_declaration"],
  enum: ["enum_declaration"],
  import: ["import_declaration"],
  package: ["package_declaration"],
  module: ["package_declaration"],
  statement: [
    "expression_statement",
    "local_variable_declaration",
    "return_statement",
    "if_statement",
    "for_statement",
    "enhanced_for_statement",
    "while_statement",
    "do_statement",
    "try_statement",
    "try_with_resources_statement",
    "throw_statement",
    "switch_expression",
    "break_statement",
    "continue_statement",
    "yield_statement",
    "synchronized_statement",
    "labeled_statement",
    "assert_statement",
  ],
  call: ["method_invocation", "object_creation_expression"],
  assignment: ["assignment_expression", "variable_declarator"],
  variable: ["local_variable_declaration"],
  field: ["field_declaration"],
  parameter: ["formal_parameter", "spread_parameter"],
  decorator: ["annotation", "marker_annotation"],
  annotation: ["annotation", "marker_annotation"],
  identifier: ["identifier", "type_identifier"],
  string: ["string_literal"],
  comment: ["line_comment", "block_comment"],
  if: ["if_statement"],
  for: ["for_statement", "enhanced_for_statement"],
  while: ["while_statement", "do_statement"],
  return: ["return_statement"],
  try: ["try_statement", "try_with_resources_statement"],
  catch: ["catch_clause"],
  throw: ["throw_statement"],
  raise: ["throw_statement"],
  switch: ["switch_expression"],
  lambda: ["lambda_expression"],
  block: ["block"],
};

const go: KindTable = {
  function: ["function_declaration", "method_declaration"],
  method: ["method_declaration"],
  class: ["type_spec"],
  struct: ["type_spec"],
  interface: ["type_spec"],
  type: ["type_spec", "type_alias"],
  type_alias: ["type_alias"],
  import: ["import_declaration"],
  package: ["package_clause"],
  module: ["package_clause"],
  statement: [
    "expression_statement",
    "short_var_declaration",
    "assignment_statement",
    "return_statement",
    "if_statement",
    "for_statement",
    "expression_switch_statement",
    "type_switch_statement",
    "select_statement",
    "go_statement",
    "defer_statement",
    "var_declaration",
    "const_declaration",
    "inc_statement",
    "dec_statement",
    "send_statement",
    "break_statement",
    "continue_statement",
    "labeled_statement",
    "goto_statement",
  ],
  call: ["call_expression"],
  assignment: ["assignment_statement", "short_var_declaration"],
  variable: ["var_spec", "short_var_declaration"],
  const: ["const_spec"],
  field: ["field_declaration"],
  parameter: ["parameter_declaration", "variadic_parameter_declaration"],
  identifier: ["identifier", "field_identifier", "type_identifier"],
  string: ["interpreted_string_literal", "raw_string_literal"],
  comment: ["comment"],
  if: ["if_statement"],
  for: ["for_statement"],
  while: ["for_statement"],
  return: ["return_statement"],
  switch: ["expression_switch_statement", "type_switch_statement"],
  defer: ["defer_statement"],
  lambda: ["func_literal"],
  block: ["block"],
};

const rust: KindTable = {
  function: ["function_item", "function_signature_item"],
  method: ["function_item", "function_signature_item"],
  class: ["struct_item"],
  struct: ["struct_item", "union_item"],
  enum: ["enum_item"],
  trait: ["trait_item"],
  interface: ["trait_item"],
  impl: ["impl_item"],
  module: ["mod_item"],
  type_alias: ["type_item"],
  const: ["const_item", "static_item"],
  macro: ["macro_definition"],
  import: ["use_declaration", "extern_crate_declaration"],
  statement: ["expression_statement", "let_declaration", "empty_statement"],
  call: ["call_expression", "macro_invocation"],
  assignment: ["assignment_expression", "compound_assignment_expr", "let_declaration"],
  variable: ["let_declaration"],
  field: ["field_declaration"],
  parameter: ["parameter", "self_parameter"],
  decorator: ["attribute_item"],
  attribute: ["attribute_item"],
  identifier: ["identifier", "field_identifier", "type_identifier"],
  string: ["string_literal", "raw_string_literal"],
  comment: ["line_comment", "block_comment"],
  if: ["if_expression"],
  for: ["for_expression"],
  while: ["while_expression", "loop_expression"],
  return: ["return_expression"],
  match: ["match_expression"],
  switch: ["match_expression"],
  lambda: ["closure_expression"],
  block: ["block"],
};

const ruby: KindTable = {
  function: ["method", "singleton_method"],
  method: ["method", "singleton_method"],
  constructor: ["method"],
  class: ["class"],
  module: ["module"],
  import: ["call"],
  statement: [
    "call",
    "assignment",
    "operator_assignment",
    "if",
    "unless",
    "while",
    "until",
    "for",
    "case",
    "return",
    "begin",
    "if_modifier",
    "unless_modifier",
    "while_modifier",
    "until_modifier",
    "rescue_modifier",
    "yield",
    "break",
    "next",
    "identifier",
  ],
  call: ["call"],
  assignment: ["assignment", "operator_assignment"],
  parameter: [
    "identifier",
    "optional_parameter",
    "keyword_parameter",
    "splat_parameter",
    "hash_splat_parameter",
    "block_parameter",
  ],
  identifier: ["identifier", "constant", "instance_variable"],
  string: ["string"],
  comment: ["comment"],
  if: ["if", "unless", "if_modifier", "unless_modifier"],
  while: ["while", "until", "while_modifier", "until_modifier"],
  for: ["for"],
  return: ["return"],
  try: ["begin"],
  rescue: ["rescue"],
  raise: ["call"],
  throw: ["call"],
  switch: ["case"],
  lambda: ["lambda", "block", "do_block"],
  block: ["body_statement"],
};

const php: KindTable = {
  function: ["function_definition", "method_declaration"],
  method: ["method_declaration"],
  constructor: ["method_declaration"],
  class: ["class_declaration"],
  interface: ["interface_declaration"],
  trait: ["trait_declaration"],
  enum: ["enum_declaration"],
  namespace: ["namespace_definition"],
  module: ["namespace_definition"],
  import: ["namespace_use_declaration", "expression_statement"],
  statement: [
    "expression_statement",
    "return_statement",
    "if_statement",
    "for_statement",
    "foreach_statement",
    "while_statement",
    "do_statement",
    "try_statement",
    "echo_statement",
    "switch_statement",
    "break_statement",
    "continue_statement",
    "unset_statement",
    "global_declaration",
  ],
  call: ["function_call_expression", "member_call_expression", "scoped_call_expression", "object_creation_expression"],
  assignment: ["assignment_expression", "augmented_assignment_expression"],
  field: ["property_declaration"],
  const: ["const_declaration"],
  parameter: ["simple_parameter", "variadic_parameter", "property_promotion_parameter"],
  decorator: ["attribute_group"],
  attribute: ["attribute_group"],
  identifier: ["name", "variable_name"],
  string: ["string", "encapsed_string", "heredoc", "nowdoc"],
  comment: ["comment"],
  if: ["if_statement"],
  for: ["for_statement", "foreach_statement"],
  while: ["while_statement", "do_statement"],
  return: ["return_statement"],
  try: ["try_statement"],
  catch: ["catch_clause"],
  throw: ["throw_expression"],
  raise: ["throw_expression"],
  switch: ["switch_statement"],
  lambda: ["anonymous_function_creation_expression", "arrow_function"],
  block: ["compound_statement"],
};

const C_STATEMENTS = [
  "expression_statement",
  "declaration",
  "return_statement",
  "if_statement",
  "for_statement",
  "while_statement",
  "do_statement",
  "switch_statement",
  "break_statement",
  "continue_statement",
  "goto_statement",
  "labeled_statement",
];

const c: KindTable = {
  function: ["function_definition"],
  class: ["struct_specifier"],
  struct: ["struct_specifier", "union_specifier"],
  enum: ["enum_specifier"],
  typedef: ["type_definition"],
  type_alias: ["type_definition"],
  import: ["preproc_include"],
  macro: ["preproc_def", "preproc_function_def"],
  declaration: ["declaration"],
  statement: C_STATEMENTS,
  call: ["call_expression"],
  assignment: ["assignment_expression", "init_declarator"],
  variable: ["declaration"],
  field: ["field_declaration"],
  parameter: ["parameter_declaration"],
  identifier: ["identifier", "field_identifier", "type_identifier"],
  string: ["string_literal", "char_literal"],
  comment: ["comment"],
  if: ["if_statement"],
  for: ["for_statement"],
  while: ["while_statement", "do_statement"],
  return: ["return_statement"],
  switch: ["switch_statement"],
  block: ["compound_statement"],
};

const cpp: KindTable = {
  ...c,
  function: ["function_definition"],
  method: ["function_definition", "field_declaration", "declaration"],
  constructor: ["function_definition", "declaration"],
  class: ["class_specifier", "struct_specifier"],
  namespace: ["namespace_definition"],
  module: ["namespace_definition"],
  type_alias: ["alias_declaration", "type_definition"],
  template: ["template_declaration"],
  import: ["preproc_include", "using_declaration"],
  statement: [...C_STATEMENTS, "try_statement", "throw_statement", "for_range_loop"],
  call: ["call_expression", "new_expression"],
  parameter: ["parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration"],
  identifier: ["identifier", "field_identifier", "type_identifier", "namespace_identifier"],
  string: ["string_literal", "char_literal", "raw_string_literal"],
  for: ["for_statement", "for_range_loop"],
  try: ["try_statement"],
  catch: ["catch_clause"],
  throw: ["throw_statement"],
  raise: ["throw_statement"],
  lambda: ["lambda_expression"],
};

const BASH_STATEMENTS = [
  "command",
  "redirected_statement",
  "pipeline",
  "list",
  "variable_assignment",
  "declaration_command",
  "unset_command",
  "test_command",
  "negated_command",
  "subshell",
  "if_statement",
  "for_statement",
  "c_style_for_statement",
  "while_statement",
  "case_statement",
  "function_definition",
];

const bash: KindTable = {
  function: ["function_definition"],
  statement: BASH_STATEMENTS,
  command: ["command", "redirected_statement"],
  call: ["command"],
  assignment: ["variable_assignment", "declaration_command"],
  variable: ["variable_assignment", "declaration_command"],
  comment: ["comment"],
  string: ["string", "raw_string", "ansi_c_string"],
  if: ["if_statement"],
  elif: ["elif_clause"],
  else: ["else_clause"],
  for: ["for_statement", "c_style_for_statement"],
  while: ["while_statement"],
  case: ["case_statement"],
  switch: ["case_statement"],
  block: ["compound_statement"],
};

const css: KindTable = {
  rule: ["rule_set"],
  at_rule: [
    "media_statement",
    "supports_statement",
    "keyframes_statement",
    "at_rule",
    "import_statement",
    "charset_statement",
    "namespace_statement",
  ],
  media: ["media_statement"],
  declaration: ["declaration"],
  property: ["declaration"],
  import: ["import_statement"],
  statement: [
    "rule_set",
    "media_statement",
    "supports_statement",
    "keyframes_statement",
    "at_rule",
    "import_statement",
    "charset_statement",
    "namespace_statement",
    "declaration",
  ],
  comment: ["comment"],
  block: ["block"],
};

const HTML_ELEMENTS = ["element", "script_element", "style_element"];
const html: KindTable = {
  element: HTML_ELEMENTS,
  heading: ["element"],
  script: ["script_element"],
  style: ["style_element"],
  attribute: ["attribute"],
  comment: ["comment"],
  text: ["text"],
};

/**
 * Normalized kind → the node types it means, per grammar. `kind` values that are not listed
 * here but are node types of the grammar (`if_statement`, `arrow_function`) are used as the
 * node type itself.
 */
export const NORMALIZED_KINDS: Readonly<Record<LanguageId, KindTable>> = {
  python,
  javascript,
  typescript,
  tsx: typescript,
  java,
  go,
  rust,
  ruby,
  php,
  c,
  cpp,
  bash,
  css,
  html,
};

const ancestorTypes = (node: Node, skip: readonly string[]): Node | null => {
  let p = node.parent;
  while (p && skip.includes(p.type)) p = p.parent;
  return p;
};

/** The enclosing class-like node of a member, through the body and decorator wrappers. */
function enclosingType(node: Node, bodies: readonly string[], types: readonly string[]): boolean {
  const p = ancestorTypes(node, ["decorated_definition", "template_declaration"]);
  if (!p || !bodies.includes(p.type)) return false;
  const owner = p.parent;
  return !!owner && types.includes(owner.type);
}

const PARAMETER_LISTS = [
  "parameters",
  "lambda_parameters",
  "formal_parameters",
  "parameter_list",
  "method_parameters",
  "block_parameters",
  "lambda_parameters",
];

const isParameter = (node: Node): boolean => {
  const p = node.parent;
  return !!p && PARAMETER_LISTS.includes(p.type) && node.isNamed && !node.type.includes("comment");
};

const rubyMethodName = (node: Node): string | undefined => node.childForFieldName("method")?.text;
const RUBY_IMPORTS = ["require", "require_relative", "load", "autoload"];
const PHP_INCLUDES = ["include_expression", "include_once_expression", "require_expression", "require_once_expression"];

const hasFunctionDeclarator = (node: Node): boolean => {
  for (let d = node.childForFieldName("declarator"); d; d = d.childForFieldName("declarator")) {
    if (d.type === "function_declarator") return true;
  }
  return false;
};

const CPP_CLASS_BODY = (node: Node): boolean =>
  node.parent?.type === "field_declaration_list" ||
  (node.parent?.type === "template_declaration" && node.parent.parent?.type === "field_declaration_list");

/** Kinds that need more than a node type, per grammar; nodes of the kind's types must also pass this. */
type KindFilter = (node: Node) => boolean;
const JS_FILTERS: Readonly<Record<string, KindFilter>> = {
  constructor: (n: Node) => n.childForFieldName("name")?.text === "constructor",
  parameter: isParameter,
};

export const KIND_FILTERS: Partial<Record<LanguageId, Readonly<Record<string, KindFilter>>>> = {
  python: {
    method: (n) => enclosingType(n, ["block"], ["class_definition"]),
    constructor: (n: Node) =>
      enclosingType(n, ["block"], ["class_definition"]) && n.childForFieldName("name")?.text === "__init__",
    parameter: isParameter,
    statement: (n) => n.parent?.type !== "decorated_definition",
  },
  javascript: JS_FILTERS,
  typescript: JS_FILTERS,
  tsx: JS_FILTERS,
  go: {
    class: (n) => n.childForFieldName("type")?.type === "struct_type",
    struct: (n) => n.childForFieldName("type")?.type === "struct_type",
    interface: (n) => n.childForFieldName("type")?.type === "interface_type",
    while: (n) => !n.namedChildren.some((c) => c?.type === "for_clause" || c?.type === "range_clause"),
  },
  rust: {
    method: (n) => enclosingType(n, ["declaration_list"], ["impl_item", "trait_item"]),
  },
  ruby: {
    constructor: (n: Node) => n.type === "method" && n.childForFieldName("name")?.text === "initialize",
    import: (n) => RUBY_IMPORTS.includes(rubyMethodName(n) ?? "") && !n.childForFieldName("receiver"),
    raise: (n) => rubyMethodName(n) === "raise" && !n.childForFieldName("receiver"),
    throw: (n) => rubyMethodName(n) === "raise" && !n.childForFieldName("receiver"),
    parameter: isParameter,
    statement: (n) =>
      !!n.parent &&
      ["body_statement", "program", "then", "else", "do", "begin", "block_body", "ensure"].includes(n.parent.type),
  },
  php: {
    constructor: (n: Node) => n.childForFieldName("name")?.text === "__construct",
    import: (n) =>
      n.type === "namespace_use_declaration" || n.namedChildren.some((c) => !!c && PHP_INCLUDES.includes(c.type)),
  },
  c: {
    class: (n) => !!n.childForFieldName("body"),
    struct: (n) => !!n.childForFieldName("body"),
    enum: (n) => !!n.childForFieldName("body"),
  },
  html: {
    heading: (n) => /^h[1-6]$/.test(htmlTag(n) ?? ""),
  },
  cpp: {
    class: (n) => !!n.childForFieldName("body"),
    struct: (n) => !!n.childForFieldName("body"),
    enum: (n) => !!n.childForFieldName("body"),
    method: (n) => CPP_CLASS_BODY(n) && (n.type === "function_definition" || hasFunctionDeclarator(n)),
    constructor: (n: Node) => {
      if (!CPP_CLASS_BODY(n)) return false;
      if (n.type !== "function_definition" && !hasFunctionDeclarator(n)) return false;
      const owner = n.parent?.type === "template_declaration" ? n.parent.parent?.parent : n.parent?.parent;
      const cls = owner?.childForFieldName("name")?.text;
      const fn = n.childForFieldName("declarator")?.childForFieldName("declarator")?.text;
      return !!cls && cls === fn && !n.childForFieldName("type");
    },
  },
};

/**
 * Nodes of a kind that no node type captures, per grammar: the tail expression of a Rust
 * block is a statement although its type is any expression.
 */
export const KIND_EXTRAS: Partial<Record<LanguageId, Readonly<Record<string, (scope: Node) => Node[]>>>> = {
  rust: {
    statement: (scope) =>
      scope.descendantsOfType("block").flatMap((block) => {
        const last = block?.lastNamedChild;
        if (
          !last ||
          last.type.endsWith("comment") ||
          last.type === "expression_statement" ||
          last.type === "let_declaration"
        )
          return [];
        return [last];
      }),
  },
};

/** The normalized kinds of a language, sorted. */
/** Names models give a kind that no language uses as one, and the kind they mean. */
export const KIND_SYNONYMS: Readonly<Record<string, string>> = {
  def: "function",
  fn: "function",
  func: "function",
  funcdef: "function",
  function_def: "function",
  function_definition: "function",
  function_declaration: "function",
  meth: "method",
  method_definition: "method",
  method_declaration: "method",
  cls: "class",
  classdef: "class",
  class_definition: "class",
  class_declaration: "class",
};

export function normalizedKinds(language: LanguageId): string[] {
  return Object.keys(NORMALIZED_KINDS[language]).sort();
}

/** The definition-rule kind of a node (what the graph calls it), if it defines a symbol. */
export function definitionKind(node: Node, language: LanguageId): string | undefined {
  const rule = LANGUAGES[language].definitions[node.type];
  if (!rule) return undefined;
  return rule.kindOf ? rule.kindOf(node) : rule.kind;
}

/**
 * JavaScript's and TypeScript's lexical scoping over a tree-sitter tree (ECMAScript's environment
 * records): the program, each function (parameters and `var`s, hoisted to the whole function), each
 * block, `for` head and `catch` clause (`let`, `const`, `class` and block-level `function`
 * declarations, visible in the whole block — the temporal dead zone is a run-time matter, the name
 * still resolves to them), a named function expression's own name inside it, and imports at the
 * top. Property names (`o.x`, `{x: 1}` keys, methods), labels and TypeScript types are other
 * namespaces (but `typeof x` in a type names the value `x`); a shorthand property (`{x}`) is both a
 * key and a use of the variable `x`.
 */
import type { Node, Tree } from "@graphplan/graph";

export interface JsScope {
  readonly id: number;
  readonly kind: "program" | "function" | "block";
  readonly node: Node;
  readonly parent: JsScope | undefined;
  readonly bindings: Map<string, JsBinding>;
}

export interface JsBinding {
  readonly name: string;
  readonly scope: JsScope;
  /** The declaring identifier (the first, for a `var` declared twice). */
  readonly node: Node;
  readonly kind: "var" | "let" | "const" | "function" | "class" | "parameter" | "import" | "catch";
}

export interface JsOccurrence {
  readonly node: Node;
  readonly name: string;
  /** The binding it names; undefined for a global (`console`, `window`) or a name the file does not declare. */
  readonly binding: JsBinding | undefined;
}

export interface JsScopeAnalysis {
  readonly program: JsScope;
  readonly scopes: readonly JsScope[];
  /** Every declaring and referring identifier (shorthand properties included), in source order. */
  readonly occurrences: readonly JsOccurrence[];
  /** Names the file exports (`export { a }`, `export const a`, `export function a`): other modules use them. */
  readonly exported: ReadonlySet<string>;
}

const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);
const FUNCTIONS = new Set([
  "function_declaration",
  "generator_function_declaration",
  "function_expression",
  "function",
  "generator_function",
  "arrow_function",
  "method_definition",
]);
const BLOCKS = new Set([
  "statement_block",
  "for_statement",
  "for_in_statement",
  "switch_body",
  "catch_clause",
  "class_body",
  "class_static_block",
]);
/** Identifier-like children that are never variables. */
const TYPES = new Set([
  "type_annotation",
  "type_arguments",
  "type_parameters",
  "type_alias_declaration",
  "interface_declaration",
  "implements_clause",
  "abstract_method_signature",
  "method_signature",
  "property_signature",
  "index_signature",
  "enum_declaration",
]);

/**
 * The scopes, bindings and occurrences of one JavaScript or TypeScript file.
 * Long on purpose: one visitor with a case per ECMAScript construct that declares a name or opens an environment (functions, blocks, for heads, catch, classes, imports, exports, patterns), sharing the scope stack and the lists of declarations and uses as closures.
 */
export function analyzeJavaScript(tree: Tree): JsScopeAnalysis {
  const scopes: JsScope[] = [];
  const declared: { node: Node; binding: JsBinding }[] = [];
  const pending: { node: Node; scope: JsScope }[] = [];
  const exported = new Set<string>();
  const open = (kind: JsScope["kind"], node: Node, parent: JsScope | undefined): JsScope => {
    const scope: JsScope = { id: scopes.length, kind, node, parent, bindings: new Map() };
    scopes.push(scope);
    return scope;
  };
  const functionOf = (scope: JsScope): JsScope => {
    let s = scope;
    while (s.kind === "block" && s.parent) s = s.parent;
    return s;
  };
  const declare = (identifier: Node, scope: JsScope, kind: JsBinding["kind"]): void => {
    const existing = scope.bindings.get(identifier.text);
    if (existing) {
      declared.push({ node: identifier, binding: existing });
      return;
    }
    const binding: JsBinding = { name: identifier.text, scope, node: identifier, kind };
    scope.bindings.set(identifier.text, binding);
    declared.push({ node: identifier, binding });
  };
  /** The names a binding pattern declares; its default values and computed keys are read. */
  const pattern = (node: Node | null | undefined, scope: JsScope, kind: JsBinding["kind"], reads: JsScope): void => {
    if (!node) return;
    switch (node.type) {
      case "identifier":
      case "shorthand_property_identifier_pattern":
        declare(node, scope, kind);
        return;
      case "assignment_pattern":
        pattern(node.childForFieldName("left"), scope, kind, reads);
        visit(node.childForFieldName("right")!, reads);
        return;
      case "pair_pattern": {
        const key = node.childForFieldName("key");
        if (key?.type === "computed_property_name") visit(key, reads);
        pattern(node.childForFieldName("value"), scope, kind, reads);
        return;
      }
      case "object_assignment_pattern":
        pattern(node.childForFieldName("left"), scope, kind, reads);
        visit(node.childForFieldName("right")!, reads);
        return;
      case "required_parameter":
      case "optional_parameter": {
        pattern(node.childForFieldName("pattern"), scope, kind, reads);
        const value = node.childForFieldName("value");
        if (value) visit(value, reads);
        return;
      }
      default:
        // object_pattern, array_pattern, rest_pattern: their parts.
        for (const c of named(node)) if (!TYPES.has(c.type)) pattern(c, scope, kind, reads);
    }
  };

  const visit = (node: Node, scope: JsScope): void => {
    if (TYPES.has(node.type)) return;
    if (FUNCTIONS.has(node.type)) {
      const name = node.type === "method_definition" ? null : node.childForFieldName("name");
      const fn = open("function", node, scope);
      // A named function expression sees its own name; a declaration's name is its block's.
      if (
        name &&
        (node.type === "function_expression" || node.type === "function" || node.type === "generator_function")
      )
        declare(name, fn, "function");
      const key = node.type === "method_definition" ? node.childForFieldName("name") : null;
      if (key?.type === "computed_property_name") visit(key, scope);
      const params = node.childForFieldName("parameters") ?? node.childForFieldName("parameter");
      if (params) pattern(params, fn, "parameter", fn);
      const body = node.childForFieldName("body");
      if (body?.type === "statement_block") {
        hoist(body, fn);
        for (const c of named(body)) visit(c, fn);
      } else if (body) visit(body, fn);
      return;
    }
    switch (node.type) {
      case "program": {
        hoist(node, scope);
        for (const c of named(node)) visit(c, scope);
        return;
      }
      case "import_statement": {
        for (const spec of node.descendantsOfType(["import_specifier", "namespace_import", "import_clause"])) {
          if (!spec) continue;
          if (spec.type === "import_specifier")
            declare(spec.childForFieldName("alias") ?? spec.childForFieldName("name")!, scope, "import");
          else for (const id of named(spec)) if (id.type === "identifier") declare(id, scope, "import");
        }
        return;
      }
      case "export_statement": {
        const declaration = node.childForFieldName("declaration");
        if (declaration) {
          for (const n of declaration.type === "lexical_declaration" || declaration.type === "variable_declaration"
            ? named(declaration).map((d) => d.childForFieldName("name"))
            : [declaration.childForFieldName("name")]) {
            if (n?.type === "identifier") exported.add(n.text);
          }
          visit(declaration, scope);
        }
        for (const spec of node.descendantsOfType("export_specifier")) {
          const local = spec?.childForFieldName("name");
          if (local && !node.childForFieldName("source")) {
            exported.add(local.text);
            pending.push({ node: local, scope });
          }
        }
        const value = node.childForFieldName("value");
        if (value) visit(value, scope);
        return;
      }
      case "variable_declarator": {
        const value = node.childForFieldName("value");
        const kind =
          node.parent?.type === "variable_declaration"
            ? "var"
            : node.parent?.childForFieldName("kind")?.text === "const" ||
                node.parent?.children.some((c) => c?.type === "const")
              ? "const"
              : "let";
        const target = kind === "var" ? functionOf(scope) : scope;
        pattern(node.childForFieldName("name"), target, kind, scope);
        if (value) visit(value, scope);
        return;
      }
      case "function_declaration":
      case "generator_function_declaration":
      case "class_declaration":
      case "abstract_class_declaration":
        // Declared by hoist(); the body is visited through the generic paths.
        for (const c of named(node)) if (c.id !== node.childForFieldName("name")?.id) visit(c, scope);
        return;
      case "class": {
        const name = node.childForFieldName("name");
        const inner = name ? open("block", node, scope) : scope;
        if (name) declare(name, inner, "class");
        for (const c of named(node)) if (c.id !== name?.id) visit(c, inner);
        return;
      }
      case "for_in_statement": {
        const head = open("block", node, scope);
        const left = node.childForFieldName("left");
        const kind = node.childForFieldName("kind")?.text;
        // With let/const the loop's names exist (uninitialized) while its right side runs.
        visit(node.childForFieldName("right")!, kind === "let" || kind === "const" ? head : scope);
        if (kind === "var") pattern(left, functionOf(scope), "var", head);
        else if (kind === "let" || kind === "const") pattern(left, head, kind, head);
        else if (left) visit(left, head);
        const body = node.childForFieldName("body");
        if (body) visit(body, head);
        return;
      }
      case "catch_clause": {
        const inner = open("block", node, scope);
        const parameter = node.childForFieldName("parameter");
        if (parameter) pattern(parameter, inner, "catch", inner);
        const body = node.childForFieldName("body");
        if (body) visit(body, inner);
        return;
      }
      case "statement_block":
      case "class_static_block": {
        const inner = open("block", node, scope);
        hoist(node, inner);
        for (const c of named(node)) visit(c, inner);
        return;
      }
      case "pair": {
        const key = node.childForFieldName("key");
        if (key?.type === "computed_property_name") visit(key, scope);
        const value = node.childForFieldName("value");
        if (value) visit(value, scope);
        return;
      }
      case "member_expression": {
        visit(node.childForFieldName("object")!, scope);
        return;
      }
      case "labeled_statement": {
        const body = node.childForFieldName("body");
        if (body) visit(body, scope);
        return;
      }
      case "identifier":
      case "shorthand_property_identifier": {
        // <div> is an element, not a variable (<Foo> is one).
        const parent = node.parent?.type ?? "";
        if (/^jsx_(opening|closing|self_closing)_element$/.test(parent) && /^[a-z]/.test(node.text)) return;
        pending.push({ node, scope });
        return;
      }
      default: {
        const inner = BLOCKS.has(node.type) ? open("block", node, scope) : scope;
        for (const c of named(node)) visit(c, inner);
      }
    }
  };
  /** Function and class declarations of a block (and `var`s are declared where they are met, in the function). */
  const hoist = (block: Node, scope: JsScope): void => {
    for (const c of named(block)) {
      const declaration = c.type === "export_statement" ? c.childForFieldName("declaration") : c;
      if (!declaration) continue;
      const name = declaration.childForFieldName("name");
      if (!name || name.type !== "identifier") continue;
      if (declaration.type === "function_declaration" || declaration.type === "generator_function_declaration")
        declare(name, scope, "function");
      if (declaration.type === "class_declaration" || declaration.type === "abstract_class_declaration")
        declare(name, scope, "class");
      // TypeScript enums and namespaces are values too.
      if (declaration.type === "enum_declaration" || declaration.type === "internal_module")
        declare(name, scope, "class");
    }
  };

  const program = open("program", tree.rootNode, undefined);
  visit(tree.rootNode, program);
  // `typeof x` in a TypeScript type names the value x: its identifier is a use, wherever the type is
  // (an annotation, a type alias, a type argument), in the innermost scope around it.
  const listed = new Set(pending.map((p) => p.node.id));
  for (const query of tree.rootNode.descendantsOfType("type_query")) {
    let id: Node | null | undefined = query?.namedChildren[0];
    while (id?.type === "member_expression") id = id.childForFieldName("object");
    if (!id || id.type !== "identifier" || listed.has(id.id)) continue;
    const around =
      scopes.filter((s) => s.node.startIndex <= id!.startIndex && id!.endIndex <= s.node.endIndex).at(-1) ?? scopes[0]!;
    pending.push({ node: id, scope: around });
  }
  const declaredAt = new Set(declared.map((d) => d.node.id));
  const resolve = (name: string, scope: JsScope): JsBinding | undefined => {
    for (let s: JsScope | undefined = scope; s; s = s.parent) {
      const binding = s.bindings.get(name);
      if (binding) return binding;
    }
    return undefined;
  };
  const occurrences: JsOccurrence[] = [
    ...declared.map((d) => ({ node: d.node, name: d.node.text, binding: d.binding })),
    ...pending
      .filter((p) => !declaredAt.has(p.node.id))
      .map((p) => ({ node: p.node, name: p.node.text, binding: resolve(p.node.text, p.scope) })),
  ].sort((a, b) => a.node.startIndex - b.node.startIndex);
  return { program, scopes, occurrences, exported };
}

/** "function total (line 7)", "a block (line 9)", "the module". */
export function jsScopeLabel(scope: JsScope, line = true): string {
  if (scope.kind === "program") return "the module";
  const at = line ? ` (line ${scope.node.startPosition.row + 1})` : "";
  if (scope.kind === "function") {
    const name =
      scope.node.childForFieldName("name")?.text ??
      (scope.node.parent?.type === "variable_declarator"
        ? scope.node.parent.childForFieldName("name")?.text
        : undefined);
    return `function${name ? ` ${name}` : ""}${at}`;
  }
  return `a block${at}`;
}

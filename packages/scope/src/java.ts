/**
 * The local names of Java methods, constructors and lambdas, by the Java Language Specification's
 * scope rules (§6.3): a parameter is in scope in its whole body; a local variable from its own
 * declarator to the end of its block; a `for` variable in the loop, a resource in its `try`, a
 * catch parameter in its handler, a pattern variable (`o instanceof String s`) from the pattern to
 * the end of the enclosing block (an approximation of flow scoping; in an `if` condition, the `if`
 * statement, or after it when the test is negated), a pattern of a `switch` rule
 * (`case Integer i ->`, `case Point(int x, int y) ->`) in its rule. Names that are not local —
 * fields, methods, types, labels, packages — are other namespaces or class members and are not
 * resolved here: an occurrence that names no local has no binding.
 */
import { fieldOf, type Node, type Tree } from "@graphplan/graph";

export interface JavaScope {
  readonly id: number;
  readonly kind: "class" | "method" | "block";
  readonly node: Node;
  readonly parent: JavaScope | undefined;
  readonly bindings: Map<string, JavaBinding>;
}

export interface JavaBinding {
  readonly name: string;
  readonly scope: JavaScope;
  readonly node: Node;
  /** Where it comes into scope. */
  readonly from: number;
}

export interface JavaOccurrence {
  readonly node: Node;
  readonly name: string;
  /** The local it names; undefined for a field, an outer class's member or anything not local. */
  readonly binding: JavaBinding | undefined;
}

export interface JavaScopeAnalysis {
  readonly scopes: readonly JavaScope[];
  /** Every identifier that declares a local or may name one, in source order. */
  readonly occurrences: readonly JavaOccurrence[];
}

const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);
const METHODS = new Set([
  "method_declaration",
  "constructor_declaration",
  "compact_constructor_declaration",
  "lambda_expression",
]);
const CLASSES = new Set(["class_body", "interface_body", "enum_body", "annotation_type_body", "record_declaration"]);
/** Statements with a scope of their own around their parts (the loop's variables, the resources, the handler's parameter). */
const IMPLICIT = new Set([
  "for_statement",
  "enhanced_for_statement",
  "try_with_resources_statement",
  "catch_clause",
  "switch_block",
  "switch_rule",
]);
/** Children that are never a variable: a name of a method, field, label, type or annotation. */
const NOT_VARIABLES: Readonly<Record<string, readonly string[]>> = {
  method_invocation: ["name"],
  field_access: ["field"],
  method_reference: ["*"],
  method_declaration: ["name"],
  constructor_declaration: ["name"],
  class_declaration: ["name"],
  interface_declaration: ["name"],
  enum_declaration: ["name"],
  record_declaration: ["name"],
  annotation_type_declaration: ["name"],
  annotation_type_element_declaration: ["name"],
  enum_constant: ["name"],
  marker_annotation: ["name"],
  annotation: ["name"],
  element_value_pair: ["key"],
  labeled_statement: ["*"],
  break_statement: ["*"],
  continue_statement: ["*"],
  scoped_identifier: ["*"],
  package_declaration: ["*"],
  import_declaration: ["*"],
};

/** Whether `node` is under a `!` below `stop`. */
function negated(node: Node, stop: Node): boolean {
  for (let n = node.parent; n && n.id !== stop.id; n = n.parent)
    if (n.type === "unary_expression" && n.childForFieldName("operator")?.text === "!") return true;
  return false;
}

/**
 * The local scopes, bindings and occurrences of one Java file.
 * Long on purpose: one visitor with a case per Java construct that declares a local or opens a scope (JLS §6.3's list), sharing the scope stack and the lists of declarations and uses as closures.
 */
export function analyzeJava(tree: Tree): JavaScopeAnalysis {
  const scopes: JavaScope[] = [];
  const declared: { node: Node; binding: JavaBinding }[] = [];
  const pending: { node: Node; scope: JavaScope }[] = [];
  const open = (kind: JavaScope["kind"], node: Node, parent: JavaScope | undefined): JavaScope => {
    const scope: JavaScope = { id: scopes.length, kind, node, parent, bindings: new Map() };
    scopes.push(scope);
    return scope;
  };
  const declare = (identifier: Node | null | undefined, scope: JavaScope, from: number): void => {
    if (!identifier || identifier.type !== "identifier") return;
    const binding: JavaBinding = { name: identifier.text, scope, node: identifier, from };
    scope.bindings.set(identifier.text, binding);
    declared.push({ node: identifier, binding });
  };
  const parameters = (list: Node | null, scope: JavaScope, from: number): void => {
    if (!list) return;
    if (list.type === "identifier") return declare(list, scope, from); // x -> ...
    for (const p of named(list)) {
      if (p.type === "identifier")
        declare(p, scope, from); // (x, y) -> ...
      else if (p.type === "formal_parameter" || p.type === "receiver_parameter") {
        declare(p.childForFieldName("name"), scope, from);
        for (const c of named(p)) if (c.id !== p.childForFieldName("name")?.id) visit(c, scope);
      } else if (p.type === "spread_parameter") {
        for (const c of named(p)) {
          if (c.type === "variable_declarator") declare(c.childForFieldName("name"), scope, from);
          else visit(c, scope);
        }
      } else visit(p, scope);
    }
  };

  const visit = (node: Node, scope: JavaScope): void => {
    if (CLASSES.has(node.type)) {
      const cls = open("class", node, scope);
      for (const c of named(node)) visit(c, cls);
      return;
    }
    if (METHODS.has(node.type)) {
      const method = open("method", node, scope);
      parameters(node.childForFieldName("parameters"), method, node.startIndex);
      for (const c of named(node))
        if (c.id !== node.childForFieldName("parameters")?.id && c.id !== node.childForFieldName("body")?.id)
          visit(c, scope);
      const body = node.childForFieldName("body");
      // The body's statements are in the method's scope with its parameters.
      if (body)
        for (const c of body.type === "block" || body.type === "constructor_body" ? named(body) : [body])
          visit(c, method);
      return;
    }
    switch (node.type) {
      case "block": {
        const inner = open("block", node, scope);
        for (const c of named(node)) visit(c, inner);
        return;
      }
      case "variable_declarator": {
        // A field's declarator declares a member, not a local.
        const value = node.childForFieldName("value");
        for (const c of named(node)) if (c.id !== node.childForFieldName("name")?.id) visit(c, scope);
        if (
          node.parent?.type !== "field_declaration" &&
          node.parent?.type !== "constant_declaration" &&
          scope.kind !== "class"
        )
          declare(node.childForFieldName("name"), scope, value ? value.startIndex : node.endIndex);
        return;
      }
      case "enhanced_for_statement": {
        const implicit = open("block", node, scope);
        visit(node.childForFieldName("value")!, scope);
        declare(node.childForFieldName("name"), implicit, node.childForFieldName("name")!.endIndex);
        for (const c of named(node))
          if (c.id !== node.childForFieldName("value")?.id && c.id !== node.childForFieldName("name")?.id)
            visit(c, implicit);
        return;
      }
      case "resource": {
        for (const c of named(node)) if (c.id !== node.childForFieldName("name")?.id) visit(c, scope);
        declare(node.childForFieldName("name"), scope, node.endIndex);
        return;
      }
      case "catch_formal_parameter": {
        for (const c of named(node)) if (c.id !== node.childForFieldName("name")?.id) visit(c, scope);
        declare(node.childForFieldName("name"), scope, node.endIndex);
        return;
      }
      case "if_statement": {
        // A pattern of the condition (`if (o instanceof String s)`) belongs to this `if`: an
        // `else if (o instanceof Short s)` declares another `s`.
        const inner = open("block", node, scope);
        for (const c of named(node)) visit(c, inner);
        return;
      }
      case "instanceof_expression": {
        for (const c of named(node)) if (c.id !== node.childForFieldName("name")?.id) visit(c, scope);
        // `if (!(o instanceof String s)) return;` puts `s` in scope after the `if`.
        const target =
          scope.node.type === "if_statement" && negated(node, scope.node) && scope.parent ? scope.parent : scope;
        declare(node.childForFieldName("name"), target, node.endIndex);
        return;
      }
      case "type_pattern":
      case "record_pattern_component": {
        // `case Integer i ->`, `case Point(int x, int y) ->`: a pattern variable, in scope in its rule.
        const last = named(node).at(-1);
        const variable = last?.type === "identifier" ? last : undefined;
        for (const c of named(node)) if (c.id !== variable?.id) visit(c, scope);
        declare(variable, scope, node.endIndex);
        return;
      }
      case "identifier": {
        const parent = node.parent;
        const skip = parent ? NOT_VARIABLES[parent.type] : undefined;
        if (skip && (skip.includes("*") || skip.includes(fieldOf(node) ?? ""))) return;
        pending.push({ node, scope });
        return;
      }
      default: {
        const inner = IMPLICIT.has(node.type) ? open("block", node, scope) : scope;
        for (const c of named(node)) visit(c, inner);
      }
    }
  };
  visit(tree.rootNode, open("class", tree.rootNode, undefined));

  const declaredAt = new Set(declared.map((d) => d.node.id));
  // A class body has no bindings here (its members are not resolved): the search goes on to the
  // locals around it, which a local or anonymous class may use.
  const resolveAt = (name: string, scope: JavaScope, at: number): JavaBinding | undefined => {
    for (let s: JavaScope | undefined = scope; s; s = s.parent) {
      const binding = s.bindings.get(name);
      if (binding && binding.from <= at) return binding;
    }
    return undefined;
  };
  const occurrences: JavaOccurrence[] = [
    ...declared.map((d) => ({ node: d.node, name: d.node.text, binding: d.binding })),
    ...pending
      .filter((p) => !declaredAt.has(p.node.id))
      .map((p) => ({ node: p.node, name: p.node.text, binding: resolveAt(p.node.text, p.scope, p.node.startIndex) })),
  ].sort((a, b) => a.node.startIndex - b.node.startIndex);
  return { scopes, occurrences };
}

/** "method total (line 7)", "a block (line 9)"; without the line with `line: false`. */
export function javaScopeLabel(scope: JavaScope, line = true): string {
  const at = line ? ` (line ${scope.node.startPosition.row + 1})` : "";
  if (scope.kind === "method") {
    const name = scope.node.childForFieldName("name")?.text;
    return scope.node.type === "lambda_expression"
      ? `a lambda${at}`
      : `${scope.node.type === "method_declaration" ? "method" : "constructor"}${name ? ` ${name}` : ""}${at}`;
  }
  return scope.kind === "class" ? `a class body${at}` : `a block${at}`;
}

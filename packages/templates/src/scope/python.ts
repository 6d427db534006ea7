/**
 * Python name resolution over a tree-sitter tree, by Python's static scoping rules: module,
 * function, lambda, class and comprehension scopes; a name bound anywhere in a scope is local
 * to it; `global` / `nonlocal` redirect; class scopes do not enclose nested functions or
 * comprehensions; a comprehension's first iterable belongs to the enclosing scope; a walrus
 * binds in the nearest non-comprehension scope; default values, annotations, decorators and
 * bases belong to the enclosing scope.
 */
import type { Node, Tree } from "@graphplan/graph";

export type ScopeKind = "module" | "function" | "lambda" | "class" | "comprehension";

export interface Scope {
  readonly id: number;
  readonly kind: ScopeKind;
  /** module / function_definition / lambda / class_definition / comprehension node. */
  readonly node: Node;
  readonly name: string | undefined;
  readonly parent: Scope | undefined;
  /** Names bound in this scope (after global/nonlocal redirection) → their binding identifier nodes. */
  readonly bound: Map<string, Node[]>;
  readonly globals: Set<string>;
  readonly nonlocals: Set<string>;
}

export interface Occurrence {
  /** The identifier node (an alias identifier for `import a as b`). */
  readonly node: Node;
  readonly name: string;
  /** The scope the identifier appears in (for bindings: the scope it binds in, before global/nonlocal). */
  readonly scope: Scope;
  readonly role: "binding" | "reference" | "declaration";
}

export interface ScopeAnalysis {
  readonly module: Scope;
  readonly scopes: readonly Scope[];
  readonly occurrences: readonly Occurrence[];
  /** The scope an occurrence's name resolves to; `undefined` for builtins and unbound globals. */
  resolve(occurrence: Occurrence): Scope | undefined;
  /** The scope a name used inside `scope` resolves to. */
  lookup(name: string, scope: Scope): Scope | undefined;
  /** The innermost scope whose node contains `node` (a def's name belongs to the enclosing scope). */
  scopeAt(node: Node): Scope;
}

const TARGET_CONTAINERS = new Set(["pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "expression_list", "parenthesized_expression", "as_pattern_target", "list_splat_pattern", "list_splat"]);

/** Analyzes a Python tree. The analysis holds nodes of `tree`: use it before deleting the tree. */
export function analyzePython(tree: Tree): ScopeAnalysis {
  const scopes: Scope[] = [];
  const raw: Occurrence[] = [];
  const newScope = (kind: ScopeKind, node: Node, parent: Scope | undefined, name?: string): Scope => {
    const scope: Scope = { id: scopes.length, kind, node, name, parent, bound: new Map(), globals: new Set(), nonlocals: new Set() };
    scopes.push(scope);
    return scope;
  };
  const module = newScope("module", tree.rootNode, undefined);
  const add = (node: Node, scope: Scope, role: Occurrence["role"]): void => {
    raw.push({ node, name: node.text, scope, role });
  };

  const visitChildren = (node: Node, scope: Scope): void => {
    for (const child of node.namedChildren) if (child) visit(child, scope);
  };

  /** Assignment-like targets: identifiers bind, attributes and subscripts read their object. */
  const target = (node: Node, scope: Scope): void => {
    if (node.type === "identifier") return add(node, scope, "binding");
    if (TARGET_CONTAINERS.has(node.type)) {
      for (const child of node.namedChildren) if (child) target(child, scope);
      return;
    }
    visit(node, scope);
  };

  const parameters = (list: Node | null, outer: Scope, inner: Scope): void => {
    if (!list) return;
    for (const p of list.namedChildren) {
      if (!p) continue;
      switch (p.type) {
        case "identifier":
          add(p, inner, "binding");
          break;
        case "default_parameter":
        case "typed_default_parameter": {
          const name = p.childForFieldName("name");
          if (name) target(name, inner);
          const type = p.childForFieldName("type");
          if (type) visit(type, outer);
          const value = p.childForFieldName("value");
          if (value) visit(value, outer);
          break;
        }
        case "typed_parameter": {
          for (const c of p.namedChildren) {
            if (!c) continue;
            if (c.type === "type") visit(c, outer);
            else target(c, inner);
          }
          break;
        }
        case "list_splat_pattern":
        case "dictionary_splat_pattern":
        case "tuple_pattern":
          target(p.type === "dictionary_splat_pattern" ? p.namedChildren[0]! : p, inner);
          break;
        default:
          break; // keyword_separator, positional_separator, comments
      }
    }
  };

  const nearestNonComprehension = (scope: Scope): Scope => {
    let s = scope;
    while (s.kind === "comprehension" && s.parent) s = s.parent;
    return s;
  };

  function visit(node: Node, scope: Scope): void {
    switch (node.type) {
      case "identifier":
        add(node, scope, "reference");
        return;
      case "function_definition": {
        const name = node.childForFieldName("name");
        if (name) add(name, scope, "binding");
        const inner = newScope("function", node, scope, name?.text);
        parameters(node.childForFieldName("parameters"), scope, inner);
        const returns = node.childForFieldName("return_type");
        if (returns) visit(returns, scope);
        const body = node.childForFieldName("body");
        if (body) visit(body, inner);
        return;
      }
      case "lambda": {
        const inner = newScope("lambda", node, scope, "lambda");
        parameters(node.childForFieldName("parameters"), scope, inner);
        const body = node.childForFieldName("body");
        if (body) visit(body, inner);
        return;
      }
      case "class_definition": {
        const name = node.childForFieldName("name");
        if (name) add(name, scope, "binding");
        const bases = node.childForFieldName("superclasses");
        if (bases) visit(bases, scope);
        const inner = newScope("class", node, scope, name?.text);
        const body = node.childForFieldName("body");
        if (body) visit(body, inner);
        return;
      }
      case "list_comprehension":
      case "set_comprehension":
      case "dictionary_comprehension":
      case "generator_expression": {
        const inner = newScope("comprehension", node, scope, node.type);
        let first = true;
        for (const child of node.namedChildren) {
          if (!child) continue;
          if (child.type === "for_in_clause") {
            const left = child.childForFieldName("left");
            const right = child.childForFieldName("right");
            if (left) target(left, inner);
            if (right) visit(right, first ? scope : inner);
            first = false;
          }
        }
        for (const child of node.namedChildren) if (child && child.type !== "for_in_clause") visit(child, inner);
        return;
      }
      case "assignment":
      case "augmented_assignment": {
        const left = node.childForFieldName("left");
        if (left) target(left, scope);
        for (const field of ["type", "right"]) {
          const part = node.childForFieldName(field);
          if (part) visit(part, scope);
        }
        return;
      }
      case "for_statement": {
        const left = node.childForFieldName("left");
        if (left) target(left, scope);
        for (const field of ["right", "body", "alternative"]) {
          const part = node.childForFieldName(field);
          if (part) visit(part, scope);
        }
        return;
      }
      case "named_expression": {
        const name = node.childForFieldName("name");
        if (name) add(name, nearestNonComprehension(scope), "binding");
        const value = node.childForFieldName("value");
        if (value) visit(value, scope);
        return;
      }
      case "as_pattern": {
        const [value, ...rest] = node.namedChildren;
        if (value) visit(value, scope);
        for (const r of rest) if (r) target(r, scope);
        return;
      }
      case "import_statement":
      case "import_from_statement": {
        for (let i = 0; i < node.childCount; i++) {
          if (node.fieldNameForChild(i) !== "name") continue;
          const item = node.child(i);
          if (!item) continue;
          if (item.type === "aliased_import") {
            const alias = item.childForFieldName("alias");
            if (alias) add(alias, scope, "binding");
          } else if (item.type === "dotted_name") {
            const first = item.namedChildren[0];
            // `import a.b` binds a; `from m import a` binds a.
            if (first && (node.type === "import_statement" || item.namedChildCount === 1)) add(first, scope, "binding");
          }
        }
        return;
      }
      case "future_import_statement":
        return;
      case "global_statement":
      case "nonlocal_statement":
        for (const id of node.namedChildren) {
          if (id?.type !== "identifier") continue;
          (node.type === "global_statement" ? scope.globals : scope.nonlocals).add(id.text);
          add(id, scope, "declaration");
        }
        return;
      case "delete_statement":
        for (const child of node.namedChildren) if (child) target(child, scope);
        return;
      case "keyword_argument": {
        const value = node.childForFieldName("value");
        if (value) visit(value, scope);
        return;
      }
      case "attribute": {
        const object = node.childForFieldName("object");
        if (object) visit(object, scope);
        return;
      }
      // match/case: a bare name is a capture (binding); dotted names are values; keywords are attribute names.
      case "case_pattern": {
        const only = node.namedChildCount === 1 ? node.namedChildren[0] : null;
        if (only?.type === "dotted_name" && only.namedChildCount === 1 && only.text !== "_") {
          add(only.namedChildren[0]!, scope, "binding");
          return;
        }
        visitChildren(node, scope);
        return;
      }
      case "keyword_pattern":
        for (const child of node.namedChildren.slice(1)) if (child) visit(child, scope);
        return;
      case "splat_pattern":
        for (const child of node.namedChildren) if (child?.type === "identifier" && child.text !== "_") add(child, scope, "binding");
        return;
      default:
        visitChildren(node, scope);
    }
  }

  visit(tree.rootNode, module);

  const bindingScope = (o: Occurrence): Scope | undefined => {
    if (o.scope.globals.has(o.name)) return module;
    if (o.scope.nonlocals.has(o.name)) return undefined;
    return o.scope;
  };
  for (const o of raw) {
    if (o.role !== "binding") continue;
    const where = bindingScope(o);
    if (!where) continue;
    const list = where.bound.get(o.name) ?? [];
    list.push(o.node);
    where.bound.set(o.name, list);
  }

  const lookup = (name: string, scope: Scope): Scope | undefined => {
    if (scope.globals.has(name)) return module.bound.has(name) ? module : undefined;
    if (scope.nonlocals.has(name)) {
      for (let p = scope.parent; p; p = p.parent) {
        if (p.kind === "class" || p.kind === "module") continue;
        if (p.nonlocals.has(name)) continue;
        if (p.bound.has(name)) return p;
      }
      return undefined;
    }
    if (scope.bound.has(name)) return scope;
    for (let p = scope.parent; p; p = p.parent) {
      if (p.kind === "class") continue;
      if (p.globals.has(name)) return module.bound.has(name) ? module : undefined;
      if (p.nonlocals.has(name)) return lookup(name, p);
      if (p.bound.has(name)) return p;
    }
    return undefined;
  };

  const byNode = new Map<number, Occurrence>();
  for (const o of raw) byNode.set(o.node.id, o);
  const within = (outer: Node, inner: Node): boolean => outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
  /** Whether `node` is evaluated in scope `s` (its body; parameter names; not defaults, decorators or the first iterable). */
  const evaluatedIn = (s: Scope, node: Node): boolean => {
    if (s.kind === "module") return true;
    if (!within(s.node, node)) return false;
    const occurrence = byNode.get(node.id);
    if (occurrence) return occurrence.scope.id === s.id;
    if (s.kind === "comprehension") {
      const first = s.node.namedChildren.find((c) => c?.type === "for_in_clause")?.childForFieldName("right");
      return !(first && within(first, node));
    }
    const body = s.node.childForFieldName("body");
    return !!body && within(body, node);
  };
  const scopeAt = (node: Node): Scope => {
    let best = module;
    for (const s of scopes) {
      if (s.node.endIndex - s.node.startIndex > best.node.endIndex - best.node.startIndex) continue;
      if (evaluatedIn(s, node)) best = s;
    }
    return best;
  };

  return { module, scopes, occurrences: raw, resolve: (o) => lookup(o.name, o.scope), lookup, scopeAt };
}

/** A human label for a scope: `module`, `function f`, `class C`, ... */
export function scopeLabel(scope: Scope): string {
  const line = scope.node.startPosition.row + 1;
  switch (scope.kind) {
    case "module":
      return "the module";
    case "comprehension":
      return `the comprehension at line ${line}`;
    case "lambda":
      return `the lambda at line ${line}`;
    default:
      return `${scope.kind} ${scope.name ?? "?"} (line ${line})`;
  }
}


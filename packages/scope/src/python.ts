/**
 * GraphPlan's one model of Python scoping, over a tree-sitter tree, by Python's static rules
 * (what CPython's `symtable` computes): module, function, lambda, class and comprehension
 * scopes; a name bound anywhere in a scope is local to it (assignment and annotation targets,
 * `x += 1`, parameters, imports, `for` / `with` / `except` targets, match captures, walrus, `del`,
 * `def` / `class` names, `type X = ...`); `global` / `nonlocal` redirect; class scopes do not
 * enclose anything nested in them, except that they give nested functions `__class__`; a
 * comprehension's first iterable belongs to the enclosing scope; a walrus binds in the nearest
 * non-comprehension scope; default values, annotations, decorators and bases belong to the
 * enclosing scope.
 *
 * Used whole by the scope-aware rename and the restructuring templates, and incrementally by
 * the verifier (some top-level statements at a time, entering only the bodies an edit touches:
 * {@link AnalyzeOptions}). Flow is not modelled: a binding anywhere in a scope counts everywhere
 * in it.
 */
import type { Node, Tree } from "@graphplan/graph";
import { isPythonBuiltin } from "./python-builtins.js";

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
  /**
   * The names of {@link bound} that some binding gives a value: all but those bound only by
   * `del x` or `x += ...` (which read the name first).
   */
  readonly assigned: Set<string>;
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
  /** Whether running the code reads the name's value here: every reference, and the bindings `del x` and `x += ...`. */
  readonly reads: boolean;
}

export interface ScopeAnalysis {
  readonly module: Scope;
  readonly scopes: readonly Scope[];
  readonly occurrences: readonly Occurrence[];
  /** The `from m import *` statements: they bind names the analysis cannot know. */
  readonly starImports: readonly Node[];
  /** The scope an occurrence's name resolves to; `undefined` for builtins and unbound globals. */
  resolve(occurrence: Occurrence): Scope | undefined;
  /** The scope a name used inside `scope` resolves to. */
  lookup(name: string, scope: Scope): Scope | undefined;
  /** The innermost scope whose node contains `node` (a def's name belongs to the enclosing scope). */
  scopeAt(node: Node): Scope;
  /**
   * Whether the name an occurrence reads has a value where Python looks it up: a scope it
   * resolves to assigns it, or it is implicit there (`__class__` in code nested in a class,
   * `__qualname__` / `__module__` in a class body), or it is a module-level name or a builtin.
   * `moduleNames`: the names the whole module assigns, for an analysis of some statements only
   * (defaults to {@link module}'s).
   */
  resolves(occurrence: Occurrence, moduleNames?: ReadonlySet<string>): boolean;
}

export interface AnalyzeOptions {
  /** Analyze only these top-level statements of the tree (the module scope then holds only their bindings). */
  readonly statements?: readonly Node[];
  /**
   * Enter only the function, lambda and class bodies that overlap `[start, end)`, or that hold a
   * `global` statement (it binds in the module); the others become scopes with nothing in them.
   * Comprehensions are always entered (a walrus in them binds outside). Every name in the range
   * resolves as in a whole analysis (give `resolves` the whole module's names).
   */
  readonly focus?: { readonly start: number; readonly end: number };
}

/** Nodes through which a binding target reaches its names (`a, (b, *c) = ...`). */
const TARGET_CONTAINERS = new Set([
  "pattern_list",
  "tuple_pattern",
  "list_pattern",
  "tuple",
  "list",
  "expression_list",
  "parenthesized_expression",
  "as_pattern_target",
  "list_splat_pattern",
  "list_splat",
]);
/** Names a class body has without binding them. */
const CLASS_BODY_NAMES = new Set(["__qualname__", "__module__"]);

/**
 * Analyzes a Python tree (or some of its top-level statements, see {@link AnalyzeOptions}). The
 * analysis holds nodes of `tree`: use it before deleting the tree.
 */
export function analyzePython(tree: Tree, options: AnalyzeOptions = {}): ScopeAnalysis {
  return new Analysis(tree, options);
}

/** The analysis: built by one walk (the binding rules), then read (the resolution rules). */
class Analysis implements ScopeAnalysis {
  readonly module: Scope;
  readonly scopes: Scope[] = [];
  readonly occurrences: Occurrence[] = [];
  readonly starImports: Node[] = [];
  readonly #focus: AnalyzeOptions["focus"];
  #byNode: Map<number, Occurrence> | undefined;

  constructor(tree: Tree, options: AnalyzeOptions) {
    this.#focus = options.focus;
    this.module = this.#newScope("module", tree.rootNode, undefined);
    for (const statement of options.statements ?? tree.rootNode.namedChildren)
      if (statement) this.#visit(statement, this.module);
    // Bindings in their own scope or (global) the module's first; then `nonlocal` ones, which go
    // to the enclosing function that binds the name.
    const nonlocalBindings: Occurrence[] = [];
    for (const o of this.occurrences) {
      if (o.role !== "binding") continue;
      if (o.scope.globals.has(o.name)) bind(this.module, o);
      else if (o.scope.nonlocals.has(o.name)) nonlocalBindings.push(o);
      else bind(o.scope, o);
    }
    for (const o of nonlocalBindings) {
      const where = enclosingBinder(o.name, o.scope);
      if (where) bind(where, o);
    }
  }

  resolve(occurrence: Occurrence): Scope | undefined {
    return this.lookup(occurrence.name, occurrence.scope);
  }

  lookup(name: string, scope: Scope): Scope | undefined {
    return binder(name, scope) ?? (this.module.bound.has(name) ? this.module : undefined);
  }

  resolves(o: Occurrence, moduleNames: ReadonlySet<string> = this.module.assigned): boolean {
    const { name } = o;
    if (o.scope.kind === "class" && CLASS_BODY_NAMES.has(name) && !o.scope.globals.has(name)) return true;
    const where = binder(name, o.scope);
    if (where) return where.assigned.has(name) || (where.kind === "class" && name === "__class__");
    return moduleNames.has(name) || isPythonBuiltin(name);
  }

  scopeAt(node: Node): Scope {
    let best = this.module;
    for (const s of this.scopes) {
      if (s.node.endIndex - s.node.startIndex > best.node.endIndex - best.node.startIndex) continue;
      if (this.#evaluatedIn(s, node)) best = s;
    }
    return best;
  }

  /** Whether `node` is evaluated in scope `s` (its body; parameter names; not defaults, decorators or the first iterable). */
  #evaluatedIn(s: Scope, node: Node): boolean {
    if (s.kind === "module") return true;
    if (!within(s.node, node)) return false;
    this.#byNode ??= new Map(this.occurrences.map((o) => [o.node.id, o]));
    const occurrence = this.#byNode.get(node.id);
    if (occurrence) return occurrence.scope.id === s.id;
    if (s.kind === "comprehension") {
      const first = s.node.namedChildren.find((c) => c?.type === "for_in_clause")?.childForFieldName("right");
      return !(first && within(first, node));
    }
    const body = s.node.childForFieldName("body");
    return !!body && within(body, node);
  }

  // ---- the binding rules ----

  #newScope(kind: ScopeKind, node: Node, parent: Scope | undefined, name?: string): Scope {
    const scope: Scope = {
      id: this.scopes.length,
      kind,
      node,
      name,
      parent,
      bound: new Map(),
      assigned: new Set(),
      globals: new Set(),
      nonlocals: new Set(),
    };
    this.scopes.push(scope);
    return scope;
  }

  #add(node: Node, scope: Scope, role: Occurrence["role"], reads = role === "reference"): void {
    this.occurrences.push({ node, name: node.text, scope, role, reads });
  }

  #visitChildren(node: Node, scope: Scope): void {
    for (const child of node.namedChildren) if (child) this.#visit(child, scope);
  }

  /** Whether to analyze the body of a nested function, lambda or class (see {@link AnalyzeOptions.focus}). */
  #enters(body: Node): boolean {
    const focus = this.#focus;
    return (
      !focus ||
      (body.startIndex < focus.end && focus.start < body.endIndex) ||
      // (The text test only spares the tree walk in the common case.)
      (body.type === "block" && body.text.includes("global") && body.descendantsOfType("global_statement").length > 0)
    );
  }

  /** Assignment-like targets: identifiers bind, attributes and subscripts read their object. */
  #target(node: Node, scope: Scope, reads = false): void {
    if (node.type === "identifier") return this.#add(node, scope, "binding", reads);
    if (TARGET_CONTAINERS.has(node.type)) {
      for (const child of node.namedChildren) if (child) this.#target(child, scope, reads);
      return;
    }
    this.#visit(node, scope);
  }

  /** A parameter's name(s): `x`, `*args`, `**kw`, and Python 2's `(a, b)`. */
  #parameterName(node: Node, inner: Scope): void {
    if (node.type === "identifier") return this.#add(node, inner, "binding");
    if (
      node.type === "list_splat_pattern" ||
      node.type === "dictionary_splat_pattern" ||
      node.type === "tuple_pattern"
    ) {
      for (const child of node.namedChildren) if (child) this.#parameterName(child, inner);
    }
  }

  /** Parameters bind in the function; their defaults and annotations are evaluated outside it. */
  #parameters(list: Node | null, outer: Scope, inner: Scope): void {
    if (!list) return;
    for (const p of list.namedChildren) {
      if (!p) continue;
      switch (p.type) {
        case "default_parameter":
        case "typed_default_parameter": {
          const name = p.childForFieldName("name");
          if (name) this.#parameterName(name, inner);
          const type = p.childForFieldName("type");
          if (type) this.#visit(type, outer);
          const value = p.childForFieldName("value");
          if (value) this.#visit(value, outer);
          break;
        }
        case "typed_parameter":
          for (const c of p.namedChildren) {
            if (!c) continue;
            if (c.type === "type") this.#visit(c, outer);
            else this.#parameterName(c, inner);
          }
          break;
        default:
          this.#parameterName(p, inner); // identifier, *args, **kw; keyword and positional separators bind nothing
      }
    }
  }

  /** A `case` pattern: a bare name captures; a dotted name is a value; a keyword names an attribute. */
  #pattern(node: Node, scope: Scope): void {
    switch (node.type) {
      case "dotted_name": {
        const first = node.namedChildren[0];
        if (!first) return;
        // A bare name captures (`case x`, `[x, y]`, `Point(x=px)`), except a class pattern's class.
        if (node.namedChildCount === 1 && node.parent?.type !== "class_pattern") {
          if (first.text !== "_") this.#add(first, scope, "binding");
          return;
        }
        // `Color.RED`, `mod.Point(...)`: the first name is read, the rest are attributes.
        this.#visit(first, scope);
        return;
      }
      case "keyword_pattern":
        for (const child of node.namedChildren.slice(1)) if (child) this.#pattern(child, scope);
        return;
      case "splat_pattern":
      case "as_pattern":
        for (const child of node.namedChildren) {
          if (child?.type === "identifier") {
            if (child.text !== "_") this.#add(child, scope, "binding");
          } else if (child) this.#pattern(child, scope);
        }
        return;
      case "identifier":
        return this.#visit(node, scope);
      default:
        for (const child of node.namedChildren) if (child) this.#pattern(child, scope);
    }
  }

  /** Long on purpose: one case per Python construct that binds or scopes a name (the binding rules of CPython's symtable), each a few lines. */
  #visit(node: Node, scope: Scope): void {
    switch (node.type) {
      case "identifier":
        this.#add(node, scope, "reference");
        return;
      case "function_definition": {
        const name = node.childForFieldName("name");
        if (name) this.#add(name, scope, "binding");
        const inner = this.#newScope("function", node, scope, name?.text);
        this.#parameters(node.childForFieldName("parameters"), scope, inner);
        const returns = node.childForFieldName("return_type");
        if (returns) this.#visit(returns, scope);
        const body = node.childForFieldName("body");
        if (body && this.#enters(body)) this.#visit(body, inner);
        return;
      }
      case "lambda": {
        const inner = this.#newScope("lambda", node, scope, "lambda");
        this.#parameters(node.childForFieldName("parameters"), scope, inner);
        const body = node.childForFieldName("body");
        if (body && this.#enters(body)) this.#visit(body, inner);
        return;
      }
      case "class_definition": {
        const name = node.childForFieldName("name");
        if (name) this.#add(name, scope, "binding");
        const bases = node.childForFieldName("superclasses");
        if (bases) this.#visit(bases, scope);
        const inner = this.#newScope("class", node, scope, name?.text);
        const body = node.childForFieldName("body");
        if (body && this.#enters(body)) this.#visit(body, inner);
        return;
      }
      case "list_comprehension":
      case "set_comprehension":
      case "dictionary_comprehension":
      case "generator_expression": {
        const inner = this.#newScope("comprehension", node, scope, node.type);
        const children = node.namedChildren;
        let first = true;
        for (const child of children) {
          if (child?.type !== "for_in_clause") continue;
          const left = child.childForFieldName("left");
          if (left) this.#target(left, inner);
          // The first iterable is evaluated outside (in a class body: with the class's names).
          for (const right of child.childrenForFieldName("right")) if (right) this.#visit(right, first ? scope : inner);
          first = false;
        }
        for (const child of children) if (child && child.type !== "for_in_clause") this.#visit(child, inner);
        return;
      }
      case "assignment": {
        const left = node.childForFieldName("left");
        if (left) this.#target(left, scope);
        const type = node.childForFieldName("type");
        if (type) this.#visit(type, scope);
        const right = node.childForFieldName("right");
        if (right) this.#visit(right, scope);
        return;
      }
      case "augmented_assignment": {
        const left = node.childForFieldName("left");
        if (left) this.#target(left, scope, true);
        const right = node.childForFieldName("right");
        if (right) this.#visit(right, scope);
        return;
      }
      case "for_statement": {
        const left = node.childForFieldName("left");
        if (left) this.#target(left, scope);
        for (const field of ["right", "body", "alternative"]) {
          const part = node.childForFieldName(field);
          if (part) this.#visit(part, scope);
        }
        return;
      }
      case "named_expression": {
        const name = node.childForFieldName("name");
        if (name) this.#add(name, nearestNonComprehension(scope), "binding");
        const value = node.childForFieldName("value");
        if (value) this.#visit(value, scope);
        return;
      }
      case "as_pattern": {
        // `with v as t`, `except E as e` (in a `case`, see #pattern).
        const [value, ...rest] = node.namedChildren;
        if (value) this.#visit(value, scope);
        for (const r of rest) if (r) this.#target(r, scope);
        return;
      }
      case "import_statement":
      case "import_from_statement": {
        for (let i = 0; i < node.childCount; i++) {
          const item = node.child(i);
          if (item?.type === "wildcard_import") this.starImports.push(node);
          if (!item || node.fieldNameForChild(i) !== "name") continue;
          if (item.type === "aliased_import") {
            const alias = item.childForFieldName("alias");
            if (alias) this.#add(alias, scope, "binding");
          } else if (item.type === "dotted_name") {
            const first = item.namedChildren[0];
            // `import a.b` binds a; `from m import a` binds a.
            if (first && (node.type === "import_statement" || item.namedChildCount === 1))
              this.#add(first, scope, "binding");
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
          this.#add(id, scope, "declaration");
        }
        return;
      case "delete_statement":
        for (const child of node.namedChildren) if (child) this.#target(child, scope, true);
        return;
      case "type_alias_statement": {
        // `type X = ...` binds X (PEP 695's own scope for the value is not modelled).
        const [name, ...value] = node.namedChildren;
        const id = name?.type === "type" ? name.namedChildren[0] : name;
        if (id?.type === "identifier") this.#add(id, scope, "binding");
        for (const v of value) if (v) this.#visit(v, scope);
        return;
      }
      case "keyword_argument": {
        const value = node.childForFieldName("value");
        if (value) this.#visit(value, scope);
        return;
      }
      case "attribute": {
        const object = node.childForFieldName("object");
        if (object) this.#visit(object, scope);
        return;
      }
      case "case_pattern":
        this.#pattern(node, scope);
        return;
      default:
        this.#visitChildren(node, scope);
    }
  }
}

// ---- the resolution rules ----

function bind(where: Scope, o: Occurrence): void {
  const list = where.bound.get(o.name);
  if (list) list.push(o.node);
  else where.bound.set(o.name, [o.node]);
  if (!o.reads) where.assigned.add(o.name);
}

function nearestNonComprehension(scope: Scope): Scope {
  let s = scope;
  while (s.kind === "comprehension" && s.parent) s = s.parent;
  return s;
}

/**
 * The scope that binds `name` as seen from `scope`, or `undefined` for the module's namespace
 * (then the builtins): the scope itself, then enclosing functions, lambdas and comprehensions;
 * class bodies are skipped, except that the nearest one provides `__class__`.
 */
function binder(name: string, scope: Scope): Scope | undefined {
  if (scope.kind === "module" || scope.globals.has(name)) return undefined;
  if (scope.nonlocals.has(name)) return enclosingBinder(name, scope);
  if (scope.bound.has(name)) return scope;
  for (let p = scope.parent; p && p.kind !== "module"; p = p.parent) {
    if (p.kind === "class") {
      if (name === "__class__") return p;
      continue;
    }
    if (p.globals.has(name)) return undefined;
    if (p.nonlocals.has(name)) return enclosingBinder(name, p);
    if (p.bound.has(name)) return p;
  }
  return undefined;
}

/** The enclosing function that a `nonlocal` name of `scope` refers to. */
function enclosingBinder(name: string, scope: Scope): Scope | undefined {
  for (let p = scope.parent; p && p.kind !== "module"; p = p.parent) {
    if (p.kind === "class" || p.nonlocals.has(name)) continue;
    if (p.bound.has(name)) return p;
  }
  return undefined;
}

function within(outer: Node, inner: Node): boolean {
  return outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
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

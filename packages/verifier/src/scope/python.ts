/**
 * A static Python scope model, good enough to tell whether a name used in new code resolves
 * (LEGB: enclosing lambdas and comprehensions, enclosing functions, the class body when no
 * function lies between, the module, builtins). Names bound anywhere in a scope count as
 * bound everywhere in it, as Python's compiler decides locality; flow (use before assignment)
 * is not modelled.
 */
import type { Node } from "web-tree-sitter";
import type { Doc, FileChange } from "../sim.js";
import { PYTHON_BUILTINS, PYTHON_MODULE_NAMES } from "./python-builtins.js";
import type { NameUse, ScopeModel } from "./types.js";

const BUILTINS = new Set([...PYTHON_BUILTINS, ...PYTHON_MODULE_NAMES]);

const FUNCTION_TYPES = new Set(["function_definition"]);
const COMPREHENSIONS = new Set(["list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"]);
/** Nodes through which a binding target reaches its names (`a, (b, *c) = ...`). */
const TARGET_CONTAINERS = new Set([
  "pattern_list",
  "tuple_pattern",
  "list_pattern",
  "tuple",
  "list",
  "parenthesized_expression",
  "expression_list",
  "list_splat_pattern",
  "list_splat",
  "as_pattern_target",
]);
const PARAMETER_CONTAINERS = new Set(["parameters", "lambda_parameters"]);

const named = (node: Node): Node[] => node.namedChildren.filter((n): n is Node => n !== null);
const sameNode = (a: Node | null | undefined, b: Node): boolean => !!a && a.id === b.id;

function targetNames(target: Node | null, out: Set<string>): void {
  if (!target) return;
  if (target.type === "identifier") {
    out.add(target.text);
    return;
  }
  if (TARGET_CONTAINERS.has(target.type)) for (const child of named(target)) targetNames(child, out);
}

function parameterNames(params: Node | null, out: Set<string>): void {
  if (!params) return;
  for (const p of named(params)) {
    switch (p.type) {
      case "identifier":
        out.add(p.text);
        break;
      case "default_parameter":
      case "typed_default_parameter":
        targetNames(p.childForFieldName("name"), out);
        break;
      case "typed_parameter":
      case "list_splat_pattern":
      case "dictionary_splat_pattern":
        for (const c of named(p)) if (c.type === "identifier") out.add(c.text);
        else if (c.type === "list_splat_pattern" || c.type === "dictionary_splat_pattern") parameterNames(c, out);
        break;
      case "tuple_pattern":
        targetNames(p, out);
        break;
      default:
        break;
    }
  }
}

function importNames(node: Node, out: Set<string>): boolean {
  let wildcard = false;
  if (node.type === "import_statement") {
    for (const name of node.childrenForFieldName("name")) {
      if (!name) continue;
      if (name.type === "aliased_import") {
        const alias = name.childForFieldName("alias");
        if (alias) out.add(alias.text);
      } else {
        const first = name.type === "dotted_name" ? name.namedChild(0) : name;
        if (first) out.add(first.text);
      }
    }
  } else {
    for (const child of named(node)) if (child.type === "wildcard_import") wildcard = true;
    for (const name of node.childrenForFieldName("name")) {
      if (!name) continue;
      if (name.type === "aliased_import") {
        const alias = name.childForFieldName("alias");
        if (alias) out.add(alias.text);
      } else {
        out.add(name.text.split(".").at(-1) ?? name.text);
      }
    }
  }
  return wildcard;
}

interface Bindings {
  readonly names: Set<string>;
  readonly wildcard: boolean;
}

/**
 * Names bound directly in a scope whose statements are under `body`: assignments, loop and
 * `with`/`except` targets, imports, nested definitions (their names only), walrus targets,
 * `global`/`nonlocal` declarations and match captures. Nested functions, classes, lambdas and
 * comprehensions are not entered.
 */
function collectBindings(body: Node | null): Bindings {
  return bindingsOf(body ? named(body) : []);
}

/** {@link collectBindings} over a list of statements. */
function bindingsOf(statements: readonly Node[]): Bindings {
  const names = new Set<string>();
  let wildcard = false;
  const visit = (node: Node): void => {
    switch (node.type) {
      case "function_definition":
      case "class_definition": {
        const name = node.childForFieldName("name");
        if (name) names.add(name.text);
        for (const d of named(node)) if (d.type !== "block" && d.type !== "identifier") visitDecorationsOnly(d);
        return;
      }
      case "lambda":
        return;
      case "assignment":
      case "augmented_assignment":
        targetNames(node.childForFieldName("left"), names);
        break;
      case "for_statement":
      case "for_in_clause":
        targetNames(node.childForFieldName("left"), names);
        break;
      case "as_pattern_target":
        targetNames(node, names);
        return;
      case "named_expression":
        targetNames(node.childForFieldName("name"), names);
        break;
      case "import_statement":
      case "import_from_statement":
        if (importNames(node, names)) wildcard = true;
        return;
      case "future_import_statement":
        return;
      case "global_statement":
      case "nonlocal_statement":
        for (const c of named(node)) if (c.type === "identifier") names.add(c.text);
        return;
      case "case_pattern":
        for (const id of node.descendantsOfType("identifier")) if (id) names.add(id.text);
        return;
      default:
        if (COMPREHENSIONS.has(node.type)) {
          // Only walrus targets escape a comprehension.
          for (const w of node.descendantsOfType("named_expression")) if (w) targetNames(w.childForFieldName("name"), names);
          return;
        }
    }
    for (const child of named(node)) visit(child);
  };
  // Walrus targets in decorators or defaults of a nested definition bind in this scope; nothing else does.
  const visitDecorationsOnly = (node: Node): void => {
    for (const w of node.descendantsOfType("named_expression")) if (w) targetNames(w.childForFieldName("name"), names);
  };
  for (const child of statements) visit(child);
  return { names, wildcard };
}

function memo<T>(doc: Doc, key: string, make: () => T): T {
  if (doc.memo.has(key)) return doc.memo.get(key) as T;
  const value = make();
  doc.memo.set(key, value);
  return value;
}

/** Module-level bindings, counted per top-level statement so that a change can update them. */
interface ModuleScope {
  readonly counts: Map<string, number>;
  wildcards: number;
  readonly names: Set<string>;
}

function addStatements(scope: ModuleScope, statements: readonly Node[], sign: 1 | -1): void {
  for (const statement of statements) {
    const b = bindingsOf([statement]);
    if (b.wildcard) scope.wildcards += sign;
    for (const name of b.names) {
      const n = (scope.counts.get(name) ?? 0) + sign;
      if (n > 0) {
        scope.counts.set(name, n);
        scope.names.add(name);
      } else {
        scope.counts.delete(name);
        scope.names.delete(name);
      }
    }
  }
}

const moduleScope = (doc: Doc): ModuleScope =>
  memo(doc, "py:module", () => {
    const scope: ModuleScope = { counts: new Map(), wildcards: 0, names: new Set() };
    addStatements(scope, named(doc.tree.rootNode), 1);
    return scope;
  });

const moduleBindings = (doc: Doc): { names: ReadonlySet<string>; wildcard: boolean } => {
  const scope = moduleScope(doc);
  return { names: scope.names, wildcard: scope.wildcards > 0 };
};

/** The top-level statements of `doc` that a span touches (for an empty span: the one holding it). */
function topLevelTouching(doc: Doc, span: { start: number; end: number }): Node[] {
  const root = doc.tree.rootNode;
  let node: Node | null = root.descendantForIndex(span.start, Math.max(span.start, span.end - 1));
  while (node && node.parent && node.parent.id !== root.id) node = node.parent;
  if (!node || node.id === root.id) {
    // Between statements: start from the first statement after the span's start.
    node = root.firstNamedChildForIndex(span.start);
  }
  const out: Node[] = [];
  for (let n: Node | null = node; n; n = n.nextNamedSibling) {
    if (span.end > span.start ? n.startIndex >= span.end : n.startIndex >= span.start) break;
    if (span.end > span.start ? n.endIndex > span.start : n.startIndex < span.start && span.start < n.endIndex) out.push(n);
  }
  return out;
}

/**
 * Carries the module scope of a change's old version over to its new one, re-reading only the
 * top-level statements the edits touched (instead of the whole module for every step).
 */
export function carryModuleScope(change: FileChange): void {
  if (change.before.language !== "python" || change.after.memo.has("py:module")) return;
  const old = change.before.memo.get("py:module") as ModuleScope | undefined;
  if (!old) return;
  // The scope moves to the new version (updated in place, not copied): the old version is being
  // replaced, and if it is read again its scope is computed afresh.
  change.before.memo.delete("py:module");
  const scope = old;
  const removed = new Map<number, Node>();
  for (const e of change.edits) for (const n of topLevelTouching(change.before, e)) removed.set(n.id, n);
  const added = new Map<number, Node>();
  let delta = 0;
  for (const e of change.edits) {
    const start = e.start + delta;
    delta += e.text.length - (e.end - e.start);
    const span = { start, end: start + e.text.length };
    for (const n of topLevelTouching(change.after, span.end > span.start ? span : { start, end: start })) added.set(n.id, n);
  }
  addStatements(scope, [...removed.values()], -1);
  addStatements(scope, [...added.values()], 1);
  change.after.memo.set("py:module", scope);
}

function functionBindings(doc: Doc, fn: Node): Set<string> {
  return memo(doc, `py:fn:${fn.id}`, () => {
    const names = new Set(collectBindings(fn.childForFieldName("body")).names);
    parameterNames(fn.childForFieldName("parameters"), names);
    return names;
  });
}

const classBindings = (doc: Doc, cls: Node): Set<string> =>
  memo(doc, `py:class:${cls.id}`, () => {
    const names = new Set(collectBindings(cls.childForFieldName("body")).names);
    names.add("__qualname__");
    names.add("__module__");
    return names;
  });

/** Whether an `identifier` node is a use of a name (as opposed to a binding, an attribute or a keyword). */
function isReference(id: Node): boolean {
  const parent = id.parent;
  if (!parent) return true;
  switch (parent.type) {
    case "attribute":
      return !sameNode(parent.childForFieldName("attribute"), id);
    case "keyword_argument":
      return !sameNode(parent.childForFieldName("name"), id);
    case "function_definition":
    case "class_definition":
      return !sameNode(parent.childForFieldName("name"), id);
    case "default_parameter":
    case "typed_default_parameter":
      return !sameNode(parent.childForFieldName("name"), id);
    case "typed_parameter":
      return sameNode(parent.childForFieldName("type"), id);
    case "dotted_name":
    case "aliased_import":
    case "global_statement":
    case "nonlocal_statement":
    case "keyword_pattern":
      return false;
    case "named_expression":
      return !sameNode(parent.childForFieldName("name"), id);
    default:
      break;
  }
  if (PARAMETER_CONTAINERS.has(parent.type)) return false;
  if ((parent.type === "list_splat_pattern" || parent.type === "dictionary_splat_pattern") && parent.parent && (PARAMETER_CONTAINERS.has(parent.parent.type) || parent.parent.type === "typed_parameter")) {
    return false;
  }
  // A plain binding target: the identifier reaches an assignment's `left`, a loop target or an
  // `as` target only through pattern containers.
  let child: Node = id;
  let up: Node | null = parent;
  while (up) {
    if (up.type === "assignment") return !sameNode(up.childForFieldName("left"), child);
    if (up.type === "for_statement" || up.type === "for_in_clause") return !sameNode(up.childForFieldName("left"), child);
    if (up.type === "as_pattern_target") return false;
    if (up.type === "case_pattern") return false;
    if (!TARGET_CONTAINERS.has(up.type)) return true;
    child = up;
    up = up.parent;
  }
  return true;
}

function resolves(doc: Doc, id: Node): boolean {
  const name = id.text;
  let child: Node = id;
  let crossedFunction = false;
  for (let up = id.parent; up; child = up, up = up.parent) {
    if (up.type === "lambda") {
      if (sameNode(up.childForFieldName("body"), child)) {
        const names = new Set<string>();
        parameterNames(up.childForFieldName("parameters"), names);
        if (names.has(name)) return true;
        crossedFunction = true;
      }
    } else if (COMPREHENSIONS.has(up.type)) {
      const names = new Set<string>();
      for (const clause of named(up)) if (clause.type === "for_in_clause") targetNames(clause.childForFieldName("left"), names);
      if (names.has(name)) return true;
      crossedFunction = true;
    } else if (FUNCTION_TYPES.has(up.type)) {
      if (sameNode(up.childForFieldName("body"), child)) {
        if (functionBindings(doc, up).has(name)) return true;
        if (name === "__class__") return true;
        crossedFunction = true;
      }
    } else if (up.type === "class_definition") {
      if (sameNode(up.childForFieldName("body"), child) && !crossedFunction && classBindings(doc, up).has(name)) return true;
    }
  }
  return moduleBindings(doc).names.has(name) || BUILTINS.has(name);
}

export const pythonScope: ScopeModel = {
  language: "python",
  unresolved(doc: Doc, start: number, end: number): NameUse[] | "unknown" {
    if (moduleBindings(doc).wildcard) return "unknown";
    const cover = doc.tree.rootNode.descendantForIndex(start, Math.max(start, end - 1)) ?? doc.tree.rootNode;
    const scope = cover.startIndex <= start && cover.endIndex >= end ? cover : doc.tree.rootNode;
    const out: NameUse[] = [];
    const ids = scope.type === "identifier" ? [scope] : scope.descendantsOfType("identifier", doc.position(start), doc.position(end));
    for (const id of ids) {
      if (!id || id.startIndex < start || id.endIndex > end) continue;
      if (!isReference(id)) continue;
      if (resolves(doc, id)) continue;
      out.push({ name: id.text, index: id.startIndex, line: id.startPosition.row + 1 });
    }
    return out;
  },
  definedAtTopLevel(doc: Doc): ReadonlySet<string> {
    return moduleBindings(doc).names;
  },
  isBuiltin(name: string): boolean {
    return BUILTINS.has(name);
  },
};

/**
 * Scope-aware rename (Python): the binding and exactly the references that resolve to it, never
 * strings, comments, attributes of other objects, or a shadowing binding in an inner scope.
 * The result is checked by resolving names again in the renamed text: no reference may change
 * the binding it resolves to.
 */
import { withTree, type Node, type Tree, TaggedError } from "@graphplan/graph";
import { applyEdits, mapOffset, type Edit } from "@graphplan/primitives";
import {
  analyzeGo,
  analyzeJava,
  analyzeJavaScript,
  analyzePython,
  goScopeLabel,
  javaScopeLabel,
  jsScopeLabel,
  scopeLabel,
  type GoBinding,
  type GoScopeAnalysis,
  type JavaBinding,
  type JavaScope,
  type JavaScopeAnalysis,
  type JsBinding,
  type JsScopeAnalysis,
  type Occurrence,
  type Scope,
  type ScopeAnalysis,
} from "@graphplan/scope";

/** The new name is already bound where the renamed binding lives, or would capture / be captured. */
export class NameCollision extends TaggedError("NameCollision") {
  constructor(
    readonly file: string,
    readonly symbol: string,
    readonly newName: string,
    readonly line: number,
    readonly detail: string,
  ) {
    super(`Cannot rename ${symbol} to ${newName} in ${file}: ${detail} (line ${line}). Choose another name.`);
  }
}

/** The name to rename is not bound where the step says (or is bound in several scopes and no scope was given). */
export class BindingNotFound extends TaggedError("BindingNotFound") {
  constructor(
    readonly file: string,
    readonly symbol: string,
    readonly detail: string,
    /** Where the name is bound: "function f (line 3)", ... */
    readonly candidates: readonly string[],
  ) {
    super(`${symbol} in ${file}: ${detail}.${candidates.length ? ` It is bound in: ${candidates.join("; ")}. Pass "scope" (a locator of that function or class) to choose.` : ""}`);
  }
}

export interface RenameRequest {
  readonly file: string;
  readonly name: string;
  readonly newName: string;
  /** The function/class/lambda node whose scope binds the name; the module when absent. */
  readonly scopeNode?: Node | undefined;
}

const SCOPE_NODE_TYPES = new Set(["function_definition", "class_definition", "lambda", "module", "list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"]);

function scopeFor(analysis: ScopeAnalysis, request: RenameRequest): Scope {
  const candidates = analysis.scopes.filter((s) => s.bound.has(request.name));
  const labels = candidates.map(scopeLabel);
  if (request.scopeNode) {
    let node: Node | null = request.scopeNode;
    if (node.type === "decorated_definition") node = node.childForFieldName("definition");
    while (node && !SCOPE_NODE_TYPES.has(node.type)) node = node.parent;
    const scope = node ? analysis.scopes.find((s) => s.node.id === node.id) : undefined;
    if (!scope) throw new BindingNotFound(request.file, request.name, "the scope locator does not name a function, class, lambda or the module", labels);
    if (!scope.bound.has(request.name)) {
      // The locator may name the definition itself (rename function f with scope = f).
      const definitionName = scope.node.childForFieldName("name");
      if (definitionName?.text === request.name && scope.parent?.bound.has(request.name)) return scope.parent;
      throw new BindingNotFound(request.file, request.name, `it is not bound in ${scopeLabel(scope)}`, labels);
    }
    return scope;
  }
  if (analysis.module.bound.has(request.name)) return analysis.module;
  if (candidates.length === 1) return candidates[0]!;
  throw new BindingNotFound(
    request.file,
    request.name,
    candidates.length === 0 ? "the name is not bound (assigned, defined, imported or a parameter) anywhere in the file" : "the name is bound in several scopes",
    labels,
  );
}

/** `self.x` / `cls.x` inside the methods of `klass`: attribute identifiers that name the class's members. */
function memberAttributes(analysis: ScopeAnalysis, klass: Scope, name: string): Node[] {
  const out: Node[] = [];
  for (const method of analysis.scopes) {
    if (method.parent?.id !== klass.id || method.kind !== "function") continue;
    const first = method.node.childForFieldName("parameters")?.namedChildren.find((p) => p !== null);
    const self = first?.type === "identifier" ? first.text : first?.type === "typed_parameter" ? first.namedChildren[0]?.text : undefined;
    if (!self) continue;
    for (const attribute of method.node.descendantsOfType("attribute")) {
      if (!attribute) continue;
      const object = attribute.childForFieldName("object");
      const member = attribute.childForFieldName("attribute");
      if (object?.type !== "identifier" || object.text !== self || member?.text !== name) continue;
      const reference = analysis.occurrences.find((o) => o.node.id === object.id);
      if (reference && analysis.resolve(reference)?.id === method.id) out.push(member);
    }
  }
  return out;
}

/**
 * The edit for one occurrence. A name bound by an import without alias keeps the imported
 * name and gains an alias: `from os import path` → `from os import path as p`.
 */
function importAware(node: Node, newName: string, file: string): Edit {
  const dotted = node.parent;
  const statement = dotted?.parent;
  if (dotted?.type === "dotted_name" && (statement?.type === "import_statement" || statement?.type === "import_from_statement")) {
    if (dotted.namedChildCount > 1) {
      throw new NameCollision(file, node.text, newName, node.startPosition.row + 1, `\`import ${dotted.text}\` binds ${node.text} to the package; rename it by importing it as \`import ${node.text} as ${newName}\` first`);
    }
    return { start: dotted.endIndex, end: dotted.endIndex, text: ` as ${newName}` };
  }
  return { start: node.startIndex, end: node.endIndex, text: newName };
}

interface Resolved {
  readonly start: number;
  /** Start offset of the scope the occurrence resolves to (-1: builtin / unbound). */
  readonly scopeStart: number;
}

function resolutions(analysis: ScopeAnalysis, name: string): Resolved[] {
  return analysis.occurrences
    .filter((o) => o.name === name)
    .map((o) => ({ start: o.node.startIndex, scopeStart: analysis.resolve(o)?.node.startIndex ?? -1 }));
}

/**
 * The edits of a scope-aware rename in one Python file. Throws {@link BindingNotFound} when the
 * name is not bound where requested and {@link NameCollision} when the new name is taken or the
 * rename would change what any name refers to.
 */
export function renamePython(source: string, tree: Tree, request: RenameRequest): Edit[] {
  const { name, newName, file } = request;
  if (name === newName) return [];
  const analysis = analyzePython(tree);
  const scope = scopeFor(analysis, request);

  const taken = scope.bound.get(newName);
  if (taken?.length) {
    throw new NameCollision(file, name, newName, taken[0]!.startPosition.row + 1, `${newName} is already bound in ${scopeLabel(scope)}`);
  }

  const targets: Occurrence[] = analysis.occurrences.filter((o) => o.name === name && analysis.resolve(o)?.id === scope.id);
  const nodes: Node[] = targets.map((o) => o.node);
  const lexical = new Set(nodes.map((n) => n.startIndex));
  if (scope.kind === "class") {
    const members = memberAttributes(analysis, scope, name);
    const clash = memberAttributes(analysis, scope, newName)[0];
    if (members.length > 0 && clash) throw new NameCollision(file, name, newName, clash.startPosition.row + 1, `the class already uses the attribute ${newName}`);
    nodes.push(...members);
  }
  const edits: Edit[] = nodes
    .sort((a, b) => a.startIndex - b.startIndex)
    .filter((n, i, all) => i === 0 || all[i - 1]!.startIndex !== n.startIndex)
    .map((n) => importAware(n, newName, file));

  verify(source, analysis, edits, lexical, request, scope);
  return edits;
}

/** Re-resolves every occurrence of both names after the rename: each must keep its binding. */
function verify(source: string, analysis: ScopeAnalysis, edits: readonly Edit[], lexical: ReadonlySet<number>, request: RenameRequest, scope: Scope): void {
  const map = (offset: number): number => mapOffset(edits, offset) ?? offset;
  // Where each renamed identifier starts in the new text (an import alias starts after " as ").
  const renamed = new Set<number>();
  let delta = 0;
  for (const e of [...edits].sort((a, b) => a.start - b.start)) {
    const insertion = e.start === e.end;
    if (insertion || lexical.has(e.start)) renamed.add(e.start + delta + (insertion ? " as ".length : 0));
    delta += e.text.length - (e.end - e.start);
  }
  const expected = new Map<number, number>();
  // Renamed occurrences must resolve to the renamed binding's scope.
  for (const start of renamed) expected.set(start, map(scope.node.startIndex));
  // Existing occurrences of the new name must keep resolving where they did.
  for (const r of resolutions(analysis, request.newName)) expected.set(map(r.start), r.scopeStart < 0 ? -1 : map(r.scopeStart));

  const after = applyEdits(source, edits);
  withTree(after, "python", (newTree) => {
    const newAnalysis = analyzePython(newTree);
    const actual = new Map(resolutions(newAnalysis, request.newName).map((r) => [r.start, r.scopeStart]));
    for (const [start, scopeStart] of expected) {
      const got = actual.get(start);
      if (got === scopeStart) continue;
      const line = after.slice(0, start).split("\n").length;
      const detail = renamed.has(start)
        ? `the reference would resolve to ${got === undefined || got < 0 ? "a builtin" : `another binding of ${request.newName} (an inner scope binds it)`} instead of the renamed ${request.name}`
        : `the existing ${request.newName} used here would be shadowed by the renamed binding`;
      throw new NameCollision(request.file, request.name, request.newName, line, detail);
    }
  });
}

// ------------------------------------------------------------------------------------------------
// Go

const GO_FUNCTIONS = new Set(["function_declaration", "method_declaration", "func_literal"]);

/**
 * The edits of a scope-aware rename of a local name in one Go file (a variable, constant, type,
 * parameter or named result of a function): its declaration and exactly the identifiers that
 * resolve to it. Package-level names are refused (the package's other files use them), as is a
 * name used as a key of a composite literal (a struct field or a map key: the tree cannot tell).
 * The result is checked by resolving both names again in the renamed text.
 */
export function renameGo(source: string, tree: Tree, request: RenameRequest): Edit[] {
  const { name, newName, file } = request;
  if (name === newName) return [];
  const analysis = analyzeGo(tree);
  const binding = goBindingFor(analysis, request);
  if (binding.scope.kind === "package") {
    throw new NameCollision(file, name, newName, binding.node.startPosition.row + 1, `${name} is declared at package level, where the package's other files see it; rename_identifier renames names local to a function in Go`);
  }
  const taken = binding.scope.bindings.get(newName);
  if (taken) throw new NameCollision(file, name, newName, taken.node.startPosition.row + 1, `${newName} is already declared in ${goScopeLabel(binding.scope, false)}`);
  const key = analysis.keys.find((k) => k.text === name && within(binding.scope.node, k));
  if (key) throw new NameCollision(file, name, newName, key.startPosition.row + 1, `${name} is a key of a composite literal here, which is a struct field or a variable (a map key) — rename that use by hand`);
  const targets = analysis.occurrences.filter((o) => o.binding === binding);
  const edits: Edit[] = targets.map((o) => ({ start: o.node.startIndex, end: o.node.endIndex, text: newName }));
  verifyGo(source, analysis, edits, binding, request);
  return edits;
}

const within = (outer: Node, inner: Node): boolean => outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;

function goBindingFor(analysis: GoScopeAnalysis, request: RenameRequest): GoBinding {
  const all = analysis.scopes.flatMap((s) => (s.bindings.get(request.name) && !s.bindings.get(request.name)!.imported ? [s.bindings.get(request.name)!] : []));
  const labels = all.map((b) => `${goScopeLabel(b.scope)}`);
  let candidates = all;
  if (request.scopeNode) {
    let fn: Node | null = request.scopeNode;
    while (fn && !GO_FUNCTIONS.has(fn.type)) fn = fn.parent;
    if (!fn) throw new BindingNotFound(request.file, request.name, "the scope locator does not name a function", labels);
    candidates = all.filter((b) => within(fn, b.scope.node));
    // The function's own block first; then a name declared once in its inner blocks.
    const own = candidates.filter((b) => b.scope.node.id === fn.id);
    if (own.length === 1) return own[0]!;
  }
  if (candidates.length === 1) return candidates[0]!;
  throw new BindingNotFound(
    request.file,
    request.name,
    candidates.length === 0 ? `${request.name} is not declared ${request.scopeNode ? "in that function" : "in the file"}` : `${request.name} is declared in several blocks`,
    labels,
  );
}

/** Both names resolved again in the renamed text: each renamed identifier names the renamed binding, every other keeps its own. */
function verifyGo(source: string, analysis: GoScopeAnalysis, edits: readonly Edit[], binding: GoBinding, request: RenameRequest): void {
  const map = (offset: number): number => mapOffset(edits, offset) ?? offset;
  const where = (b: GoBinding | undefined): string => (b ? `${b.node.type === "import_spec" ? "import" : "decl"}@${map(b.node.startIndex)}` : "predeclared");
  const expected = new Map<number, string>();
  for (const o of analysis.occurrences) {
    if (o.binding === binding) expected.set(map(o.node.startIndex), `decl@${map(binding.node.startIndex)}`);
    else if (o.name === request.newName) expected.set(map(o.node.startIndex), where(o.binding));
  }
  const after = applyEdits(source, edits);
  withTree(after, "go", (newTree) => {
    const again = analyzeGo(newTree);
    for (const o of again.occurrences) {
      if (o.name !== request.newName) continue;
      const want = expected.get(o.node.startIndex);
      const got = o.binding ? `${o.binding.node.type === "import_spec" ? "import" : "decl"}@${o.binding.node.startIndex}` : "predeclared";
      if (want === undefined || want === got) continue;
      const line = o.node.startPosition.row + 1;
      const renamed = want === `decl@${map(binding.node.startIndex)}`;
      const detail = renamed
        ? `this use of ${request.name} would name ${got === "predeclared" ? `Go's predeclared ${request.newName}` : `another ${request.newName} (declared in an inner block)`} instead`
        : `the ${request.newName} used here (${want === "predeclared" ? `Go's predeclared ${request.newName}` : want.startsWith("import") ? "an imported package" : "another declaration"}) would be shadowed by the renamed ${request.name}`;
      throw new NameCollision(request.file, request.name, request.newName, line, detail);
    }
  });
}

// ------------------------------------------------------------------------------------------------
// Java

const JAVA_METHODS = new Set(["method_declaration", "constructor_declaration", "compact_constructor_declaration", "lambda_expression"]);

/**
 * The edits of a scope-aware rename of a local name in one Java file (a parameter, a local
 * variable, a loop, catch, resource or pattern variable): its declaration and exactly the
 * identifiers that resolve to it. Fields are refused (other classes and files use them). A new name
 * that is a local where the renamed one is in scope is refused (Java forbids a local to shadow
 * another), and the result is checked by resolving both names again: an unqualified use of a field
 * named like the new name would be shadowed.
 */
export function renameJava(source: string, tree: Tree, request: RenameRequest): Edit[] {
  const { name, newName, file } = request;
  if (name === newName) return [];
  const analysis = analyzeJava(tree);
  const binding = javaBindingFor(analysis, request);
  // Java forbids a local to shadow a local: the new name may be a local neither around the renamed one nor inside its scope.
  for (let s: JavaScope | undefined = binding.scope; s && s.kind !== "class"; s = s.parent) {
    const taken = s.bindings.get(newName);
    if (taken) throw new NameCollision(file, name, newName, taken.node.startPosition.row + 1, `${newName} is already a local of ${javaScopeLabel(s, false)}`);
    if (JAVA_METHODS.has(s.node.type)) break;
  }
  const inside = analysis.scopes.flatMap((s) => (within(binding.scope.node, s.node) && s.bindings.get(newName) ? [s.bindings.get(newName)!] : []))[0];
  if (inside) throw new NameCollision(file, name, newName, inside.node.startPosition.row + 1, `${newName} is declared as a local in ${javaScopeLabel(inside.scope, false)}, inside the scope of ${name}`);
  const edits: Edit[] = analysis.occurrences.filter((o) => o.binding === binding).map((o) => ({ start: o.node.startIndex, end: o.node.endIndex, text: newName }));
  verifyJava(source, analysis, edits, binding, request);
  return edits;
}

function javaBindingFor(analysis: JavaScopeAnalysis, request: RenameRequest): JavaBinding {
  const all = analysis.scopes.flatMap((s) => (s.bindings.get(request.name) ? [s.bindings.get(request.name)!] : []));
  const labels = all.map((b) => javaScopeLabel(b.scope));
  let candidates = all;
  if (request.scopeNode) {
    let method: Node | null = request.scopeNode;
    while (method && !JAVA_METHODS.has(method.type)) method = method.parent;
    if (!method) throw new BindingNotFound(request.file, request.name, "the scope locator does not name a method, constructor or lambda", labels);
    const fn = method;
    candidates = all.filter((b) => within(fn, b.scope.node));
    const own = candidates.filter((b) => b.scope.node.id === fn.id);
    if (own.length === 1) return own[0]!;
  }
  if (candidates.length === 1) return candidates[0]!;
  throw new BindingNotFound(
    request.file,
    request.name,
    candidates.length === 0
      ? `${request.name} is not a local ${request.scopeNode ? "of that method" : "in the file"} (Java fields, methods and types are not renamed by rename_identifier)`
      : `${request.name} is a local in several places`,
    labels,
  );
}

function verifyJava(source: string, analysis: JavaScopeAnalysis, edits: readonly Edit[], binding: JavaBinding, request: RenameRequest): void {
  const map = (offset: number): number => mapOffset(edits, offset) ?? offset;
  const renamed = `local@${map(binding.node.startIndex)}`;
  const expected = new Map<number, string>();
  for (const o of analysis.occurrences) {
    if (o.binding === binding) expected.set(map(o.node.startIndex), renamed);
    else if (o.name === request.newName) expected.set(map(o.node.startIndex), o.binding ? `local@${map(o.binding.node.startIndex)}` : "member");
  }
  withTree(applyEdits(source, edits), "java", (newTree) => {
    for (const o of analyzeJava(newTree).occurrences) {
      if (o.name !== request.newName) continue;
      const want = expected.get(o.node.startIndex);
      const got = o.binding ? `local@${o.binding.node.startIndex}` : "member";
      if (want === undefined || want === got) continue;
      const detail =
        want === renamed
          ? `this use of ${request.name} would name another ${request.newName} instead`
          : `the ${request.newName} used here (${want === "member" ? "a field or another class's member" : "another local"}) would be shadowed by the renamed ${request.name}`;
      throw new NameCollision(request.file, request.name, request.newName, o.node.startPosition.row + 1, detail);
    }
  });
}

// ------------------------------------------------------------------------------------------------
// JavaScript / TypeScript

const JS_FUNCTIONS = new Set(["function_declaration", "generator_function_declaration", "function_expression", "function", "generator_function", "arrow_function", "method_definition"]);

/** One renamed identifier: its edit, and where the new name starts in the edit's text. */
interface JsRenameEdit {
  readonly edit: Edit;
  readonly at: number;
  /** The identifier renamed. */
  readonly node?: Node;
}

/** The edit of one occurrence: `{x}` keeps its key (`{x: y}`), an import keeps the imported name (`{a as y}`). */
function jsEdit(node: Node, newName: string): JsRenameEdit {
  // `{key: value}` renamed to the key's own name becomes `{key}` again (`{key: value = 1}` becomes `{key = 1}`).
  const holder = node.parent?.type === "assignment_pattern" && node.parent.childForFieldName("left")?.id === node.id ? node.parent : node;
  const pair = holder.parent;
  if ((pair?.type === "pair_pattern" || pair?.type === "pair") && pair.childForFieldName("value")?.id === holder.id && pair.childForFieldName("key")?.text === newName) {
    return { edit: { start: pair.childForFieldName("key")!.startIndex, end: node.endIndex, text: newName }, at: 0 };
  }
  if (node.type === "shorthand_property_identifier" || node.type === "shorthand_property_identifier_pattern") {
    return { edit: { start: node.startIndex, end: node.endIndex, text: `${node.text}: ${newName}` }, at: node.text.length + 2 };
  }
  if (node.parent?.type === "import_specifier" && !node.parent.childForFieldName("alias")) {
    return { edit: { start: node.endIndex, end: node.endIndex, text: ` as ${newName}` }, at: 4 };
  }
  return { edit: { start: node.startIndex, end: node.endIndex, text: newName }, at: 0 };
}

/**
 * The edits of a scope-aware rename in one JavaScript or TypeScript file: a variable, parameter,
 * function or class and exactly the identifiers that resolve to it (ECMAScript's scoping:
 * `analyzeJavaScript`), keeping property keys (`{x}` becomes `{x: y}`) and imported names
 * (`import {a as y}`). A name the module exports is refused (other modules import it). Checked by
 * resolving both names again in the renamed text.
 */
export function renameJavaScript(source: string, tree: Tree, request: RenameRequest, language: "javascript" | "typescript" | "tsx"): Edit[] {
  const { name, newName, file } = request;
  if (name === newName) return [];
  const analysis = analyzeJavaScript(tree);
  const binding = jsBindingFor(analysis, request);
  if (binding.scope.kind === "program" && analysis.exported.has(name)) {
    throw new NameCollision(file, name, newName, binding.node.startPosition.row + 1, `${name} is exported, and other modules import it by that name; rename it there too, by hand`);
  }
  const taken = binding.scope.bindings.get(newName);
  if (taken) throw new NameCollision(file, name, newName, taken.node.startPosition.row + 1, `${newName} is already declared in ${jsScopeLabel(binding.scope, false)}`);
  const renames = analysis.occurrences.filter((o) => o.binding === binding).map((o) => ({ ...jsEdit(o.node, newName), node: o.node }));
  const edits = renames.map((r) => r.edit);
  verifyJavaScript(source, analysis, renames, binding, request, language);
  return edits;
}

function jsBindingFor(analysis: JsScopeAnalysis, request: RenameRequest): JsBinding {
  const all = analysis.scopes.flatMap((s) => (s.bindings.get(request.name) ? [s.bindings.get(request.name)!] : []));
  const labels = all.map((b) => jsScopeLabel(b.scope));
  let candidates = all;
  if (request.scopeNode) {
    let fn: Node | null = request.scopeNode;
    if (fn.type === "variable_declarator") fn = fn.childForFieldName("value");
    while (fn && !JS_FUNCTIONS.has(fn.type)) fn = fn.parent;
    if (!fn) throw new BindingNotFound(request.file, request.name, "the scope locator does not name a function", labels);
    const scopeNode = fn;
    candidates = all.filter((b) => within(scopeNode, b.scope.node));
    const own = candidates.filter((b) => b.scope.node.id === scopeNode.id);
    if (own.length === 1) return own[0]!;
    // The function's own name, declared around it.
    if (candidates.length === 0 && scopeNode.childForFieldName("name")?.text === request.name) candidates = all.filter((b) => b.node.id === scopeNode.childForFieldName("name")?.id);
  } else {
    const top = analysis.program.bindings.get(request.name);
    if (top) return top;
  }
  if (candidates.length === 1) return candidates[0]!;
  throw new BindingNotFound(request.file, request.name, candidates.length === 0 ? `${request.name} is not declared ${request.scopeNode ? "in that function" : "in the file"}` : `${request.name} is declared in several scopes`, labels);
}

function verifyJavaScript(source: string, analysis: JsScopeAnalysis, renames: readonly JsRenameEdit[], binding: JsBinding, request: RenameRequest, language: "javascript" | "typescript" | "tsx"): void {
  const edits = renames.map((r) => r.edit);
  const map = (offset: number): number => mapOffset(edits, offset) ?? offset;
  // Where each renamed identifier starts in the new text.
  const sorted = [...renames].sort((a, b) => a.edit.start - b.edit.start);
  const renamedAt = new Map<number, number>();
  let delta = 0;
  for (const r of sorted) {
    renamedAt.set(r.edit.start, r.edit.start + delta + r.at);
    delta += r.edit.text.length - (r.edit.end - r.edit.start);
  }
  const declaration = renames.find((r) => r.node?.id === binding.node.id);
  const renamed = `decl@${declaration ? renamedAt.get(declaration.edit.start) : map(binding.node.startIndex)}`;
  const expected = new Map<number, string>();
  for (const r of sorted) expected.set(renamedAt.get(r.edit.start)!, renamed);
  for (const o of analysis.occurrences) {
    if (o.binding === binding || o.name !== request.newName) continue;
    expected.set(map(o.node.startIndex), o.binding ? `decl@${map(o.binding.node.startIndex)}` : "global");
  }
  withTree(applyEdits(source, edits), language, (newTree) => {
    for (const o of analyzeJavaScript(newTree).occurrences) {
      if (o.name !== request.newName) continue;
      const want = expected.get(o.node.startIndex);
      const got = o.binding ? `decl@${o.binding.node.startIndex}` : "global";
      if (want === undefined || want === got) continue;
      const detail =
        want === renamed
          ? `this use of ${request.name} would name ${got === "global" ? `the global ${request.newName}` : `another ${request.newName} (declared in an inner scope)`} instead`
          : `the ${request.newName} used here (${want === "global" ? "a global" : "another declaration"}) would be shadowed by the renamed ${request.name}`;
      throw new NameCollision(request.file, request.name, request.newName, o.node.startPosition.row + 1, detail);
    }
  });
}

/**
 * Scope-aware rename (Python): the binding and exactly the references that resolve to it, never
 * strings, comments, attributes of other objects, or a shadowing binding in an inner scope.
 * The result is checked by resolving names again in the renamed text: no reference may change
 * the binding it resolves to.
 */
import { withTree, type LanguageId, type Node, type Tree } from "@graphplan/graph";
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
  type JavaBinding,
  type JavaScope,
  type JavaScopeAnalysis,
  type JsBinding,
  type Occurrence,
  type Scope,
  type ScopeAnalysis,
} from "@graphplan/scope";
import { BindingNotFound, NameCollision } from "./rename-errors.js";
import { JAVA_MEMBER_SCOPE, renameJavaMember } from "./rename-java-member.js";

export { BindingNotFound, NameCollision } from "./rename-errors.js";

export interface RenameRequest {
  readonly file: string;
  readonly name: string;
  readonly newName: string;
  /** The function/class/lambda node whose scope binds the name; the module when absent. */
  readonly scopeNode?: Node | undefined;
}

const SCOPE_NODE_TYPES = new Set([
  "function_definition",
  "class_definition",
  "lambda",
  "module",
  "list_comprehension",
  "set_comprehension",
  "dictionary_comprehension",
  "generator_expression",
]);

function scopeFor(analysis: ScopeAnalysis, request: RenameRequest): Scope {
  const candidates = analysis.scopes.filter((s) => s.bound.has(request.name));
  const labels = candidates.map(scopeLabel);
  if (request.scopeNode) {
    let node: Node | null = request.scopeNode;
    if (node.type === "decorated_definition") node = node.childForFieldName("definition");
    while (node && !SCOPE_NODE_TYPES.has(node.type)) node = node.parent;
    const scope = node ? analysis.scopes.find((s) => s.node.id === node.id) : undefined;
    if (!scope)
      throw new BindingNotFound(
        request.file,
        request.name,
        "the scope locator does not name a function, class, lambda or the module",
        labels,
      );
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
    candidates.length === 0
      ? "the name is not bound (assigned, defined, imported or a parameter) anywhere in the file"
      : "the name is bound in several scopes",
    labels,
  );
}

/** `self.x` / `cls.x` inside the methods of `klass`: attribute identifiers that name the class's members. */
function memberAttributes(analysis: ScopeAnalysis, klass: Scope, name: string): Node[] {
  const out: Node[] = [];
  for (const method of analysis.scopes) {
    if (method.parent?.id !== klass.id || method.kind !== "function") continue;
    const first = method.node.childForFieldName("parameters")?.namedChildren.find((p) => p !== null);
    const self =
      first?.type === "identifier"
        ? first.text
        : first?.type === "typed_parameter"
          ? first.namedChildren[0]?.text
          : undefined;
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
  if (
    dotted?.type === "dotted_name" &&
    (statement?.type === "import_statement" || statement?.type === "import_from_statement")
  ) {
    if (dotted.namedChildCount > 1) {
      throw new NameCollision(
        file,
        node.text,
        newName,
        node.startPosition.row + 1,
        `\`import ${dotted.text}\` binds ${node.text} to the package; rename it by importing it as \`import ${node.text} as ${newName}\` first`,
      );
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
    throw new NameCollision(
      file,
      name,
      newName,
      taken[0]!.startPosition.row + 1,
      `${newName} is already bound in ${scopeLabel(scope)}`,
    );
  }

  const targets: Occurrence[] = analysis.occurrences.filter(
    (o) => o.name === name && analysis.resolve(o)?.id === scope.id,
  );
  const nodes: Node[] = targets.map((o) => o.node);
  const lexical = new Set(nodes.map((n) => n.startIndex));
  if (scope.kind === "class") {
    const members = memberAttributes(analysis, scope, name);
    const clash = memberAttributes(analysis, scope, newName)[0];
    if (members.length > 0 && clash)
      throw new NameCollision(
        file,
        name,
        newName,
        clash.startPosition.row + 1,
        `the class already uses the attribute ${newName}`,
      );
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
function verify(
  source: string,
  analysis: ScopeAnalysis,
  edits: readonly Edit[],
  lexical: ReadonlySet<number>,
  request: RenameRequest,
  scope: Scope,
): void {
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
  for (const r of resolutions(analysis, request.newName))
    expected.set(map(r.start), r.scopeStart < 0 ? -1 : map(r.scopeStart));

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
// Go, Java, JavaScript/TypeScript: one rename over the lexical models of @graphplan/scope

/** A binding of a lexical model: its declaring identifier and the scope it is declared in. */
export interface LexicalBinding {
  readonly node: Node;
  readonly scope: { readonly node: Node };
}

/** What analyzeGo, analyzeJava and analyzeJavaScript share: scopes with their bindings, occurrences with the binding they name. */
export interface LexicalModel<B extends LexicalBinding> {
  readonly scopes: readonly { readonly node: Node; readonly bindings: ReadonlyMap<string, B> }[];
  readonly occurrences: readonly { readonly node: Node; readonly name: string; readonly binding: B | undefined }[];
}

/** A language's model and the words its messages use. */
export interface LexicalRules<B extends LexicalBinding> {
  readonly language: LanguageId;
  readonly analyze: (tree: Tree) => LexicalModel<B>;
  /** Node types a `scope` locator may name (the innermost one around it is taken). */
  readonly functions: ReadonlySet<string>;
  readonly label: (binding: B) => string;
  /** Why no binding was found: `x is not declared in that function`. */
  readonly notFound: (name: string, inFunction: boolean) => string;
  /** What the language calls the scope of a declaration that would capture a use (Go: a block). */
  readonly inner: "block" | "scope";
  /** What an unresolved name is: `Go's predeclared len`, `the global window`. */
  readonly outside: (name: string) => string;
  /** What a use named before the rename, for the message when the rename would shadow it. */
  readonly shadowed: (binding: B | undefined, name: string) => string;
}

/** One renamed identifier: its edit, where the new name starts in the edit's text, and the identifier. */
export interface RenameEdit {
  readonly edit: Edit;
  readonly at: number;
  readonly node: Node;
}

/** The binding a request names: in the function of its `scope` locator (its own block first), else the only one of that name. */
function lexicalBinding<B extends LexicalBinding>(
  model: LexicalModel<B>,
  rules: LexicalRules<B>,
  request: RenameRequest,
  options: { eligible?: (b: B) => boolean; preferred?: B | undefined } = {},
): B {
  const all = model.scopes.flatMap((s) => {
    const b = s.bindings.get(request.name);
    return b && (options.eligible?.(b) ?? true) ? [b] : [];
  });
  const labels = all.map(rules.label);
  let candidates = all;
  if (request.scopeNode) {
    let fn: Node | null =
      request.scopeNode.type === "variable_declarator"
        ? request.scopeNode.childForFieldName("value")
        : request.scopeNode;
    while (fn && !rules.functions.has(fn.type)) fn = fn.parent;
    if (!fn)
      throw new BindingNotFound(request.file, request.name, "the scope locator does not name a function", labels);
    const scopeNode = fn;
    candidates = all.filter((b) => within(scopeNode, b.scope.node));
    const own = candidates.filter((b) => b.scope.node.id === scopeNode.id);
    if (own.length === 1) return own[0]!;
    // The function's own name, declared around it.
    const name = scopeNode.childForFieldName("name");
    if (candidates.length === 0 && name?.text === request.name) candidates = all.filter((b) => b.node.id === name.id);
  } else if (options.preferred) return options.preferred;
  if (candidates.length === 1) return candidates[0]!;
  throw new BindingNotFound(
    request.file,
    request.name,
    candidates.length === 0
      ? rules.notFound(request.name, !!request.scopeNode)
      : `${request.name} is declared in several scopes`,
    labels,
  );
}

/**
 * Both names resolved again in the renamed text: each renamed identifier must name the renamed
 * binding, and every other use of the new name the binding it named before (or stay unresolved).
 */
export function verifyLexical<B extends LexicalBinding>(
  source: string,
  model: LexicalModel<B>,
  rules: LexicalRules<B>,
  renames: readonly RenameEdit[],
  binding: B,
  request: RenameRequest,
): void {
  const edits = renames.map((r) => r.edit);
  const map = (offset: number): number => mapOffset(edits, offset) ?? offset;
  const newStart = new Map<number, number>(); // a renamed identifier's node id → where its new name starts
  let delta = 0;
  for (const r of [...renames].sort((a, b) => a.edit.start - b.edit.start)) {
    newStart.set(r.node.id, r.edit.start + delta + r.at);
    delta += r.edit.text.length - (r.edit.end - r.edit.start);
  }
  const key = (b: LexicalBinding | undefined, at: (n: Node) => number): string =>
    b ? `decl@${at(b.node)}` : "outside";
  const renamed = `decl@${newStart.get(binding.node.id) ?? map(binding.node.startIndex)}`;
  const expected = new Map<number, { key: string; before: B | undefined }>();
  for (const r of renames) expected.set(newStart.get(r.node.id)!, { key: renamed, before: binding });
  for (const o of model.occurrences) {
    if (o.binding !== binding && o.name === request.newName)
      expected.set(map(o.node.startIndex), {
        key: key(o.binding, (n) => newStart.get(n.id) ?? map(n.startIndex)),
        before: o.binding,
      });
  }
  withTree(applyEdits(source, edits), rules.language, (newTree) => {
    for (const o of rules.analyze(newTree).occurrences) {
      if (o.name !== request.newName) continue;
      const want = expected.get(o.node.startIndex);
      const got = key(o.binding, (n) => n.startIndex);
      if (!want || want.key === got) continue;
      const detail =
        want.key === renamed
          ? `this use of ${request.name} would name ${o.binding ? `another ${request.newName} (declared in an inner ${rules.inner})` : rules.outside(request.newName)} instead`
          : `the ${request.newName} used here (${rules.shadowed(want.before, request.newName)}) would be shadowed by the renamed ${request.name}`;
      throw new NameCollision(request.file, request.name, request.newName, o.node.startPosition.row + 1, detail);
    }
  });
}

export const plainEdit = (node: Node, newName: string): RenameEdit => ({
  edit: { start: node.startIndex, end: node.endIndex, text: newName },
  at: 0,
  node,
});
const within = (outer: Node, inner: Node): boolean =>
  outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;

export const GO: LexicalRules<GoBinding> = {
  language: "go",
  analyze: analyzeGo,
  functions: new Set(["function_declaration", "method_declaration", "func_literal"]),
  label: (b) => goScopeLabel(b.scope),
  notFound: (name, inFunction) => `${name} is not declared ${inFunction ? "in that function" : "in the file"}`,
  inner: "block",
  outside: (name) => `Go's predeclared ${name}`,
  shadowed: (b, name) => (!b ? `Go's predeclared ${name}` : b.imported ? "an imported package" : "another declaration"),
};

/**
 * The edits of a scope-aware rename of a local name in one Go file (a variable, constant, type,
 * parameter or named result of a function): its declaration and exactly the identifiers that
 * resolve to it. Package-level names are refused (the package's other files use them: rename_across_files
 * renames them), as is a
 * name used as a key of a composite literal (a struct field or a map key: the tree cannot tell).
 * The result is checked by resolving both names again in the renamed text.
 */
export function renameGo(source: string, tree: Tree, request: RenameRequest): Edit[] {
  const { name, newName, file } = request;
  if (name === newName) return [];
  const analysis = analyzeGo(tree);
  const binding = lexicalBinding(analysis, GO, request, { eligible: (b) => !b.imported });
  if (binding.scope.kind === "package") {
    throw new NameCollision(
      file,
      name,
      newName,
      binding.node.startPosition.row + 1,
      `${name} is declared at package level, where the package's other files see it; rename it with rename_across_files (importers: the package's other files and the other packages' files that use it)`,
    );
  }
  const taken = binding.scope.bindings.get(newName);
  if (taken)
    throw new NameCollision(
      file,
      name,
      newName,
      taken.node.startPosition.row + 1,
      `${newName} is already declared in ${goScopeLabel(binding.scope, false)}`,
    );
  const key = analysis.keys.find((k) => k.text === name && within(binding.scope.node, k));
  if (key)
    throw new NameCollision(
      file,
      name,
      newName,
      key.startPosition.row + 1,
      `${name} is a key of a composite literal here, which is a struct field or a variable (a map key) — rename that use by hand`,
    );
  const renames = analysis.occurrences.filter((o) => o.binding === binding).map((o) => plainEdit(o.node, newName));
  verifyLexical(source, analysis, GO, renames, binding, request);
  return renames.map((r) => r.edit);
}

const JAVA: LexicalRules<JavaBinding> = {
  language: "java",
  analyze: analyzeJava,
  functions: new Set([
    "method_declaration",
    "constructor_declaration",
    "compact_constructor_declaration",
    "lambda_expression",
  ]),
  label: (b) => javaScopeLabel(b.scope),
  notFound: (name, inFunction) =>
    `${name} is not a local ${inFunction ? "of that method" : "in the file"} (${JAVA_MEMBER_SCOPE})`,
  inner: "scope",
  outside: (name) => `the field or member ${name}`,
  shadowed: (b) => (b ? "another local" : "a field or another class's member"),
};

/**
 * The edits of a scope-aware rename of a local name in one Java file (a parameter, a local
 * variable, a loop, catch, resource or pattern variable): its declaration and exactly the
 * identifiers that resolve to it. A name that is no local there is a member: a private field or
 * method is renamed by {@link renameJavaMember}; types and other members are refused (other files
 * may use them). A new name that is a local where the renamed one is in scope is refused (Java
 * forbids a local to shadow another), and the result is checked by resolving both names again: an
 * unqualified use of a field named like the new name would be shadowed.
 */
export function renameJava(source: string, tree: Tree, request: RenameRequest): Edit[] {
  const { name, newName, file } = request;
  if (name === newName) return [];
  const analysis = analyzeJava(tree);
  if (!isJavaLocal(analysis, request)) return renameJavaMember(source, tree, analysis, request);
  const binding = lexicalBinding(analysis, JAVA, request);
  // Java forbids a local to shadow a local: the new name may be a local neither around the renamed one nor inside its scope.
  for (let s: JavaScope | undefined = binding.scope; s && s.kind !== "class"; s = s.parent) {
    const taken = s.bindings.get(newName);
    if (taken)
      throw new NameCollision(
        file,
        name,
        newName,
        taken.node.startPosition.row + 1,
        `${newName} is already a local of ${javaScopeLabel(s, false)}`,
      );
    if (JAVA.functions.has(s.node.type)) break;
  }
  const inside = analysis.scopes.flatMap((s) =>
    within(binding.scope.node, s.node) && s.bindings.get(newName) ? [s.bindings.get(newName)!] : [],
  )[0];
  if (inside)
    throw new NameCollision(
      file,
      name,
      newName,
      inside.node.startPosition.row + 1,
      `${newName} is declared as a local in ${javaScopeLabel(inside.scope, false)}, inside the scope of ${name}`,
    );
  const renames = analysis.occurrences.filter((o) => o.binding === binding).map((o) => plainEdit(o.node, newName));
  verifyLexical(source, analysis, JAVA, renames, binding, request);
  return renames.map((r) => r.edit);
}

/**
 * Whether a Java request names a local: one declared anywhere in the file, or with a `scope`
 * locator in the method or lambda around it. Otherwise it names a member (a class locator, or a
 * method locator of the renamed method itself, names a member: members are class-level).
 */
function isJavaLocal(analysis: JavaScopeAnalysis, request: RenameRequest): boolean {
  const locals = analysis.scopes.flatMap((s) => (s.bindings.has(request.name) ? [s.bindings.get(request.name)!] : []));
  if (!request.scopeNode) return locals.length > 0;
  let fn: Node | null = request.scopeNode;
  while (fn && !JAVA.functions.has(fn.type)) fn = fn.parent;
  const scopeNode = fn;
  return !!scopeNode && locals.some((b) => within(scopeNode, b.scope.node));
}

// ------------------------------------------------------------------------------------------------
// JavaScript / TypeScript

/** The edit of one occurrence: `{x}` keeps its key (`{x: y}`), an import keeps the imported name (`{a as y}`). */
function jsEdit(node: Node, newName: string): RenameEdit {
  // `{key: value}` renamed to the key's own name becomes `{key}` again (`{key: value = 1}` becomes `{key = 1}`).
  const holder =
    node.parent?.type === "assignment_pattern" && node.parent.childForFieldName("left")?.id === node.id
      ? node.parent
      : node;
  const pair = holder.parent;
  if (
    (pair?.type === "pair_pattern" || pair?.type === "pair") &&
    pair.childForFieldName("value")?.id === holder.id &&
    pair.childForFieldName("key")?.text === newName
  ) {
    return {
      edit: { start: pair.childForFieldName("key")!.startIndex, end: node.endIndex, text: newName },
      at: 0,
      node,
    };
  }
  if (node.type === "shorthand_property_identifier" || node.type === "shorthand_property_identifier_pattern") {
    return {
      edit: { start: node.startIndex, end: node.endIndex, text: `${node.text}: ${newName}` },
      at: node.text.length + 2,
      node,
    };
  }
  if (node.parent?.type === "import_specifier" && !node.parent.childForFieldName("alias")) {
    return { edit: { start: node.endIndex, end: node.endIndex, text: ` as ${newName}` }, at: 4, node };
  }
  return plainEdit(node, newName);
}

const jsRules = (language: "javascript" | "typescript" | "tsx"): LexicalRules<JsBinding> => ({
  language,
  analyze: analyzeJavaScript,
  functions: new Set([
    "function_declaration",
    "generator_function_declaration",
    "function_expression",
    "function",
    "generator_function",
    "arrow_function",
    "method_definition",
  ]),
  label: (b) => jsScopeLabel(b.scope),
  notFound: (name, inFunction) => `${name} is not declared ${inFunction ? "in that function" : "in the file"}`,
  inner: "scope",
  outside: (name) => `the global ${name}`,
  shadowed: (b) => (b ? "another declaration" : "a global"),
});

/**
 * The edits of a scope-aware rename in one JavaScript or TypeScript file: a variable, parameter,
 * function or class and exactly the identifiers that resolve to it (ECMAScript's scoping:
 * `analyzeJavaScript`), keeping property keys (`{x}` becomes `{x: y}`) and imported names
 * (`import {a as y}`). A name the module exports is refused (other modules import it). Checked by
 * resolving both names again in the renamed text.
 */
export function renameJavaScript(
  source: string,
  tree: Tree,
  request: RenameRequest,
  language: "javascript" | "typescript" | "tsx",
): Edit[] {
  const { name, newName, file } = request;
  if (name === newName) return [];
  const rules = jsRules(language);
  const analysis = analyzeJavaScript(tree);
  const binding = lexicalBinding(analysis, rules, request, { preferred: analysis.program.bindings.get(name) });
  if (binding.scope.kind === "program" && analysis.exported.has(name)) {
    throw new NameCollision(
      file,
      name,
      newName,
      binding.node.startPosition.row + 1,
      `${name} is exported, and other modules import it by that name; rename it there too, by hand`,
    );
  }
  const taken = binding.scope.bindings.get(newName);
  if (taken)
    throw new NameCollision(
      file,
      name,
      newName,
      taken.node.startPosition.row + 1,
      `${newName} is already declared in ${jsScopeLabel(binding.scope, false)}`,
    );
  // JSX compiles to calls of a factory the code never names: React (the classic runtime), or a `@jsx` pragma's name.
  const factory = /@jsx\s+([A-Za-z_$][\w$]*)/.exec(source)?.[1] ?? "React";
  if (name === factory && tree.rootNode.descendantsOfType(["jsx_element", "jsx_self_closing_element"]).length > 0) {
    throw new NameCollision(
      file,
      name,
      newName,
      binding.node.startPosition.row + 1,
      `the file's JSX compiles to calls of ${name} (${factory === "React" ? "React.createElement, under the classic runtime" : "its @jsx pragma"}), which the rename would not follow`,
    );
  }
  const renames = analysis.occurrences.filter((o) => o.binding === binding).map((o) => jsEdit(o.node, newName));
  verifyLexical(source, analysis, rules, renames, binding, request);
  return renames.map((r) => r.edit);
}

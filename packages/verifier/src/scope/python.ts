/**
 * The verifier's Python {@link ScopeModel}: a thin, incremental adapter over the one model of
 * Python scoping, `analyzePython` of @graphplan/catalog (which holds every binding rule). Per
 * file version it keeps the names the module assigns, counted per top-level statement so that a
 * step's change updates them ({@link carryModuleScope}); a region of new code is resolved by
 * analyzing only the top-level statements it touches, entering only the bodies it overlaps.
 */
import { didYouMean } from "@graphplan/catalog";
import { analyzePython, isPythonBuiltin } from "@graphplan/scope";
import type { Node } from "web-tree-sitter";
import { preview } from "../fuzzy.js";
import { resolveModule } from "../modules.js";
import type { FileVersion, FileChange } from "../sim.js";
import { MEMBER_KINDS, type ImportProblem, type NameUse, type ScopeContext, type ScopeModel } from "./types.js";

/** A focus that overlaps no body: the analysis stays at the module level (and in bodies holding `global`). */
const MODULE_LEVEL = { start: 0, end: 0 } as const;

/** Module-level names, counted per top-level statement so that a change can update them. */
interface ModuleScope {
  readonly counts: Map<string, number>;
  wildcards: number;
  readonly names: Set<string>;
}

function addStatements(doc: FileVersion, scope: ModuleScope, statements: readonly Node[], sign: 1 | -1): void {
  for (const statement of statements) {
    const analysis = analyzePython(doc.tree, { statements: [statement], focus: MODULE_LEVEL });
    scope.wildcards += sign * analysis.starImports.length;
    for (const name of analysis.module.assigned) {
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

const MEMO_KEY = "py:module";

function moduleScope(doc: FileVersion): ModuleScope {
  const known = doc.memo.get(MEMO_KEY) as ModuleScope | undefined;
  if (known) return known;
  const scope: ModuleScope = { counts: new Map(), wildcards: 0, names: new Set() };
  addStatements(
    doc,
    scope,
    doc.tree.rootNode.namedChildren.filter((n): n is Node => n !== null),
    1,
  );
  doc.memo.set(MEMO_KEY, scope);
  return scope;
}

/** The top-level statements of `doc` that a span touches (for an empty span: the one holding it). */
function topLevelTouching(doc: FileVersion, span: { start: number; end: number }): Node[] {
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
    if (span.end > span.start ? n.endIndex > span.start : n.startIndex < span.start && span.start < n.endIndex)
      out.push(n);
  }
  return out;
}

/**
 * Carries the module scope of a change's old version over to its new one, re-reading only the
 * top-level statements the edits touched (instead of the whole module for every step).
 */
export function carryModuleScope(change: FileChange): void {
  if (change.before.language !== "python" || change.after.memo.has(MEMO_KEY)) return;
  const old = change.before.memo.get(MEMO_KEY) as ModuleScope | undefined;
  if (!old) return;
  // The scope moves to the new version (updated in place, not copied): the old version is being
  // replaced, and if it is read again its scope is computed afresh.
  change.before.memo.delete(MEMO_KEY);
  const scope = old;
  const removed = new Map<number, Node>();
  for (const e of change.edits) for (const n of topLevelTouching(change.before, e)) removed.set(n.id, n);
  const added = new Map<number, Node>();
  let delta = 0;
  for (const e of change.edits) {
    const start = e.start + delta;
    delta += e.text.length - (e.end - e.start);
    const span = { start, end: start + e.text.length };
    for (const n of topLevelTouching(change.after, span.end > span.start ? span : { start, end: start }))
      added.set(n.id, n);
  }
  addStatements(change.before, scope, [...removed.values()], -1);
  addStatements(change.after, scope, [...added.values()], 1);
  change.after.memo.set(MEMO_KEY, scope);
}

/** `from M import N` written in `[start, end)`, where M is a workspace file that does not define N. */
function fromImportProblems(
  doc: FileVersion,
  start: number,
  end: number,
  { sim, graph }: ScopeContext,
): ImportProblem[] {
  const out: ImportProblem[] = [];
  const inner = doc.tree.rootNode.descendantForIndex(start, Math.max(start, end - 1)) ?? doc.tree.rootNode;
  const scope = inner.startIndex <= start && inner.endIndex >= end ? inner : doc.tree.rootNode;
  const imports =
    scope.type === "import_from_statement"
      ? [scope]
      : scope.descendantsOfType("import_from_statement", doc.position(start), doc.position(end));
  for (const imp of imports) {
    if (!imp || imp.startIndex < start || imp.endIndex > end) continue;
    const moduleName = imp.childForFieldName("module_name")?.text;
    if (!moduleName) continue;
    const target = resolveModule(moduleName, doc.path, sim, graph);
    const targetDoc = target ? sim.doc(target) : undefined;
    if (!target || !targetDoc) continue;
    const defined = pythonScope.definedAtTopLevel(targetDoc);
    for (const name of imp.childrenForFieldName("name")) {
      if (!name) continue;
      const imported = (name.type === "aliased_import" ? name.childForFieldName("name")?.text : name.text) ?? "";
      if (!imported || defined.has(imported)) continue;
      // `from pkg import sub` may name a submodule.
      if (resolveModule(`${moduleName}.${imported}`, doc.path, sim, graph)) continue;
      // A submodule in a file that was not given.
      if (target.endsWith("/__init__.py") || target === "__init__.py") {
        const pkg = target.slice(0, -"__init__.py".length);
        if (sim.unseen(`${pkg}${imported}.py`) || sim.unseen(`${pkg}${imported}/__init__.py`)) continue;
      }
      const suggestion = didYouMean(imported, defined);
      out.push({
        line: imp.startPosition.row + 1,
        message: `the new import \`${preview(imp.text)}\` names '${imported}', which ${target} does not define`,
        fix: suggestion
          ? `did you mean '${suggestion}'?`
          : `import it from the module that defines it (see the graph), or add it to ${target} first`,
      });
    }
  }
  return out;
}

export const pythonScope: ScopeModel = {
  language: "python",
  unresolved(doc: FileVersion, start: number, end: number): NameUse[] | "unknown" {
    const module = moduleScope(doc);
    if (module.wildcards > 0) return "unknown";
    const statements = topLevelTouching(doc, { start, end });
    if (statements.length === 0) return [];
    const analysis = analyzePython(doc.tree, { statements, focus: { start, end } });
    const out: NameUse[] = [];
    for (const o of analysis.occurrences) {
      if (!o.reads || o.node.startIndex < start || o.node.endIndex > end) continue;
      if (analysis.resolves(o, module.names)) continue;
      out.push({ name: o.name, index: o.node.startIndex, line: o.node.startPosition.row + 1 });
    }
    return out.sort((a, b) => a.index - b.index);
  },
  definedAtTopLevel(doc: FileVersion): ReadonlySet<string> {
    return moduleScope(doc).names;
  },
  isBuiltin(name: string): boolean {
    return isPythonBuiltin(name);
  },
  importable: (kind) => !MEMBER_KINDS.has(kind),
  importFix(name: string, file: string): string {
    const module = file
      .replace(/\.pyi?$/, "")
      .replace(/\/__init__$/, "")
      .replace(/^src\//, "")
      .split("/")
      .join(".");
    return `add an add_import step for \`from ${module} import ${name}\` before this step`;
  },
  importProblems: fromImportProblems,
};

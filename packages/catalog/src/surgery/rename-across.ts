/**
 * A module-level Python name renamed in its module and in the files that import it: `from m import
 * name` (the import and the importer's references), `from m import name as alias` (the import only),
 * `import m` / `import m as x` (the `m.name` / `x.name` attributes). Each file's part is scope-aware
 * (the rename of one file, {@link renamePython}): shadowing bindings and strings are left alone, and
 * a new name already bound where it would land is a {@link NameCollision}.
 */
import { moduleMayDenote, type Node, type Tree } from "@graphplan/graph";
import type { Edit } from "@graphplan/primitives";
import { analyzePython, type ScopeAnalysis } from "@graphplan/scope";
import { BindingNotFound, NameCollision, renamePython } from "./rename.js";

export interface AcrossRequest {
  readonly file: string;
  readonly name: string;
  readonly newName: string;
}

export interface PythonFile {
  readonly path: string;
  readonly source: string;
  readonly tree: Tree;
}

/** The function or class whose scope a statement is in (undefined: the module). */
const enclosingScope = (node: Node): Node | undefined => {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === "function_definition" || p.type === "class_definition") return p;
  }
  return undefined;
};

/** The strings of a module-level `__all__ = [...]` (or tuple) that spell `name`. */
function allEntries(tree: Tree, name: string): Node[] {
  const out: Node[] = [];
  for (const statement of tree.rootNode.namedChildren) {
    const assignment = statement?.type === "expression_statement" ? statement.namedChild(0) : null;
    if (assignment?.type !== "assignment" || assignment.childForFieldName("left")?.text !== "__all__") continue;
    const right = assignment.childForFieldName("right");
    for (const item of right?.namedChildren ?? []) {
      if (item?.type !== "string") continue;
      const content = item.namedChildren.find((c) => c?.type === "string_content");
      if (content?.text === name) out.push(content);
    }
  }
  return out;
}

/** The edits in one importer: its imports of `name` from the module, and what they bind. */
function importerEdits(importer: PythonFile, request: AcrossRequest): Edit[] {
  const { name, newName, file } = request;
  const edits: Edit[] = [];
  let analysis: ScopeAnalysis | undefined;
  const statements = importer.tree.rootNode
    .descendantsOfType(["import_from_statement", "import_statement"])
    .filter((s): s is Node => !!s);
  /** Names (or dotted prefixes) that denote the module in this file: `import pkg.util` → `pkg.util`, `import pkg.util as u` → `u`. */
  const moduleNames = new Set<string>();
  /** The scopes (the module, or a function or class holding a local import) whose `from m import name` binds the name itself. */
  const bindingScopes = new Map<number, Node>();
  for (const statement of statements) {
    if (statement.type === "import_from_statement") {
      const module = statement.childForFieldName("module_name")?.text.replace(/\s+/g, "") ?? "";
      if (!moduleMayDenote(module, importer.path, file)) continue;
      for (const child of statement.childrenForFieldName("name")) {
        if (!child) continue;
        const dotted = child.type === "aliased_import" ? child.childForFieldName("name") : child;
        if (dotted?.text !== name) continue;
        // `from m import name as alias` keeps the alias; `name as name` (an explicit re-export) renames both.
        if (child.type === "aliased_import" && child.childForFieldName("alias")?.text !== name) {
          edits.push({ start: dotted.startIndex, end: dotted.endIndex, text: newName });
          continue;
        }
        if (child.type === "aliased_import")
          edits.push({ start: dotted.startIndex, end: dotted.endIndex, text: newName });
        const scope = enclosingScope(statement) ?? importer.tree.rootNode;
        bindingScopes.set(scope.id, scope);
      }
      continue;
    }
    for (const child of statement.childrenForFieldName("name")) {
      if (!child) continue;
      const dotted = child.type === "aliased_import" ? child.childForFieldName("name") : child;
      if (!dotted || !moduleMayDenote(dotted.text, importer.path, file)) continue;
      moduleNames.add(
        child.type === "aliased_import" ? (child.childForFieldName("alias")?.text ?? dotted.text) : dotted.text,
      );
    }
  }
  for (const scopeNode of bindingScopes.values()) {
    // The importer's own binding of `name` in that scope and every reference to it: renamed as in one
    // file, then the import itself names the new symbol (`from m import new`, not `... name as new`).
    for (const edit of renamePython(importer.source, importer.tree, {
      file: importer.path,
      name,
      newName,
      scopeNode,
    })) {
      const insertion = edit.start === edit.end && edit.text === ` as ${newName}`;
      edits.push(insertion ? { start: edit.start - name.length, end: edit.end, text: newName } : edit);
    }
  }
  // A file that re-exports the name lists it in its __all__ too.
  if (bindingScopes.has(importer.tree.rootNode.id))
    for (const entry of allEntries(importer.tree, name))
      edits.push({ start: entry.startIndex, end: entry.endIndex, text: newName });
  if (moduleNames.size > 0) {
    analysis ??= analyzePython(importer.tree);
    for (const attribute of importer.tree.rootNode.descendantsOfType("attribute")) {
      const field = attribute?.childForFieldName("attribute");
      const object = attribute?.childForFieldName("object");
      if (!attribute || !field || !object || field.text !== name || !moduleNames.has(object.text)) continue;
      // The object's first name must be the import's module-level binding, not a local that shadows it.
      let root: Node = object;
      while (root.type === "attribute") root = root.childForFieldName("object") ?? root;
      const occurrence = analysis.occurrences.find((o) => o.node.id === root.id);
      if (occurrence && analysis.resolve(occurrence)?.kind !== "module") continue;
      edits.push({ start: field.startIndex, end: field.endIndex, text: newName });
    }
  }
  return edits.sort((a, b) => a.start - b.start);
}

/**
 * The edits of renaming module-level `name` of `module` to `newName` there and in `importers`.
 * Throws `BindingNotFound` when the module does not bind the name at its top level, and
 * `NameCollision` when the new name is taken in the module or in an importer that imports the name.
 */
export function renameAcrossFiles(
  module: PythonFile,
  importers: readonly PythonFile[],
  request: AcrossRequest,
): Map<string, Edit[]> {
  const out = new Map<string, Edit[]>();
  if (request.name === request.newName) return out;
  const analysis = analyzePython(module.tree);
  const moduleScope = analysis.scopes.find((s) => s.kind === "module");
  if (!moduleScope?.bound.has(request.name))
    throw new BindingNotFound(module.path, request.name, "the module does not bind it at its top level", []);
  const own = renamePython(module.source, module.tree, {
    file: module.path,
    name: request.name,
    newName: request.newName,
    scopeNode: module.tree.rootNode,
  });
  const listed = allEntries(module.tree, request.name).map((n) => ({
    start: n.startIndex,
    end: n.endIndex,
    text: request.newName,
  }));
  out.set(
    module.path,
    [...own, ...listed].sort((a, b) => a.start - b.start),
  );
  for (const importer of importers) {
    if (importer.path === module.path) continue;
    const edits = importerEdits(importer, request);
    if (edits.length === 0)
      throw new BindingNotFound(
        importer.path,
        request.name,
        `the file neither imports ${request.name} from ${module.path} nor uses it through an import of that module; leave it out of "importers"`,
        [],
      );
    out.set(importer.path, edits);
  }
  return out;
}

export { NameCollision };

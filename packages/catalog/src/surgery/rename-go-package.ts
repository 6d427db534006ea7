/**
 * A Go package-level name (function, type, variable, constant) renamed in its package and in the
 * files of other packages that use it. A package is the `.go` files of one directory with one
 * package clause: there every use of the name that no declaration of the file binds names the
 * package-level one; in another package, `p.Name` (and the type `p.Name`), where `p` is an import of
 * the package's directory (an import path ending with the directory, or with a trailing part of it).
 * Refused where Go would resolve differently after the rename: the new name declared at package
 * level, a use captured by a local or an import of the new name, a predeclared name the new one
 * would shadow, a composite-literal key of the name (a field or a variable), exporting or
 * unexporting a name other packages use, and a dot import of the package.
 */
import { withTree, type Node, type Tree } from "@graphplan/graph";
import { applyEdits, type Edit } from "@graphplan/primitives";
import { analyzeGo, type GoScopeAnalysis } from "@graphplan/scope";
import { BindingNotFound, GO, NameCollision, plainEdit, verifyLexical } from "./rename.js";

export interface GoFile {
  readonly path: string;
  readonly source: string;
  readonly tree: Tree;
}

export interface GoRenameRequest {
  readonly file: string;
  readonly name: string;
  readonly newName: string;
}

const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);
const dirOf = (path: string): string => path.slice(0, Math.max(0, path.lastIndexOf("/")));
const packageClause = (tree: Tree): string | undefined =>
  named(named(tree.rootNode).find((n) => n.type === "package_clause")).find((n) => n.type === "package_identifier")
    ?.text;
const exported = (name: string): boolean => /^\p{Lu}/u.test(name);
const line = (node: Node): number => node.startPosition.row + 1;

/** Whether an import path denotes the directory `dir` of the workspace (its path ends with the directory, or a trailing part of it). */
function denotes(importPath: string, dir: string): boolean {
  const parts = dir.split("/").filter(Boolean);
  if (parts.length === 0) return false;
  for (let i = 0; i < parts.length; i++) {
    const tail = parts.slice(i).join("/");
    if (importPath === tail || importPath.endsWith(`/${tail}`)) return true;
  }
  return false;
}

/** The edits in a file of another package: `p.Name` where `p` imports the package. */
function importerEdits(
  file: GoFile,
  analysis: GoScopeAnalysis,
  dir: string,
  pkgName: string | undefined,
  request: GoRenameRequest,
): Edit[] {
  const names = new Set<string>();
  for (const spec of file.tree.rootNode.descendantsOfType("import_spec")) {
    if (!spec || !denotes(spec.childForFieldName("path")?.text.slice(1, -1) ?? "", dir)) continue;
    const alias = spec.childForFieldName("name");
    if (alias?.type === "dot")
      throw new NameCollision(
        file.path,
        request.name,
        request.newName,
        line(spec),
        `the file imports the package with \`import .\`, which puts its names among the file's own; rename those uses by hand`,
      );
    if (alias?.type === "package_identifier") names.add(alias.text);
    else if (!alias && pkgName) names.add(pkgName);
  }
  const edits: Edit[] = [];
  const local = new Set(analysis.occurrences.filter((o) => o.binding && !o.binding.imported).map((o) => o.node.id));
  for (const node of file.tree.rootNode.descendantsOfType(["selector_expression", "qualified_type"])) {
    if (!node) continue;
    const qualifier = node.childForFieldName(node.type === "selector_expression" ? "operand" : "package");
    const member = node.childForFieldName(node.type === "selector_expression" ? "field" : "name");
    // A local named like the package shadows it: `money.Sum` is then a field or method of that local.
    if (!qualifier || !member || member.text !== request.name || !names.has(qualifier.text) || local.has(qualifier.id))
      continue;
    edits.push({ start: member.startIndex, end: member.endIndex, text: request.newName });
  }
  return edits;
}

/**
 * gofmt aligns the `=` of a run of specs in a `var (…)` or `const (…)` block (consecutive one-line
 * specs; a blank line or a comment on its own line ends a run, a trailing comment moves with its
 * value): a renamed name of another length would leave the run misaligned. For a run of untyped specs
 * around the declaration, the spaces before each `=` are set as gofmt sets them (edits of whitespace
 * only); a run with types is left as it is.
 */
function realignSpecs(declaration: Node, newName: string, edits: readonly Edit[]): Edit[] {
  const spec = declaration.parent;
  const block = spec?.parent;
  if (
    !spec ||
    !block ||
    !["var_spec", "const_spec"].includes(spec.type) ||
    !["var_declaration", "const_declaration"].includes(block.type)
  )
    return [...edits];
  // tree-sitter-go may group a parenthesized var block's specs in a var_spec_list.
  const specs = named(block)
    .flatMap((n) => (n.type === "var_spec_list" ? named(n) : [n]))
    .filter((n) => n.type !== "comment");
  const simple = (n: Node): boolean =>
    n.type === spec.type &&
    !n.childForFieldName("type") &&
    !!n.childForFieldName("value") &&
    n.startPosition.row === n.endPosition.row;
  const index = specs.findIndex((n) => n.id === spec.id);
  if (index < 0 || !simple(spec)) return [...edits];
  let first = index;
  let last = index;
  const adjacent = (a: Node, b: Node): boolean =>
    simple(a) && simple(b) && b.startPosition.row === a.endPosition.row + 1;
  while (first > 0 && adjacent(specs[first - 1]!, specs[first]!)) first--;
  while (last < specs.length - 1 && adjacent(specs[last]!, specs[last + 1]!)) last++;
  const run = specs.slice(first, last + 1).map((n) => {
    const names = n.childrenForFieldName("name").filter((x): x is Node => !!x);
    const equals = n.children.find((c) => c?.type === "=")!;
    return {
      names: names.map((x) => (x.id === declaration.id ? newName : x.text)).join(", "),
      end: names.at(-1)!.endIndex,
      equals: equals.startIndex,
    };
  });
  const width = Math.max(...run.map((r) => r.names.length));
  const gaps = run.map((r) => ({ start: r.end, end: r.equals, text: " ".repeat(width - r.names.length + 1) }));
  // (gofmt pads with spaces: a gap of the right length is right.)
  return [...edits, ...gaps.filter((g) => g.text.length !== g.end - g.start)].sort((x, y) => x.start - y.start);
}

/**
 * The edits of renaming package-level `name` of `declaring`'s package to `newName`, in `declaring` and
 * in `others`: the package's other files (all of them: each is checked for a clash) and the files of
 * other packages that use it. `unlisted`: files the run has that `others` leaves out; one of the
 * package is refused, naming it.
 */
export function renameGoPackageName(
  declaring: GoFile,
  others: readonly GoFile[],
  request: GoRenameRequest,
  unlisted: readonly GoFile[] = [],
): Map<string, Edit[]> {
  const { name, newName } = request;
  const out = new Map<string, Edit[]>();
  if (name === newName) return out;
  const analysis = analyzeGo(declaring.tree);
  const binding = analysis.package.bindings.get(name);
  if (!binding || binding.imported)
    throw new BindingNotFound(declaring.path, name, "the file does not declare it at package level", []);
  const dir = dirOf(declaring.path);
  const pkgName = packageClause(declaring.tree);
  const missing = unlisted.filter((f) => dirOf(f.path) === dir && packageClause(f.tree) === pkgName).map((f) => f.path);
  if (missing.length)
    throw new BindingNotFound(
      declaring.path,
      name,
      `the package's files ${missing.join(", ")} are not in "importers": list every file of the package, whether or not it uses ${name} (each is checked for a clash with ${newName})`,
      [],
    );
  const siblings = others.filter(
    (f) => f.path !== declaring.path && dirOf(f.path) === dir && packageClause(f.tree) === pkgName,
  );
  const outside = others.filter((f) => f.path !== declaring.path && !siblings.includes(f));
  const analyses = new Map<string, GoScopeAnalysis>([[declaring.path, analysis]]);
  for (const f of others) analyses.set(f.path, analyzeGo(f.tree));

  for (const f of [declaring, ...siblings]) {
    const a = analyses.get(f.path)!;
    const taken = a.package.bindings.get(newName);
    if (taken && !taken.imported)
      throw new NameCollision(
        f.path,
        name,
        newName,
        line(taken.node),
        `${newName} is already declared at package level`,
      );
    const key = a.keys.find((k) => k.text === name);
    if (key)
      throw new NameCollision(
        f.path,
        name,
        newName,
        line(key),
        `${name} is a key of a composite literal here, which is a struct field or a variable (a map key) — rename that use by hand`,
      );
  }
  const own = analysis.occurrences.filter((o) => o.binding === binding).map((o) => plainEdit(o.node, newName));
  verifyLexical(declaring.source, analysis, GO, own, binding, { file: declaring.path, name, newName });
  out.set(
    declaring.path,
    realignSpecs(
      binding.node,
      newName,
      own.map((r) => r.edit),
    ),
  );

  for (const f of siblings) {
    const a = analyses.get(f.path)!;
    // No declaration of this file binds them: they name the package-level one.
    const uses = a.occurrences.filter((o) => !o.binding && o.name === name);
    const shadowed = a.occurrences.find((o) => !o.binding && o.name === newName);
    if (shadowed)
      throw new NameCollision(
        f.path,
        name,
        newName,
        line(shadowed.node),
        `the ${newName} used here (Go's predeclared ${newName}) would name the renamed ${name} instead`,
      );
    if (uses.length === 0) continue;
    const edits = uses.map((o) => ({ start: o.node.startIndex, end: o.node.endIndex, text: newName }));
    // Each use must still name the package-level declaration: no local or import of the new name around it.
    withTree(applyEdits(f.source, edits), "go", (tree) => {
      const starts = new Set(edits.map((e, i) => e.start + i * (newName.length - name.length)));
      const captured = analyzeGo(tree).occurrences.find((o) => starts.has(o.node.startIndex) && o.binding);
      if (captured)
        throw new NameCollision(
          f.path,
          name,
          newName,
          line(captured.node),
          `this use of ${name} would name ${captured.binding!.imported ? "an imported package" : `another ${newName} (declared in an inner block)`} instead`,
        );
    });
    out.set(f.path, edits);
  }

  for (const f of outside) {
    const edits = importerEdits(f, analyses.get(f.path)!, dir, pkgName, request);
    if (edits.length === 0)
      throw new BindingNotFound(
        f.path,
        name,
        `the file neither is in ${name}'s package nor uses ${pkgName ?? "the package"}.${name}; leave it out of "importers"`,
        [],
      );
    if (exported(name) !== exported(newName)) {
      throw new NameCollision(
        f.path,
        name,
        newName,
        line(edits[0] ? f.tree.rootNode.descendantForIndex(edits[0].start)! : f.tree.rootNode),
        `${exported(name) ? "renaming to a lower-case name unexports" : "the name is not exported; renaming to upper-case exports"} ${name}, which this file of another package uses`,
      );
    }
    out.set(f.path, edits);
  }
  return out;
}

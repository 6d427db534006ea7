/**
 * The verifier's Go {@link ScopeModel}, over `analyzeGo` of @graphplan/scope (GraphPlan's one
 * model of Go's blocks, which rename uses too) and the Go specification's package rules, which one
 * file cannot see: a package is the `.go` files of one directory with the same package clause, and
 * its package block holds the top-level names of all of them (a `_test.go` file's names only for
 * the package's tests); another package of the module (go.mod's `module` path + the directory) is
 * reached through an import, and only its exported (upper-case) names.
 */
import { didYouMean } from "@graphplan/catalog";
import type { Node, Tree } from "@graphplan/graph";
import { analyzeGo, goImportName, GO_PREDECLARED, type GoBinding, type GoScopeAnalysis } from "@graphplan/scope";
import type { FileVersion } from "../sim.js";
import { dirOf, filesIn } from "./paths.js";
import { MEMBER_KINDS, type ImportProblem, type NameUse, type ScopeContext, type ScopeModel } from "./types.js";

const analyses = new WeakMap<Tree, GoScopeAnalysis>();
function analysisOf(doc: FileVersion): GoScopeAnalysis {
  let analysis = analyses.get(doc.tree);
  if (!analysis) analyses.set(doc.tree, (analysis = analyzeGo(doc.tree)));
  return analysis;
}

/** A file's package clause and the names it declares in the package block (imports are the file's own). */
interface FilePackage {
  readonly name: string | undefined;
  readonly names: ReadonlySet<string>;
}
function filePackage(doc: FileVersion): FilePackage {
  const known = doc.memo.get("go:package") as FilePackage | undefined;
  if (known) return known;
  const clause = doc.tree.rootNode.namedChildren.find((n) => n?.type === "package_clause");
  const names = new Set([...analysisOf(doc).package.bindings.values()].filter((b) => !b.imported).map((b) => b.name));
  const found: FilePackage = { name: clause?.namedChildren.find((n) => n?.type === "package_identifier")?.text, names };
  doc.memo.set("go:package", found);
  return found;
}

const isTest = (path: string): boolean => path.endsWith("_test.go");

/** The package-block names of `doc`'s package that other files declare. */
function packageNames(doc: FileVersion, context: ScopeContext): Set<string> {
  const own = filePackage(doc).name;
  const names = new Set<string>();
  for (const path of filesIn(dirOf(doc.path), ".go", context)) {
    // A package's own files do not see its tests' names.
    if (path === doc.path || (isTest(path) && !isTest(doc.path))) continue;
    const sibling = context.sim.doc(path);
    if (!sibling) continue;
    const pkg = filePackage(sibling);
    if (pkg.name === own) for (const name of pkg.names) names.add(name);
  }
  return names;
}

/** The package of the module in `dir`: its clause's name and its package-block names (without its tests). */
function packageIn(dir: string, context: ScopeContext): { name: string | undefined; names: Set<string> } | undefined {
  const files = filesIn(dir, ".go", context).filter((path) => !isTest(path));
  if (files.length === 0) return undefined;
  const names = new Set<string>();
  let name: string | undefined;
  for (const path of files) {
    const doc = context.sim.doc(path);
    if (!doc) continue;
    const pkg = filePackage(doc);
    name ??= pkg.name;
    if (pkg.name === name) for (const each of pkg.names) names.add(each);
  }
  return { name, names };
}

/** The module holding `path`: its go.mod's directory and `module` path. */
function moduleOf(path: string, { sim }: ScopeContext): { root: string; path: string } | undefined {
  for (let dir = dirOf(path); ; dir = dirOf(dir)) {
    const text = sim.text(dir ? `${dir}/go.mod` : "go.mod");
    const module = text?.match(/^\s*module\s+"?([^\s"]+)"?/m)?.[1];
    if (module) return { root: dir, path: module };
    if (!dir) return undefined;
  }
}

/** The workspace directory an import path names, when it is inside the module of `from`. */
function importedDir(importPath: string, from: string, context: ScopeContext): string | undefined {
  const module = moduleOf(from, context);
  if (!module || (importPath !== module.path && !importPath.startsWith(`${module.path}/`))) return undefined;
  const rest = importPath.slice(module.path.length + 1);
  return [module.root, rest].filter(Boolean).join("/");
}

/** The import spec a package binding comes from. */
const specOf = (binding: GoBinding): Node | undefined =>
  binding.node.type === "import_spec" ? binding.node : (binding.node.parent ?? undefined);
const importPathOf = (spec: Node): string => spec.childForFieldName("path")?.text.slice(1, -1) ?? "";

/** Names the file's imports bind that `analyzeGo`'s guess from the path cannot know, and whether some import's name stays unknown. */
function importNames(doc: FileVersion, context: ScopeContext): { names: Set<string>; uncertain: boolean } {
  const names = new Set<string>();
  let uncertain = false;
  for (const spec of doc.tree.rootNode.descendantsOfType("import_spec")) {
    if (!spec || spec.childForFieldName("name")) continue;
    const path = importPathOf(spec);
    const dir = importedDir(path, doc.path, context);
    const name = dir === undefined ? undefined : packageIn(dir, context)?.name;
    if (name) names.add(name);
    else if (!goImportName(path)) uncertain = true;
  }
  return { names, uncertain };
}

const isQualifier = (node: Node): boolean =>
  (node.parent?.type === "selector_expression" && node.parent.childForFieldName("operand")?.id === node.id) ||
  (node.parent?.type === "qualified_type" && node.parent.childForFieldName("package")?.id === node.id);

const exported = (name: string): boolean => /^\p{Lu}/u.test(name);

/** A new import of a module path that names no package, and `pkg.Name` of a workspace package that declares or exports no `Name`. */
function goImportProblems(doc: FileVersion, start: number, end: number, context: ScopeContext): ImportProblem[] {
  const out: ImportProblem[] = [];
  const inRegion = (n: Node): boolean => n.startIndex >= start && n.endIndex <= end;
  for (const spec of doc.tree.rootNode.descendantsOfType("import_spec")) {
    if (!spec || !inRegion(spec)) continue;
    const path = importPathOf(spec);
    const dir = importedDir(path, doc.path, context);
    if (dir !== undefined && !packageIn(dir, context) && !context.sim.unseenIn(dir, ".go")) {
      out.push({
        line: spec.startPosition.row + 1,
        message: `the new import "${path}" names no package of the module: ${dir || "its root"} has no .go files`,
        fix: "import the directory that declares what you use (see the graph), or create its package first",
      });
    }
  }
  for (const o of analysisOf(doc).occurrences) {
    if (!o.binding?.imported || !inRegion(o.node) || !isQualifier(o.node)) continue;
    const spec = specOf(o.binding);
    const dir = spec && importedDir(importPathOf(spec), doc.path, context);
    const pkg = dir === undefined ? undefined : packageIn(dir, context);
    const member = o.node.parent?.childForFieldName(o.node.parent.type === "qualified_type" ? "name" : "field")?.text;
    if (!pkg || !member) continue;
    const line = o.node.startPosition.row + 1;
    if (!pkg.names.has(member)) {
      const suggestion = didYouMean(member, [...pkg.names].filter(exported));
      out.push({
        line,
        message: `\`${o.name}.${member}\` (line ${line}): package ${pkg.name ?? o.name} (${dir || "the module root"}) does not declare '${member}'`,
        fix: suggestion
          ? `did you mean '${o.name}.${suggestion}'?`
          : `use a name ${dir || "the module root"} declares (see the graph), or declare '${member}' there first`,
      });
    } else if (!exported(member)) {
      out.push({
        line,
        message: `\`${o.name}.${member}\` (line ${line}): '${member}' is not exported by package ${pkg.name ?? o.name} (${dir || "the module root"}); only names that start with an upper-case letter are visible in other packages`,
        fix: `rename '${member}' to '${member[0]!.toUpperCase()}${member.slice(1)}' in its package first (rename_identifier), or use an exported name`,
      });
    }
  }
  return out;
}

export const goScope: ScopeModel = {
  language: "go",
  unresolved(doc: FileVersion, start: number, end: number, context: ScopeContext): NameUse[] | "unknown" {
    // `import . "p"` puts p's names in the file block: which ones, only p's source says.
    if (doc.tree.rootNode.descendantsOfType("import_spec").some((s) => s?.childForFieldName("name")?.type === "dot"))
      return "unknown";
    const analysis = analysisOf(doc);
    const inRegion = analysis.occurrences.filter(
      (o) => !o.binding && o.node.startIndex >= start && o.node.endIndex <= end && !GO_PREDECLARED.has(o.name),
    );
    if (inRegion.length === 0) return [];
    // A name no local binds is the package's, an import's or undefined: with files of the package not
    // given, which it is only they say.
    if (context.sim.unseenIn(dirOf(doc.path), ".go")) return "unknown";
    const siblings = packageNames(doc, context);
    const imports = importNames(doc, context);
    return inRegion
      .filter((o) => !siblings.has(o.name) && !imports.names.has(o.name) && !(imports.uncertain && isQualifier(o.node)))
      .map((o) => ({ name: o.name, index: o.node.startIndex, line: o.node.startPosition.row + 1 }));
  },
  definedAtTopLevel(doc: FileVersion): ReadonlySet<string> {
    return filePackage(doc).names;
  },
  isBuiltin(name: string): boolean {
    return GO_PREDECLARED.has(name);
  },
  importable: (kind) => !MEMBER_KINDS.has(kind),
  importFix(name: string, file: string, doc: FileVersion, context: ScopeContext): string | undefined {
    const dir = dirOf(file);
    if (dir === dirOf(doc.path)) {
      return isTest(file) && !isTest(doc.path)
        ? `'${name}' is declared in a test file, which the package's own files do not see: move it to a file not named *_test.go, or use another name`
        : `'${name}' is declared in ${file}, whose package clause is not ${filePackage(doc).name ?? "this file's"}: make the package clauses agree`;
    }
    const module = moduleOf(file, context);
    if (!module) return undefined;
    const importPath = [module.path, dir.slice(module.root.length).replace(/^\//, "")].filter(Boolean).join("/");
    const pkg = packageIn(dir, context)?.name ?? dir.split("/").pop();
    const use = `add an add_import step for \`import "${importPath}"\` before this step and write \`${pkg}.${exported(name) ? name : `${name[0]!.toUpperCase()}${name.slice(1)}`}\``;
    return exported(name)
      ? use
      : `'${name}' is not exported: rename it to start with an upper-case letter in ${file} first, then ${use}`;
  },
  importProblems: goImportProblems,
};

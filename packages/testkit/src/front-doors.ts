/**
 * Which names each package's front door (`src/index.ts`) exports, and which of them are imported from outside
 * the package: by another workspace (package, app or benchmark, its tests included) or by a README example that
 * CI runs (the package's `src/readme.test.ts`, and the first example of the READMEs the release rehearsal runs). Imports are read
 * by parsing the files with TypeScript (import and re-export declarations, `import("…")` types, namespace
 * imports followed by `.name`, and `const { a, b } = await import("…")`), so a name in prose or a comment is
 * not a use.
 *
 * Run `pnpm exec tsx packages/testkit/src/front-doors.ts` from the repository root for the table.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

const WORKSPACE_GROUPS = ["packages", "apps", "benchmarks"];

/** The TypeScript and JavaScript files under `dir`, without `node_modules` and build output. */
export function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ["node_modules", "dist", ".turbo"].includes(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The names an index exports, values and types alike (`export { a, type B }`, `export * as N`, `export const k`). */
export function exportedNames(index: string): string[] {
  const file = ts.createSourceFile("index.ts", index, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names: string[] = [];
  for (const statement of file.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause && ts.isNamedExports(clause)) names.push(...clause.elements.map((e) => e.name.text));
      else if (clause && ts.isNamespaceExport(clause)) names.push(clause.name.text);
      else throw new Error("`export *` hides what a front door exports: name the exports");
      continue;
    }
    const exported =
      ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (!exported) continue;
    if (ts.isVariableStatement(statement)) {
      for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement)) &&
      statement.name
    ) {
      names.push(statement.name.text);
    }
  }
  return names;
}

/** A module specifier's package part: `@graphplan/runtime/testing` → `@graphplan/runtime`, and the subpath `/testing`. */
function splitSpecifier(specifier: string): { pkg: string; subpath: string } {
  const parts = specifier.split("/");
  const pkg = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
  return { pkg, subpath: specifier.slice(pkg.length) };
}

/** The names a file imports from the main entry (`"@scope/pkg"`, not a subpath) of each package, by package name. */
export function importedNames(text: string, fileName = "file.ts"): Map<string, Set<string>> {
  const kind = /\.tsx$/.test(fileName)
    ? ts.ScriptKind.TSX
    : /\.m?js$/.test(fileName)
      ? ts.ScriptKind.JS
      : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const used = new Map<string, Set<string>>();
  const add = (specifier: string, name: string): void => {
    const { pkg, subpath } = splitSpecifier(specifier);
    if (subpath) return;
    if (!used.has(pkg)) used.set(pkg, new Set());
    used.get(pkg)!.add(name);
  };
  const namespaces = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const specifier = node.moduleSpecifier.text;
      if (ts.isImportDeclaration(node)) {
        const clause = node.importClause;
        if (clause?.name) add(specifier, "default");
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings))
          for (const e of bindings.elements) add(specifier, (e.propertyName ?? e.name).text);
        if (bindings && ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, specifier);
      } else {
        const clause = node.exportClause;
        if (clause && ts.isNamedExports(clause))
          for (const e of clause.elements) add(specifier, (e.propertyName ?? e.name).text);
      }
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal) &&
      node.qualifier
    ) {
      const first = ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.left;
      if (ts.isIdentifier(first)) add(node.argument.literal.text, first.text);
    } else if (ts.isVariableDeclaration(node) && node.initializer && ts.isObjectBindingPattern(node.name)) {
      let init: ts.Expression = node.initializer;
      if (ts.isAwaitExpression(init)) init = init.expression;
      if (
        ts.isCallExpression(init) &&
        init.expression.kind === ts.SyntaxKind.ImportKeyword &&
        init.arguments[0] &&
        ts.isStringLiteral(init.arguments[0])
      ) {
        const specifier = init.arguments[0].text;
        for (const e of node.name.elements) {
          const name = e.propertyName ?? e.name;
          if (ts.isIdentifier(name)) add(specifier, name.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (namespaces.size > 0) {
    const qualified = (node: ts.Node): void => {
      if (
        (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) &&
        ts.isIdentifier(ts.isPropertyAccessExpression(node) ? node.expression : node.left)
      ) {
        const base = (ts.isPropertyAccessExpression(node) ? node.expression : node.left) as ts.Identifier;
        const specifier = namespaces.get(base.text);
        if (specifier) add(specifier, ts.isPropertyAccessExpression(node) ? node.name.text : node.right.text);
      }
      ts.forEachChild(node, qualified);
    };
    qualified(file);
  }
  return used;
}

export interface FrontDoor {
  /** The package's name, e.g. `@graphplan/catalog`. */
  readonly name: string;
  /** Its directory, relative to the repository root. */
  readonly dir: string;
  /** Every name its `src/index.ts` exports. */
  readonly exported: readonly string[];
  /** The exported names some file outside the package imports (or its CI-run README example does). */
  readonly used: readonly string[];
}

/** A fenced `ts`/`js` block of markdown: its language and its code. */
const EXAMPLE = /^```(ts|typescript|js|javascript|mjs)[^\n]*\n([\s\S]*?)^```/m;

/** The packages whose README's first example the release rehearsal runs (`README_PACKAGES` of packages/release). */
function rehearsedReadmes(root: string): Set<string> {
  const rehearsal = join(root, "packages", "release", "src", "rehearsal.ts");
  const list = existsSync(rehearsal) ? /README_PACKAGES = \[([^\]]*)\]/.exec(readFileSync(rehearsal, "utf8")) : null;
  return new Set([...(list?.[1] ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]!));
}

interface Workspace {
  readonly name: string;
  readonly dir: string;
}

function workspaces(root: string): Workspace[] {
  return WORKSPACE_GROUPS.flatMap((group) =>
    existsSync(join(root, group))
      ? readdirSync(join(root, group))
          .map((name) => join(root, group, name))
          .filter((dir) => existsSync(join(dir, "package.json")))
          .map((dir) => ({
            dir,
            name: (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string }).name,
          }))
      : [],
  );
}

/** Every package with a front door (testkit, the tests' own support, aside) and which of its exports are used. */
export function frontDoors(root: string = ROOT): FrontDoor[] {
  const all = workspaces(root);
  const rehearsed = rehearsedReadmes(root);
  const files = all.flatMap((w) => sourceFiles(w.dir).map((path) => ({ path, owner: w.name })));
  const imports = files.map((f) => ({ ...f, names: importedNames(readFileSync(f.path, "utf8"), f.path) }));
  return all
    .filter(
      (w) =>
        w.dir.startsWith(join(root, "packages")) &&
        existsSync(join(w.dir, "src", "index.ts")) &&
        w.name !== "@graphplan/testkit",
    )
    .map((w) => {
      const exported = exportedNames(readFileSync(join(w.dir, "src", "index.ts"), "utf8"));
      const used = new Set<string>();
      for (const f of imports) {
        if (f.owner === w.name) continue;
        for (const name of f.names.get(w.name) ?? []) used.add(name);
      }
      // The README example CI runs: the package's `src/readme.test.ts` (which imports the index by path or by name).
      const readmeTest = join(w.dir, "src", "readme.test.ts");
      if (existsSync(readmeTest)) {
        const names = importedNames(
          readFileSync(readmeTest, "utf8").replaceAll('"./index.js"', `"${w.name}"`),
          readmeTest,
        );
        for (const name of names.get(w.name) ?? []) used.add(name);
      }
      // ... and the README's first example, which the release rehearsal runs from the installed package.
      const readme = join(w.dir, "README.md");
      if (rehearsed.has(w.name) && existsSync(readme)) {
        const first = EXAMPLE.exec(readFileSync(readme, "utf8"));
        for (const name of (first && importedNames(first[2]!, "example.ts").get(w.name)) ?? []) used.add(name);
      }
      return { name: w.name, dir: relative(root, w.dir), exported, used: exported.filter((n) => used.has(n)) };
    });
}

/** The markdown files whose examples a reader copies: every workspace's README, the root README and `docs/`. */
function markdownFiles(root: string): string[] {
  const readmes = workspaces(root).map((w) => join(w.dir, "README.md"));
  const docs = existsSync(join(root, "docs"))
    ? readdirSync(join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => join(root, "docs", f))
    : [];
  return [join(root, "README.md"), ...readmes, ...docs].filter((path) => existsSync(path));
}

/** The names a markdown file's `ts`/`js` examples import from a package's front door that it does not export. */
export function staleExampleImports(root: string = ROOT, doors: readonly FrontDoor[] = frontDoors(root)): string[] {
  const exports = new Map(doors.map((d) => [d.name, new Set(d.exported)]));
  return markdownFiles(root).flatMap((path) =>
    [...readFileSync(path, "utf8").matchAll(new RegExp(EXAMPLE.source, "gm"))].flatMap((block) =>
      [...importedNames(block[2]!, "example.ts")].flatMap(([pkg, names]) =>
        [...names]
          .filter((name) => exports.has(pkg) && !exports.get(pkg)!.has(name))
          .map((name) => `${relative(root, path)}: ${name} from ${pkg}`),
      ),
    ),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const doors = frontDoors();
  const width = Math.max(...doors.map((d) => d.name.length));
  let exported = 0;
  let used = 0;
  for (const d of doors) {
    exported += d.exported.length;
    used += d.used.length;
    const unused = d.exported.filter((n) => !d.used.includes(n));
    console.log(
      `${d.name.padEnd(width)}  ${String(d.exported.length).padStart(3)} exported  ${String(d.used.length).padStart(3)} used${process.argv.includes("--unused") && unused.length ? `  unused: ${unused.join(", ")}` : ""}`,
    );
  }
  console.log(`${"total".padEnd(width)}  ${String(exported).padStart(3)} exported  ${String(used).padStart(3)} used`);
  for (const stale of staleExampleImports(ROOT, doors)) console.log(`stale example import: ${stale}`);
}

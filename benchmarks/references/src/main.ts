/**
 * `pnpm -s --filter @graphplan/bench-references bench [--repos DIR] [--tree DIR]... [--mutations K] [--languages go,java,...] [--missed]`: the
 * verifier's `references` check (L3, `NameCheck` of @graphplan/verifier) on real code.
 *
 * - **False reports**: every file of a repository that builds is checked whole; every name
 *   reported is a false report (or a file the repository does not compile, e.g. one that needs a
 *   generated file).
 * - **Detection**: in each file, K uses of names spread over it (by the language's scope analysis
 *   of @graphplan/scope: uses of locals, of package- or class-level names, of imports) are each
 *   misspelt on its own (`name` → `nameQz`), and the file is checked again with the misspelling:
 *   detected when the check reports `nameQz`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import {
  buildGraph,
  detectLanguage,
  loadGrammars,
  withTree,
  type LanguageId,
  type Node,
  type Tree,
} from "@graphplan/graph";
import {
  analyzeGo,
  analyzeJava,
  analyzeJavaScript,
  analyzePython,
  GO_PREDECLARED,
  isPythonBuiltin,
} from "@graphplan/scope";
import { NameCheck } from "@graphplan/verifier";
import { Command, InvalidArgumentError } from "commander";

const LANGUAGES: readonly LanguageId[] = ["go", "java", "javascript", "typescript", "python"];
/** A path as the user meant it: pnpm runs a package's script in the package's folder and says where it was called from in INIT_CWD. */
const fromCaller = (path: string): string =>
  resolve((process.env.npm_lifecycle_event === "bench" && process.env.INIT_CWD) || process.cwd(), path);
const program = new Command("bench")
  .option("--repos <dir>", "directory of clones named <owner>__<name> (bare or plain), read at HEAD", fromCaller)
  .option(
    "--tree <dir>",
    "a plain directory of source (e.g. Go's GOROOT/src, an unzipped JDK src.zip); repeatable",
    (v, all: string[]) => [...all, fromCaller(v)],
    [],
  )
  .option(
    "--mutations <k>",
    "misspellings seeded per file",
    (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("a whole number");
      return n;
    },
    2,
  )
  .option("--missed", "print each misspelling not detected in a file the check could decide (to stderr)")
  .option(
    "--languages <list>",
    `languages measured (${LANGUAGES.join(",")})`,
    (v) => {
      const list = v.split(",");
      const bad = list.find((l) => !LANGUAGES.includes(l as LanguageId));
      if (bad) throw new InvalidArgumentError(`'${bad}' is not one of ${LANGUAGES.join(", ")}`);
      return list as LanguageId[];
    },
    [...LANGUAGES],
  )
  .showHelpAfterError()
  // Usage errors exit 2, as in every GraphPlan command.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .parse();
const options = program.opts<{
  repos?: string;
  tree: string[];
  mutations: number;
  missed?: boolean;
  languages: LanguageId[];
}>();
if (!options.repos && options.tree.length === 0)
  program.error("error: give --repos DIR or --tree DIR (see --help)", { exitCode: 2 });
for (const dir of [options.repos, ...options.tree])
  if (dir && !statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    program.error(`error: ${dir} is not a directory`, { exitCode: 2 });

/** A use of a name that a misspelling of can be detected, with what it names. */
interface Use {
  readonly node: Node;
  readonly kind: string;
}

/** The uses of names in a file, by the language's own scope analysis. */
function usesOf(tree: Tree, language: LanguageId): Use[] {
  if (language === "go") {
    return analyzeGo(tree)
      .occurrences.filter((o) => !o.binding || o.binding.node.id !== o.node.id)
      .filter((o) => o.binding || !GO_PREDECLARED.has(o.name))
      .map((o) => ({
        node: o.node,
        kind: !o.binding
          ? "package (other file)"
          : o.binding.imported
            ? "import"
            : o.binding.scope.kind === "package"
              ? "package (same file)"
              : "local",
      }));
  }
  if (language === "java") {
    const calls = tree.rootNode
      .descendantsOfType("method_invocation")
      .flatMap((c) =>
        c && !c.childForFieldName("object") && c.childForFieldName("name")
          ? [{ node: c.childForFieldName("name")!, kind: "method" }]
          : [],
      );
    const names = analyzeJava(tree)
      .occurrences.filter((o) => !o.binding || o.binding.node.id !== o.node.id)
      .map((o) => ({ node: o.node, kind: o.binding ? "local" : "field or type" }));
    return [...names, ...calls].sort((a, b) => a.node.startIndex - b.node.startIndex);
  }
  if (language === "javascript" || language === "typescript") {
    return analyzeJavaScript(tree)
      .occurrences.filter((o) => !o.binding || o.binding.node.id !== o.node.id)
      .filter((o) => o.node.type === "identifier")
      .map((o) => ({
        node: o.node,
        kind: !o.binding ? "global" : o.binding.scope.kind === "program" ? "module" : "local",
      }));
  }
  if (language === "python") {
    const analysis = analyzePython(tree);
    return analysis.occurrences
      .filter((o) => o.role === "reference" && o.reads && o.node.type === "identifier")
      .map((o) => {
        const scope = analysis.resolve(o);
        return {
          node: o.node,
          kind: !scope
            ? isPythonBuiltin(o.name)
              ? "builtin"
              : "global"
            : scope.kind === "module"
              ? "module"
              : "local",
        };
      });
  }
  return [];
}

/** K items spread evenly over a list. */
const spread = <T>(items: readonly T[], k: number): T[] =>
  items.length <= k
    ? [...items]
    : Array.from({ length: k }, (_, i) => items[Math.floor(((i + 0.5) * items.length) / k)]!);

function sourceFiles(dir: string, root = dir): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory())
      return entry.startsWith(".") || entry === "node_modules" || entry === "testdata" ? [] : sourceFiles(path, root);
    return [relative(root, path)];
  });
}

interface Row {
  source: string;
  language: LanguageId;
  files: number;
  unknown: number;
  falseReports: number;
  filesWithFalseReports: number;
  examples: string[];
  seeded: Map<string, [number, number]>;
  /** Misspellings seeded in files the check could decide: [seeded, detected]. */
  decidable: [number, number];
  msPerFile: number;
}

async function measure(source: string, dir: string): Promise<Row[]> {
  const all = sourceFiles(dir).filter((p) => {
    const language = detectLanguage(p);
    return language && options.languages.includes(language);
  });
  const files = new Map(all.map((p) => [p, readFileSync(join(dir, p), "utf8")]));
  // go.mod files: the Go model reads module paths from them.
  for (const p of sourceFiles(dir).filter((p) => basename(p) === "go.mod"))
    files.set(p, readFileSync(join(dir, p), "utf8"));
  const graph = await buildGraph(all.map((path) => ({ path, source: files.get(path)! })));
  const check = new NameCheck(files, graph);
  const rows = new Map<LanguageId, Row>();
  try {
    for (const path of all) {
      const language = detectLanguage(path)!;
      if (!NameCheck.supports(language)) continue;
      const row: Row = rows.get(language) ?? {
        source,
        language,
        files: 0,
        unknown: 0,
        falseReports: 0,
        filesWithFalseReports: 0,
        examples: [],
        seeded: new Map(),
        decidable: [0, 0],
        msPerFile: 0,
      };
      rows.set(language, row);
      const text = files.get(path)!;
      const start = performance.now();
      const found = check.unresolved(path)!;
      row.msPerFile += performance.now() - start;
      row.files++;
      if (found === "unknown") row.unknown++;
      else {
        if (found.length) row.filesWithFalseReports++;
        row.falseReports += found.length;
        for (const f of found) if (row.examples.length < 8) row.examples.push(`${path}:${f.line} ${f.name}`);
      }
      const uses = withTree(text, language, (tree) =>
        spread(usesOf(tree, language), options.mutations).map((u) => ({
          start: u.node.startIndex,
          end: u.node.endIndex,
          name: u.node.text,
          kind: u.kind,
        })),
      );
      for (const use of uses) {
        const misspelt = `${use.name}Qz`;
        const again = check.unresolved(path, text.slice(0, use.start) + misspelt + text.slice(use.end));
        const counts = row.seeded.get(use.kind) ?? [0, 0];
        counts[0]++;
        const detected = again !== "unknown" && !!again?.some((u) => u.name === misspelt);
        if (detected) counts[1]++;
        else if (options.missed && found !== "unknown")
          console.error(`missed ${path}:${text.slice(0, use.start).split("\n").length} ${use.name} (${use.kind})`);
        row.seeded.set(use.kind, counts);
        if (found !== "unknown") row.decidable[0]++, detected && row.decidable[1]++;
      }
    }
  } finally {
    check.dispose();
  }
  for (const row of rows.values()) row.msPerFile /= Math.max(1, row.files);
  return [...rows.values()];
}

await loadGrammars(options.languages.includes("typescript") ? [...options.languages, "tsx"] : options.languages);
const rows: Row[] = [];
for (const dir of options.tree) rows.push(...(await measure(dir, dir)));
if (options.repos) {
  const repos = options.repos;
  for (const name of readdirSync(repos)
    .filter((n) => n.includes("__") && statSync(join(repos, n)).isDirectory())
    .sort()) {
    const tree = mkdtempSync(join(tmpdir(), "graphplan-references-"));
    try {
      // `git -C` finds the git directory of a bare clone and of a plain one alike.
      const archive = execFileSync("git", ["-C", join(repos, name), "archive", "HEAD"], {
        maxBuffer: 1 << 30,
        stdio: ["ignore", "pipe", "pipe"],
      });
      execFileSync("tar", ["-x", "-C", tree], { input: archive });
      rows.push(...(await measure(name.replace("__", "/"), tree)));
    } catch (error) {
      process.stderr.write(
        `${name}: skipped: ${
          String((error as { stderr?: Buffer }).stderr ?? (error as Error).message)
            .trim()
            .split("\n")[0]
        }\n`,
      );
      process.exitCode = 1;
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  }
}

const pct = (a: number, b: number): string => (b ? `${((100 * a) / b).toFixed(1)} %` : "—");
console.log(
  "| source | language | files | files undecidable | false reports (files) | seeded misspellings detected | in decidable files | by kind of name | ms per file |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows) {
  const seeded = [...r.seeded.values()].reduce((a, [n, d]) => [a[0] + n, a[1] + d], [0, 0]);
  const kinds = [...r.seeded]
    .sort()
    .map(([kind, [n, d]]) => `${kind} ${d}/${n}`)
    .join("; ");
  console.log(
    `| ${r.source} | ${r.language} | ${r.files} | ${r.unknown} | ${r.falseReports} (${r.filesWithFalseReports}) | ${seeded[1]}/${seeded[0]} (${pct(seeded[1], seeded[0])}) | ${pct(r.decidable[1], r.decidable[0])} | ${kinds} | ${r.msPerFile.toFixed(1)} |`,
  );
}
const examples = rows.flatMap((r) => r.examples.map((e) => `${r.source}: ${e}`));
if (examples.length)
  console.log(`\nFalse reports (first of each source):\n${examples.map((e) => `- ${e}`).join("\n")}`);

/**
 * The code graph: symbols, imports and line kinds of a set of files, as the seed's Graph JSON.
 * Pure over `{path, source}` pairs; the caller reads the files.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { Query, type Node, type Tree } from "web-tree-sitter";
import { detectLanguage, LANGUAGES, type LanguageId } from "./languages.js";
import { grammar, loadGrammars, parse } from "./parser.js";
import { codeEnd, syntaxErrors } from "./syntax.js";
import { extractImports } from "./imports.js";

export const GraphSymbolSchema = z.object({
  name: z.string(),
  kind: z.string(),
  file: z.string(),
  start_line: z.number().int().positive(),
  end_line: z.number().int().positive(),
});
export const GraphImportSchema = z.object({
  file: z.string(),
  module: z.string(),
  symbol: z.string().nullable(),
  line: z.number().int().positive(),
});
/** The Graph JSON of seed graphplan-agent-design.md, exactly. */
export const GraphSchema = z.object({
  symbols: z.array(GraphSymbolSchema),
  imports: z.array(GraphImportSchema),
  line_kinds: z.record(z.string(), z.record(z.string(), z.string())),
  errors: z.array(z.string()),
});
export type GraphSymbol = z.infer<typeof GraphSymbolSchema>;
export type GraphImport = z.infer<typeof GraphImportSchema>;
export type Graph = z.infer<typeof GraphSchema>;

export interface SourceFile {
  readonly path: string;
  readonly source: string;
}

/** What one file contributes to the graph; cached by content hash. */
export interface FileGraph {
  readonly file: string;
  readonly hash: string;
  readonly symbols: readonly GraphSymbol[];
  readonly imports: readonly GraphImport[];
  readonly lineKinds: Readonly<Record<string, string>>;
  readonly errors: readonly string[];
}

const queries = new Map<LanguageId, Query>();

/** One query per language that captures definitions, imports and control-flow lines in one pass. */
function graphQuery(id: LanguageId): Query {
  let query = queries.get(id);
  if (query) return query;
  const spec = LANGUAGES[id];
  const language = grammar(id);
  const known = (types: readonly string[]) =>
    types.filter((type) => language.idForNodeType(type, true) !== null && language.idForNodeType(type, true) !== 0);
  const alternation = (types: readonly string[], capture: string) =>
    types.length ? `[${types.map((t) => `(${t})`).join(" ")}] @${capture}` : "";
  const source = [
    alternation(known(Object.keys(spec.definitions)), "def"),
    alternation(known(spec.importTypes), "import"),
    alternation(known(Object.keys(spec.lineKinds)), "line"),
  ].join("\n");
  query = new Query(language, source);
  queries.set(id, query);
  return query;
}

export function hashSource(source: string): string {
  return createHash("sha1").update(source).digest("hex");
}

/** The graph of one file, from an already parsed tree. */
export function graphOfTree(file: string, source: string, tree: Tree, language: LanguageId): FileGraph {
  const spec = LANGUAGES[language];
  const symbols: GraphSymbol[] = [];
  const imports: GraphImport[] = [];
  const lineKinds: Record<string, string> = {};
  const errors: string[] = [];
  for (const { name, node } of graphQuery(language).captures(tree.rootNode)) {
    if (name === "def") {
      const rule = spec.definitions[node.type];
      if (!rule) continue;
      const symbolName = rule.name ? rule.name(node) : (node.childForFieldName("name")?.text ?? null);
      if (!symbolName) continue;
      symbols.push({
        name: symbolName,
        kind: rule.kindOf ? rule.kindOf(node) : rule.kind,
        file,
        start_line: node.startPosition.row + 1,
        end_line: codeEnd(node, language).endPosition.row + 1,
      });
    } else if (name === "import") {
      for (const imp of extractImports(node, language)) imports.push({ file, ...imp, line: node.startPosition.row + 1 });
    } else {
      const line = String(node.startPosition.row + 1);
      lineKinds[line] ??= spec.lineKinds[node.type] ?? node.type;
    }
  }
  if (tree.rootNode.hasError) {
    const found = syntaxErrors(tree, 5);
    const where = found.map((e) => `line ${e.line}${e.kind === "MISSING" ? ` (missing ${e.text})` : ""}`).join(", ");
    errors.push(`Syntax error in ${file}: ${where || "unknown position"}`);
  }
  return { file, hash: hashSource(source), symbols, imports, lineKinds, errors };
}

/** The graph of one file. Unknown extensions give an error entry, never an exception. */
export function graphOfFile(file: SourceFile): FileGraph {
  const language = detectLanguage(file.path);
  const hash = hashSource(file.source);
  if (!language) {
    return { file: file.path, hash, symbols: [], imports: [], lineKinds: {}, errors: [`Unsupported file type: ${file.path} (GraphPlan reads ${supportedList()})`] };
  }
  let tree: Tree | undefined;
  try {
    tree = parse(file.source, language);
    return graphOfTree(file.path, file.source, tree, language);
  } catch (error) {
    return { file: file.path, hash, symbols: [], imports: [], lineKinds: {}, errors: [`Parse failed for ${file.path}: ${String(error)}`] };
  } finally {
    tree?.delete();
  }
}

function supportedList(): string {
  return Object.values(LANGUAGES).flatMap((spec) => spec.extensions).join(" ");
}

/** Joins per-file graphs into the seed's Graph JSON. */
export function mergeGraphs(files: Iterable<FileGraph>, extraErrors: readonly string[] = []): Graph {
  const graph: Graph = { symbols: [], imports: [], line_kinds: {}, errors: [] };
  for (const fileGraph of files) {
    graph.symbols.push(...fileGraph.symbols);
    graph.imports.push(...fileGraph.imports);
    if (Object.keys(fileGraph.lineKinds).length) graph.line_kinds[fileGraph.file] = { ...fileGraph.lineKinds };
    graph.errors.push(...fileGraph.errors);
  }
  graph.errors.push(...extraErrors);
  return graph;
}

/**
 * Per-file graphs keyed by path and content hash: rebuilding after one file changed re-parses
 * only that file.
 */
export class GraphCache {
  readonly #entries = new Map<string, FileGraph>();
  /** Files parsed by the last `build` (the rest came from the cache). */
  lastParsed: string[] = [];

  build(files: readonly SourceFile[]): Graph {
    this.lastParsed = [];
    const out: FileGraph[] = [];
    for (const file of files) {
      const cached = this.#entries.get(file.path);
      if (cached && cached.hash === hashSource(file.source)) {
        out.push(cached);
        continue;
      }
      const fresh = graphOfFile(file);
      this.#entries.set(file.path, fresh);
      this.lastParsed.push(file.path);
      out.push(fresh);
    }
    return mergeGraphs(out);
  }

  forget(path: string): void {
    this.#entries.delete(path);
  }

  get size(): number {
    return this.#entries.size;
  }
}

export interface BuildGraphOptions {
  /** Reuse per-file results across calls. */
  readonly cache?: GraphCache;
}

/** The graph of `files`: loads the grammars on first use, then parses each file once. */
export async function buildGraph(files: readonly SourceFile[], options: BuildGraphOptions = {}): Promise<Graph> {
  const needed = new Set<LanguageId>();
  for (const file of files) {
    const language = detectLanguage(file.path);
    if (language) needed.add(language);
  }
  await loadGrammars([...needed]);
  return (options.cache ?? new GraphCache()).build(files);
}

export type { Node, Tree };

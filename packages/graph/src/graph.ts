/**
 * The code graph: symbols, imports and line kinds of a set of files, as the seed's Graph JSON.
 * Pure over `{path, source}` pairs; the caller reads the files.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Language, Node, Tree } from "web-tree-sitter";
import { detectLanguage, LANGUAGES, SUPPORTED_EXTENSIONS, type DefinitionRule, type LanguageId, type LanguageSpec } from "./languages.js";
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

/** What one file contributes to the graph; cached by `GraphCache`. Frozen: share, don't mutate. */
export interface FileGraph {
  readonly file: string;
  /** sha1 of the source text (hex). */
  readonly hash: string;
  readonly symbols: readonly GraphSymbol[];
  readonly imports: readonly GraphImport[];
  readonly lineKinds: Readonly<Record<string, string>>;
  readonly errors: readonly string[];
}

/**
 * A language's spec turned into lookups by node type id, built once per language: the walk
 * asks for a node's numeric type (one call into WebAssembly) and never compares strings.
 */
interface Compiled {
  readonly id: LanguageId;
  readonly spec: LanguageSpec;
  readonly definitions: ReadonlyMap<number, DefinitionRule>;
  readonly imports: ReadonlySet<number>;
  readonly lineKinds: ReadonlyMap<number, string>;
  /** Every node type the graph reads, for the full walk. */
  readonly targetTypes: readonly string[];
  /** Type ids the pruned walk descends into (see `LanguageSpec.scopeTypes`); undefined: walk every node. */
  readonly scopes: ReadonlySet<number> | undefined;
  readonly nameField: number | null;
  readonly indentedBlocks: ReadonlySet<number>;
  readonly comments: ReadonlySet<number>;
}

const compiled = new Map<LanguageId, Compiled>();

function idsOf(language: Language, types: Iterable<string>): Map<string, number[]> {
  const wanted = new Set(types);
  const out = new Map<string, number[]>();
  language.types.forEach((type, id) => {
    if (!wanted.has(type)) return;
    const ids = out.get(type) ?? [];
    ids.push(id);
    out.set(type, ids);
  });
  return out;
}

function compile(id: LanguageId): Compiled {
  const done = compiled.get(id);
  if (done) return done;
  const spec = LANGUAGES[id];
  const language = grammar(id);
  const definitions = new Map<number, DefinitionRule>();
  for (const [type, ids] of idsOf(language, Object.keys(spec.definitions))) {
    for (const typeId of ids) definitions.set(typeId, spec.definitions[type]!);
  }
  const importLike = [...spec.importTypes, ...(spec.dependencyTypes ?? [])];
  const imports = new Set<number>([...idsOf(language, importLike).values()].flat());
  const lineKinds = new Map<number, string>();
  for (const [type, ids] of idsOf(language, Object.keys(spec.lineKinds))) {
    for (const typeId of ids) lineKinds.set(typeId, spec.lineKinds[type]!);
  }
  const targetTypes = [
    ...new Set([...Object.keys(spec.definitions), ...importLike, ...Object.keys(spec.lineKinds)]),
  ].filter((type) => language.types.includes(type));
  const scopes = spec.scopeTypes
    ? new Set<number>([...idsOf(language, spec.scopeTypes).values()].flat())
    : undefined;
  const result: Compiled = {
    id,
    spec,
    definitions,
    imports,
    lineKinds,
    targetTypes,
    scopes,
    nameField: language.fieldIdForName("name"),
    indentedBlocks: new Set<number>([...idsOf(language, spec.indentedBlocks ?? []).values()].flat()),
    comments: new Set<number>([...idsOf(language, spec.commentTypes).values()].flat()),
  };
  compiled.set(id, result);
  return result;
}

interface Walked {
  readonly nodes: Node[];
  /** The type id of each node in `nodes`. */
  readonly types: number[];
  /** 1-based lines of statements indented unlike the first statement of their block. */
  readonly misindented: number[];
}

/** True when `source` holds only spaces, tabs and form feeds between `from` and `to`. */
function blankBetween(source: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = source.charCodeAt(i);
    if (code !== 32 && code !== 9 && code !== 12) return false;
  }
  return true;
}

/**
 * The nodes the graph reads, in document order (a parent before its children).
 * For a language with `scopeTypes` and a tree without syntax errors, the walk visits only the
 * named children of scope nodes (statement lists and the statements that own them; one call
 * into WebAssembly per scope), a small fraction of the tree, and checks the off-side rule on the
 * way (`indentedBlocks`). Otherwise one call into WebAssembly walks every node.
 */
function walk(tree: Tree, c: Compiled, source: string, strategy: "auto" | "full"): Walked {
  if (!c.scopes || strategy === "full" || tree.rootNode.hasError) {
    const nodes = tree.rootNode.descendantsOfType(c.targetTypes as string[]).filter((n): n is Node => n !== null);
    return { nodes, types: nodes.map((node) => node.typeId), misindented: [] };
  }
  const nodes: Node[] = [];
  const types: number[] = [];
  const misindented: number[] = [];
  const { scopes, definitions, imports, lineKinds, indentedBlocks, comments } = c;
  /**
   * Visits the named children of a scope node. `indent` is the indentation its statements must
   * share: "" for the module, `undefined` for a block (set by its first statement), null when
   * the scope is not an indented block (a clause, a decorated definition).
   */
  const visit = (scope: Node, indent: string | null | undefined): void => {
    for (const child of scope.namedChildren) {
      if (!child) continue;
      const type = child.typeId;
      if (definitions.has(type) || imports.has(type) || lineKinds.has(type)) {
        nodes.push(child);
        types.push(type);
      }
      if (indent !== null && !comments.has(type)) {
        const start = child.startIndex;
        const lineStart = start - child.startPosition.column;
        if (blankBetween(source, lineStart, start)) {
          const own = source.slice(lineStart, start);
          if (indent === undefined) indent = own;
          else if (own !== indent) misindented.push(child.startPosition.row + 1);
        }
      }
      if (scopes.has(type)) visit(child, indentedBlocks.has(type) ? undefined : null);
    }
  };
  const root = tree.rootNode;
  visit(root, indentedBlocks.has(root.typeId) ? "" : null);
  return { nodes, types, misindented };
}

/** The nodes the graph reads from `tree`, in document order (exported for tests). */
export function graphNodes(tree: Tree, language: LanguageId, source: string, strategy: "auto" | "full" = "auto"): Node[] {
  return walk(tree, compile(language), source, strategy).nodes;
}

export function hashSource(source: string): string {
  return createHash("sha1").update(source).digest("hex");
}

/**
 * The last line of a definition, leaving out comments that trail its code. The comment check
 * runs only when the text of the node's last line holds one of the language's comment markers:
 * otherwise the last token cannot be a comment and the node's own end is the answer.
 */
function endLine(node: Node, source: string, language: LanguageId, markers: readonly string[]): number {
  const endIndex = node.endIndex;
  const lineStart = source.lastIndexOf("\n", endIndex - 1) + 1;
  const lastLine = source.slice(lineStart, endIndex);
  if (!markers.some((marker) => lastLine.includes(marker))) return node.endPosition.row + 1;
  return codeEnd(node, language).endPosition.row + 1;
}

/** The graph of one file, from an already parsed tree. The caller still owns (and deletes) `tree`. */
export function graphOfTree(
  file: string,
  source: string,
  tree: Tree,
  language: LanguageId,
  hash: string = hashSource(source),
): FileGraph {
  const c = compile(language);
  const symbols: GraphSymbol[] = [];
  const imports: GraphImport[] = [];
  const lineKinds: Record<string, string> = {};
  const errors: string[] = [];
  const markers = c.spec.commentMarkers;
  const { nodes, types, misindented } = walk(tree, c, source, "auto");
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    const type = types[i]!;
    const rule = c.definitions.get(type);
    if (rule) {
      const name = rule.name
        ? rule.name(node)
        : c.nameField === null
          ? null
          : (node.childForFieldId(c.nameField)?.text ?? null);
      if (name) {
        symbols.push({
          name,
          kind: rule.kindOf ? rule.kindOf(node) : rule.kind,
          file,
          start_line: node.startPosition.row + 1,
          end_line: endLine(node, source, language, markers),
        });
      }
    }
    if (c.imports.has(type)) {
      const line = node.startPosition.row + 1;
      for (const imp of extractImports(node, language)) imports.push({ file, module: imp.module, symbol: imp.symbol, line: imp.line ?? line });
    }
    const kind = c.lineKinds.get(type);
    if (kind !== undefined) {
      const line = String(node.startPosition.row + 1);
      lineKinds[line] ??= kind;
    }
  }
  if (tree.rootNode.hasError) {
    const found = syntaxErrors(tree, 5);
    const where = found.map((e) => `line ${e.line}${e.kind === "MISSING" ? ` (missing ${e.text})` : ""}`).join(", ");
    errors.push(`Syntax error in ${file}: ${where || "unknown position"}`);
  } else if (misindented.length) {
    const where = misindented.slice(0, 5).map((line) => `line ${line}`).join(", ");
    errors.push(`Syntax error in ${file}: ${where} (indentation does not match the block's other statements)`);
  }
  return freeze({ file, hash, symbols, imports, lineKinds, errors });
}

function freeze(graph: FileGraph): FileGraph {
  for (const symbol of graph.symbols) Object.freeze(symbol);
  for (const imp of graph.imports) Object.freeze(imp);
  Object.freeze(graph.symbols);
  Object.freeze(graph.imports);
  Object.freeze(graph.lineKinds);
  Object.freeze(graph.errors);
  return Object.freeze(graph);
}

const failed = (file: string, hash: string, error: string): FileGraph =>
  freeze({ file, hash, symbols: [], imports: [], lineKinds: {}, errors: [error] });

/**
 * The graph of one file. An unknown extension or a parser failure gives an error entry, never
 * an exception. The grammar of the file's language must be loaded (`loadGrammars`).
 */
export function graphOfFile(file: SourceFile, hash: string = hashSource(file.source)): FileGraph {
  const language = detectLanguage(file.path);
  if (!language) {
    return failed(file.path, hash, `Unsupported file type: ${file.path} (GraphPlan reads ${SUPPORTED_EXTENSIONS.join(" ")})`);
  }
  let tree: Tree | undefined;
  try {
    tree = parse(file.source, language);
    return graphOfTree(file.path, file.source, tree, language, hash);
  } catch (error) {
    return failed(file.path, hash, `Parse failed for ${file.path}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    tree?.delete();
  }
}

/**
 * Joins per-file graphs into the seed's Graph JSON. The symbol and import records and the
 * per-file `line_kinds` objects are shared with the (frozen) file graphs, not copied.
 */
export function mergeGraphs(files: Iterable<FileGraph>, extraErrors: readonly string[] = []): Graph {
  const symbols: (readonly GraphSymbol[])[] = [];
  const imports: (readonly GraphImport[])[] = [];
  const errors: (readonly string[])[] = [];
  const line_kinds: Graph["line_kinds"] = {};
  for (const fileGraph of files) {
    if (fileGraph.symbols.length) symbols.push(fileGraph.symbols);
    if (fileGraph.imports.length) imports.push(fileGraph.imports);
    if (fileGraph.errors.length) errors.push(fileGraph.errors);
    if (hasLineKinds(fileGraph)) line_kinds[fileGraph.file] = fileGraph.lineKinds as Record<string, string>;
  }
  errors.push(extraErrors);
  return { symbols: flatten(symbols), imports: flatten(imports), line_kinds, errors: flatten(errors) };
}

const lineKindsSeen = new WeakMap<FileGraph, boolean>();

/** Whether a file has line kinds, remembered per (immutable) file graph: `for...in` is slow. */
function hasLineKinds(fileGraph: FileGraph): boolean {
  let has = lineKindsSeen.get(fileGraph);
  if (has === undefined) {
    has = false;
    for (const _ in fileGraph.lineKinds) {
      has = true;
      break;
    }
    lineKindsSeen.set(fileGraph, has);
  }
  return has;
}

/** One array of all the parts (`Array.prototype.concat` copies natively, in chunks that fit the argument limit). */
function flatten<T>(parts: readonly (readonly T[])[]): T[] {
  let out: T[] = [];
  for (let i = 0; i < parts.length; i += 8192) out = out.concat(...(parts.slice(i, i + 8192) as T[][]));
  return out;
}

interface CacheEntry {
  readonly source: string;
  readonly graph: FileGraph;
}

/**
 * Per-file graphs keyed by path: rebuilding after one file changed re-parses only that file.
 * A cached graph is reused when the file's text is the same string as before (compared with
 * `===`, which V8 answers by pointer for the very same string and by content otherwise, so no
 * text is hashed for unchanged files); a changed file is hashed once and parsed once.
 */
export class GraphCache {
  readonly #entries = new Map<string, CacheEntry>();
  /** Paths parsed by the last `build` (the rest came from the cache), in input order. */
  lastParsed: string[] = [];

  /** The graph of `files`. The grammars of their languages must be loaded (`buildGraph` does it). */
  build(files: readonly SourceFile[], extraErrors: readonly string[] = []): Graph {
    return mergeGraphs(this.fileGraphs(files), extraErrors);
  }

  /** The per-file graphs of `files`, from the cache or freshly parsed. */
  fileGraphs(files: readonly SourceFile[]): FileGraph[] {
    this.lastParsed = [];
    const out: FileGraph[] = [];
    for (const file of files) {
      const cached = this.#entries.get(file.path);
      if (cached && cached.source === file.source) {
        out.push(cached.graph);
        continue;
      }
      const fresh = graphOfFile(file);
      this.#entries.set(file.path, { source: file.source, graph: fresh });
      this.lastParsed.push(file.path);
      out.push(fresh);
    }
    return out;
  }

  /** The cached graph of `path`, if any. */
  get(path: string): FileGraph | undefined {
    return this.#entries.get(path)?.graph;
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
  /** Errors found by the caller (e.g. files it could not read), appended to `errors`. */
  readonly extraErrors?: readonly string[];
}

/** The languages `files` need, by extension. */
export function languagesOf(files: readonly SourceFile[]): LanguageId[] {
  const needed = new Set<LanguageId>();
  for (const file of files) {
    const language = detectLanguage(file.path);
    if (language) needed.add(language);
  }
  return [...needed];
}

/** The graph of `files`: loads the grammars it needs on first use, then parses each file once. */
export async function buildGraph(files: readonly SourceFile[], options: BuildGraphOptions = {}): Promise<Graph> {
  await loadGrammars(languagesOf(files));
  return (options.cache ?? new GraphCache()).build(files, options.extraErrors);
}

export type { Node, Tree };

/**
 * The code graph: symbols, imports and line kinds of a set of files, as the design's Graph JSON.
 * Pure over `{path, source}` pairs; the caller reads the files.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Language, Node, Tree } from "web-tree-sitter";
import {
  detectLanguage,
  isHtmlTemplate,
  LANGUAGES,
  SUPPORTED_EXTENSIONS,
  type DefinitionRule,
  type LanguageId,
  type LanguageSpec,
} from "./languages.js";
import { grammar, isLoaded, loadGrammars, parse } from "./parser.js";
import { codeEnd, syntaxErrors } from "./syntax.js";
import { extractImports } from "./imports.js";
import { documentOfFile, GraphDocumentSchema } from "./documents.js";
import { dataFormatOf, loadDataGrammars } from "./data.js";

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
/** The Graph JSON of the original design, exactly (docs/design.md, Origins). */
export const GraphSchema = z.object({
  symbols: z.array(GraphSymbolSchema),
  imports: z.array(GraphImportSchema),
  line_kinds: z.record(z.string(), z.record(z.string(), z.string())),
  errors: z.array(z.string()),
  /** Files that are not code (data files, Markdown, reST, other text), when asked for (`buildGraph`'s `documents`). */
  documents: z.array(GraphDocumentSchema).optional(),
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
  const scopes = spec.scopeTypes ? new Set<number>([...idsOf(language, spec.scopeTypes).values()].flat()) : undefined;
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
export function graphNodes(
  tree: Tree,
  language: LanguageId,
  source: string,
  strategy: "auto" | "full" = "auto",
): Node[] {
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
      const name = rule.names
        ? rule.names(node)
        : rule.name
          ? rule.name(node)
          : c.nameField === null
            ? null
            : (node.childForFieldId(c.nameField)?.text ?? null);
      if (name?.length) {
        const kind = rule.kindOf ? rule.kindOf(node) : rule.kind;
        const start_line = node.startPosition.row + 1;
        const end_line = endLine(node, source, language, markers);
        if (typeof name === "string") symbols.push({ name, kind, file, start_line, end_line });
        else for (const each of name) symbols.push({ name: each, kind, file, start_line, end_line });
      }
    }
    if (c.imports.has(type)) {
      const line = node.startPosition.row + 1;
      for (const imp of extractImports(node, language))
        imports.push({ file, module: imp.module, symbol: imp.symbol, line: imp.line ?? line });
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
    const where = misindented
      .slice(0, 5)
      .map((line) => `line ${line}`)
      .join(", ");
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

/** True for a path whose extension (`.h`) C and C++ share. */
const isSharedHeader = (path: string): boolean => path.length > 2 && path.slice(-2).toLowerCase() === ".h";

interface Parsed {
  readonly tree: Tree;
  readonly language: LanguageId;
  /** The text that was parsed: the source, or the source with macro lines blanked (`blankMacros`). */
  readonly text: string;
  /** Set when the parse was not clear-cut (a header with errors both as C and as C++, macro lines blanked). */
  readonly note?: string;
  /**
   * The macro-blanked reading of the source in `language`, kept when the reading as written had
   * fewer errors (`withBlankedReading` takes its definitions too). Freed with `tree` ({@link release}).
   */
  readonly blanked?: Reading;
}

interface Reading {
  readonly tree: Tree;
  readonly text: string;
}

/** Frees the trees of a parse. */
function release(parsed: Parsed): void {
  parsed.tree.delete();
  parsed.blanked?.tree.delete();
}

/**
 * Parses a file as the language of its extension, with two exceptions for C and C++, tried only
 * when the first parse has syntax errors:
 *
 * - macros the grammar cannot read (`UV_REQ_FIELDS` alone on a line inside a struct,
 *   `FMT_BEGIN_NAMESPACE`, `FMT_CONSTEXPR auto f()`) are blanked (`blankMacros`, same length, so
 *   every position stays) and the text parsed again; the parse with fewer errors is kept;
 * - a `.h` header, which C and C++ share, is read as C and, when the C++ grammar is loaded, also
 *   as C++: C++ wins when its parse has fewer errors, or when the C parse fails on a token only
 *   C++ has (`class`, `namespace`, `template`, `::`...).
 */
function parseFile(path: string, source: string, byExtension: LanguageId): Parsed {
  const first = parse(source, byExtension);
  if ((byExtension !== "c" && byExtension !== "cpp") || !first.rootNode.hasError)
    return { tree: first, language: byExtension, text: source };
  const read = withMacrosBlanked(first, source, byExtension);
  const { tree, text } = read;
  const macroNote = (blanked: boolean) => (blanked ? "macro lines read as blank" : undefined);
  const kept = (reading: { blanked: boolean; other?: Reading }) => (reading.other ? { blanked: reading.other } : {});
  if (byExtension !== "c" || !isSharedHeader(path) || !tree.rootNode.hasError || !isLoaded("cpp")) {
    const note = macroNote(read.blanked);
    return { tree, language: byExtension, text, ...(note ? { note } : {}), ...kept(read) };
  }
  const asCpp = parse(text, "cpp");
  if (!asCpp.rootNode.hasError) {
    tree.delete();
    read.other?.tree.delete();
    return { tree: asCpp, language: "cpp", text };
  }
  const asC = errorExtent(tree);
  const cErrors = asC.extent;
  const cppErrors = errorExtent(asCpp).extent;
  const share = (chars: number) => `${Math.min(100, Math.round((100 * chars) / Math.max(1, source.length)))}%`;
  if (cppErrors < cErrors || asC.cppOnly) {
    tree.delete();
    read.other?.tree.delete();
    // The macros were judged by the C parse; as C++ they may be what stands in the way.
    const cpp = read.blanked ? { tree: asCpp, text, blanked: true } : withMacrosBlanked(asCpp, source, "cpp");
    const also = cpp.blanked ? `; ${macroNote(true)}` : "";
    const why = asC.cppOnly && cppErrors >= cErrors ? `C++ syntax (\`${asC.cppOnly}\`) where C fails; ` : "";
    return {
      tree: cpp.tree,
      language: "cpp",
      text: cpp.text,
      note: `read as C++: ${why}syntax errors span ${share(cppErrors)} of it as C++, ${share(cErrors)} as C${also}`,
      ...kept(cpp),
    };
  }
  asCpp.delete();
  const also = read.blanked ? `; ${macroNote(true)}` : "";
  return {
    tree,
    language: "c",
    text,
    note: `read as C: syntax errors span ${share(cErrors)} of it as C, ${share(cppErrors)} as C++${also}`,
    ...kept(read),
  };
}

/**
 * `tree` (of `source`), or the parse of `source` with its macros blanked (`blankMacros`) when that
 * has fewer errors. When the reading as written wins, the blanked one is kept as `other` (its
 * definitions complete the graph, see `withBlankedReading`); otherwise the loser is deleted.
 */
function withMacrosBlanked(
  tree: Tree,
  source: string,
  language: LanguageId,
): { tree: Tree; text: string; blanked: boolean; other?: Reading } {
  const withoutMacros = blankMacros(source);
  if (withoutMacros === source) return { tree, text: source, blanked: false };
  const again = parse(withoutMacros, language);
  if (errorExtent(again).extent < errorExtent(tree).extent) {
    tree.delete();
    return { tree: again, text: withoutMacros, blanked: true };
  }
  return { tree, text: source, blanked: false, other: { tree: again, text: withoutMacros } };
}

/** Words that may follow a prefix macro (`FMT_CONSTEXPR auto`, `GTEST_API_ class`, `UV_EXTERN int`). */
const DECLARATION_START =
  /^(auto|void|bool|char|short|int|long|float|double|signed|unsigned|size_t|const|constexpr|consteval|static|inline|extern|explicit|virtual|friend|struct|class|union|enum|typename|template|namespace|std|[A-Z][A-Z0-9_]*)\b/;
/** A function declared with a return type the grammar takes for a name: `Env* NewMemEnv(`, `std::string Name(`. */
const FUNCTION_DECLARATION = /^[A-Za-z_][\w:]*(?:<[^;(){}]*>)?[\s*&]+[A-Za-z_~][\w:]*\s*\(/;
/** An all-caps macro name of at least three characters. */
const MACRO_NAME = /^[A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*$/;

/**
 * A whole line that calls an all-caps macro, `GMOCK_DEFINE_DEFAULT_ACTION_FOR_RETURN_TYPE_(unsigned short, 0U);`
 * or `GTEST_DISALLOW_COPY_AND_ASSIGN_(Foo)`, with its parentheses closed on the line, unless a
 * body follows (`TEST(Suite, Name) {`: a definition written through a macro).
 */
function isMacroCall(trimmed: string, next: string | undefined): boolean {
  const match = /^([A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*)\s*\((.*)\)\s*;?\s*(\/\/.*)?$/.exec(trimmed);
  if (!match || !MACRO_NAME.test(match[1]!)) return false;
  let depth = 0;
  for (const char of match[2]!) {
    if (char === "(") depth++;
    else if (char === ")" && --depth < 0) return false;
  }
  if (depth !== 0) return false;
  return trimmed.includes(";") ? true : !(next ?? "").trimStart().startsWith("{");
}

/** How many more parentheses `text` opens than it closes. */
function depthOf(text: string): number {
  let depth = 0;
  for (const char of text) {
    if (char === "(") depth++;
    else if (char === ")") depth--;
  }
  return depth;
}

/**
 * The source with the macros the C/C++ grammars cannot read replaced by spaces: a line that is
 * one all-caps name and nothing else (`UV_REQ_FIELDS`, `FMT_BEGIN_NAMESPACE`); all-caps names that
 * open a line before a declaration (`FMT_CONSTEXPR auto f()`, `GTEST_API_ class X`); whole-line
 * calls of all-caps macros (`isMacroCall`, also over up to four lines); an all-caps name between
 * `class`/`struct` and the class's name (`class GTEST_API_ Foo {`); an all-caps annotation after a
 * parameter list (`void f() LOCKS_EXCLUDED(mu_) {`); a calling convention inside a function
 * pointer declarator (`typedef BOOL (WINAPI *fn)(void)`); a linkage macro between a return type
 * and a function's name (`extern int ZEXPORT deflate(`). Preprocessor lines and their
 * continuations are left as they are. Same length, same lines.
 */
export function blankMacros(source: string): string {
  const lines = source.split("\n");
  let changed = false;
  let continued = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const inDirective = continued;
    continued = line.endsWith("\\");
    const trimmed = line.trim();
    if (inDirective || trimmed.startsWith("#")) continue;
    if (MACRO_NAME.test(trimmed) || isMacroCall(trimmed, lines[i + 1])) {
      lines[i] = " ".repeat(line.length);
      changed = true;
      continue;
    }
    // A macro call whose arguments run over a few lines: `GTEST_DISABLE_MSC_WARNINGS_PUSH_(4251 \`.
    const open = /^[A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*\s*\(/.exec(trimmed);
    if (open && MACRO_NAME.test(open[0].replace(/\s*\($/, ""))) {
      let joined = trimmed;
      let last = i;
      while (last < i + 3 && last + 1 < lines.length && depthOf(joined) > 0) joined += " " + lines[++last]!.trim();
      if (last > i && isMacroCall(joined.replace(/\\ /g, " "), lines[last + 1])) {
        for (let j = i; j <= last; j++) lines[j] = " ".repeat(lines[j]!.length);
        changed = true;
        continued = false;
        i = last;
        continue;
      }
    }
    // A calling convention inside a function pointer declarator: `typedef BOOL (WINAPI *fn)(...)`.
    let convention = line;
    for (const match of trimmed.startsWith("typedef")
      ? line.matchAll(/\(\s*([A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*)\s*\*/g)
      : []) {
      if (!MACRO_NAME.test(match[1]!)) continue;
      const at = match.index + match[0].indexOf(match[1]!);
      convention = convention.slice(0, at) + " ".repeat(match[1]!.length) + convention.slice(at + match[1]!.length);
    }
    if (convention !== line) {
      lines[i] = convention;
      changed = true;
      continue;
    }
    // An annotation macro after a parameter list: `void Wait(State s) LOCKS_EXCLUDED(mu_) {`.
    const trailing =
      /\)\s*(?:const\s*)?(?:noexcept\s*)?(?:override\s*)?([A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*(?:\([^()]*\))?)\s*(?:\{.*|;|=.*|\/\/.*)?$/.exec(
        line,
      );
    if (trailing && MACRO_NAME.test(trailing[1]!.replace(/\(.*$/, ""))) {
      const at = trailing.index + trailing[0].indexOf(trailing[1]!);
      lines[i] = line.slice(0, at) + " ".repeat(trailing[1]!.length) + line.slice(at + trailing[1]!.length);
      changed = true;
      continue;
    }
    // A macro between `class`/`struct` and the name: `class GTEST_API_ ScopedTrace {`.
    const tagged =
      /^((?:template\s*<.*>\s*)?(?:class|struct)\s+)([A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*)(\s+[A-Za-z_]\w*\s*(?:[:{]|final\b|$))/.exec(
        line.trimStart(),
      );
    if (tagged) {
      const at = line.length - line.trimStart().length + tagged[1]!.length;
      lines[i] = line.slice(0, at) + " ".repeat(tagged[2]!.length) + line.slice(at + tagged[2]!.length);
      changed = true;
      continue;
    }
    // A linkage or calling-convention macro between a return type and a function's name:
    // `extern int ZEXPORT deflate(`, `JNIEXPORT jint JNICALL Java_x(` (the type before it is not all-caps).
    const linkage =
      /^(\s*(?:[A-Za-z_]\w*[\s*]+)*?([A-Za-z_]\w*)[\s*]+)([A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*)(\s+\**\s*[A-Za-z_]\w*\s*\()/.exec(
        line,
      );
    if (linkage && /[a-z]/.test(linkage[2]!) && MACRO_NAME.test(linkage[3]!)) {
      const at = linkage[1]!.length;
      lines[i] = line.slice(0, at) + " ".repeat(linkage[3]!.length) + line.slice(at + linkage[3]!.length);
      changed = true;
      continue;
    }
    // Prefix macros, possibly several (`FMT_EXPORT FMT_CONSTEXPR auto f()`, `LEVELDB_EXPORT Env* NewMemEnv(`); the last all-caps
    // word before a name stays, as it may be a type (`UV_EXTERN BOOL f()`).
    const indent = line.length - line.trimStart().length;
    let rest = line.slice(indent);
    let cut = 0;
    for (;;) {
      const match = /^([A-Z][A-Z0-9_]*[A-Z_][A-Z0-9_]*)\s+/.exec(rest);
      const next = rest.slice(match?.[0].length ?? 0);
      if (!match || !MACRO_NAME.test(match[1]!) || !(DECLARATION_START.test(next) || FUNCTION_DECLARATION.test(next)))
        break;
      cut += match[1]!.length;
      const after = rest.slice(match[1]!.length);
      const spaces = after.length - after.trimStart().length;
      cut += spaces;
      rest = after.trimStart();
    }
    if (cut > 0) {
      lines[i] = line.slice(0, indent) + " ".repeat(cut) + line.slice(indent + cut);
      changed = true;
    }
  }
  return changed ? lines.join("\n") : source;
}

/**
 * How much of a tree the grammar could not place: the characters of the tokens that sit directly
 * in an `ERROR` node, plus one for each missing token. (Neither a count of error nodes nor their
 * extent would do: one `ERROR` can hold most of a file, parsed well inside it.)
 */
function errorExtent(tree: Tree): { extent: number; cppOnly: string | undefined } {
  let extent = 0;
  let cppOnly: string | undefined;
  const visit = (node: Node): void => {
    if (node.isMissing) extent += 1;
    else if (node.type === "ERROR") {
      for (const child of node.children) {
        if (!child) continue;
        if (child.childCount === 0) {
          extent += child.endIndex - child.startIndex;
          if (cppOnly === undefined && CPP_ONLY_TOKENS.has(child.text)) cppOnly = child.text;
        } else visit(child);
      }
    } else if (node.hasError) for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return { extent, cppOnly };
}

/**
 * Tokens that only C++ has: a header whose C parse fails on one of them is C++ (macros such as
 * `FMT_CONSTEXPR` make a C++ parse of real headers fail too, sometimes over more text).
 */
const CPP_ONLY_TOKENS = new Set([
  "template",
  "namespace",
  "class",
  "public",
  "private",
  "protected",
  "::",
  "typename",
  "constexpr",
  "noexcept",
  "operator",
  "virtual",
  "nullptr",
  "decltype",
]);

/**
 * The language `path` is read as, given its text: the language of its extension, except for a
 * `.h` header, which is C++ when it parses as C++ with fewer syntax errors than as C (see
 * `graphOfFile`). Parses the file (twice for such a header): needs its grammars loaded
 * (`loadGrammars(languagesOf([file]))`); without the C++ grammar a header is C.
 */
export function detectFileLanguage(path: string, source: string): LanguageId | undefined {
  const language = detectLanguage(path);
  if (language === "html" && isHtmlTemplate(source)) return undefined;
  if (language !== "c" || !isSharedHeader(path)) return language;
  const parsed = parseFile(path, source, language);
  release(parsed);
  return parsed.language;
}

/**
 * A C/C++ graph with syntax errors, read as written, completed by the definitions found when its
 * macros are blanked (`blankMacros`), even when that reading as a whole has more errors: error
 * recovery loses different definitions in each (a macro the grammar cannot read swallows a class in
 * one, a blanked line unbalances an `#if` in the other). On googletest's amalgamated `gmock.h` the
 * blanked reading adds 30 definitions. Only this direction: what the reading as written adds to a
 * blanked one is recovery debris (`class GTEST_API_ X : public ::std::runtime_error` gives a
 * "definition" named `::std::runtime_error`). Definitions are added (another name or start line),
 * never replaced; the errors stay those of the reading kept.
 */
function withBlankedReading(graph: FileGraph, blanked: Reading, language: LanguageId): FileGraph {
  const known = new Set(graph.symbols.map((s) => `${s.name}\0${s.start_line}`));
  const added = graphOfTree(graph.file, blanked.text, blanked.tree, language, graph.hash).symbols.filter(
    (s) => !known.has(`${s.name}\0${s.start_line}`),
  );
  if (added.length === 0) return graph;
  const symbols = [...graph.symbols, ...added].map((s) => ({ ...s })).sort((a, b) => a.start_line - b.start_line);
  return freeze({
    ...graph,
    symbols,
    imports: [...graph.imports],
    lineKinds: { ...graph.lineKinds },
    errors: [...graph.errors],
  });
}

/**
 * The graph of one file. An unknown extension or a parser failure gives an error entry, never
 * an exception. The grammar of the file's language must be loaded (`loadGrammars`).
 */
export function graphOfFile(file: SourceFile, hash: string = hashSource(file.source)): FileGraph {
  const language = detectLanguage(file.path);
  if (language === "html" && isHtmlTemplate(file.source))
    return failed(
      file.path,
      hash,
      `${file.path} is an HTML template ({% %}, {{ }} or <% %> markup): read as text, change it with text steps`,
    );
  if (!language) {
    return failed(
      file.path,
      hash,
      `Unsupported file type: ${file.path} (GraphPlan reads ${SUPPORTED_EXTENSIONS.join(" ")})`,
    );
  }
  let parsed: Parsed | undefined;
  try {
    parsed = parseFile(file.path, file.source, language);
    const read = graphOfTree(file.path, parsed.text, parsed.tree, parsed.language, hash);
    const graph =
      read.errors.length > 0 && parsed.blanked ? withBlankedReading(read, parsed.blanked, parsed.language) : read;
    const note = parsed.note;
    if (!note || graph.errors.length === 0) return graph;
    return freeze({ ...graph, errors: graph.errors.map((error) => `${error} (${note})`) });
  } catch (error) {
    return failed(
      file.path,
      hash,
      `Parse failed for ${file.path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    if (parsed) release(parsed);
  }
}

/**
 * Joins per-file graphs into the design's Graph JSON. The symbol and import records and the
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
 * The version of what the graph extracts from a tree. A `GraphStore` entry is keyed by it (with
 * the grammars' versions and the file's bytes): raise it whenever a change to the extraction
 * (languages.ts, imports.ts, this file) can change a file's graph, so that stored graphs of the
 * old extractor are never read again.
 */
export const EXTRACTOR_VERSION = "2026-11-27.1";

/** The grammars every stored graph was made with (both pinned in package.json). */
const GRAMMARS = "web-tree-sitter@0.25.10+tree-sitter-wasms@0.1.13";

/**
 * One file's graph as a `GraphStore` keeps it: without the file's path (two files with the same
 * bytes share one entry), errors with the path written as `\u0000`.
 */
export interface StoredFileGraph {
  /** The key it was stored under (checked on read: a misplaced or corrupt entry is a miss). */
  readonly key: string;
  /** `[name, kind, start_line, end_line]` per symbol. */
  readonly symbols: readonly (readonly [string, string, number, number])[];
  /** `[module, symbol, line]` per import. */
  readonly imports: readonly (readonly [string, string | null, number])[];
  readonly lineKinds: Readonly<Record<string, string>>;
  readonly errors: readonly string[];
}

/**
 * A persistent, content-addressed store of per-file graphs, for `GraphCache`. Keys are hex
 * strings that name the file's bytes, its language, the grammars and `EXTRACTOR_VERSION`. `get`
 * returns undefined for anything it cannot read back intact; `put` may drop the entry (a full
 * disk...): both are caches, never errors. See `DiskGraphStore` (`@graphplan/graph/disk`).
 */
export interface GraphStore {
  get(key: string): StoredFileGraph | undefined;
  /**
   * Stores the graph of a file just parsed. The store turns it into its stored form
   * (`toStored(key, graph)`) when it writes it, which may be after the build returns: the graph
   * is frozen, so it can be kept until then.
   */
  put(key: string, graph: FileGraph): void;
}

export interface GraphCacheOptions {
  /** Where per-file graphs outlive this process (`DiskGraphStore`); without it, memory only. */
  readonly store?: GraphStore;
  /** Overrides `EXTRACTOR_VERSION` in store keys (for tests). */
  readonly extractorVersion?: string;
}

const versionTags = new Map<string, string>();

/** The store key of a file: language (by extension, and whether a header may be C++), versions, sha1 of the text. */
export function storeKey(path: string, hash: string, extractorVersion: string = EXTRACTOR_VERSION): string | undefined {
  let language: string | undefined = detectLanguage(path);
  if (!language) return undefined;
  if (language === "c" && isSharedHeader(path)) language = isLoaded("cpp") ? "h" : "h-c";
  let tag = versionTags.get(extractorVersion);
  if (!tag) versionTags.set(extractorVersion, (tag = hashSource(`${extractorVersion}\0${GRAMMARS}`).slice(0, 12)));
  return `${hash}-${tag}-${language}`;
}

/** The stored form of a file graph (see `StoredFileGraph`). */
export function toStored(key: string, graph: FileGraph): StoredFileGraph {
  return {
    key,
    symbols: graph.symbols.map((s) => [s.name, s.kind, s.start_line, s.end_line] as const),
    imports: graph.imports.map((i) => [i.module, i.symbol, i.line] as const),
    lineKinds: graph.lineKinds,
    errors: graph.errors.map((error) => error.split(graph.file).join("\u0000")),
  };
}

const isLine = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value > 0;

/** The file graph of `file` from its stored form; undefined when the entry is not well formed. */
export function fromStored(stored: unknown, key: string, file: string, hash: string): FileGraph | undefined {
  if (typeof stored !== "object" || stored === null) return undefined;
  const { key: storedKey, symbols, imports, lineKinds, errors } = stored as Record<string, unknown>;
  if (storedKey !== key || !Array.isArray(symbols) || !Array.isArray(imports) || !Array.isArray(errors))
    return undefined;
  if (typeof lineKinds !== "object" || lineKinds === null || Array.isArray(lineKinds)) return undefined;
  // Indexing rather than destructuring, and no regular expressions: this runs for every file a
  // warm store hands back (django: 2,800 files, 38,000 symbols).
  const outSymbols: GraphSymbol[] = new Array(symbols.length);
  for (let i = 0; i < symbols.length; i++) {
    const s = symbols[i] as unknown[];
    if (!Array.isArray(s) || s.length !== 4) return undefined;
    const name = s[0],
      kind = s[1],
      start_line = s[2],
      end_line = s[3];
    if (typeof name !== "string" || typeof kind !== "string" || !isLine(start_line) || !isLine(end_line))
      return undefined;
    outSymbols[i] = { name, kind, file, start_line, end_line };
  }
  const outImports: GraphImport[] = new Array(imports.length);
  for (let i = 0; i < imports.length; i++) {
    const imp = imports[i] as unknown[];
    if (!Array.isArray(imp) || imp.length !== 3) return undefined;
    const module = imp[0],
      symbol = imp[1],
      line = imp[2];
    if (typeof module !== "string" || !(symbol === null || typeof symbol === "string") || !isLine(line))
      return undefined;
    outImports[i] = { file, module, symbol, line };
  }
  const kinds = lineKinds as Record<string, unknown>;
  for (const line in kinds) {
    if (typeof kinds[line] !== "string" || !isLine(+line)) return undefined;
  }
  for (let i = 0; i < errors.length; i++) if (typeof errors[i] !== "string") return undefined;
  const outErrors = (errors as string[]).map((error) =>
    error.includes("\u0000") ? error.split("\u0000").join(file) : error,
  );
  // The parsed object is this file graph's own (one JSON.parse per read): no copy needed.
  const outKinds = kinds as Record<string, string>;
  return freeze({ file, hash, symbols: outSymbols, imports: outImports, lineKinds: outKinds, errors: outErrors });
}

/**
 * Per-file graphs keyed by path: rebuilding after one file changed re-parses only that file.
 * A cached graph is reused when the file's text is the same string as before (compared with
 * `===`, which V8 answers by pointer for the very same string and by content otherwise, so no
 * text is hashed for unchanged files); a changed file is hashed once and parsed once.
 *
 * With a `store` (`new GraphCache({ store: new DiskGraphStore(dir) })`), a file the cache has not
 * seen in this process is looked up there by its bytes before it is parsed, and every parsed
 * file is written there: a second process (another instance on the same repository) parses only
 * the files whose bytes it has never graphed.
 */
export class GraphCache {
  readonly #entries = new Map<string, CacheEntry>();
  readonly #store: GraphStore | undefined;
  readonly #version: string;
  /** Paths parsed by the last `build` (the rest came from the cache or the store), in input order. */
  lastParsed: string[] = [];
  /** Paths the last `build` read from the store, in input order. */
  lastStored: string[] = [];

  constructor(options: GraphCacheOptions = {}) {
    this.#store = options.store;
    this.#version = options.extractorVersion ?? EXTRACTOR_VERSION;
  }

  /** The graph of `files`. The grammars of their languages must be loaded (`buildGraph` does it). */
  build(files: readonly SourceFile[], extraErrors: readonly string[] = []): Graph {
    return mergeGraphs(this.fileGraphs(files), extraErrors);
  }

  /** The per-file graphs of `files`, from the cache, the store, or freshly parsed. */
  fileGraphs(files: readonly SourceFile[]): FileGraph[] {
    this.lastParsed = [];
    this.lastStored = [];
    const out: FileGraph[] = [];
    const store = this.#store;
    for (const file of files) {
      const cached = this.#entries.get(file.path);
      if (cached && cached.source === file.source) {
        out.push(cached.graph);
        continue;
      }
      let graph: FileGraph | undefined;
      if (store) {
        const hash = hashSource(file.source);
        const key = storeKey(file.path, hash, this.#version);
        if (key) {
          graph = fromStored(store.get(key), key, file.path, hash);
          if (graph) this.lastStored.push(file.path);
          else {
            graph = graphOfFile(file, hash);
            this.lastParsed.push(file.path);
            store.put(key, graph);
          }
        }
      }
      if (!graph) {
        graph = graphOfFile(file);
        this.lastParsed.push(file.path);
      }
      this.#entries.set(file.path, { source: file.source, graph });
      out.push(graph);
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
  /**
   * Read the files that are not code as documents (`Graph.documents`: keys of data files, headings
   * of Markdown and reST, line counts of other text) instead of reporting them as unsupported.
   */
  readonly documents?: boolean;
}

/** The languages `files` need, by extension. */
export function languagesOf(files: readonly SourceFile[]): LanguageId[] {
  return grammarsFor(files.map((file) => file.path));
}

/** The grammars files at these paths need: their extensions' languages, and C++ too for a `.h` header (it may be C++, see `graphOfFile`). */
export function grammarsFor(paths: Iterable<string>): LanguageId[] {
  const needed = new Set<LanguageId>();
  for (const path of paths) {
    const language = detectLanguage(path);
    if (language) needed.add(language);
    if (language === "c" && isSharedHeader(path)) needed.add("cpp");
  }
  return [...needed];
}

/** Loads every grammar files at these paths need (see {@link grammarsFor}; `loadGrammars` loads the data grammars too). */
export function loadGrammarsFor(paths: Iterable<string>): Promise<void> {
  return loadGrammars(grammarsFor(paths));
}

/** The graph of `files`: loads the grammars it needs on first use, then parses each file once. */
export async function buildGraph(files: readonly SourceFile[], options: BuildGraphOptions = {}): Promise<Graph> {
  await loadGrammars(languagesOf(files));
  if (!options.documents) return (options.cache ?? new GraphCache()).build(files, options.extraErrors);
  // An HTML template is a document, not code (see `isHtmlTemplate`).
  const isCode = (file: SourceFile): boolean =>
    !!detectLanguage(file.path) && !(detectLanguage(file.path) === "html" && isHtmlTemplate(file.source));
  const code = files.filter(isCode);
  const graph = (options.cache ?? new GraphCache()).build(code, options.extraErrors);
  const others = files.filter((file) => !isCode(file));
  if (others.length === 0) return graph;
  return { ...graph, documents: await documentsOf(others) };
}

/** The documents of files that are not code (see `documentOfFile`), in path order; loads the data grammars. */
export async function documentsOf(files: readonly SourceFile[]) {
  if (files.some((file) => dataFormatOf(file.path))) await loadDataGrammars();
  return files.map(documentOfFile).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

export type { Node, Tree };

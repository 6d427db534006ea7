/**
 * Grammar loading and parsing. Grammars load once per process (`loadGrammars`), after which
 * `parse` is synchronous and reuses one parser per language.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Language, Parser, type Tree } from "web-tree-sitter";
import { LANGUAGE_IDS, LANGUAGES, type LanguageId } from "./languages.js";
import { errorGuard, TaggedError } from "./tagged-error.js";
import { loadDataGrammars } from "./data.js";

const require = createRequire(import.meta.url);

/** `parse` was called for a language whose grammar has not been loaded. */
export class GrammarNotLoaded extends TaggedError("GrammarNotLoaded") {
  constructor(readonly language: LanguageId) {
    super(`The ${language} grammar is not loaded: call \`await loadGrammars()\` once before parsing.`);
  }
}

/** Every error of the graph package. */
export type GraphError = GrammarNotLoaded;
export const isGraphError = errorGuard(GrammarNotLoaded);

const languages = new Map<LanguageId, Language>();
const parsers = new Map<LanguageId, Parser>();
let runtime: Promise<void> | undefined;
const pending = new Map<LanguageId, Promise<void>>();
let queue: Promise<unknown> = Promise.resolve();

/**
 * C library functions a grammar of tree-sitter-wasms imports and web-tree-sitter 0.25's runtime does
 * not export: tree-sitter-bash's scanner calls `isalpha` (in `case` patterns). Unresolved, the call
 * throws "resolved is not a function" mid-parse and leaves the parser unusable; so the runtime is
 * instantiated with them added to its imports (emscripten's `instantiateWasm` hook), where a grammar
 * that needs them finds them.
 */
const MISSING_LIBC: Readonly<Record<string, (c: number) => number>> = {
  isalpha: (c) => ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0),
};

/** The part of the WebAssembly global used here (the project's TypeScript libraries declare no WebAssembly). */
interface WasmApi {
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: object; module: object }>;
}

/** `Parser.init` with the runtime's imports completed by {@link MISSING_LIBC}. */
function initRuntime(): Promise<void> {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  return Parser.init({
    instantiateWasm(imports: { env: Record<string, unknown> }, receive: (instance: object, module: object) => void) {
      for (const [name, fn] of Object.entries(MISSING_LIBC)) imports.env[name] ??= fn;
      void wasm
        .instantiate(readFileSync(require.resolve("web-tree-sitter/tree-sitter.wasm")), imports)
        .then(({ instance, module }) => receive(instance, module));
      return {};
    },
  });
}

/**
 * Loads the tree-sitter runtime and the grammars of `ids` (all 14 by default), and the data
 * files' JSON and TOML grammars (`parseData`: plans may edit data files beside code). Idempotent
 * and safe to call concurrently: each grammar loads once per process, one at a time.
 */
export async function loadGrammars(ids: readonly LanguageId[] = LANGUAGE_IDS): Promise<void> {
  runtime ??= initRuntime();
  await runtime;
  for (const id of ids) {
    if (languages.has(id)) continue;
    let loading = pending.get(id);
    if (!loading) {
      loading = loadWasm(LANGUAGES[id].wasm).then((language) => {
        languages.set(id, language);
      });
      pending.set(id, loading);
    }
    await loading;
  }
  await loadDataGrammars();
}

/**
 * Loads one grammar of `tree-sitter-wasms/out` (`tree-sitter-json.wasm`), after the runtime and
 * after every grammar already loading: grammars are linked into one WebAssembly module, and
 * loading two at once corrupts the linker's symbol table. For the code grammars above and the
 * data grammars of `data.ts`; the caller keeps the `Language`.
 */
export async function loadWasm(file: string): Promise<Language> {
  runtime ??= initRuntime();
  await runtime;
  const loading = queue.then(() => Language.load(require.resolve(`tree-sitter-wasms/out/${file}`)));
  queue = loading.catch(() => undefined);
  return loading;
}

/** Whether the grammar of `id` is loaded (`parse` works for it). */
export function isLoaded(id: LanguageId): boolean {
  return languages.has(id);
}

/** The loaded tree-sitter `Language` of `id` (for building queries). */
export function grammar(id: LanguageId): Language {
  const language = languages.get(id);
  if (!language) throw new GrammarNotLoaded(id);
  return language;
}

/**
 * Parses `source` as `language`. The caller owns the returned tree and must `tree.delete()` it
 * (or use {@link withTree}); trees live in WebAssembly memory, not the JS heap.
 */
export function parse(source: string, language: LanguageId): Tree {
  let parser = parsers.get(language);
  if (!parser) {
    parser = new Parser();
    parser.setLanguage(grammar(language));
    parsers.set(language, parser);
  }
  const tree = parser.parse(source);
  if (!tree) throw new Error(`tree-sitter returned no tree for a ${language} source of ${source.length} chars`);
  return tree;
}

/** Parses, runs `use`, and frees the tree, whatever `use` does. */
export function withTree<T>(source: string, language: LanguageId, use: (tree: Tree) => T): T {
  const tree = parse(source, language);
  try {
    return use(tree);
  } finally {
    tree.delete();
  }
}

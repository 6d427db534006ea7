export { LANGUAGES, LANGUAGE_IDS, SUPPORTED_EXTENSIONS, detectLanguage } from "./languages.js";
export type { LanguageId, LanguageSpec, SymbolKind, DefinitionRule } from "./languages.js";
export { GrammarNotLoaded, isLoaded, loadGrammars, parse, withTree, grammar } from "./parser.js";
export { syntaxErrors, codeEnd, inStringOrComment, childrenBetween } from "./syntax.js";
export type { SyntaxError, NodeEnd } from "./syntax.js";
export { GraphSchema, buildGraph, GraphCache, EXTRACTOR_VERSION, storeKey, toStored, fromStored, blankMacros, detectFileLanguage, graphOfFile, graphOfTree, mergeGraphs, languagesOf, grammarsFor } from "./graph.js";
export type { Graph, GraphSymbol, GraphImport, FileGraph, SourceFile, BuildGraphOptions, GraphCacheOptions, GraphStore, StoredFileGraph, Node, Tree } from "./graph.js";
export { graphView } from "./view.js";

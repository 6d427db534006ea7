export { LANGUAGES, LANGUAGE_IDS, SUPPORTED_EXTENSIONS, detectLanguage } from "./languages.js";
export type { LanguageId, LanguageSpec, SymbolKind } from "./languages.js";
export { GrammarNotLoaded, loadGrammars, parse, withTree, grammar } from "./parser.js";
export { syntaxErrors, codeEnd, inStringOrComment } from "./syntax.js";
export type { SyntaxError } from "./syntax.js";
export { GraphSchema, buildGraph, GraphCache, graphOfFile, graphOfTree, mergeGraphs } from "./graph.js";
export type { Graph, GraphSymbol, GraphImport, FileGraph, SourceFile, Node, Tree } from "./graph.js";
export { graphView } from "./view.js";

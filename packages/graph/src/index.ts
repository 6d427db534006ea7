export {
  LANGUAGES,
  LANGUAGE_IDS,
  SUPPORTED_EXTENSIONS,
  detectLanguage,
  htmlTag,
  isHtmlTemplate,
} from "./languages.js";
export { moduleMayDenote, moduleCandidates, candidatesDenote, pathStem } from "./modules.js";
export type { LanguageId } from "./languages.js";
export type { GraphError } from "./parser.js";
export { TaggedError, errorGuard } from "./tagged-error.js";
export { isGraphError, loadGrammars, parse, withTree, grammar } from "./parser.js";
export { syntaxErrors, codeEnd, inStringOrComment, childrenBetween, fieldOf } from "./syntax.js";
export {
  GraphSchema,
  buildGraph,
  GraphCache,
  documentsOf,
  EXTRACTOR_VERSION,
  storeKey,
  detectFileLanguage,
  graphOfFile,
  mergeGraphs,
  languagesOf,
  grammarsFor,
  loadGrammarsFor,
} from "./graph.js";
export { blankMacros } from "./graph.js";
export { conditionalReadings } from "./preprocessor.js";
export type { Graph, GraphSymbol, FileGraph, SourceFile, GraphStore, Node, Tree } from "./graph.js";
export { graphView } from "./view.js";
export { dataFormatOf, loadDataGrammars, parseData, dataValue } from "./data.js";
export type {
  DataFormat,
  DataDocument,
  DataNode,
  DataMapping,
  DataSequence,
  DataEntry,
  DataItem,
  DataRange,
  DataSyntaxError,
} from "./data.js";
export { DOCUMENT_EXTENSIONS, documentKindOf } from "./documents.js";

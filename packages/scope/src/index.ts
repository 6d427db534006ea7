export { analyzePython, scopeLabel } from "./python.js";
export type { Scope, ScopeKind, Occurrence, ScopeAnalysis, AnalyzeOptions } from "./python.js";
export { PYTHON_BUILTINS, isPythonBuiltin } from "./python-builtins.js";
export { analyzeGo, goImportName, goScopeLabel, GO_PREDECLARED } from "./go.js";
export type { GoScope, GoScopeKind, GoBinding, GoOccurrence, GoScopeAnalysis } from "./go.js";
export { analyzeJava, javaScopeLabel } from "./java.js";
export type { JavaScope, JavaBinding, JavaOccurrence, JavaScopeAnalysis } from "./java.js";
export { analyzeJavaScript, jsScopeLabel } from "./javascript.js";
export type { JsScope, JsBinding, JsOccurrence, JsScopeAnalysis } from "./javascript.js";

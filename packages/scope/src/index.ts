export { analyzePython, scopeLabel } from "./python.js";
export type { Scope, Occurrence, ScopeAnalysis } from "./python.js";
export { isPythonBuiltin } from "./python-builtins.js";
export { analyzeGo, goImportName, goScopeLabel, GO_PREDECLARED } from "./go.js";
export type { GoBinding, GoScopeAnalysis } from "./go.js";
export { analyzeJava, javaScopeLabel } from "./java.js";
export type { JavaScope, JavaBinding, JavaOccurrence, JavaScopeAnalysis } from "./java.js";
export { analyzeJavaScript, jsScopeLabel } from "./javascript.js";
export type { JsBinding, JsScopeAnalysis } from "./javascript.js";

export { analyzePython, scopeLabel } from "./python.js";
export type { Scope, ScopeKind, Occurrence, ScopeAnalysis, AnalyzeOptions } from "./python.js";
export { PYTHON_BUILTINS, isPythonBuiltin } from "./python-builtins.js";

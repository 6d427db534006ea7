import type { LanguageId } from "@graphplan/graph";
import { goScope } from "./go.js";
import { javaScope } from "./java.js";
import { javascriptScope } from "./javascript.js";
import { pythonScope } from "./python.js";
import type { ScopeModel } from "./types.js";

const MODELS: Partial<Record<LanguageId, ScopeModel>> = {
  python: pythonScope,
  javascript: javascriptScope("javascript"),
  typescript: javascriptScope("typescript"),
  tsx: javascriptScope("tsx"),
  go: goScope,
  java: javaScope,
};

/** The scope model of a language, when GraphPlan has one. */
export function scopeModel(language: LanguageId): ScopeModel | undefined {
  return MODELS[language];
}

export type { NameUse, ScopeModel } from "./types.js";

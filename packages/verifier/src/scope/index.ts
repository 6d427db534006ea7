import type { LanguageId } from "@graphplan/graph";
import { javascriptScope } from "./javascript.js";
import { pythonScope } from "./python.js";
import type { ScopeModel } from "./types.js";

const MODELS: Partial<Record<LanguageId, ScopeModel>> = {
  python: pythonScope,
  javascript: javascriptScope("javascript"),
  typescript: javascriptScope("typescript"),
  tsx: javascriptScope("tsx"),
};

/** The scope model of a language, when GraphPlan has one. */
export function scopeModel(language: LanguageId): ScopeModel | undefined {
  return MODELS[language];
}

export type { NameUse, ScopeModel } from "./types.js";

/**
 * The verifier's adapter over `analyzeJavaScript` of @graphplan/scope — GraphPlan's one model of
 * JavaScript/TypeScript scoping, which rename_identifier uses too: a name used in new code is
 * unresolved when no declaration of the file's scopes reaches it and it is not a global of
 * {@link JS_GLOBALS}. Types (TypeScript annotations) are not checked.
 */
import type { LanguageId, Tree } from "@graphplan/graph";
import { analyzeJavaScript, type JsScopeAnalysis } from "@graphplan/scope";
import type { FileVersion } from "../sim.js";
import { JS_GLOBALS } from "./javascript-globals.js";
import { MEMBER_KINDS, type NameUse, type ScopeModel } from "./types.js";

const GLOBALS = new Set(JS_GLOBALS);

/** One analysis per tree: a file version is analyzed once however many checks read it. */
const analyses = new WeakMap<Tree, JsScopeAnalysis>();
function analysisOf(doc: FileVersion): JsScopeAnalysis {
  let analysis = analyses.get(doc.tree);
  if (!analysis) {
    analysis = analyzeJavaScript(doc.tree);
    analyses.set(doc.tree, analysis);
  }
  return analysis;
}

export function javascriptScope(language: LanguageId): ScopeModel {
  return {
    language,
    unresolved(doc: FileVersion, start: number, end: number): NameUse[] {
      return analysisOf(doc)
        .occurrences.filter(
          (o) => !o.binding && o.node.startIndex >= start && o.node.endIndex <= end && !GLOBALS.has(o.name),
        )
        .map((o) => ({ name: o.name, index: o.node.startIndex, line: o.node.startPosition.row + 1 }));
    },
    definedAtTopLevel(doc: FileVersion): ReadonlySet<string> {
      return new Set(analysisOf(doc).program.bindings.keys());
    },
    isBuiltin(name: string): boolean {
      return GLOBALS.has(name);
    },
    importable: (kind) => !MEMBER_KINDS.has(kind),
    importFix(name: string, file: string, doc: FileVersion): string {
      const fromDir = doc.path.split("/").slice(0, -1);
      const to = file.replace(/\.(m|c)?[jt]sx?$/, "").split("/");
      let common = 0;
      while (common < fromDir.length && common < to.length - 1 && fromDir[common] === to[common]) common++;
      const rel = [...fromDir.slice(common).map(() => ".."), ...to.slice(common)].join("/");
      return `add an add_import step for \`import { ${name} } from "${rel.startsWith(".") ? rel : `./${rel}`}"\` before this step`;
    },
    importProblems: () => [],
  };
}

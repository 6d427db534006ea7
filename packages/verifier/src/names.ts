/**
 * The `references` check (L3) on whole files, outside a plan: the names a file uses that resolve
 * to nothing, by the same scope models the verifier uses on a step's new code. A lint of its own,
 * and how `benchmarks/references` measures the models on real repositories.
 */
import { detectLanguage, withTree, type Graph, type LanguageId } from "@graphplan/graph";
import { FileVersion, Sim } from "./sim.js";
import { scopeModel } from "./scope/index.js";

export interface UnresolvedName {
  readonly name: string;
  /** 1-based line. */
  readonly line: number;
}

export class NameCheck {
  readonly #sim: Sim;
  readonly #graph: Graph;

  /** `files`: the workspace (paths relative to its root → texts); `graph`: its code graph (`buildGraph`). Grammars must be loaded. */
  constructor(files: ReadonlyMap<string, string>, graph: Graph) {
    this.#sim = new Sim(files);
    this.#graph = graph;
  }

  /** Whether the verifier has a scope model for the language. */
  static supports(language: LanguageId): boolean {
    return scopeModel(language) !== undefined;
  }

  /**
   * The names `path` uses that resolve to nothing, in source order; with `source`, for that text
   * of the file instead of the workspace's (the rest of the workspace unchanged). `"unknown"`
   * when the file makes that undecidable (a wildcard import); undefined for a language without a
   * scope model, or a path not in the workspace.
   */
  unresolved(path: string, source?: string): readonly UnresolvedName[] | "unknown" | undefined {
    const language = detectLanguage(path);
    const model = language && scopeModel(language);
    if (!language || !model || !this.#sim.has(path)) return undefined;
    const check = (doc: FileVersion) => {
      const found = model.unresolved(doc, 0, doc.source.length, { sim: this.#sim, graph: this.#graph });
      return found === "unknown" ? found : found.map((u) => ({ name: u.name, line: u.line }));
    };
    if (source === undefined) return check(this.#sim.doc(path)!);
    return withTree(source, language, (tree) => check(new FileVersion(path, language, source, tree)));
  }

  dispose(): void {
    this.#sim.dispose();
  }
}

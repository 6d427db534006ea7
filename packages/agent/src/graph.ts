/**
 * Phase 2, GRAPH: the code graph of the files EXPLORE named, read through the Workspace. A file
 * that cannot be read, or a graph with no symbol and no import (nothing to plan against), → fallback.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import {
  detectLanguage,
  documentKindOf,
  documentsOf,
  graphView,
  languagesOf,
  loadGrammars,
  type Graph,
  type GraphCache,
} from "@graphplan/graph";
import { Workspace } from "@graphplan/runtime";

export type GraphOutcome =
  | { readonly kind: "ok"; readonly graph: Graph; readonly view: string; readonly files: ReadonlyMap<string, string> }
  | { readonly kind: "fallback"; readonly reason: string };

/** The texts of `paths` (a missing file is left out), read through the Workspace. */
export function readFiles(
  paths: Iterable<string>,
): Effect.Effect<{ files: Map<string, string>; errors: string[] }, never, Workspace> {
  return Effect.gen(function* () {
    const ws = yield* Workspace;
    const files = new Map<string, string>();
    const errors: string[] = [];
    for (const path of paths) {
      if (files.has(path)) continue;
      const read = yield* Effect.result(ws.read(path));
      if (Result.isSuccess(read)) files.set(path, read.success);
      else errors.push(read.failure.message);
    }
    return { files, errors };
  });
}

/**
 * The graph of the files' texts (those in a supported language), through the run's cache: GRAPH
 * and every VERIFY share it, so a file is parsed again only when its text changed.
 */
export function cachedGraph(files: ReadonlyMap<string, string>, cache: GraphCache): Effect.Effect<Graph> {
  const sources = [...files].filter(([path]) => detectLanguage(path)).map(([path, source]) => ({ path, source }));
  // Data files, Markdown and reST named by EXPLORE are shown too (their keys and headings), not graphed.
  const documents = [...files]
    .filter(([path]) => !detectLanguage(path) && documentKindOf(path) !== "text")
    .map(([path, source]) => ({ path, source }));
  return Effect.promise(async () => {
    // languagesOf also loads C++ when there are .h files (a header may be C++; the graph decides per file).
    await loadGrammars(languagesOf(sources));
    const graph = cache.build(sources);
    return documents.length > 0 ? { ...graph, documents: await documentsOf(documents) } : graph;
  });
}

const lineCount = (text: string): number => (text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0));

/** Wraps the graph building of a phase (the session counts its time: `Session.graphing`). */
export type GraphTimer = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>;
/** No timing (tests, and callers without a session). */
export const untimed: GraphTimer = (effect) => effect;

export function graphPhase(
  paths: readonly string[],
  cache: GraphCache,
  timed: GraphTimer = untimed,
): Effect.Effect<GraphOutcome, never, Workspace> {
  return Effect.gen(function* () {
    const { files, errors } = yield* readFiles(paths);
    if (errors.length > 0)
      return { kind: "fallback", reason: `the graph could not be built: ${errors.join("; ")}` } as const;
    const graph = yield* timed(cachedGraph(files, cache));
    // Docs, changelogs and config have no code graph; the plan changes them with text (and data) steps.
    const texts = [...files].filter(([path]) => !detectLanguage(path));
    if (graph.symbols.length === 0 && graph.imports.length === 0 && texts.length === 0) {
      const detail = graph.errors.length ? ` (${graph.errors.join("; ")})` : "";
      return { kind: "fallback", reason: `the code graph of ${paths.join(", ")} is empty${detail}` } as const;
    }
    // Data files, Markdown and reST are in the graph's view with their keys and headings; other text by its line count here.
    const documented = new Set((graph.documents ?? []).map((doc) => doc.file));
    const textView = texts
      .filter(([path]) => !documented.has(path))
      .map(
        ([path, source]) =>
          `FILE: ${path} (not code: ${lineCount(source)} lines; change it with text steps, quoting its lines)`,
      );
    const hint =
      documented.size > 0
        ? [
            "The data files and docs above are not code: change them with text steps, quoting their lines, and JSON, YAML and TOML keys with set_key, delete_key, append_item.",
          ]
        : [];
    return {
      kind: "ok",
      graph,
      view: [graphView(graph), ...hint, ...textView].filter(Boolean).join("\n\n"),
      files,
    } as const;
  });
}

/**
 * Module names to workspace files, for the import graph (checks `importers` and `imports`), by the rules of
 * `moduleCandidates` (@graphplan/graph); anything else (packages, other languages' module systems)
 * does not resolve, and callers fall back to matching by name.
 */
import { candidatesDenote, moduleCandidates, pathStem, type Graph } from "@graphplan/graph";
import type { Sim } from "./sim.js";

function knownFiles(sim: Sim, graph: Graph): Set<string> {
  const files = new Set<string>(sim.paths());
  for (const s of graph.symbols) files.add(s.file);
  for (const f of Object.keys(graph.line_kinds)) files.add(f);
  for (const i of graph.imports) files.add(i.file);
  return files;
}

const cache = new WeakMap<Graph, WeakMap<Sim, Set<string>>>();
function files(sim: Sim, graph: Graph): Set<string> {
  let bySim = cache.get(graph);
  if (!bySim) cache.set(graph, (bySim = new WeakMap()));
  let set = bySim.get(sim);
  if (!set) bySim.set(sim, (set = knownFiles(sim, graph)));
  return set;
}

/** The workspace file `module` (as written in `importer`) denotes, if it is one. */
export function resolveModule(module: string, importer: string, sim: Sim, graph: Graph): string | undefined {
  const found = moduleCandidates(module, importer);
  if (!found) return undefined;
  for (const file of files(sim, graph)) if (candidatesDenote(found, file)) return file;
  return undefined;
}

/**
 * Whether an import of `module` in `importer` may refer to `file`: resolved when the module
 * system is known, otherwise by the module's last segment matching the file's name.
 */
export function mayReferTo(module: string, importer: string, file: string, sim: Sim, graph: Graph): boolean {
  if (moduleCandidates(module, importer)) {
    const resolved = resolveModule(module, importer, sim, graph);
    return resolved === file;
  }
  const last =
    module
      .split(/[./\\:]+/)
      .filter(Boolean)
      .at(-1) ?? module;
  const base = pathStem(file).split("/").at(-1) ?? file;
  return last === base || module.includes(pathStem(file));
}

/**
 * Module names to workspace files, for the import graph (layer 6, L4). Python dotted and
 * relative modules and JS/TS relative specifiers resolve; anything else (packages, other
 * languages' module systems) does not, and callers fall back to matching by name.
 */
import type { Graph } from "@graphplan/graph";
import type { Sim } from "./sim.js";

const dirname = (path: string): string => {
  const cut = path.lastIndexOf("/");
  return cut < 0 ? "" : path.slice(0, cut);
};

function normalize(path: string): string {
  const out: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") out.pop();
    else out.push(part);
  }
  return out.join("/");
}

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

/** Candidate paths (without extension) a module name may denote, most specific first. */
function candidates(module: string, importer: string): { stems: string[]; suffixMatch: boolean } | undefined {
  if (importer.endsWith(".py") || importer.endsWith(".pyi")) {
    const dots = /^\.*/.exec(module)?.[0].length ?? 0;
    const rest = module.slice(dots).split(".").filter(Boolean).join("/");
    if (dots > 0) {
      let base = dirname(importer);
      for (let i = 1; i < dots; i++) base = dirname(base);
      const stem = normalize(`${base}/${rest}`);
      return { stems: [stem, `${stem}/__init__`], suffixMatch: false };
    }
    return { stems: [rest, `${rest}/__init__`], suffixMatch: true };
  }
  if (/\.(m|c)?[jt]sx?$/.test(importer)) {
    if (!module.startsWith(".")) return undefined;
    const stem = normalize(`${dirname(importer)}/${module}`).replace(/\.(m|c)?[jt]sx?$/, "");
    return { stems: [stem, `${stem}/index`], suffixMatch: false };
  }
  return undefined;
}

const stemOf = (path: string): string => path.replace(/\.[^./]+$/, "");

function denotes(found: { stems: string[]; suffixMatch: boolean }, file: string): boolean {
  const stem = stemOf(file);
  return found.stems.some((want) => stem === want || (found.suffixMatch && stem.endsWith(`/${want}`)));
}

/**
 * Whether `module`, as written in `importer`, may denote `file` (Python dotted and relative
 * modules, JS/TS relative specifiers; false for anything else). Where several files match, the
 * verifier's own resolution takes the first; this answers true for each, so a caller looking
 * for every file that imports `file` misses none the verifier would name.
 */
export function moduleMayDenote(module: string, importer: string, file: string): boolean {
  const found = candidates(module, importer);
  return found !== undefined && denotes(found, file);
}

/** The workspace file `module` (as written in `importer`) denotes, if it is one. */
export function resolveModule(module: string, importer: string, sim: Sim, graph: Graph): string | undefined {
  const found = candidates(module, importer);
  if (!found) return undefined;
  for (const file of files(sim, graph)) if (denotes(found, file)) return file;
  return undefined;
}

/**
 * Whether an import of `module` in `importer` may refer to `file`: resolved when the module
 * system is known, otherwise by the module's last segment matching the file's name.
 */
export function mayReferTo(module: string, importer: string, file: string, sim: Sim, graph: Graph): boolean {
  const found = candidates(module, importer);
  if (found) {
    const resolved = resolveModule(module, importer, sim, graph);
    return resolved === file;
  }
  const last = module.split(/[./\\:]+/).filter(Boolean).at(-1) ?? module;
  const base = stemOf(file).split("/").at(-1) ?? file;
  return last === base || module.includes(stemOf(file));
}

/**
 * Module names to file paths, by the rules of the module systems the graph knows: Python dotted and
 * relative modules, JS/TS relative specifiers. Pure: it compares a module name with a path; which
 * files exist is the caller's business (the verifier's import graph, the cross-file rename).
 */

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

/** The paths (without extension) a module may denote, most specific first; `suffixMatch`: a path may end with one of them. */
export interface ModuleCandidates {
  readonly stems: readonly string[];
  readonly suffixMatch: boolean;
}

/**
 * Where `module`, as written in `importer`, may be: Python dotted (`pkg.util`, also under a source
 * root such as `src/`) and relative (`..util`) modules, JS/TS relative specifiers (`./lib`);
 * undefined for any other module system (packages, other languages).
 */
export function moduleCandidates(module: string, importer: string): ModuleCandidates | undefined {
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

/** `pkg/util.py` → `pkg/util`. */
export const pathStem = (path: string): string => path.replace(/\.[^./]+$/, "");

/** Whether `file` is one of the candidates. */
export function candidatesDenote(found: ModuleCandidates, file: string): boolean {
  const stem = pathStem(file);
  return found.stems.some((want) => stem === want || (found.suffixMatch && stem.endsWith(`/${want}`)));
}

/**
 * Whether `module`, as written in `importer`, may denote `file` (Python dotted and relative
 * modules, JS/TS relative specifiers; false for anything else). Where several files match, each
 * answers true, so a caller looking for every file that imports `file` misses none.
 */
export function moduleMayDenote(module: string, importer: string, file: string): boolean {
  const found = moduleCandidates(module, importer);
  return found !== undefined && candidatesDenote(found, file);
}

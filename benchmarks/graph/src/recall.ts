/**
 * Usage: pnpm --filter @graphplan/bench-graph recall -- --repos DIR [--misses N] [--exclude REGEX] [--json] [--ctags PATH]
 *
 * Recall of Universal Ctags' named definitions, per language: every directory under DIR is a
 * repository (a work tree); for each, every supported file is graphed, and `ctags` lists its
 * definitions of the kinds below. A ctags definition is found when the graph has a symbol of the
 * same name in the same file whose lines hold the ctags line (one line of slack before the
 * start). Prints found / total per language, per repository, and the misses by ctags kind with
 * N examples each.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { posix } from "node:path";
import { buildGraph, type GraphSymbol } from "@graphplan/graph";
import { fromCaller, parseArguments, usageError, workTreeOf } from "./cli.js";
import { readTree } from "./files.js";
import { ctagsLanguage, countedKinds, isDefinition, matches, type CtagsTag } from "./recall-match.js";

const USAGE =
  "pnpm --filter @graphplan/bench-graph recall -- --repos DIR [--misses N] [--exclude REGEX] [--json] [--ctags PATH]";
const { values } = parseArguments(USAGE, {
  options: {
    repos: { type: "string" },
    misses: { type: "string", default: "5" },
    ctags: { type: "string", default: "ctags" },
    json: { type: "boolean", default: false },
    exclude: { type: "string" },
  },
});
if (!values.repos)
  usageError(USAGE, "give --repos DIR: a directory of repositories (work trees or bare clones, read at HEAD)");
if (!statSync(fromCaller("recall", values.repos), { throwIfNoEntry: false })?.isDirectory())
  usageError(USAGE, `--repos ${values.repos} is not a directory`);
if (!/^\d+$/.test(values.misses)) usageError(USAGE, `--misses ${values.misses}: give a whole number`);
const root = fromCaller("recall", values.repos);
const examples = Number(values.misses);
/** Paths (relative to their repository) left out of the count, e.g. vendored code. */
const exclude = values.exclude ? new RegExp(values.exclude) : undefined;

interface Tally {
  found: number;
  total: number;
  files: number;
  repos: Set<string>;
  /** ctags kind → missed tags. */
  missed: Map<string, CtagsTag[]>;
}
const tallies = new Map<string, Tally>();
const tally = (language: string): Tally => {
  let t = tallies.get(language);
  if (!t) tallies.set(language, (t = { found: 0, total: 0, files: 0, repos: new Set(), missed: new Map() }));
  return t;
};

const loadBefore = loadavg()[0]!;
const started = Date.now();
const repos = readdirSync(root)
  .filter((name) => statSync(posix.join(root, name)).isDirectory())
  .sort();
const perRepo: { repo: string; language: string; found: number; total: number }[] = [];

for (const repo of repos) {
  // A bare clone is read at HEAD from a temporary work tree.
  const tree = workTreeOf(posix.join(root, repo));
  try {
    await recallOf(repo, tree.dir);
  } finally {
    tree.dispose();
  }
}

async function recallOf(repo: string, dir: string): Promise<void> {
  const files = await readTree(dir);
  const graph = await buildGraph(files);
  const byFile = new Map<string, GraphSymbol[]>();
  for (const symbol of graph.symbols) {
    const list = byFile.get(symbol.file) ?? [];
    list.push(symbol);
    byFile.set(symbol.file, list);
  }
  const tags = runCtags(
    dir,
    files.map((f) => f.path),
  );
  const repoHasCpp = files.some((f) => /\.(cc|cpp|cxx|hpp|hh|hxx)$/.test(f.path));
  const repoTally = new Map<string, { found: number; total: number }>();
  const filesOf = new Map<string, Set<string>>();
  for (const tag of tags) {
    const language = ctagsLanguage(tag, repoHasCpp);
    if (!language || !countedKinds(language).has(tag.kind) || !isDefinition(language, tag)) continue;
    if (exclude?.test(tag.path)) continue;
    const t = tally(language);
    t.repos.add(repo);
    const set = filesOf.get(language) ?? new Set();
    set.add(tag.path);
    filesOf.set(language, set);
    const r = repoTally.get(language) ?? { found: 0, total: 0 };
    repoTally.set(language, r);
    t.total++;
    r.total++;
    if ((byFile.get(tag.path) ?? []).some((symbol) => matches(symbol, tag))) {
      t.found++;
      r.found++;
    } else {
      const list = t.missed.get(tag.kind) ?? [];
      list.push(tag);
      t.missed.set(tag.kind, list);
    }
  }
  for (const [language, set] of filesOf) tally(language).files += set.size;
  for (const [language, r] of repoTally) perRepo.push({ repo, language, ...r });
}

/** ctags' definitions in `paths` (relative to `dir`), one per name, file and line. */
function runCtags(dir: string, paths: readonly string[]): CtagsTag[] {
  const out = execFileSync(
    values.ctags!,
    [
      "--output-format=json",
      "--fields=+nKlE",
      "--extras=-q",
      "--map-TypeScript=+.tsx",
      "--map-TypeScript=+.mts",
      "--map-TypeScript=+.cts",
      "--map-JavaScript=+.cjs",
      "--map-Python=+.pyi",
      "-f",
      "-",
      "-L",
      "-",
    ],
    { cwd: dir, input: paths.join("\n"), maxBuffer: 1 << 30, stdio: ["pipe", "pipe", "ignore"], encoding: "utf8" },
  );
  const seen = new Set<string>();
  const tags: CtagsTag[] = [];
  for (const line of out.split("\n")) {
    if (!line.startsWith("{")) continue;
    const raw = JSON.parse(line) as Record<string, unknown>;
    if (raw._type !== "tag") continue;
    if (typeof raw.extras === "string" && raw.extras.split(",").includes("anonymous")) continue;
    const tag: CtagsTag = {
      name: String(raw.name),
      path: String(raw.path),
      language: String(raw.language),
      kind: String(raw.kind),
      line: Number(raw.line),
      scope: typeof raw.scope === "string" ? raw.scope : undefined,
      pattern: typeof raw.pattern === "string" ? raw.pattern : "",
    };
    const key = `${tag.path}\0${tag.name}\0${tag.line}`;
    if (seen.has(key)) continue;
    seen.add(key);
    tags.push(tag);
  }
  return tags;
}

const loadAfter = loadavg()[0]!;
const rows = [...tallies].sort(([a], [b]) => a.localeCompare(b));
if (values.json) {
  process.stdout.write(
    JSON.stringify(
      {
        load: [loadBefore, loadAfter],
        languages: rows.map(([language, t]) => ({
          language,
          found: t.found,
          total: t.total,
          recall: t.total ? t.found / t.total : 1,
          files: t.files,
          repos: [...t.repos],
          missed: Object.fromEntries([...t.missed].map(([kind, list]) => [kind, list.length])),
        })),
        perRepo,
      },
      null,
      2,
    ) + "\n",
  );
} else {
  const pct = (found: number, total: number) => (total ? ((100 * found) / total).toFixed(1) : "100.0");
  console.log(
    `recall of ctags' named definitions (${repos.length} repositories under ${root}${exclude ? `, leaving out ${exclude}` : ""}; load avg ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}; ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  console.log("language    files   found / ctags   recall   repositories");
  for (const [language, t] of rows) {
    console.log(
      `${language.padEnd(10)} ${String(t.files).padStart(6)} ${String(t.found).padStart(7)} / ${String(t.total).padEnd(6)} ${pct(t.found, t.total).padStart(6)}%   ${[...t.repos].join(", ")}`,
    );
  }
  console.log("\nper repository:");
  for (const r of perRepo)
    console.log(
      `  ${r.repo.padEnd(28)} ${r.language.padEnd(10)} ${pct(r.found, r.total).padStart(6)}% (${r.found}/${r.total})`,
    );
  if (examples > 0) {
    console.log("\nmisses by ctags kind:");
    for (const [language, t] of rows) {
      for (const [kind, list] of [...t.missed].sort((a, b) => b[1].length - a[1].length)) {
        console.log(`  ${language} ${kind}: ${list.length}`);
        for (const tag of list.slice(0, examples))
          console.log(`      ${tag.path}:${tag.line} ${tag.name}  ${tag.pattern.slice(2, 90)}`);
      }
    }
  }
}

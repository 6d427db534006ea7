/**
 * The repository's files that import the files a plan changes, for VERIFY: the verifier's layer 6
 * (cross-file impact) warns about a renamed, removed or re-signatured symbol only in the files it
 * is given, so VERIFY adds these importers to them.
 *
 * The repository's source files are listed once per run (through the Workspace, `Session.repoFiles()`)
 * and graphed with the run's `GraphCache` (`Session.graphCache`): a file is parsed again only when
 * its text changed since the last verification.
 */
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { detectLanguage, loadGrammars, moduleMayDenote, type GraphCache, type LanguageId } from "@graphplan/graph";
import { SKIPPED_DIRECTORIES, Workspace } from "@graphplan/runtime";
import { untimed, type GraphTimer } from "./graph.js";

/** The repository's supported source files, or why they are not used. */
export type RepoFiles =
  | { readonly kind: "ok"; readonly paths: readonly string[] }
  | { readonly kind: "skipped"; readonly reason: string };

const SKIPPED: ReadonlySet<string> = new Set(SKIPPED_DIRECTORIES);

/**
 * Every file under the workspace's root in a language `@graphplan/graph` supports, walked with
 * `Workspace.list`: `SKIPPED_DIRECTORIES` and symbolic links are not entered, a directory that
 * cannot be listed is left out. More than `maxFiles` such files → skipped (the walk stops there).
 */
export function listRepoFiles(maxFiles: number): Effect.Effect<RepoFiles, never, Workspace> {
  return Effect.gen(function* () {
    const ws = yield* Workspace;
    const paths: string[] = [];
    const dirs = ["."];
    while (dirs.length > 0) {
      const listed = yield* Effect.result(ws.list(dirs.pop()!));
      if (Result.isFailure(listed)) continue;
      for (const entry of listed.success) {
        if (entry.kind === "directory" && !SKIPPED.has(entry.name)) dirs.push(entry.path);
        else if (entry.kind === "file" && detectLanguage(entry.path)) {
          paths.push(entry.path);
          if (paths.length > maxFiles) {
            return {
              kind: "skipped",
              reason: `the repository has more than limits.max_repo_files (${maxFiles}) source files`,
            } as const;
          }
        }
      }
    }
    return { kind: "ok", paths: paths.sort() } as const;
  });
}

/**
 * The languages whose files may import a file of `language` through a module system the
 * verifier resolves (Python modules, JS/TS relative specifiers); none for the others.
 */
export function importingLanguages(language: LanguageId | undefined): LanguageId[] {
  if (language === "python") return ["python"];
  if (language === "javascript" || language === "typescript" || language === "tsx")
    return ["javascript", "typescript", "tsx"];
  return [];
}

/** What VERIFY added for one plan (recorded in the trajectory's plan record). */
export interface ImporterScan {
  /** Files, not already given to the verifier, that import one of the plan's files. */
  readonly added: string[];
  /** Repository files the search parsed (the rest came from the run's GraphCache; the listed and planned files are graphed by VERIFY itself). */
  readonly parsed: string[];
  /** Why the repository was not scanned, if it was not. */
  readonly skipped?: string;
}

/**
 * The files of `repo` (in the languages that can import `planFiles`) that import one of
 * `planFiles`, with their texts, leaving out those in `known`. Files are read through the
 * Workspace (an unreadable one is left out) and graphed with `cache`.
 */
export function findImporters(
  repo: RepoFiles,
  planFiles: readonly string[],
  known: ReadonlySet<string>,
  cache: GraphCache,
  timed: GraphTimer = untimed,
): Effect.Effect<{ scan: ImporterScan; texts: Map<string, string> }, never, Workspace> {
  return Effect.gen(function* () {
    const texts = new Map<string, string>();
    if (repo.kind === "skipped") return { scan: { added: [], parsed: [], skipped: repo.reason }, texts };
    const languages = new Set(planFiles.flatMap((file) => importingLanguages(detectLanguage(file))));
    const targets = planFiles.filter((file) => importingLanguages(detectLanguage(file)).length > 0);
    if (targets.length === 0) return { scan: { added: [], parsed: [] }, texts };

    const ws = yield* Workspace;
    const sources: { path: string; source: string }[] = [];
    for (const path of repo.paths) {
      const language = detectLanguage(path);
      // The files already given to the verifier are read (and graphed) by VERIFY itself.
      if (!language || !languages.has(language) || known.has(path)) continue;
      const read = yield* Effect.result(ws.read(path));
      if (Result.isSuccess(read)) sources.push({ path, source: read.success });
    }
    const graphs = yield* timed(
      Effect.promise(async () => {
        await loadGrammars([...languages]);
        return cache.fileGraphs(sources);
      }),
    );
    const parsed = [...cache.lastParsed];

    const added: string[] = [];
    graphs.forEach((graph, index) => {
      const importer = graph.file;
      const imports = graph.imports.some((i) =>
        targets.some((file) => file !== importer && moduleMayDenote(i.module, importer, file)),
      );
      if (!imports) return;
      added.push(importer);
      texts.set(importer, sources[index]!.source);
    });
    return { scan: { added, parsed }, texts };
  });
}

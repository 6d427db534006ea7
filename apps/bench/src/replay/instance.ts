/**
 * Replay of one dataset instance: pre-image from git at the base commit, post-image from the
 * gold patch, plan from the compiler, then the same path as an LLM's plan: the plan's JSON text
 * is parsed, verified (`verifyPlan`) and executed (`applyPlan` of @graphplan/runtime on an
 * in-memory workspace, tiers 1–3 through the catalog's handlers). The executed files must
 * equal the post-image byte for byte.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildGraph, detectLanguage, loadGrammarsFor } from "@graphplan/graph";
import { FILE_OPS, OPERATOR_BY_NAME, stepLabel, type Plan, type Step } from "@graphplan/primitives";
import { applyPlan, stepCauseTag, Workspace, type StepFailed } from "@graphplan/runtime";
import { detectTier, parsePlan } from "@graphplan/catalog";
import { renderIssue, verifyPlan } from "@graphplan/verifier";
import {
  changedBytes,
  compile,
  gitDiff,
  isCompilerError,
  isTextStep,
  parseUnifiedDiff,
  postImages,
  preImagePaths,
  type CompiledPlan,
  type FilePatch,
  type ModeChange,
  type Tier,
} from "@graphplan/compiler";
import { Effect, Result } from "effect";
import type { DatasetLine } from "../dataset.js";
import { GitObjectReader, gitApplyCheck, MissingBlob, NotText, repositoryPath, UnknownRepository } from "../git.js";
import { emptyEntry, type FILE_KINDS, type ReportEntry, type Status } from "./report.js";

export interface ReplayOptions {
  readonly outDir: string;
  readonly reposDir: string | undefined;
  readonly repoMap: Readonly<Record<string, string>>;
  /** Check model.patch with `git apply --cached --check` against the base commit (default true). */
  readonly gitCheck: boolean;
}

/** Git readers per repository, opened on first use and kept for the run. */
export class Repositories {
  private readonly readers = new Map<string, GitObjectReader | UnknownRepository>();
  constructor(private readonly options: Pick<ReplayOptions, "reposDir" | "repoMap">) {}

  path(repo: string): string {
    return repositoryPath(repo, this.options.reposDir, this.options.repoMap);
  }

  reader(repo: string): GitObjectReader | UnknownRepository {
    let reader = this.readers.get(repo);
    if (!reader) {
      try {
        reader = new GitObjectReader(repo, this.path(repo));
      } catch (error) {
        if (!(error instanceof UnknownRepository)) throw error;
        reader = error;
      }
      this.readers.set(repo, reader);
    }
    return reader;
  }

  close(): void {
    for (const reader of this.readers.values()) if (reader instanceof GitObjectReader) reader.close();
  }
}

/** A directory name for an instance id (ids are `owner__repo-123`; anything odd is replaced). */
export const instanceDir = (id: string): string => id.replace(/[^A-Za-z0-9._-]/g, "_") || "_";

interface Failure {
  readonly status: Status;
  readonly cause: string;
  readonly error: string;
}

const failure = (status: Status, cause: string, error: string): Failure => ({ status, cause, error });

const isLegacy = (step: Step): boolean =>
  "op" in step &&
  OPERATOR_BY_NAME.get(step.op)?.kind === "legacy" &&
  (step.params as { locator?: unknown }).locator === undefined;

const count = (into: Record<string, number>, key: string): void => {
  into[key] = (Object.hasOwn(into, key) ? into[key]! : 0) + 1;
};

/** Tier of a step for the report: "legacy" for legacy text operators, "text" for the text tier, else its tier. */
export function tierKey(step: Step): string {
  return isLegacy(step) ? "legacy" : isTextStep(step) ? "text" : String(detectTier(step) as Tier);
}

/**
 * The kind of a file for the structural share: code (a programming language's grammar), shell
 * scripts, CSS and HTML (grammars too, counted apart), data (JSON, YAML, TOML) or other text.
 */
export function fileKind(path: string): (typeof FILE_KINDS)[number] {
  const language = detectLanguage(path);
  if (language === "bash") return "shell";
  if (language === "css" || language === "html") return language;
  if (language) return "code";
  return /\.(json|ya?ml|toml)$/i.test(path) ? "data" : "text";
}

/** Changes of content per kind of file, and how many structural steps express (a change with any text step is text). */
function changeShares(compiled: CompiledPlan): ReportEntry["changes"] {
  const byFile = new Map<string, Map<number, boolean>>();
  for (const record of compiled.records) {
    if ("op" in record.step && FILE_OPS.has(record.step.op)) continue;
    const changes = byFile.get(record.file) ?? new Map<number, boolean>();
    changes.set(record.change, (changes.get(record.change) ?? true) && !record.text);
    byFile.set(record.file, changes);
  }
  const out: ReportEntry["changes"] = {};
  for (const [file, changes] of byFile) {
    const into = (out[fileKind(file)] ??= { all: 0, structural: 0 });
    into.all += changes.size;
    into.structural += [...changes.values()].filter(Boolean).length;
  }
  return out;
}

/**
 * Executes `plan` on `files` through the runtime's transactional apply (in memory). The result holds
 * every file of `files` and of `expected` (the post-image's paths): its text, or null when it does
 * not exist afterwards (deleted, renamed away, or never created).
 */
async function execute(
  plan: Plan,
  files: ReadonlyMap<string, string>,
  expected: Iterable<string>,
): Promise<
  { ok: true; files: Map<string, string | null>; executable: Set<string> } | { ok: false; error: string; cause: string }
> {
  const program = Effect.gen(function* () {
    const result = yield* applyPlan(plan);
    if (!result.ok) return { ok: false as const, error: result.failure.message, cause: stepCause(result.failure) };
    const ws = yield* Workspace;
    const out = new Map<string, string | null>();
    const executable = new Set<string>();
    for (const path of new Set([...files.keys(), ...expected])) {
      const exists = yield* ws.exists(path);
      out.set(path, exists ? yield* ws.read(path) : null);
      if (exists && (yield* ws.executable(path))) executable.add(path);
    }
    return { ok: true as const, files: out, executable };
  });
  const outcome = await Effect.runPromise(Effect.result(Effect.provide(program, Workspace.layerMemory(files))));
  if (Result.isFailure(outcome)) return { ok: false, error: outcome.failure.message, cause: outcome.failure._tag };
  return outcome.success;
}

/** Why a step failed, for the report's cause: the step's own tagged error (a primitive's, a template's), or a bug's name. */
const stepCause = (failure: StepFailed): string => stepCauseTag(failure.cause);

/** How many times a plan is recompiled after the verifier rejected some of its steps. */
const MAX_REVISIONS = 4;

function planStats(entry: ReportEntry, compiled: CompiledPlan, revisions: number): ReportEntry {
  const stats: ReportEntry = { ...entry, tiers: {}, ops: {}, locator_kinds: {}, revisions };
  for (const record of compiled.records) {
    count(stats.tiers, tierKey(record.step));
    count(stats.ops, stepLabel(record.step));
    if (record.locator) count(stats.locator_kinds, record.locator);
  }
  stats.steps = compiled.records.length;
  stats.legacy_steps = compiled.records.filter((r) => isLegacy(r.step)).length;
  stats.text_steps = compiled.records.filter((r) => r.text).length;
  stats.changes = changeShares(compiled);
  stats.edit_bytes = compiled.records.reduce((sum, r) => sum + r.bytes, 0);
  stats.amplification = stats.gold_bytes > 0 ? stats.edit_bytes / stats.gold_bytes : null;
  return stats;
}

/**
 * Replays one dataset line; never throws for a problem of the instance (it is reported).
 * Long on purpose: the phases of one instance (read, compile with revisions, parse, verify, execute, compare) in order, each timed into `phases` and each failure reported as the instance's outcome; split, the phase clock and the report entry would go through every piece.
 */
export async function replayInstance(
  line: DatasetLine,
  repos: Repositories,
  options: ReplayOptions,
): Promise<ReportEntry> {
  const started = performance.now();
  const phases: Record<string, number> = {};
  let mark = started;
  const phase = (name: string): void => {
    const now = performance.now();
    phases[name] = (phases[name] ?? 0) + Math.round(now - mark);
    mark = now;
  };
  const id = line.ok ? line.instance.instance_id : (line.instanceId ?? `line-${line.line}`);
  const base = emptyEntry(id, line.ok ? line.instance.repo : undefined);
  const dir = join(options.outDir, instanceDir(id));
  await mkdir(dir, { recursive: true });
  const finish = async (entry: ReportEntry, fail?: Failure): Promise<ReportEntry> => {
    const done: ReportEntry = {
      ...entry,
      ...(fail ?? {}),
      ms: Math.round(performance.now() - started),
      phase_ms: phases,
    };
    if (fail) await writeFile(join(dir, "error.txt"), `${fail.status}: ${fail.cause}\n${fail.error}\n`);
    return done;
  };

  if (!line.ok) return finish(base, failure("input_error", "unreadable_line", line.error));
  const instance = line.instance;

  // Pre-images from git, post-images from the gold patch.
  const reader = repos.reader(instance.repo);
  if (reader instanceof UnknownRepository) return finish(base, failure("input_error", "unknown_repo", reader.message));
  let patches: FilePatch[];
  try {
    patches = parseUnifiedDiff(instance.patch);
  } catch (error) {
    return finish(base, failure("input_error", "unreadable_patch", (error as Error).message));
  }
  const entry: ReportEntry = {
    ...base,
    files: patches.map((p) => (p.newPath ?? p.oldPath)!),
    gold_bytes: changedBytes(patches),
  };
  let commit: string | undefined;
  try {
    commit = await reader.commit(instance.base_commit);
  } catch (error) {
    return finish(entry, failure("input_error", "git", (error as Error).message));
  }
  if (!commit)
    return finish(
      entry,
      failure("input_error", "missing_commit", `commit ${instance.base_commit} is not in ${repos.path(instance.repo)}`),
    );
  const pre = new Map<string, string>();
  for (const path of preImagePaths(patches)) {
    let text: string | undefined;
    try {
      text = await reader.file(instance.base_commit, path);
    } catch (error) {
      return finish(
        entry,
        failure(
          "input_error",
          error instanceof MissingBlob || error instanceof NotText ? error._tag : "git",
          (error as Error).message,
        ),
      );
    }
    if (text === undefined)
      return finish(entry, failure("input_error", "missing_file", `${path} does not exist at ${instance.base_commit}`));
    pre.set(path, text);
  }
  let post: Map<string, string | null>;
  try {
    post = postImages(patches, pre);
  } catch (error) {
    return finish(entry, failure("input_error", "patch_does_not_apply", (error as Error).message));
  }
  phase("read");
  await loadGrammarsFor([...pre.keys(), ...post.keys()]);

  // Compile, then the LLM path: the plan's JSON text is parsed and verified. A step the verifier
  // rejects is compiled again in its next form (at most MAX_REVISIONS times).
  const graph = await buildGraph([...pre].map(([path, source]) => ({ path, source })));
  const banned = new Set<string>();
  let compiled: CompiledPlan | undefined;
  let plan: Plan | undefined;
  let stats: ReportEntry = entry;
  let revisions = 0;
  const rejections: string[] = [];
  // First with the primitives' forecasts trusted; if the execution then differs, once more with every step run.
  let trustForecast = true;
  let executed: Awaited<ReturnType<typeof execute>> | undefined;
  let rechecked = false;
  for (;;) {
    try {
      compiled = compile(pre, instance.patch, { banned, trustForecast });
    } catch (error) {
      phase("compile");
      // Not one of the compiler's errors: a bug, reported with its stack.
      if (!isCompilerError(error))
        return finish(
          stats,
          failure(
            "compile_error",
            error instanceof Error ? error.name : "unknown",
            (error as Error).stack ?? String(error),
          ),
        );
      switch (error._tag) {
        case "CompileError":
          return finish(stats, failure("compile_error", error.cause_, error.message));
        case "PatchError":
          return finish(stats, failure("input_error", "patch_does_not_apply", error.message));
      }
    }
    phase("compile");
    const planText = `${JSON.stringify(compiled.plan, null, 2)}\n`;
    await writeFile(join(dir, "plan.json"), planText);
    stats = {
      ...planStats(entry, compiled, revisions),
      ...(rejections.length ? { rejected: [...rejections] } : {}),
      ...(rechecked ? { rechecked } : {}),
    };
    // The plan as written to plan.json goes through the front door a model's plan goes through.
    const parsed = parsePlan(JSON.parse(planText));
    if (!parsed.ok)
      return finish(stats, failure("verify_error", "plan_schema", parsed.issues.map(renderIssue).join("\n")));
    plan = parsed.plan;
    const verdict = await verifyPlan(plan, pre, graph);
    phase("verify");
    await writeFile(
      join(dir, "warnings.json"),
      `${JSON.stringify({ passed: verdict.passed, errors: verdict.errors, warnings: verdict.warnings }, null, 2)}\n`,
    );
    stats.warnings = verdict.warnings.length;
    if (!verdict.passed && trustForecast) {
      // A rejection may come from a wrong forecast: run every step from now on.
      trustForecast = false;
      rechecked = true;
    }
    if (verdict.passed) {
      executed = await execute(plan, pre, post.keys());
      phase("execute");
      const exact =
        executed.ok && [...post].every(([path, text]) => executed!.ok && executed!.files.get(path) === text);
      if (exact || !trustForecast) break;
      // A forecast was wrong: compile again, running every step.
      trustForecast = false;
      rechecked = true;
      continue;
    }
    const rejected = verdict.issues.filter(
      (i) => i.severity === "error" && i.step !== null && compiled!.records[i.step],
    );
    const fresh = rejected.map((i) => compiled!.records[i.step!]!.key).filter((key) => !banned.has(key));
    if (fresh.length === 0 || revisions >= MAX_REVISIONS) {
      const first = verdict.issues.find((i) => i.severity === "error");
      return finish(stats, failure("verify_error", first ? first.check : "unknown", verdict.errors.join("\n")));
    }
    for (const key of fresh) banned.add(key);
    rejections.push(
      ...rejected.map((i) => `${compiled!.records[i.step!]!.form} [${i.check}] ${i.message.slice(0, 200)}`),
    );
    revisions++;
  }
  if (!executed) throw new Error("unreachable: the loop ends with an execution");
  if (!executed.ok) return finish(stats, failure("exec_error", executed.cause, executed.error));

  const before = new Map<string, string | null>(pre);
  const after = new Map<string, string | null>(executed.files);
  // Modes: every file the gold patch gives a mode must have it; the model's patch carries them.
  const modes = new Map<string, ModeChange>();
  for (const p of patches) {
    if (!p.mode || !p.newPath) continue;
    modes.set(p.newPath, {
      from: p.patch.oldMode ?? (p.mode === "100755" ? "100644" : "100755"),
      to: executed.executable.has(p.newPath) ? "100755" : "100644",
    });
  }
  const modelPatch = gitDiff(before, after, modes);
  await writeFile(join(dir, "model.patch"), modelPatch);
  if (options.gitCheck && modelPatch) {
    const problem = await gitApplyCheck(repos.path(instance.repo), instance.base_commit, modelPatch);
    stats.git_apply = problem ? "failed" : "ok";
    if (problem) await writeFile(join(dir, "git-apply.txt"), `${problem}\n`);
  }
  phase("check");
  const mismatched = [
    ...[...post].filter(([path, text]) => executed.files.get(path) !== text).map(([path]) => path),
    ...patches
      .filter((p) => p.mode && p.newPath && (p.mode === "100755") !== executed.executable.has(p.newPath))
      .map((p) => `${p.newPath} (mode)`),
  ];
  if (mismatched.length)
    return finish(
      stats,
      failure("mismatch", "content", `the execution differs from the post-image in ${mismatched.join(", ")}`),
    );
  if (stats.git_apply === "failed")
    return finish(stats, failure("mismatch", "git_apply", "model.patch does not apply to the base commit"));
  return finish(stats);
}

/**
 * What `graphplan mcp` does, without the protocol: the graph of files, locators resolved, plans verified
 * and applied all or nothing, a patch compiled to a plan, an apply undone — every path confined to one
 * root (the runtime's `Workspace`), every call queued behind the one before it (`CallQueue`).
 * The server (`server.ts`) turns these into MCP tools; the benchmark (`benchmarks/mcp`) times them
 * in-process beside the same calls made through the server.
 */
import { stat } from "node:fs/promises";
import { join } from "node:path";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Result from "effect/Result";
import { buildGraph, detectLanguage, grammarsFor, graphView, loadGrammars, withTree } from "@graphplan/graph";
import {
  kindOfNode,
  LocatorSchema,
  locatorIssues,
  resolveLocator,
  resolveSome,
  type Locator,
} from "@graphplan/locators";
import { planFiles, type Plan, type WrittenPlan } from "@graphplan/primitives";
import {
  applyPlan,
  findSourceFiles,
  readTexts,
  recover,
  stepCauseTag,
  Workspace,
  writeFiles,
  type ApplyOptions,
  type RecoverReport,
} from "@graphplan/runtime";
import { loadPlanGrammars } from "@graphplan/catalog";
import { verifyAndParse, type VerifyResult } from "@graphplan/verifier";
import {
  compile,
  gitDiff,
  isCompilerError,
  parseUnifiedDiff,
  postImages,
  preImagePaths,
  type CompiledPlan,
} from "@graphplan/compiler";
import { CallQueue } from "./lock.js";

/** The arguments of a call are unusable (what is wrong and how to fix it). */
export class CallInputInvalid extends Data.TaggedError("CallInputInvalid")<{ readonly detail: string }> {
  override get message(): string {
    return this.detail;
  }
}

/** `undo_last_apply` with no apply of this session left to undo. */
export class NothingToUndo extends Data.TaggedError("NothingToUndo")<{}> {
  override get message(): string {
    return "no apply of this session is left to undo; undo_last_apply restores the files of an apply_plan or rename_symbol made through this connection";
  }
}

/** The files of the apply to undo changed since: restoring them would lose those changes. */
export class UndoConflict extends Data.TaggedError("UndoConflict")<{ readonly paths: readonly string[] }> {
  override get message(): string {
    return `${this.paths.join(", ")} changed since the apply; undo would lose those changes, so nothing was restored — put the file${this.paths.length === 1 ? "" : "s"} back as the apply left ${this.paths.length === 1 ? "it" : "them"} (or edit by hand)`;
  }
}

/** The client cancelled the call before anything was written. */
export class CallCancelled extends Data.TaggedError("CallCancelled")<{}> {
  override get message(): string {
    return "the call was cancelled before any file was written";
  }
}

export interface EngineOptions {
  /** The directory every path is relative to and confined in (absolute). */
  readonly root: string;
  /** Passed to the runtime's apply: called before each file write of a commit (tests slow the commit with it). */
  readonly onBeforeWrite?: ApplyOptions["onBeforeWrite"];
}

/** One page of the graph view. */
export interface GraphPage {
  readonly view: string;
  readonly files: number;
  readonly offset: number;
  /** Where the next page starts, or null on the last page. */
  readonly nextOffset: number | null;
}

export interface LocatedNode {
  readonly file: string;
  readonly startLine: number;
  readonly endLine: number;
  readonly kind: string;
  readonly preview: string;
  /** When the locator matched several nodes: the locator that picks this one. */
  readonly locator?: Locator;
}

/** What an apply changed and how to put it back. */
export interface AppliedChange {
  readonly diff: string;
  readonly written: readonly string[];
  readonly created: readonly string[];
  readonly deleted: readonly string[];
  /** Bytes before, of every changed file that existed (an undo writes them back). */
  readonly before: ReadonlyMap<string, Uint8Array>;
  /** Bytes after (null: deleted), to refuse an undo over later edits. */
  readonly after: ReadonlyMap<string, Uint8Array | null>;
  /** Files whose executable bit the apply changed (`set_file_mode`), with the bit they had before. */
  readonly executableBefore: ReadonlyMap<string, boolean>;
}

export type ApplyOutcome =
  | {
      readonly kind: "applied";
      readonly change: AppliedChange;
      readonly verification: VerifyResult;
      readonly recovered: RecoverReport;
    }
  | { readonly kind: "rejected"; readonly verification: VerifyResult }
  | {
      readonly kind: "failed";
      readonly message: string;
      readonly step: number;
      readonly op: string;
      readonly cause: string;
      readonly verification: VerifyResult;
    };

export interface CompiledPatch {
  /** The compiled plan as a model would write it (what the tool returns as JSON). */
  readonly plan: WrittenPlan;
  readonly steps: number;
  /** Running the plan on the root's files gives the diff's post-images, byte for byte. */
  readonly reproduces: boolean;
  readonly verification: VerifyResult;
  /** Compilations after the verifier rejected a step (each takes that change's next form). */
  readonly revisions: number;
}

/** Most files a graph page shows, whatever their size. */
const PAGE_FILES = 400;
/** How many times a patch is recompiled after the verifier rejected some of its steps. */
const MAX_REVISIONS = 4;
const PREVIEW_LINES = 3;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

/** The GraphPlan engine on one root. */
export class Engine {
  readonly queue = new CallQueue();

  constructor(readonly options: EngineOptions) {}

  get root(): string {
    return this.options.root;
  }

  #run<A, E>(effect: Effect.Effect<A, E, Workspace>): Promise<A> {
    return Effect.runPromise(Effect.provide(effect, Workspace.layer(this.root)));
  }

  /** Puts back the files of an apply a killed process left half-done (its journal), as `graphplan apply` does first. */
  recover(): Promise<RecoverReport> {
    return this.queue.run(() => this.#run(recover()));
  }

  /**
   * The graph view of `paths` (files or directories, relative to the root), one page: files in path order
   * from `offset` until the view would pass `maxChars` (at least one file, at most {@link PAGE_FILES}).
   */
  graph(paths: readonly string[], offset: number, maxChars: number): Promise<GraphPage> {
    return this.queue.run(async () => {
      const files = await this.#sourceFiles(paths);
      const parts: string[] = [];
      let size = 0;
      let index = offset;
      while (index < files.length && parts.length < PAGE_FILES) {
        const path = files[index]!;
        const source = await this.#run(Workspace.use((ws) => ws.read(path))).catch((error: Error) => error);
        const graph = await buildGraph(
          typeof source === "string" ? [{ path, source }] : [],
          typeof source === "string" ? {} : { extraErrors: [`cannot read ${path}: ${source.message}`] },
        );
        let view = graphView(graph);
        if (view.length === 0) view = `FILE: ${path}`;
        if (parts.length > 0 && size + view.length + 1 > maxChars) break;
        if (view.length > maxChars)
          view = `${view.slice(0, maxChars)}\n  … (this file's view is cut at ${maxChars} characters; locate its symbols to see more)`;
        parts.push(view);
        size += view.length + 1;
        index++;
      }
      return { view: parts.join("\n"), files: files.length, offset, nextOffset: index < files.length ? index : null };
    });
  }

  /** The supported source files under `paths`, relative to the root, sorted; every path confined to the root. */
  async #sourceFiles(paths: readonly string[]): Promise<string[]> {
    const out = new Set<string>();
    for (const path of paths) {
      const exists = await this.#run(Workspace.use((ws) => ws.exists(path)));
      if (!exists)
        throw new CallInputInvalid({
          detail: `no such file or directory under the root: ${path}; give paths relative to ${this.root}`,
        });
      const clean = path.replace(/^\.\/+/, "").replace(/\/+$/, "");
      const info = await stat(join(this.root, clean));
      if (!info.isDirectory()) out.add(clean);
      else
        for (const file of await findSourceFiles(join(this.root, clean)))
          out.add(clean === "." || clean === "" ? file : `${clean}/${file}`);
    }
    return [...out].sort();
  }

  /** Every node `locator` matches, with the locator that picks each when there are several; `LocatorNotFound` (with candidates) when none. */
  locate(input: unknown): Promise<LocatedNode[]> {
    return this.queue.run(async () => {
      const parsed = LocatorSchema.safeParse(input);
      if (!parsed.success)
        throw new CallInputInvalid({ detail: `the locator is not valid: ${locatorIssues(input).join("; ")}` });
      const locator = parsed.data;
      const source = await this.#run(Workspace.use((ws) => ws.read(locator.file)));
      const language = detectLanguage(locator.file);
      if (!language)
        throw new CallInputInvalid({
          detail: `${locator.file} is not a file GraphPlan parses (by its extension); locate nodes in a source file`,
        });
      const sourceLines = source.split("\n");
      await loadGrammars([language]);
      return withTree(source, language, (tree) => {
        const nodes = resolveLocator(tree, source, language, locator);
        if (nodes.length === 0) resolveSome(tree, source, language, locator); // throws LocatorNotFound with candidates
        return nodes.map((node, index): LocatedNode => {
          // Whole lines, from the start of the node's first line, so indentation reads as in the file.
          const lines = sourceLines.slice(node.startPosition.row, node.endPosition.row + 1);
          const preview =
            lines.slice(0, PREVIEW_LINES).join("\n") +
            (lines.length > PREVIEW_LINES ? `\n… (${lines.length - PREVIEW_LINES} more lines)` : "");
          return {
            file: locator.file,
            startLine: node.startPosition.row + 1,
            endLine: node.endPosition.row + 1,
            kind: kindOfNode(node, language),
            preview: preview.length > 400 ? `${preview.slice(0, 397)}...` : preview,
            ...(nodes.length > 1 ? { locator: { ...locator, index } as Locator } : {}),
          };
        });
      });
    });
  }

  /** Every error and warning of `plan` against the root's files, each with its fix; nothing written. */
  verify(plan: unknown): Promise<VerifyResult> {
    return this.queue.run(async () => (await this.#verify(plan)).result);
  }

  async #verify(plan: unknown): Promise<{ result: VerifyResult; plan: Plan | undefined }> {
    // Every path the plan names is confined to the root first (an absolute one under it is the plan's front door's to correct).
    for (const path of planFiles(plan))
      if (!path.startsWith(`${this.root}/`)) await this.#run(Workspace.use((ws) => ws.exists(path)));
    const files = await this.#workspaceFiles(plan);
    await loadPlanGrammars(plan);
    const graph = await buildGraph(
      [...files].filter(([path]) => detectLanguage(path)).map(([path, source]) => ({ path, source })),
    );
    return verifyAndParse(plan, files, graph, { root: this.root });
  }

  /**
   * What the verifier reads: every supported source file under the root (for the import graph) and every
   * file the plan names, read through the root-confined Workspace; a named file that is missing is left
   * out (the verifier reports it).
   */
  async #workspaceFiles(plan: unknown): Promise<Map<string, string>> {
    const wanted = new Set([...(await findSourceFiles(this.root)), ...planFiles(plan)]);
    return this.#run(readTexts(wanted));
  }

  /**
   * Verifies `plan`, then runs it all or nothing through the runtime's journaled apply. A plan with errors
   * changes nothing. A cancellation seen before the write starts writes nothing; once the journal is
   * written the commit runs to its end (the runtime makes it uninterruptible), so no file is half-written.
   */
  apply(plan: unknown, signal?: AbortSignal): Promise<ApplyOutcome> {
    return this.queue.run(async () => {
      const recovered = await this.#run(recover());
      const { result: verification, plan: parsed } = await this.#verify(plan);
      if (!verification.passed || !parsed) return { kind: "rejected", verification };
      if (signal?.aborted) throw new CallCancelled();
      const applied = await this.#run(
        applyPlan(parsed, this.options.onBeforeWrite ? { onBeforeWrite: this.options.onBeforeWrite } : {}),
      );
      if (!applied.ok) {
        const { failure } = applied;
        return {
          kind: "failed",
          message: failure.message,
          step: failure.step,
          op: failure.op,
          cause: stepCauseTag(failure.cause),
          verification,
        };
      }
      const after = new Map<string, Uint8Array | null>();
      for (const path of applied.written) after.set(path, await this.#run(Workspace.use((ws) => ws.readBytes(path))));
      for (const path of applied.deleted) after.set(path, null);
      const executableBefore = new Map(applied.modes.map((m) => [m.path, m.mode !== "100755"] as const));
      const change: AppliedChange = {
        diff: diffOf(applied.originals, after),
        written: applied.written,
        created: applied.created,
        deleted: applied.deleted,
        before: applied.originals,
        after,
        executableBefore,
      };
      return { kind: "applied", change, verification, recovered };
    });
  }

  /**
   * The plan that reproduces `diff` on the root's files (packages/compiler), verified against the root; a
   * step the verifier rejects is compiled again in its next form, and a plan whose run differs from the
   * diff's post-images is compiled again with every step run (as `bench replay` does).
   */
  compilePatch(diff: string): Promise<CompiledPatch> {
    return this.queue.run(async () => {
      let patches;
      try {
        patches = parseUnifiedDiff(diff);
      } catch (error) {
        throw new CallInputInvalid({
          detail: `the diff is not a unified diff GraphPlan reads: ${(error as Error).message}`,
        });
      }
      const pre = new Map<string, string>();
      for (const path of preImagePaths(patches)) pre.set(path, await this.#run(Workspace.use((ws) => ws.read(path))));
      const post = postImagesOrInput(patches, pre);
      await loadGrammars(grammarsFor(pre.keys()));
      const banned = new Set<string>();
      let trustForecast = true;
      for (let revisions = 0; ; ) {
        const compiled = compileOrInput(pre, diff, { banned, trustForecast });
        const { result: verification, plan } = await this.#verify(JSON.parse(JSON.stringify(compiled.plan)) as unknown);
        if (verification.passed && plan) {
          const reproduces = await reproducesPost(plan, pre, post);
          if (reproduces || !trustForecast)
            return { plan: compiled.plan, steps: compiled.records.length, reproduces, verification, revisions };
          trustForecast = false;
          continue;
        }
        trustForecast = false;
        const fresh = verification.issues
          .filter((i) => i.severity === "error" && i.step !== null && compiled.records[i.step])
          .map((i) => compiled.records[i.step!]!.key)
          .filter((key) => !banned.has(key));
        if (fresh.length === 0 || revisions >= MAX_REVISIONS)
          return { plan: compiled.plan, steps: compiled.records.length, reproduces: false, verification, revisions };
        for (const key of fresh) banned.add(key);
        revisions++;
      }
    });
  }

  /** Restores the files `change` wrote, created or deleted to their bytes before it — refused when any changed since. */
  undo(change: AppliedChange): Promise<{ restored: readonly string[]; diff: string }> {
    return this.queue.run(async () => {
      const now = new Map<string, Uint8Array | null>();
      for (const path of change.after.keys()) {
        now.set(
          path,
          await this.#run(
            Workspace.use((ws) =>
              Effect.flatMap(ws.exists(path), (exists) => (exists ? ws.readBytes(path) : Effect.succeed(null))),
            ),
          ),
        );
      }
      const moved = [...change.after]
        .filter(([path, bytes]) => !sameBytes(now.get(path) ?? null, bytes))
        .map(([path]) => path);
      if (moved.length > 0) throw new UndoConflict({ paths: moved });
      const writes = [...change.after.keys()].map((path) => {
        const executable = change.executableBefore.get(path);
        return { path, bytes: change.before.get(path) ?? null, ...(executable === undefined ? {} : { executable }) };
      });
      const restored = await this.#run(writeFiles(writes));
      return { restored, diff: diffOf(now, change.before) };
    });
  }
}

function postImagesOrInput(
  patches: ReturnType<typeof parseUnifiedDiff>,
  pre: ReadonlyMap<string, string>,
): Map<string, string | null> {
  try {
    return postImages(patches, pre);
  } catch (error) {
    throw new CallInputInvalid({
      detail: `the diff does not apply to the files under the root: ${(error as Error).message}`,
    });
  }
}

function compileOrInput(
  pre: ReadonlyMap<string, string>,
  diff: string,
  options: { banned: ReadonlySet<string>; trustForecast: boolean },
): CompiledPlan {
  try {
    return compile(pre, diff, options);
  } catch (error) {
    if (isCompilerError(error)) throw new CallInputInvalid({ detail: error.message });
    throw error;
  }
}

/** Whether running `plan` on `pre` in memory gives `post` (null: the file is gone). */
async function reproducesPost(
  plan: Plan,
  pre: ReadonlyMap<string, string>,
  post: ReadonlyMap<string, string | null>,
): Promise<boolean> {
  const program = Effect.gen(function* () {
    const result = yield* applyPlan(plan);
    if (!result.ok) return false;
    const ws = yield* Workspace;
    for (const [path, text] of post) {
      const now = (yield* ws.exists(path)) ? yield* ws.read(path) : null;
      if (now !== text) return false;
    }
    return true;
  });
  const outcome = await Effect.runPromise(Effect.result(Effect.provide(program, Workspace.layerMemory(pre))));
  return Result.isSuccess(outcome) && outcome.success;
}

function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** The unified diff from `before` to `after` (bytes as UTF-8 text; absent or null: no file). */
export function diffOf(
  before: ReadonlyMap<string, Uint8Array | null>,
  after: ReadonlyMap<string, Uint8Array | null>,
): string {
  const text = (map: ReadonlyMap<string, Uint8Array | null>, path: string): string | null => {
    const bytes = map.get(path);
    return bytes ? decoder.decode(bytes) : null;
  };
  const paths = [...new Set([...before.keys(), ...after.keys()])];
  return gitDiff(new Map(paths.map((p) => [p, text(before, p)])), new Map(paths.map((p) => [p, text(after, p)])));
}

export const utf8 = (text: string): Uint8Array => encoder.encode(text);

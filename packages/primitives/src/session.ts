/**
 * A plan run one step at a time over in-memory files, with one incrementally edited tree per
 * file. `runPlan` is built on it; the verifier drives it step by step. Each step reports, per
 * file it changed, the versions before and after it (text + tree), its edits (offsets in the
 * text before the step) and tree-sitter's changed ranges, so a caller never parses a file
 * again to see what a step did.
 *
 * Ownership: the session owns every tree it hands out. A version's tree stays valid until a
 * later commit replaces that version (or `dispose()`); the `after` trees of a pending step are
 * freed by `discard()` or by a commit that leaves their file out.
 *
 * Pure: no fs, no clock. Grammars must be loaded (`await loadGrammars()` from @graphplan/graph).
 */
import { detectFileLanguage, isHtmlTemplate, type LanguageId } from "@graphplan/graph";
import type { Locator } from "@graphplan/locators";
import type { Range, Tree } from "web-tree-sitter";
import { applyEdits, composeEdits, sortEdits, type Edit } from "./edits.js";
import { errorSpans, errorSpansAfter, preprocessorExplains, type ErrorSpan } from "./check.js";
import { notesOf } from "./indent.js";
import {
  applyChecked,
  locateIn,
  locateRegionIn,
  matchLineEndings,
  MUTATORS,
  runMutator,
  type Applied,
  type MutatorName,
  type ParsedDoc,
} from "./primitives.js";
import { COMPOSED, type View } from "./composed.js";
import { LEGACY, closestMatchPlace, type MatchLayer } from "./legacy.js";
import { runDsl } from "./dsl.js";
import { FILE_OPS, LEGACY_TO_PRIMITIVE, OPERATOR_BY_NAME, TEXT_OPS } from "./registry.js";
import { appendTextEdits, insertTextEdits, isBinaryText, replaceTextEdits, type TextEdits } from "./text.js";
import type { AppendTextParams, InsertTextParams, ReplaceTextParams, WriteFileParams } from "./params.js";
import {
  BinaryFile,
  FileDeleted,
  FileExists,
  FileNotInPlan,
  InvalidParams,
  PostconditionFailed,
  OperatorRedefined,
  RecursionLimit,
  StepFailed,
  UnknownOperator,
  UnsupportedLanguage,
} from "./errors.js";
import {
  planParts,
  stepLabel,
  stepLocator,
  type DslStep,
  type OperatorDefinition,
  type Plan,
  type Step,
} from "./plan.js";
import { lineStartsOf, parseFull, reparseWithRanges } from "./reparse.js";
import { closestOperators, parseParams } from "./validate.js";

/** What a step handler may read and do. */
export interface HandlerContext {
  /** Current text of a plan file (after the earlier steps). Throws `FileNotInPlan`. */
  source(file: string): string;
  /** Grammar of a file. Throws `UnsupportedLanguage`. */
  language(file: string): LanguageId;
  /** The current document with its tree; the tree belongs to the run (do not delete it). */
  parsed(file: string): ParsedDoc;
  /** Runs any operator (primitive, composed, legacy, custom) as part of this step; returns its output. */
  run(op: string, params: Record<string, unknown>): unknown;
  /** Paths of the plan's files. */
  readonly files: readonly string[];
}

/**
 * What a handler returns: edits per file (applied with the "parses" postcondition, per file),
 * and/or DSL steps run through the interpreter with `vars`. `output` becomes the step's output.
 */
export interface HandlerResult {
  readonly edits?: Readonly<Record<string, readonly Edit[]>>;
  readonly steps?: readonly DslStep[];
  readonly vars?: Readonly<Record<string, unknown>>;
  readonly output?: unknown;
}

/**
 * A step handler from a higher package (templates, surgery, fragments). Keyed by op name for
 * `{op, params}` steps, `"template"` for `{template, params}` steps and `"fragment"` for
 * fragment steps. May throw tagged errors; they become the step's error.
 */
export type StepHandler = (step: Step, ctx: HandlerContext) => HandlerResult;

export interface RunOptions {
  readonly handlers?: Readonly<Record<string, StepHandler>>;
  /** Language of a path; defaults to `detectFileLanguage` (by extension; a `.h` header by its text). */
  readonly languageOf?: (path: string) => LanguageId | undefined;
  /** Maximum nesting of operators calling operators (default 8). */
  readonly maxDepth?: number;
  /**
   * A check of a file with no grammar after an edit (or its creation, `before` empty): the reason
   * it is now wrong, or undefined. The catalog's runs check that a JSON, YAML or TOML file still loads.
   */
  readonly checkText?: (file: string, before: string, after: string) => string | undefined;
}

export interface SessionOptions extends RunOptions {
  /** Custom operators (a plan's `define_operators`). Naming one like an operator or handler throws `OperatorRedefined`. */
  readonly operators?: readonly OperatorDefinition[];
}

/** A file's text, for a file GraphPlan has no grammar for (no tree). */
export interface TextDoc {
  readonly path: string;
  readonly source: string;
}

/** Git's mode of a regular file: plain or executable. */
export type FileMode = "100644" | "100755";

interface ChangeBase {
  readonly file: string;
  /**
   * The step's edits, sorted and disjoint, in offsets of `before.source`:
   * `applyEdits(before.source, edits) === after.source`. Several changes of one file within a
   * step (a custom operator's primitives) are composed into one list.
   */
  readonly edits: readonly Edit[];
  /**
   * A file operation's change: `created` (`before` is the empty file), `deleted` (`after` is the
   * empty file; the file is gone once committed). Absent for edits of a file that stays.
   */
  readonly existence?: "created" | "deleted";
  /** The mode the step gives the file (`set_file_mode`; a rename keeps a mode set earlier). */
  readonly mode?: FileMode;
}

/** What one step did to one code file: its versions with their trees. */
export interface CodeChange extends ChangeBase {
  readonly kind: "code";
  readonly language: LanguageId;
  /** The file when the step started (its tree is the session's). */
  readonly before: ParsedDoc;
  /** The file after the step (its tree is the session's; freed if the change is not committed). */
  readonly after: ParsedDoc;
  /** tree-sitter's changed ranges from `before.tree` to `after.tree` (offsets in `after.source`). */
  readonly changedRanges: readonly Range[];
  /** ERROR/MISSING nodes of `before.tree` and `after.tree` (outermost, at most 500). */
  readonly errorsBefore: readonly ErrorSpan[];
  readonly errorsAfter: readonly ErrorSpan[];
}

/** What one step did to one file with no grammar (docs, changelogs, config): text only. */
export interface TextChange extends ChangeBase {
  readonly kind: "text";
  readonly language?: undefined;
  readonly before: TextDoc;
  readonly after: TextDoc;
}

/** What one step did to one file: its content (code or text) or only its mode (`edits` empty). */
export type StepChange = CodeChange | TextChange;

export type SessionStepResult =
  | {
      readonly ok: true;
      readonly step: number;
      readonly op: string;
      readonly output: unknown;
      readonly changes: readonly StepChange[];
    }
  | { readonly ok: false; readonly step: number; readonly op: string; readonly error: StepFailed };

interface Version {
  readonly source: string;
  /** The file's tree; undefined for a file GraphPlan has no grammar for. */
  readonly tree: Tree | undefined;
  errors: readonly ErrorSpan[] | undefined;
  lineStarts: readonly number[] | undefined;
}

/** A change of the running step, waiting for commit: its new version, the step, and a tree to free then (a created file's empty "before"). */
interface Pending {
  readonly change: StepChange;
  readonly version: Version;
  readonly index: number;
  readonly free?: Tree | undefined;
  /** `version` is the committed one (a change of mode only): neither commit nor discard frees it. */
  readonly shared?: boolean;
}

interface Change {
  readonly version: Version;
  readonly edits: readonly Edit[];
  readonly changedRanges: readonly Range[];
}

/** The session's state that a step reads. */
interface Committed {
  text(file: string): string | undefined;
  /** The step that deleted the file (or renamed it away), if one did. */
  deletedBy(file: string): number | undefined;
  version(file: string): Version;
  language(file: string): LanguageId;
  /** Whether the file is of a language GraphPlan parses (else text steps only). */
  isCode(file: string): boolean;
  paths(): string[];
}

/** `FileDeleted` when an earlier step deleted the file, else `FileNotInPlan`. */
function missingFile(file: string, committed: Committed): FileDeleted | FileNotInPlan {
  const by = committed.deletedBy(file);
  return by === undefined ? new FileNotInPlan(file, committed.paths()) : new FileDeleted(file, by);
}

const startsOf = (version: Version): readonly number[] =>
  (version.lineStarts ??= version.tree ? lineStartsOf(version.tree, version.source) : textLineStarts(version.source));

/** Offsets of the line starts of a text with no tree. */
function textLineStarts(source: string): number[] {
  const out = [0];
  for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}

const errorsOf = (version: Version): readonly ErrorSpan[] =>
  (version.errors ??= version.tree ? errorSpans(version.tree) : []);

/** The versions one step creates, file by file, on top of the committed ones. */
class StepScope {
  readonly changes = new Map<string, Change[]>();
  constructor(readonly committed: Committed) {}

  current(file: string): Version {
    const list = this.changes.get(file);
    return list ? list[list.length - 1]!.version : this.committed.version(file);
  }

  source(file: string): string {
    const list = this.changes.get(file);
    if (list) return list[list.length - 1]!.version.source;
    const text = this.committed.text(file);
    if (text === undefined) throw missingFile(file, this.committed);
    return text;
  }

  language(file: string): LanguageId {
    return this.committed.language(file);
  }

  parsed(file: string): ParsedDoc {
    const language = this.language(file);
    const { source, tree } = this.current(file);
    return { path: file, source, language, tree: tree! };
  }

  /** Makes `source` (the text after `edits`) the current version of a file with no grammar. */
  recordText(file: string, source: string, edits: readonly Edit[]): void {
    if (source === this.source(file)) return;
    const list = this.changes.get(file) ?? [];
    list.push({
      version: { source, tree: undefined, errors: [], lineStarts: undefined },
      edits: sortEdits(edits),
      changedRanges: [],
    });
    this.changes.set(file, list);
  }

  errors(file: string): readonly ErrorSpan[] {
    return errorsOf(this.current(file));
  }

  /** Makes `applied` the file's current version in this step (nothing when the text is unchanged). */
  record(file: string, doc: ParsedDoc, applied: Applied): void {
    if (applied.source === doc.source) {
      applied.tree.delete();
      return;
    }
    const edits = sortEdits(applied.edits);
    const before = this.current(file);
    const changedRanges = applied.changedRanges ?? [];
    const version: Version = {
      source: applied.source,
      tree: applied.tree,
      errors: applied.errors ?? errorSpansAfter(errorsOf(before), applied.tree, applied.source, edits, changedRanges),
      lineStarts: undefined,
    };
    const list = this.changes.get(file) ?? [];
    list.push({ version, edits, changedRanges });
    this.changes.set(file, list);
  }

  discard(): void {
    for (const list of this.changes.values()) for (const c of list) c.version.tree?.delete();
    this.changes.clear();
  }

  /** One change per file, from the committed version: several changes of a file are composed and re-parsed once from it. */
  finish(): { change: StepChange; version: Version }[] {
    const out: { change: StepChange; version: Version }[] = [];
    for (const [file, list] of this.changes) {
      const start = this.committed.version(file);
      if (!start.tree) {
        out.push(textChangeOf(file, start, list));
        continue;
      }
      const language = this.language(file);
      const last = list[list.length - 1]!;
      let version = last.version;
      let edits = last.edits;
      let changedRanges = last.changedRanges;
      if (list.length > 1) {
        edits = list[0]!.edits;
        let text = list[0]!.version.source;
        for (const c of list.slice(1)) {
          text = c.version.source;
          edits = composeEdits(edits, c.edits, text);
        }
        for (const c of list) c.version.tree?.delete();
        if (last.version.source === start.source) continue;
        const reparsed = reparseWithRanges(
          start.tree,
          start.source,
          edits,
          last.version.source,
          language,
          startsOf(start),
        );
        changedRanges = reparsed.changedRanges;
        version = {
          source: last.version.source,
          tree: reparsed.tree,
          errors: errorSpansAfter(errorsOf(start), reparsed.tree, last.version.source, edits, changedRanges),
          lineStarts: undefined,
        };
      }
      out.push({
        version,
        change: {
          kind: "code",
          file,
          language,
          before: { path: file, source: start.source, language, tree: start.tree },
          after: { path: file, source: version.source, language, tree: version.tree! },
          edits,
          changedRanges,
          errorsBefore: errorsOf(start),
          errorsAfter: errorsOf(version),
        },
      });
    }
    this.changes.clear();
    return out;
  }
}

/** The one change of a step to a file with no grammar: its edits composed from the committed version. */
function textChangeOf(file: string, start: Version, list: readonly Change[]): { change: StepChange; version: Version } {
  let edits = list[0]!.edits;
  for (const c of list.slice(1)) edits = composeEdits(edits, c.edits, c.version.source);
  const version = list[list.length - 1]!.version;
  return {
    version,
    change: {
      kind: "text",
      file,
      before: { path: file, source: start.source },
      after: { path: file, source: version.source },
      edits,
    },
  };
}

const hasLocator = (params: Record<string, unknown>): boolean =>
  params.locator !== undefined && params.locator !== null;

/**
 * A legacy edit placed at a pattern's closest match (not its exact text) that then fails: the
 * error also says where the match was and how close, since the place, not the code, may be wrong.
 */
function fuzzyMatchFailure(error: PostconditionFailed, output: unknown): PostconditionFailed {
  const { match, score, line } = (output ?? {}) as { match?: MatchLayer; score?: number; line?: number };
  if (match === undefined || match === "exact" || line === undefined) return error;
  return new PostconditionFailed(
    error.file,
    error.op,
    `${closestMatchPlace(line, match, score)}, and there: ${error.reason}; if line ${line} is the place you meant, quote its lines exactly as the file has them, else point the pattern at the right place`,
    error.syntaxErrors,
  );
}

/** Parameters of a legacy operator's `{locator, ...}` form, translated for its primitive. */
function legacyToPrimitive(
  op: string,
  params: Record<string, unknown>,
): { op: string; params: Record<string, unknown> } {
  const { locator } = params;
  switch (op) {
    case "replace_code":
      return { op: "replace_node", params: { locator, replacement: params.replacement } };
    case "insert_code":
      return {
        op: params.position === "before" ? "insert_before_node" : "insert_after_node",
        params: {
          locator,
          code: params.code,
          ...(params.separator !== undefined ? { separator: params.separator } : {}),
        },
      };
    case "delete_lines":
      return { op: "delete_node", params: { locator } };
    case "modify_function_signature":
      return { op: "replace_node", params: { locator, replacement: params.new_signature ?? params.replacement } };
    case "rename_symbol":
      return {
        op: "replace_all_matching",
        params: { locator, replacement: params.new_name ?? params.replacement, filter: "not_in_string_or_comment" },
      };
    case "wrap_block":
      return {
        op: "wrap_node",
        params: {
          locator,
          before: params.before_code ?? params.before ?? "",
          after: params.after_code ?? params.after ?? "",
        },
      };
    case "replace_function_body":
      return { op: "replace_node", params: { locator, replacement: params.new_body ?? params.replacement } };
    default:
      return { op, params };
  }
}

const PARAM_TYPES: Readonly<Record<string, (v: unknown) => boolean>> = {
  string: (v) => typeof v === "string",
  str: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  int: (v) => typeof v === "number" && Number.isInteger(v),
  integer: (v) => typeof v === "number" && Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  bool: (v) => typeof v === "boolean",
  locator: (v) => !!v && typeof v === "object" && !Array.isArray(v),
  object: (v) => !!v && typeof v === "object" && !Array.isArray(v),
  array: (v) => Array.isArray(v),
  list: (v) => Array.isArray(v),
  any: () => true,
};

/** Checks a custom operator's call against its params_schema (every declared parameter is required). */
function checkCustomParams(def: OperatorDefinition, params: Record<string, unknown>): void {
  const issues: string[] = [];
  for (const [name, type] of Object.entries(def.params_schema)) {
    const optional = type.endsWith("?");
    const base = type.replace(/\?$/, "").toLowerCase();
    if (!(name in params)) {
      if (!optional) issues.push(`missing "${name}" (${type})`);
      continue;
    }
    const check = PARAM_TYPES[base];
    if (check && !check(params[name])) issues.push(`"${name}" should be a ${base}`);
  }
  for (const name of Object.keys(params))
    if (!(name in def.params_schema))
      issues.push(`unknown parameter "${name}" (declared: ${Object.keys(def.params_schema).join(", ")})`);
  if (issues.length) throw new InvalidParams(def.define, issues);
}

/** Runs the operators of one step on a {@link StepScope}. */
class Runner {
  private depth = 0;
  constructor(
    readonly scope: StepScope,
    readonly custom: ReadonlyMap<string, OperatorDefinition>,
    readonly options: RunOptions,
  ) {}

  private view(): View {
    return {
      language: (file) => this.scope.language(file),
      source: (file) => this.scope.source(file),
      locate: (locator) => locateIn(this.scope.parsed(locator.file), { locator }),
      locateRegion: (locator) => locateRegionIn(this.scope.parsed(locator.file), { locator }),
    };
  }

  context(): HandlerContext {
    return {
      source: (file) => this.scope.source(file),
      language: (file) => this.scope.language(file),
      parsed: (file) => this.scope.parsed(file),
      run: (op, params) => this.exec(op, params),
      files: this.scope.committed.paths(),
    };
  }

  private applyTo(file: string, run: (doc: ParsedDoc, errors: readonly ErrorSpan[]) => Applied): void {
    const doc = this.scope.parsed(file);
    this.scope.record(file, doc, run(doc, this.scope.errors(file)));
  }

  /**
   * Applies edits to any file: a code file must still parse (and, in Python, compile); a file with
   * no grammar takes them as they are, after the options' `checkText` (a data file must still load).
   */
  private applyEditsTo(file: string, op: string, edits: readonly Edit[]): void {
    if (this.scope.committed.isCode(file)) {
      this.applyTo(file, (doc, errors) => applyChecked(doc, op, [edits], undefined, errors));
      return;
    }
    const before = this.scope.source(file);
    const after = applyEdits(before, edits);
    const problem = this.options.checkText?.(file, before, after);
    if (problem) throw new PostconditionFailed(file, op, problem);
    this.scope.recordText(file, after, edits);
  }

  /** The text tier's steps, on any text file. */
  private text(op: string, params: Record<string, unknown>): unknown {
    const p = parseParams(op, OPERATOR_BY_NAME.get(op)!.paramsSchema, params) as { file?: string; path?: string };
    const file = (p.file ?? p.path)!;
    const source = this.scope.source(file);
    let result: TextEdits;
    switch (op) {
      case "replace_text":
        result = replaceTextEdits(source, p as ReplaceTextParams);
        break;
      case "insert_text":
        result = insertTextEdits(source, p as InsertTextParams);
        break;
      case "append_text":
        result = appendTextEdits(source, p as AppendTextParams);
        break;
      default: {
        if (isBinaryText(source)) throw new BinaryFile(file, op);
        const content = (p as WriteFileParams).content;
        result = { edits: content === source ? [] : [{ start: 0, end: source.length, text: content }] };
      }
    }
    if (result.edits.length > 0) this.applyEditsTo(file, op, result.edits);
    return {
      ok: true,
      file,
      ...(result.place ? { match: result.place.layer, line: result.place.line } : {}),
      ...(result.correction ? { corrected: result.correction } : {}),
    };
  }

  private withDepth<T>(op: string, f: () => T): T {
    const max = this.options.maxDepth ?? 8;
    if (this.depth >= max) throw new RecursionLimit(op, max);
    this.depth++;
    try {
      return f();
    } finally {
      this.depth--;
    }
  }

  /** Runs one operator call; returns its output. Throws tagged errors. */
  exec(op: string, rawParams: Record<string, unknown>): unknown {
    return this.withDepth(op, () => this.dispatch(op, rawParams ?? {}));
  }

  private dispatch(op: string, params: Record<string, unknown>): unknown {
    const custom = this.custom.get(op);
    if (custom) {
      checkCustomParams(custom, params);
      runDsl(custom.steps, { ...params }, (o, p) => this.exec(o, p));
      return { ok: true };
    }
    const handler = this.options.handlers?.[op];
    if (handler) return this.runHandler(handler, { op, params });

    if (TEXT_OPS.has(op)) return this.text(op, params);
    if ((MUTATORS as readonly string[]).includes(op)) {
      const info = OPERATOR_BY_NAME.get(op)!;
      const p = parseParams(op, info.paramsSchema, params) as { locator: Locator };
      const file = p.locator.file;
      let edits = 0;
      let normalized: readonly string[] = [];
      this.applyTo(file, (doc, errors) => {
        const applied = runMutator(op as MutatorName, doc, p as never, errors);
        edits = applied.edits.length;
        normalized = notesOf(applied.edits);
        return applied;
      });
      return normalized.length > 0 ? { ok: true, file, edits, normalized } : { ok: true, file, edits };
    }
    if (op === "locate" || op === "locate_region") {
      const p = parseParams(op, OPERATOR_BY_NAME.get(op)!.paramsSchema, params) as { locator: Locator };
      const doc = this.scope.parsed(p.locator.file);
      return op === "locate" ? locateIn(doc, p) : locateRegionIn(doc, p);
    }
    if (Object.hasOwn(LEGACY_TO_PRIMITIVE, op) && hasLocator(params)) {
      const translated = legacyToPrimitive(op, params);
      return this.exec(translated.op, translated.params);
    }
    if (Object.hasOwn(COMPOSED, op)) {
      const info = OPERATOR_BY_NAME.get(op)!;
      const p = parseParams(op, info.paramsSchema, params);
      const steps = COMPOSED[op]!(p as never, this.view());
      runDsl(steps, { ...(p as Record<string, unknown>) }, (o, q) => this.exec(o, q));
      return steps.length === 0 ? { ok: true, skipped: "already present" } : { ok: true };
    }
    if (Object.hasOwn(LEGACY, op)) {
      const info = OPERATOR_BY_NAME.get(op)!;
      const p = parseParams(op, info.paramsSchema, params) as { file: string };
      let output: unknown;
      this.applyTo(p.file, (doc, errors) => {
        const result = LEGACY[op]!(doc, p as never);
        output = result.output;
        try {
          return applyChecked(doc, op, matchLineEndings(doc.source, result.alternatives), undefined, errors);
        } catch (error) {
          throw error instanceof PostconditionFailed ? fuzzyMatchFailure(error, result.output) : error;
        }
      });
      return { ok: true, file: p.file, ...(output as object) };
    }
    throw new UnknownOperator(
      op,
      closestOperators(op, [...this.custom.keys(), ...Object.keys(this.options.handlers ?? {})]),
    );
  }

  runHandler(handler: StepHandler, step: Step): unknown {
    const result = handler(step, this.context());
    if (result.edits) {
      const label = "op" in step ? step.op : "handler";
      for (const [file, edits] of Object.entries(result.edits)) {
        if (edits.length === 0) continue;
        this.applyEditsTo(file, label, edits);
      }
    }
    if (result.steps) runDsl(result.steps, { ...(result.vars ?? {}) }, (o, p) => this.exec(o, p));
    return result.output ?? { ok: true };
  }
}

/**
 * A plan run step by step over in-memory files with one incrementally re-parsed tree per file.
 *
 * ```ts
 * const session = new PlanSession(files, { handlers });
 * const r = session.run(step);          // runs the step; nothing is committed yet
 * if (r.ok) { inspect(r.changes); session.commit(); } // or commit(["a.py"]), or discard()
 * session.dispose();
 * ```
 */
export class PlanSession {
  readonly #files: Map<string, string>;
  readonly #versions = new Map<string, Version>();
  /** `text`: a file's content when the session has none yet (a file a step creates). */
  readonly #languageOf: (path: string, text?: string) => LanguageId | undefined;
  readonly #custom = new Map<string, OperatorDefinition>();
  readonly #options: RunOptions;
  readonly #changed = new Set<string>();
  /** The files the session was opened with. */
  readonly #initial: ReadonlySet<string>;
  /** Files deleted (or renamed away) by a committed step, and that step's index. */
  readonly #deletedBy = new Map<string, number>();
  /** Modes committed steps gave files (`set_file_mode`). */
  readonly #modes = new Map<string, FileMode>();
  #pending: Pending[] | undefined;
  #next = 0;
  #disposed = false;

  /** Throws `OperatorRedefined` when a custom operator is named like an operator, a handler or another custom one. */
  constructor(files: ReadonlyMap<string, string>, options: SessionOptions = {}) {
    this.#files = new Map(files);
    this.#initial = new Set(files.keys());
    // By extension, and for a `.h` header by what it holds (C or C++), decided once per file on its
    // text when the session opened, or on its content when a step creates it (an edit does not turn a
    // header into another language).
    const decided = new Map<string, LanguageId | undefined>();
    this.#languageOf =
      options.languageOf ??
      ((path, text) => {
        if (!decided.has(path))
          decided.set(path, detectFileLanguage(path, files.get(path) ?? this.#files.get(path) ?? text ?? ""));
        return decided.get(path);
      });
    this.#options = options;
    for (const def of options.operators ?? []) {
      if (this.#custom.has(def.define) || OPERATOR_BY_NAME.has(def.define) || options.handlers?.[def.define])
        throw new OperatorRedefined(def.define);
      this.#custom.set(def.define, def);
    }
  }

  /**
   * A session for a parsed plan (`parsePlan` of @graphplan/catalog reads one from JSON): registers
   * its `define_operators` (`OperatorRedefined` when one takes a taken name); returns the session
   * and the plan's steps.
   */
  static open(
    plan: Plan,
    files: ReadonlyMap<string, string>,
    options: RunOptions = {},
  ):
    | { readonly ok: true; readonly session: PlanSession; readonly steps: readonly Step[] }
    | { readonly ok: false; readonly error: OperatorRedefined } {
    const { steps, operators } = planParts(plan);
    try {
      return { ok: true, session: new PlanSession(files, { ...options, operators }), steps };
    } catch (error) {
      if (error instanceof OperatorRedefined) return { ok: false, error };
      throw error;
    }
  }

  readonly #committed: Committed = {
    text: (file) => this.#files.get(file),
    deletedBy: (file) => this.#deletedBy.get(file),
    version: (file) => this.#version(file),
    language: (file) => this.language(file),
    isCode: (file) => this.#languageOf(file) !== undefined,
    paths: () => [...this.#files.keys()],
  };

  #version(file: string): Version {
    const hit = this.#versions.get(file);
    if (hit) return hit;
    const source = this.source(file);
    const language = this.#languageOf(file);
    const version: Version = {
      source,
      tree: language ? parseFull(source, language) : undefined,
      errors: undefined,
      lineStarts: undefined,
    };
    this.#versions.set(file, version);
    return version;
  }

  /** Paths of the session's files. */
  paths(): string[] {
    return [...this.#files.keys()];
  }

  has(file: string): boolean {
    return this.#files.has(file);
  }

  /** The 0-based index of the committed step that deleted the file (or renamed it away), if one did. */
  deletedBy(file: string): number | undefined {
    return this.#deletedBy.get(file);
  }

  /** Current (committed) text of a file, without parsing it; undefined when it is not a session file. */
  text(file: string): string | undefined {
    return this.#files.get(file);
  }

  /** Current text of a file. Throws `FileNotInPlan`. */
  source(file: string): string {
    const text = this.#files.get(file);
    if (text === undefined) throw missingFile(file, this.#committed);
    return text;
  }

  /** Grammar of a file. Throws `FileNotInPlan` or `UnsupportedLanguage`. */
  language(file: string): LanguageId {
    this.source(file);
    const language = this.#languageOf(file);
    if (!language) throw new UnsupportedLanguage(file);
    return language;
  }

  /** The committed version of a file with its tree (parsed on first use; the session owns the tree). Throws `UnsupportedLanguage` for a file with no grammar. */
  parsed(file: string): ParsedDoc {
    const language = this.language(file);
    const { source, tree } = this.#version(file);
    return { path: file, source, language, tree: tree! };
  }

  /** Whether a session file is of a language GraphPlan parses (else only text steps change it). */
  isCode(file: string): boolean {
    return this.#files.has(file) && this.#languageOf(file) !== undefined;
  }

  /** The modes committed steps gave files (`set_file_mode`), by path: only files whose mode a step set. */
  modes(): Map<string, FileMode> {
    return new Map(this.#modes);
  }

  /** ERROR/MISSING nodes of the committed version of a file (computed once per version). */
  errors(file: string): readonly ErrorSpan[] {
    return errorsOf(this.#version(file));
  }

  /** Every file's current text (a copy). */
  files(): Map<string, string> {
    return new Map(this.#files);
  }

  /** Files that committed steps changed (created and deleted ones included), in the order first changed. */
  get changed(): string[] {
    return [...this.#changed];
  }

  /** Files the session was opened with that committed steps deleted (or renamed away). */
  get deleted(): string[] {
    return [...this.#initial].filter((file) => !this.#files.has(file));
  }

  /** Whether a step ran and is waiting for `commit()` or `discard()`. */
  get pending(): boolean {
    return this.#pending !== undefined;
  }

  /**
   * Runs one step on the committed versions. On success the step is pending: its `changes` are
   * returned (with trees) and become current on {@link commit}; on failure nothing of the step
   * is kept and `error` is a `StepFailed` (numbered `index`, by default the number of steps run
   * so far) whose `cause` is the tagged error underneath. Throws if a step is still pending.
   */
  run(step: Step, index: number = this.#next): SessionStepResult {
    if (this.#disposed) throw new Error("PlanSession.run: the session was disposed");
    if (this.#pending) throw new Error("PlanSession.run: commit() or discard() the previous step first");
    this.#next = index + 1;
    // The step's form is not checked again: a plan's steps were read by `parsePlan` of @graphplan/catalog, and a
    // step built in code is typed. Each operator still parses its own params (below: defaults, and the calls a
    // custom operator or handler makes with params no parse has seen).
    const op = stepLabel(step);
    if ("op" in step && FILE_OPS.has(step.op) && !this.#custom.has(step.op) && !this.#options.handlers?.[step.op])
      return this.#fileStep(step.op, step.params, index);
    const scope = new StepScope(this.#committed);
    const runner = new Runner(scope, this.#custom, this.#options);
    let output: unknown;
    try {
      if ("op" in step) output = runner.exec(step.op, step.params);
      else {
        const handler = this.#options.handlers?.["template" in step ? "template" : "fragment"];
        if (!handler) throw new UnknownOperator(op, closestOperators(op, Object.keys(this.#options.handlers ?? {})));
        output = runner.runHandler(handler, step);
      }
    } catch (cause) {
      scope.discard();
      return {
        ok: false,
        step: index,
        op,
        error: new StepFailed(index, op, stepLocator(step), cause instanceof Error ? cause : new Error(String(cause))),
      };
    }
    let finished: { change: StepChange; version: Version }[];
    try {
      finished = scope.finish();
    } catch (cause) {
      scope.discard();
      return {
        ok: false,
        step: index,
        op,
        error: new StepFailed(index, op, stepLocator(step), cause instanceof Error ? cause : new Error(String(cause))),
      };
    }
    this.#pending = finished.map((f) => ({ ...f, index }));
    return { ok: true, step: index, op, output, changes: finished.map((f) => f.change) };
  }

  /**
   * create_file, delete_file, rename_file, set_file_mode: whole-file changes, pending like any
   * step's. A created file must not exist, and a code file must parse; a deleted one must exist. A
   * rename is a deletion and a creation with the same text (and the mode a step gave it).
   */
  // Long on purpose: the four whole-file operations share the pending changes, their rollback and the checks on what they write; each is a few lines of one switch.
  #fileStep(op: string, raw: Record<string, unknown>, index: number): SessionStepResult {
    const pending: Pending[] = [];
    const drop = () => {
      for (const p of pending) {
        if (!p.shared) p.version.tree?.delete();
        p.free?.delete();
      }
    };
    const docOf = (
      file: string,
      version: Version,
    ): { before: ParsedDoc | TextDoc; language: LanguageId | undefined } => {
      const language = this.#languageOf(file);
      return {
        language,
        before: language
          ? { path: file, source: version.source, language, tree: version.tree! }
          : { path: file, source: version.source },
      };
    };
    const changeOf = (
      file: string,
      language: LanguageId | undefined,
      before: ParsedDoc | TextDoc,
      after: ParsedDoc | TextDoc,
      rest: Omit<ChangeBase, "file">,
      errors: { before: readonly ErrorSpan[]; after: readonly ErrorSpan[] },
    ): StepChange =>
      language
        ? {
            kind: "code",
            file,
            language,
            before: before as ParsedDoc,
            after: after as ParsedDoc,
            changedRanges: [],
            errorsBefore: errors.before,
            errorsAfter: errors.after,
            ...rest,
          }
        : { kind: "text", file, before, after, ...rest };
    try {
      const params = parseParams(op, OPERATOR_BY_NAME.get(op)!.paramsSchema, raw) as {
        path?: string;
        content?: string;
        from?: string;
        to?: string;
        mode?: FileMode;
      };
      const remove = (file: string) => {
        const current = this.#version(file);
        const { before, language } = docOf(file, current);
        const empty: Version = {
          source: "",
          tree: language ? parseFull("", language) : undefined,
          errors: [],
          lineStarts: undefined,
        };
        const after = language ? { path: file, source: "", language, tree: empty.tree! } : { path: file, source: "" };
        const edits = before.source ? [{ start: 0, end: before.source.length, text: "" }] : [];
        pending.push({
          version: empty,
          index,
          change: changeOf(
            file,
            language,
            before,
            after,
            { edits, existence: "deleted" },
            { before: this.errors(file), after: [] },
          ),
        });
      };
      /** `had`: how many syntax errors the content had where it was (a renamed file keeps its own). */
      const create = (file: string, content: string, mode?: FileMode, had = 0) => {
        if (this.#files.has(file)) throw new FileExists(file, op);
        if (isBinaryText(content)) throw new BinaryFile(file, op);
        const language = this.#languageOf(file, content);
        const edits = content ? [{ start: 0, end: 0, text: content }] : [];
        const rest = { edits, existence: "created" as const, ...(mode ? { mode } : {}) };
        if (!language) {
          const problem = this.#options.checkText?.(file, "", content);
          if (problem) throw new PostconditionFailed(file, op, problem);
          const change = changeOf(file, undefined, { path: file, source: "" }, { path: file, source: content }, rest, {
            before: [],
            after: [],
          });
          pending.push({
            version: { source: content, tree: undefined, errors: [], lineStarts: undefined },
            index,
            change,
          });
          return;
        }
        const tree = parseFull(content, language);
        const errors = errorSpans(tree);
        // An HTML template's markup reads as errors to tree-sitter-html: a template is judged as text (`isHtmlTemplate`);
        // C/C++ conditionals may split code so that it reads as errors only as written (`preprocessorExplains`).
        if (
          errors.length > had &&
          !(language === "html" && isHtmlTemplate(content)) &&
          !preprocessorExplains(language, "", content, edits)
        ) {
          tree.delete();
          throw new PostconditionFailed(
            file,
            op,
            "the new file's content does not parse",
            errors.map(({ line, column, kind, text }) => ({ line, column, kind, text })),
          );
        }
        const empty = parseFull("", language);
        const change = changeOf(
          file,
          language,
          { path: file, source: "", language, tree: empty },
          { path: file, source: content, language, tree },
          rest,
          // Errors let through (a renamed file's own, a template's, a conditional's) are the file's baseline.
          { before: errors, after: errors },
        );
        pending.push({
          version: { source: content, tree, errors, lineStarts: undefined },
          index,
          free: empty,
          change,
        });
      };
      if (op === "create_file") create(params.path!, params.content!);
      else if (op === "delete_file") remove(params.path!);
      else if (op === "set_file_mode") {
        const file = params.path!;
        const current = this.#version(file);
        const { before, language } = docOf(file, current);
        const errors = this.errors(file);
        pending.push({
          version: current,
          index,
          shared: true,
          change: changeOf(
            file,
            language,
            before,
            before,
            { edits: [], mode: params.mode! },
            { before: errors, after: errors },
          ),
        });
      } else {
        if (params.to === params.from) throw new InvalidParams(op, ["`to` is the same path as `from`"]);
        const had = this.#languageOf(params.from!) ? this.errors(params.from!).length : 0;
        remove(params.from!);
        create(params.to!, this.source(params.from!), this.#modes.get(params.from!), had);
      }
    } catch (cause) {
      drop();
      return {
        ok: false,
        step: index,
        op,
        error: new StepFailed(index, op, undefined, cause instanceof Error ? cause : new Error(String(cause))),
      };
    }
    this.#pending = pending;
    return { ok: true, step: index, op, output: { ok: true }, changes: pending.map((p) => p.change) };
  }

  /**
   * Makes the pending step's changes current — all of them, or only those of `files` (the
   * others are dropped). Frees the replaced versions' trees. No-op when nothing is pending.
   */
  commit(files?: Iterable<string>): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    const keep = files ? new Set(files) : undefined;
    for (const { change, version, index, free, shared } of pending) {
      free?.delete();
      if (keep && !keep.has(change.file)) {
        if (!shared) version.tree?.delete();
        continue;
      }
      this.#changed.add(change.file);
      if (change.mode) this.#modes.set(change.file, change.mode);
      if (shared) continue;
      if (change.existence === "deleted") {
        version.tree?.delete();
        this.#versions.get(change.file)?.tree?.delete();
        this.#versions.delete(change.file);
        this.#files.delete(change.file);
        this.#modes.delete(change.file);
        this.#deletedBy.set(change.file, index);
        continue;
      }
      if (change.existence === "created") this.#deletedBy.delete(change.file);
      const old = this.#versions.get(change.file);
      this.#versions.set(change.file, version);
      this.#files.set(change.file, version.source);
      if (old && old !== version) old.tree?.delete();
    }
  }

  /** Drops the pending step (frees its trees). */
  discard(): void {
    const pending = this.#pending;
    this.#pending = undefined;
    for (const { version, free, shared } of pending ?? []) {
      if (!shared) version.tree?.delete();
      free?.delete();
    }
  }

  /** Frees every tree. The session cannot run steps afterwards. */
  dispose(): void {
    this.discard();
    for (const version of this.#versions.values()) version.tree?.delete();
    this.#versions.clear();
    this.#disposed = true;
  }
}

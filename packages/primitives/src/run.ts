/**
 * Plan execution over in-memory files: steps in order, each operator checked and rolled back
 * on its own (a failed step leaves its files as they were), the plan all-or-nothing (a failed
 * plan returns the files it was given). Pure: no fs, no clock. Grammars must be loaded
 * (`await loadGrammars()` from @graphplan/graph) before calling.
 */
import { formatIssues, locatorIssues } from "@graphplan/locators";
import type { Tree } from "web-tree-sitter";
import { distance } from "fastest-levenshtein";
import { detectLanguage, parse, type LanguageId } from "@graphplan/graph";
import type { Locator } from "@graphplan/locators";
import { z } from "zod";
import type { Edit } from "./edits.js";
import { errorSpans, type ErrorSpan } from "./check.js";
import {
  applyChecked,
  matchLineEndings,
  locateIn,
  locateRegionIn,
  MUTATORS,
  runMutator,
  type Applied,
  type MutatorName,
  type ParsedDoc,
} from "./primitives.js";
import { COMPOSED, type View } from "./composed.js";
import { LEGACY } from "./legacy.js";
import { runDsl } from "./dsl.js";
import { LEGACY_TO_PRIMITIVE, OPERATOR_BY_NAME, OPERATORS } from "./registry.js";
import {
  FileNotFound,
  InvalidParams,
  InvalidPlan,
  OperatorRedefined,
  RecursionLimit,
  StepFailed,
  UnknownOperator,
  UnsupportedLanguage,
} from "./errors.js";
import { PlanSchema, planParts, type DslStep, type OperatorDefinition, type Plan, type Step } from "./plan.js";

/** What a step handler may read and do. */
export interface HandlerContext {
  /** Current text of a plan file (after the earlier steps). Throws `FileNotFound`. */
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
  /** Language of a path; defaults to `detectLanguage` (by extension). */
  readonly languageOf?: (path: string) => LanguageId | undefined;
  /** Maximum nesting of operators calling operators (default 8). */
  readonly maxDepth?: number;
}

export type StepResult =
  | { readonly step: number; readonly op: string; readonly ok: true; readonly changed: readonly string[]; readonly output?: unknown }
  | { readonly step: number; readonly op: string; readonly ok: false; readonly error: StepFailed };

export type RunResult =
  | { readonly ok: true; readonly files: Map<string, string>; readonly changed: readonly string[]; readonly results: readonly StepResult[] }
  | {
      readonly ok: false;
      /** Index of the failed step; -1 when the plan itself is invalid. */
      readonly failedStep: number;
      readonly error: StepFailed | InvalidPlan | OperatorRedefined;
      readonly results: readonly StepResult[];
      /** The files as given: nothing of the plan is applied. */
      readonly files: ReadonlyMap<string, string>;
    };

interface CachedTree {
  readonly source: string;
  readonly tree: Tree;
  readonly errors: readonly ErrorSpan[];
}

/** The working copy of one run: current texts and one tree per file, parsed once per change. */
class Workspace {
  readonly files: Map<string, string>;
  private readonly trees = new Map<string, CachedTree>();
  constructor(
    files: ReadonlyMap<string, string>,
    private readonly languageOf: (path: string) => LanguageId | undefined,
  ) {
    this.files = new Map(files);
  }

  source(file: string): string {
    const text = this.files.get(file);
    if (text === undefined) throw new FileNotFound(file, [...this.files.keys()]);
    return text;
  }

  language(file: string): LanguageId {
    this.source(file);
    const language = this.languageOf(file);
    if (!language) throw new UnsupportedLanguage(file);
    return language;
  }

  cached(file: string): CachedTree {
    const source = this.source(file);
    const language = this.language(file);
    const hit = this.trees.get(file);
    if (hit && hit.source === source) return hit;
    hit?.tree.delete();
    const tree = parse(source, language);
    const entry = { source, tree, errors: errorSpans(tree) };
    this.trees.set(file, entry);
    return entry;
  }

  parsed(file: string): ParsedDoc {
    const { source, tree } = this.cached(file);
    return { path: file, source, language: this.language(file), tree };
  }

  commit(file: string, applied: Applied): void {
    this.files.set(file, applied.source);
    this.trees.get(file)?.tree.delete();
    this.trees.set(file, { source: applied.source, tree: applied.tree, errors: errorSpans(applied.tree) });
  }

  restore(snapshot: ReadonlyMap<string, string>): void {
    for (const [file, text] of snapshot) this.files.set(file, text);
  }

  dispose(): void {
    for (const { tree } of this.trees.values()) tree.delete();
    this.trees.clear();
  }
}

const ALL_OPS = OPERATORS.map((o) => o.name);

/** Operator names, closest to `name` first. */
export function closestOperators(name: string, extra: readonly string[] = []): string[] {
  return [...new Set([...ALL_OPS, ...extra])].sort((a, b) => distance(name, a) - distance(name, b) || a.localeCompare(b));
}

/** Zod issues of operator params; a bad `locator` is explained against the form it was meant to have. */
export function paramIssues(error: z.ZodError, params: unknown): string[] {
  const issues = formatIssues(error);
  const locator = params && typeof params === "object" ? (params as { locator?: unknown }).locator : undefined;
  if (locator === undefined || !error.issues.some((i) => i.path[0] === "locator")) return issues;
  const specific = locatorIssues(locator, ["locator"]);
  return [...issues.filter((i) => !i.startsWith("locator")), ...(specific.length ? specific : issues.filter((i) => i.startsWith("locator")))];
}

function parseParams<T>(op: string, schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    throw new InvalidParams(op, paramIssues(parsed.error, params));
  }
  return parsed.data;
}

const hasLocator = (params: Record<string, unknown>): boolean => params.locator !== undefined && params.locator !== null;

/** Parameters of a legacy operator's `{locator, ...}` form, translated for its primitive. */
function legacyToPrimitive(op: string, params: Record<string, unknown>): { op: string; params: Record<string, unknown> } {
  const { locator } = params;
  switch (op) {
    case "replace_code":
      return { op: "replace_node", params: { locator, replacement: params.replacement } };
    case "insert_code":
      return {
        op: params.position === "before" ? "insert_before_node" : "insert_after_node",
        params: { locator, code: params.code, ...(params.separator !== undefined ? { separator: params.separator } : {}) },
      };
    case "delete_lines":
      return { op: "delete_node", params: { locator } };
    case "modify_function_signature":
      return { op: "replace_node", params: { locator, replacement: params.new_signature ?? params.replacement } };
    case "rename_symbol":
      return { op: "replace_all_matching", params: { locator, replacement: params.new_name ?? params.replacement, filter: "not_in_string_or_comment" } };
    case "wrap_block":
      return { op: "wrap_node", params: { locator, before: params.before_code ?? params.before ?? "", after: params.after_code ?? params.after ?? "" } };
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
  for (const name of Object.keys(params)) if (!(name in def.params_schema)) issues.push(`unknown parameter "${name}" (declared: ${Object.keys(def.params_schema).join(", ")})`);
  if (issues.length) throw new InvalidParams(def.define, issues);
}

class Runner {
  private depth = 0;
  private changed = new Set<string>();
  constructor(
    readonly ws: Workspace,
    readonly custom: ReadonlyMap<string, OperatorDefinition>,
    readonly options: RunOptions,
  ) {}

  changedFiles(): string[] {
    return [...this.changed];
  }

  resetChanged(): void {
    this.changed = new Set();
  }

  private view(): View {
    return {
      language: (file) => this.ws.language(file),
      source: (file) => this.ws.source(file),
      locate: (locator) => locateIn(this.ws.parsed(locator.file), { locator }),
      locateRegion: (locator) => locateRegionIn(this.ws.parsed(locator.file), { locator }),
    };
  }

  context(): HandlerContext {
    return {
      source: (file) => this.ws.source(file),
      language: (file) => this.ws.language(file),
      parsed: (file) => this.ws.parsed(file),
      run: (op, params) => this.exec(op, params),
      files: [...this.ws.files.keys()],
    };
  }

  private applyTo(file: string, op: string, run: (doc: ParsedDoc, errors: readonly ErrorSpan[]) => Applied): void {
    const cached = this.ws.cached(file);
    const doc = this.ws.parsed(file);
    const applied = run(doc, cached.errors);
    if (applied.source === doc.source) {
      applied.tree.delete();
      return;
    }
    this.ws.commit(file, applied);
    this.changed.add(file);
    void op;
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

    if ((MUTATORS as readonly string[]).includes(op)) {
      const info = OPERATOR_BY_NAME.get(op)!;
      const p = parseParams(op, info.paramsSchema, params) as { locator: Locator };
      const file = p.locator.file;
      let edits = 0;
      this.applyTo(file, op, (doc, errors) => {
        const applied = runMutator(op as MutatorName, doc, p as never, errors);
        edits = applied.edits.length;
        return applied;
      });
      return { ok: true, file, edits };
    }
    if (op === "locate" || op === "locate_region") {
      const p = parseParams(op, OPERATOR_BY_NAME.get(op)!.paramsSchema, params) as { locator: Locator };
      const doc = this.ws.parsed(p.locator.file);
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
      this.applyTo(p.file, op, (doc, errors) => {
        const result = LEGACY[op]!(doc, p as never);
        output = result.output;
        return applyChecked(doc, op, matchLineEndings(doc.source, result.alternatives), undefined, errors);
      });
      return { ok: true, file: p.file, ...(output as object) };
    }
    throw new UnknownOperator(op, closestOperators(op, [...this.custom.keys(), ...Object.keys(this.options.handlers ?? {})]));
  }

  runHandler(handler: StepHandler, step: Step): unknown {
    const result = handler(step, this.context());
    if (result.edits) {
      for (const [file, edits] of Object.entries(result.edits)) {
        if (edits.length === 0) continue;
        this.applyTo(file, "op" in step ? step.op : "template" in step ? "template" : "fragment", (doc, errors) =>
          applyChecked(doc, "op" in step ? step.op : "handler", [edits], undefined, errors),
        );
      }
    }
    if (result.steps) runDsl(result.steps, { ...(result.vars ?? {}) }, (o, p) => this.exec(o, p));
    return result.output ?? { ok: true };
  }
}

/** The seed's plan-integrity check: a non-empty array whose first element is an object with a step key, or `{plan: [...]}`. */
export function isValidPlan(plan: unknown): boolean {
  if (plan && typeof plan === "object" && !Array.isArray(plan) && "plan" in plan) return isValidPlan((plan as { plan: unknown }).plan);
  if (!Array.isArray(plan) || plan.length === 0) return false;
  const first: unknown = plan[0];
  return !!first && typeof first === "object" && !Array.isArray(first) && ("op" in first || "template" in first || "fragment" in first);
}

/** Validates a plan (integrity check, then the zod schema); throws `InvalidPlan`. */
export function validatePlan(plan: unknown): Plan {
  if (!isValidPlan(plan)) {
    throw new InvalidPlan([
      Array.isArray(plan) && plan.length === 0 ? "the plan is empty" : "expected an array of steps (objects with \"op\") or an object with \"plan\"",
    ]);
  }
  const parsed = PlanSchema.safeParse(plan);
  if (!parsed.success) throw new InvalidPlan(formatIssues(parsed.error));
  return parsed.data;
}

const stepName = (step: Step): string => ("op" in step ? step.op : "template" in step ? `template:${step.template}` : "fragment");

function stepLocator(step: Step): unknown {
  const params = ("params" in step ? step.params : undefined) as Record<string, unknown> | undefined;
  if ("locator" in step && step.locator) return step.locator;
  if (params?.locator) return params.locator;
  if (typeof params?.file === "string") return { file: params.file, ...(typeof params.class_name === "string" ? { class_name: params.class_name } : {}), ...(typeof params.func_name === "string" ? { func_name: params.func_name } : {}) };
  return undefined;
}

/**
 * Runs a plan over in-memory files. Steps run in order, each seeing the earlier ones' effects;
 * every operator checks its postconditions and leaves its file untouched on failure; the first
 * failed step stops the plan and the original files are returned (all-or-nothing).
 */
export function runPlan(plan: Plan | unknown, files: ReadonlyMap<string, string>, options: RunOptions = {}): RunResult {
  let valid: Plan;
  try {
    valid = validatePlan(plan);
  } catch (error) {
    return { ok: false, failedStep: -1, error: error as InvalidPlan, results: [], files };
  }
  const { steps, operators } = planParts(valid);
  const custom = new Map<string, OperatorDefinition>();
  for (const def of operators) {
    if (custom.has(def.define) || OPERATOR_BY_NAME.has(def.define) || options.handlers?.[def.define]) {
      return { ok: false, failedStep: -1, error: new OperatorRedefined(def.define), results: [], files };
    }
    custom.set(def.define, def);
  }
  const ws = new Workspace(files, options.languageOf ?? detectLanguage);
  const runner = new Runner(ws, custom, options);
  const results: StepResult[] = [];
  const changed = new Set<string>();
  try {
    for (const [index, step] of steps.entries()) {
      const op = stepName(step);
      runner.resetChanged();
      const snapshot = new Map(ws.files);
      try {
        let output: unknown;
        if ("op" in step) output = runner.exec(step.op, step.params);
        else {
          const handler = options.handlers?.["template" in step ? "template" : "fragment"];
          if (!handler) throw new UnknownOperator(op, closestOperators(op, Object.keys(options.handlers ?? {})));
          output = runner.runHandler(handler, step);
        }
        const stepChanged = runner.changedFiles();
        stepChanged.forEach((f) => changed.add(f));
        results.push({ step: index, op, ok: true, changed: stepChanged, output });
      } catch (cause) {
        ws.restore(snapshot);
        const error = new StepFailed(index, op, stepLocator(step), cause instanceof Error ? cause : new Error(String(cause)));
        results.push({ step: index, op, ok: false, error });
        return { ok: false, failedStep: index, error, results, files };
      }
    }
  } finally {
    ws.dispose();
  }
  return { ok: true, files: ws.files, changed: [...changed], results };
}

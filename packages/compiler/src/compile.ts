/**
 * The patch compiler: from the pre-image of the files and a unified diff, the JSON plan an LLM
 * would write, addressed by structured locators only.
 *
 * Per file: the post-image is computed from the diff, both images are parsed, and the
 * structural diff ({@link diffTrees}) gives the smallest changed nodes and sibling splices. Each
 * change becomes the nicest step that reproduces it exactly, tried in order: composed operators
 * and templates where they fit, then primitives on the changed node (replace_node,
 * insert_before_node / insert_after_node, delete_node), then replace_node on ever larger
 * enclosing nodes; a text step (`replace_text` quoting the file) only when no node-addressed step is
 * exact. Files with no grammar, and code files whose change no structural step reproduces, become
 * text steps ({@link textSteps}), a data file's change data steps where they are exact
 * ({@link dataSteps}); a mode change becomes `set_file_mode`. Every file of any diff
 * compiles, exactly; the share of changes expressed structurally is the quality figure.
 * "Exact" is decided by running the candidate step with the engine itself on the current text
 * (the text after the earlier steps), so every accepted step is known to produce the expected
 * bytes; locators are computed on that current text too.
 */
import {
  codeEnd,
  detectFileLanguage,
  LANGUAGES,
  parse,
  type LanguageId,
  errorGuard,
  TaggedError,
} from "@graphplan/graph";
import {
  applyEdits,
  MUTATORS,
  OPERATOR_BY_NAME,
  outerNode,
  primitiveEdits,
  reparse,
  type Edit,
  type Step,
  type StepHandler,
  type WrittenPlan,
  TEXT_OPS,
} from "@graphplan/primitives";
import { detectTier, formalHandlers, stepEdits } from "@graphplan/catalog";
import type { Node, Tree } from "web-tree-sitter";
import { forecastFormal } from "./forecast.js";
import { locatorLabel, locatorsFor, type LocateContext } from "./locate.js";
import { predictDelete, predictInsertAfter, predictInsertBefore, predictReplace } from "./predict.js";
import { parseUnifiedDiff, PatchError, postImages } from "./patch.js";
import { suggesters } from "./suggest.js";
import type { Candidate, ChangeView, Suggester } from "./view.js";
import { diffTrees, type Change, type NodeRef } from "./treediff.js";
import { minimalEdit, runStep, textSteps } from "./text.js";
import { dataSteps } from "./data.js";

/** The tree after `edits`, parsed incrementally with primitives' `reparse`; the old tree is freed. */
function advance(tree: Tree, source: string, edits: readonly Edit[], next: string, language: LanguageId): Tree {
  try {
    return reparse(tree, source, edits, next, language);
  } finally {
    tree.delete();
  }
}

/** The diff cannot be compiled into a plan (a file the engine cannot edit, or no exact step). */
export class CompileError extends TaggedError("CompileError") {
  constructor(
    readonly file: string | undefined,
    readonly cause_: string,
    readonly detail: string,
  ) {
    super(`${file ? `${file}: ` : ""}${detail}`);
  }
}

/** Every error of the compiler: a diff it cannot read or apply, a change it cannot compile. */
export type CompilerError = CompileError | PatchError;
export const isCompilerError: (error: unknown) => error is CompilerError = errorGuard(CompileError, PatchError);

/** Tier of a step: 0 primitives/composed, 1 surgery, 2 templates, 3 fragments; legacy is tier 0 too. */
export type Tier = 0 | 1 | 2 | 3;

export interface StepRecord {
  readonly step: Step;
  readonly file: string;
  readonly tier: Tier;
  readonly legacy: boolean;
  /** A text-tier step (replace_text, insert_text, append_text, write_file): no node addresses the change. */
  readonly text: boolean;
  /** How the compiler chose the step (`replace_node`, `insert_after_node`, `enclosing:block`, `legacy`, ...). */
  readonly form: string;
  /** Label of the target locator (see {@link locatorLabel}), when the step has one. */
  readonly locator: string | undefined;
  /** The edits the step made when it was checked (UTF-16 ranges of the text before the step). */
  readonly edits: readonly Edit[];
  /** Bytes the step replaced: removed + inserted. */
  readonly bytes: number;
  /** Index of the (first) change of the file's structural diff this step makes. */
  readonly change: number;
  /** `file#change#form` (plus `@offset` for enclosing nodes): what `banned` names. */
  readonly key: string;
}

export interface CompiledPlan {
  /** The plan as a model would write it: read it with `parsePlan` of @graphplan/catalog to run it. */
  readonly plan: WrittenPlan;
  readonly records: readonly StepRecord[];
  /** The post-image of every file the diff changes. */
  readonly post: ReadonlyMap<string, string>;
}

export interface CompileOptions {
  /** Step handlers of the higher tiers (templates, surgery, fragments), as passed to `runPlan`. */
  readonly handlers?: Readonly<Record<string, StepHandler>>;
  /** Tier of a step (default: `detectTier` of @graphplan/catalog). */
  readonly tierOf?: (step: Step) => Tier;
  /** Extra candidate steps from higher tiers for a change, tried before the primitives. */
  readonly suggest?: readonly Suggester[];
  /** Fixed cost of one step in bytes, for the structural diff (default 60). */
  readonly stepCost?: number;
  /**
   * Step forms not to use again, as {@link StepRecord.key}s: a recompilation after the verifier
   * rejected a step takes the next form for that change.
   */
  readonly banned?: ReadonlySet<string>;
  /**
   * Accept a primitive step whose forecast (the engine's own helpers, without re-parsing) is
   * exact, without running it. Faster; the run of the whole plan is then the check, and a plan
   * that does not reproduce the post-image is compiled again with this off.
   */
  readonly trustForecast?: boolean;
  /**
   * Skip insert_before/after_node and neighbour replacement for splices inside expressions (an
   * argument, parameter or import-name list); off by default. An earlier verifier rejected such
   * insertions (kind preservation: "the identifier was replaced by identifier, keyword_argument").
   */
  readonly avoidInlineInsertions?: boolean;
  /** Called with every candidate step and enclosing node the search tries (for debugging a compilation). */
  readonly trace?: (line: string) => void;
  /**
   * The edits a non-primitive step (template, surgery, fragment) would make, computed without
   * running the plan (e.g. `stepEdits` of @graphplan/catalog); a filter like the primitives'
   * forecast, and trusted like it with `trustForecast`.
   */
  readonly forecast?: (
    step: Step,
    doc: { path: string; source: string; language: LanguageId; tree: Tree },
  ) => readonly Edit[] | undefined;
}

/** A text-tier step: content-addressed, with no node behind it. */
export const isTextStep = (step: Step): boolean => "op" in step && TEXT_OPS.has(step.op);

export const isLegacyStep = (step: Step): boolean =>
  "op" in step && OPERATOR_BY_NAME.get(step.op)?.kind === "legacy" && !(step.params as { locator?: unknown }).locator;

/** The locator a step is addressed by (`locator`, a template's `target`, a fragment's locator); composed ops name a class or the file. */
export function targetLocator(step: Step): Record<string, unknown> | undefined {
  if ("fragment" in step) return step.locator;
  const params = step.params as Record<string, unknown>;
  for (const key of ["locator", "target", "parent", "source", "scope"]) {
    const value = params[key];
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  }
  if (typeof params["class_name"] === "string") return { kind: "class", name: params["class_name"] };
  if (typeof params["file"] === "string") return {};
  return undefined;
}

/** The key of a step form for {@link CompileOptions.banned}. */
export const banKey = (file: string, change: number, form: string, variant?: string): string =>
  `${file}#${change}#${form}${variant ? `@${variant}` : ""}`;

const editBytes = (edits: readonly Edit[]): number =>
  edits.reduce((sum, e) => sum + (e.end - e.start) + e.text.length, 0);

interface Simulated {
  readonly text: string;
  readonly edits: readonly Edit[];
}

/** Runs one step on one file's text with the engine; `undefined` when the step fails. */
export function simulateStep(
  step: Step,
  file: string,
  source: string,
  language: LanguageId,
  handlers: Readonly<Record<string, StepHandler>> | undefined,
): Simulated | undefined {
  if ("op" in step && (MUTATORS as readonly string[]).includes(step.op) && !handlers?.[step.op]) {
    const edits = primitiveEdits(step.op, { path: file, source, language }, step.params);
    if (edits instanceof Error) return undefined;
    return { text: applyEdits(source, edits), edits };
  }
  let captured: Edit[] | undefined = [];
  const wrapped: Record<string, StepHandler> = {};
  for (const [key, handler] of Object.entries(handlers ?? {})) {
    wrapped[key] = (s, ctx) => {
      const result = handler(s, ctx);
      if (result.steps?.length) captured = undefined;
      const edits = result.edits?.[file];
      if (edits && captured) captured.push(...edits);
      return result;
    };
  }
  const files = runStep(step, file, source, { handlers: wrapped });
  if (!files) return undefined;
  const text = files.get(file) ?? source;
  const edits =
    captured && captured.length > 0 && applyEdits(source, captured) === text ? captured : minimalEdit(source, text);
  return { text, edits };
}

// ------------------------------------------------------------------------------------------------
// Text helpers

const lineStartOf = (s: string, i: number): number => s.lastIndexOf("\n", i - 1) + 1;
const lineIndentOf = (s: string, i: number): string => /^[ \t]*/.exec(s.slice(lineStartOf(s, i)))![0];

/** `text` (whose first line starts at a node) written at column 0: `indent` removed from its other lines. */
function relative(text: string, indent: string): string {
  if (!indent) return text;
  const [head, ...rest] = text.split("\n");
  return [head!, ...rest.map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trim() === "" ? "" : l))].join(
    "\n",
  );
}

/** The ways to write `text` as a replacement/code param, most natural first. */
function forms(text: string, indent: string): string[] {
  return [...new Set([relative(text, indent), text])];
}

/** The node of `tree` with this type and range, if any. */
function findNode(tree: Tree, start: number, end: number, type: string): Node | undefined {
  let n: Node | null = tree.rootNode.descendantForIndex(start, Math.max(start, end));
  while (n && (n.startIndex > start || n.endIndex < end)) n = n.parent;
  for (; n && n.startIndex === start && n.endIndex === end; n = n.parent) if (n.type === type) return n;
  // descendantForIndex may land on a child with the same range deeper or a sibling: search the range.
  const stack: Node[] = [tree.rootNode];
  while (stack.length) {
    const x = stack.pop()!;
    if (x.endIndex < start || x.startIndex > end) continue;
    if (x.startIndex === start && x.endIndex === end && x.type === type) return x;
    for (const c of x.children) if (c && c.startIndex <= end && c.endIndex >= start) stack.push(c);
  }
  return undefined;
}

// ------------------------------------------------------------------------------------------------
// The compiler

interface Accepted {
  readonly step: Step;
  readonly sim: Simulated;
  readonly form: string;
  /** Distinguishes candidates of one form (the enclosing node's offset). */
  readonly variant?: string;
}

/** Whether `edits` applied to `source` give `expected`, without building the text when they cannot. */
function gives(source: string, edits: readonly Edit[], expected: string): boolean {
  const delta = edits.reduce((d, e) => d + e.text.length - (e.end - e.start), 0);
  if (source.length + delta !== expected.length) return false;
  try {
    return applyEdits(source, edits) === expected;
  } catch {
    return false;
  }
}

interface FileState {
  readonly file: string;
  readonly language: LanguageId;
  source: string;
  tree: Tree;
  readonly post: string;
  readonly postTree: Tree;
}

/**
 * Compiles one file's change from `pre` to `post` into steps. Long on purpose: it is the one loop
 * that owns the file's state (its text and tree after each accepted step) and both trees' lifetimes,
 * which `try`/`finally` frees; each change is delegated to `stepsForChange`.
 */
function compileFile(
  file: string,
  language: LanguageId,
  pre: string,
  post: string,
  options: CompileOptions,
): StepRecord[] {
  const tierOf = options.tierOf ?? ((step: Step) => detectTier(step) as Tier);
  const handlers = options.handlers;
  const preTree = parse(pre, language);
  const postTree = parse(post, language);
  const state: FileState = { file, language, source: pre, tree: preTree, post, postTree };
  const records: StepRecord[] = [];
  try {
    const changes = diffTrees(preTree.rootNode, pre, postTree.rootNode, post, language, {
      stepCost: options.stepCost ?? 60,
    });
    /** Applied changes (pre coordinates), their size deltas, and the parent a splice lies in. */
    const applied: Array<{
      start: number;
      end: number;
      delta: number;
      inside: { start: number; end: number } | undefined;
    }> = [];
    const record = (c: Change): void => {
      applied.push({
        start: c.preRange.start,
        end: c.preRange.end,
        delta: c.postRange.end - c.postRange.start - (c.preRange.end - c.preRange.start),
        inside: c.kind === "splice" ? c.parent : undefined,
      });
    };
    /** Where a change's range (pre coordinates) is in the current text: every applied change before it shifts it. */
    const mapRange = (start: number, end: number) => {
      let ds = 0;
      let de = 0;
      for (const c of applied) {
        if (c.end <= start) ds += c.delta;
        if (c.end <= end) de += c.delta;
      }
      return { start: start + ds, end: end + de };
    };
    /**
     * Where a node (pre coordinates) is in the current text. An insertion at the node's very start
     * or end is inside it when the node holds the splice's parent, else it is before/after it.
     */
    const nodeOf = (ref: NodeRef | undefined): Node | undefined => {
      if (!ref) return undefined;
      let ds = 0;
      let de = 0;
      for (const c of applied) {
        const holds = !!c.inside && ref.start <= c.inside.start && c.inside.end <= ref.end;
        const empty = c.start === c.end;
        if (c.end < ref.start || (c.end === ref.start && !(empty && holds))) ds += c.delta;
        if (c.end < ref.end || (c.end === ref.end && (!empty || holds))) de += c.delta;
      }
      return findNode(state.tree, ref.start + ds, ref.end + de, ref.type);
    };

    const accept = (accepted: readonly Accepted[], change: number): void => {
      for (const a of accepted) {
        const target = targetLocator(a.step);
        records.push({
          step: a.step,
          file,
          tier: tierOf(a.step),
          legacy: isLegacyStep(a.step),
          text: isTextStep(a.step),
          form: a.form,
          locator: target && typeof target === "object" ? locatorLabel(target as Record<string, unknown>) : undefined,
          edits: a.sim.edits,
          bytes: editBytes(a.sim.edits),
          change,
          key: banKey(file, change, a.form, a.variant),
        });
      }
      for (const a of accepted) {
        state.tree = advance(state.tree, state.source, a.sim.edits, a.sim.text, language);
        state.source = a.sim.text;
      }
    };

    let i = 0;
    while (i < changes.length) {
      const change = changes[i]!;
      const cur = mapRange(change.preRange.start, change.preRange.end);
      const expected =
        state.source.slice(0, cur.start) +
        post.slice(change.postRange.start, change.postRange.end) +
        state.source.slice(cur.end);
      const isBanned = (form: string, variant?: string): boolean =>
        !!options.banned?.has(banKey(file, i, form, variant));
      const found = stepsForChange(state, change, cur, expected, nodeOf, options, isBanned);
      if (found) {
        accept(found, i);
        record(change);
        i++;
        continue;
      }
      // Fallback: replace an enclosing node that holds this change (and the next ones inside it).
      const holder = change.kind === "splice" ? nodeOf(change.parent) : nodeOf(change.pre)?.parent;
      const enclosing = enclosingReplacement(state, changes, i, mapRange, options, isBanned, holder ?? undefined);
      if (enclosing) {
        accept([enclosing.accepted], i);
        for (let k = i; k <= enclosing.last; k++) {
          const c = changes[k]!;
          record(c);
        }
        i = enclosing.last + 1;
        continue;
      }
      const text = isBanned("text") ? undefined : textReplacement(state, expected, handlers);
      if (!text)
        throw new CompileError(file, "no_exact_step", `no step reproduces the change at offset ${cur.start} exactly`);
      accept([text], i);
      record(change);
      i++;
    }
    if (state.source !== post)
      throw new CompileError(file, "internal", "the compiled steps do not reproduce the post-image");
    return records;
  } finally {
    state.tree.delete();
    postTree.delete();
  }
}

/**
 * Steps that reproduce `change` exactly, the nicest first; `undefined` when none does. Long on
 * purpose: it is the ordered list of tries (suggesters of higher tiers, then node operators, then
 * the enclosing node), each a few lines, that stops at the first step whose result is exact.
 */
function stepsForChange(
  state: FileState,
  change: Change,
  range: { start: number; end: number },
  expected: string,
  nodeOf: (ref: NodeRef | undefined) => Node | undefined,
  options: CompileOptions,
  isBanned: (form: string, variant?: string) => boolean,
): Accepted[] | undefined {
  const { file, language, source, post } = state;
  const ctx: LocateContext = { tree: state.tree, source, language, file };
  const handlers = options.handlers;
  const trySteps = (steps: readonly Candidate[]): Accepted | undefined => {
    for (const { step, form, predicted, variant } of steps) {
      if (isBanned(form, variant)) continue;
      options.trace?.(
        `candidate ${form} ${JSON.stringify(step).slice(0, 300)} ${predicted ? gives(source, predicted, expected) : "-"} ${JSON.stringify(predicted ?? null).slice(0, 300)}`,
      );
      let forecast = predicted;
      if (!forecast && options.forecast && !("op" in step && OPERATOR_BY_NAME.has(step.op))) {
        try {
          forecast = options.forecast(step, { path: file, source, language, tree: state.tree });
        } catch {
          continue;
        }
        if (!forecast) continue;
      }
      if (forecast && !gives(source, forecast, expected)) continue;
      const sim =
        forecast && options.trustForecast
          ? { text: expected, edits: forecast }
          : simulateStep(step, file, source, language, handlers);
      if (sim && sim.text === expected) return { step, sim, form, ...(variant ? { variant } : {}) };
    }
    return undefined;
  };

  const node = change.kind === "replace" ? nodeOf(change.pre) : nodeOf(change.parent);
  const prev = change.kind === "splice" ? nodeOf(change.prev) : undefined;
  const next = change.kind === "splice" ? nodeOf(change.next) : undefined;
  const removed = change.kind === "splice" ? change.removed.map((r) => nodeOf(r)) : [];
  if (removed.some((r) => !r)) return undefined;
  const added =
    change.kind === "splice"
      ? change.added.map((a) => post.slice(a.start, a.end))
      : [post.slice(change.postRange.start, change.postRange.end)];

  // Higher tiers first.
  if (options.suggest?.length) {
    const view: ChangeView = {
      file,
      language,
      source,
      tree: state.tree,
      expected,
      change,
      node,
      prev,
      next,
      removed: removed as Node[],
      added,
      post,
      postTree: state.postTree,
      range,
      text: expected.slice(range.start, range.start + expected.length - source.length + (range.end - range.start)),
      locate: (n) => locatorsFor(ctx, n),
    };
    for (const suggest of options.suggest) {
      let candidates: Candidate[] = [];
      try {
        candidates = suggest(view);
      } catch {
        candidates = [];
      }
      const hit = trySteps(candidates);
      if (hit) return [hit];
    }
  }

  if (change.kind === "replace") {
    if (!node) return undefined;
    const text = post.slice(change.postRange.start, change.postRange.end);
    const hit = trySteps([...replaceCandidates(ctx, node, text, "replace_node"), ...innerCandidates(ctx, node, text)]);
    return hit ? [hit] : undefined;
  }

  // Splice. Inside an expression (an argument list, a parameter list, an import's names) the
  // verifier's kind-preservation layer rejects insertions next to a sibling (one node becomes
  // two): those splices go to templates or to the enclosing list instead.
  const statementLike = (type: string) =>
    /_statement$|_definition$|^comment$|^decorator$|_declaration$/.test(type) ||
    LANGUAGES[language].commentTypes.includes(type);
  const inBlock =
    (!!node && LANGUAGES[language].blockTypes.includes(node.type)) ||
    (change.added.length > 0 &&
      change.added.every((a) => !a.named || statementLike(a.type)) &&
      change.added.some((a) => a.named));
  const hit = trySteps([
    ...whitespaceCandidates(ctx, state, change, prev, next),
    ...composedInsertions(state, change, next, node),
    ...(inBlock || !options.avoidInlineInsertions ? insertCandidates(ctx, state, change, prev, next) : []),
    ...neighbourCandidates(
      ctx,
      state,
      change,
      prev,
      next,
      removed as Node[],
      inBlock || !options.avoidInlineInsertions,
    ),
  ]);
  if (hit) return [hit];
  if (change.removed.length > 0 && !isBanned("delete_node"))
    return deletions(state, change, expected, removed as Node[], options);
  return undefined;
}

/** replace_node of `node` with `text` (its new full text), in its natural forms. */
function replaceCandidates(ctx: LocateContext, node: Node, text: string, form: string): Candidate[] {
  const [locator] = locatorsFor(ctx, node, 1);
  if (!locator) return [];
  // replace_node replaces up to the end of the node's code: comments it holds at its end stay.
  const end = codeEnd(node, ctx.language).endIndex;
  const tail = ctx.source.slice(end, node.endIndex);
  if (!text.endsWith(tail)) return [];
  const replacement = text.slice(0, text.length - tail.length);
  const indent = lineIndentOf(ctx.source, node.startIndex);
  const doc = { path: ctx.file, source: ctx.source, language: ctx.language, tree: ctx.tree };
  return forms(replacement, indent).map((r) => ({
    step: { op: "replace_node", params: { locator, replacement: r } },
    form,
    predicted: [predictReplace(doc, node, r)],
  }));
}

/**
 * A node whose one named child changed, the text around the child staying (a decorator's
 * expression, a parenthesized expression): replace_node of the child. Needed where replacing
 * the node itself means something else (a replacement starting with `@` replaces the whole
 * decorated definition).
 */
function innerCandidates(ctx: LocateContext, node: Node, text: string): Candidate[] {
  const children = node.namedChildren.filter((c): c is Node => !!c);
  if (children.length !== 1) return [];
  const child = children[0]!;
  const head = ctx.source.slice(node.startIndex, child.startIndex);
  const tail = ctx.source.slice(child.endIndex, node.endIndex);
  if (!text.startsWith(head) || !text.endsWith(tail) || text.length < head.length + tail.length) return [];
  const inner = text.slice(head.length, text.length - tail.length);
  if (!inner.trim()) return [];
  return replaceCandidates(ctx, child, inner, "replace_node");
}

/** Post-image offsets of a splice's first and last added node. */
function addedSpan(change: Change & { kind: "splice" }): { first: number; last: number } | undefined {
  const named = change.added.filter((a) => a.named);
  if (named.length === 0) return undefined;
  return { first: named[0]!.start, last: named[named.length - 1]!.end };
}

/** insert_after_node on the previous sibling / insert_before_node on the next one. */
function insertCandidates(
  ctx: LocateContext,
  state: FileState,
  change: Change & { kind: "splice" },
  prev: Node | undefined,
  next: Node | undefined,
): Candidate[] {
  if (change.added.length === 0) return [];
  const span = addedSpan(change);
  if (!span) return [];
  const { post } = state;
  const doc = { path: ctx.file, source: ctx.source, language: ctx.language, tree: ctx.tree };
  const out: Candidate[] = [];
  const code = post.slice(span.first, span.last);
  const before = post.slice(change.post.start, span.first);
  const after = post.slice(span.last, change.post.end);
  if (prev) {
    const [locator] = locatorsFor(ctx, prev, 1);
    if (locator) {
      const anchorIndent = lineIndentOf(ctx.source, outerNode(prev, ctx.language).startIndex);
      const nl = before.lastIndexOf("\n");
      // Own line: the separator is the newlines, the code lands at the anchor's indentation.
      const separator = nl >= 0 ? before.slice(0, nl + 1) : before;
      const indent = nl >= 0 ? before.slice(nl + 1) : anchorIndent;
      const after = (c: string, sep: string): Candidate => ({
        step: { op: "insert_after_node", params: { locator, code: c, separator: sep } },
        form: "insert_after_node",
        predicted: [predictInsertAfter(doc, prev, c, sep)],
      });
      for (const c of forms(code, nl >= 0 ? indent : anchorIndent)) out.push(after(c, separator));
      // A separator with its own indentation, when the code's line indentation differs.
      if (nl >= 0 && indent !== anchorIndent) out.push(after(relative(code, indent), before));
    }
  }
  if (next) {
    const [locator] = locatorsFor(ctx, next, 1);
    if (locator) {
      const nl = after.lastIndexOf("\n");
      const separator = nl >= 0 ? after.slice(0, nl + 1) : after;
      const indent = lineIndentOf(post, span.first);
      for (const c of forms(code, indent))
        out.push({
          step: { op: "insert_before_node", params: { locator, code: c, separator } },
          form: "insert_before_node",
          predicted: [predictInsertBefore(doc, next, c, separator)],
        });
    }
  }
  return out;
}

/**
 * Blank lines added between two siblings and nothing else: an insertion of no code, only the
 * separator (exact where the primitives add no indentation to it: at column 0).
 */
function whitespaceCandidates(
  ctx: LocateContext,
  state: FileState,
  change: Change & { kind: "splice" },
  prev: Node | undefined,
  next: Node | undefined,
): Candidate[] {
  if (change.removed.length > 0 || change.added.length > 0) return [];
  const preGap = state.source.slice(prev ? prev.endIndex : change.pre.start, next ? next.startIndex : change.pre.end);
  const postGap = state.post.slice(change.post.start, change.post.end);
  if (postGap.length <= preGap.length || postGap.trim() !== "") return [];
  const doc = { path: ctx.file, source: ctx.source, language: ctx.language, tree: ctx.tree };
  const out: Candidate[] = [];
  if (prev && postGap.endsWith(preGap)) {
    const [locator] = locatorsFor(ctx, prev, 1);
    const separator = postGap.slice(0, postGap.length - preGap.length);
    if (locator && separator.includes("\n"))
      out.push({
        step: { op: "insert_after_node", params: { locator, code: "", separator } },
        form: "insert_after_node",
        predicted: [predictInsertAfter(doc, prev, "", separator)],
      });
  }
  if (next && postGap.startsWith(preGap)) {
    const [locator] = locatorsFor(ctx, next, 1);
    const separator = postGap.slice(preGap.length);
    if (locator && separator.includes("\n"))
      out.push({
        step: { op: "insert_before_node", params: { locator, code: "", separator } },
        form: "insert_before_node",
        predicted: [predictInsertBefore(doc, next, "", separator)],
      });
  }
  return out;
}

/** replace_node of the previous/next sibling, extended with the inserted code. */
function neighbourCandidates(
  ctx: LocateContext,
  state: FileState,
  change: Change & { kind: "splice" },
  prev: Node | undefined,
  next: Node | undefined,
  removedNodes: readonly Node[],
  insertions: boolean,
): Candidate[] {
  if (change.removed.length > 0 && change.added.length > 0) {
    // One sibling replaced by others (of other kinds): replace it with all of them, when the
    // text around it stays.
    const span = addedSpan(change);
    const removed = removedNodes.length === 1 ? removedNodes[0] : undefined;
    if (!span || !removed) return [];
    const { post, source } = state;
    const gapStart = prev ? prev.endIndex : removed.startIndex - (change.removed[0]!.start - change.pre.start);
    const gapEnd = next ? next.startIndex : removed.endIndex + (change.pre.end - change.removed[0]!.end);
    if (post.slice(change.post.start, span.first) !== source.slice(gapStart, removed.startIndex)) return [];
    if (post.slice(span.last, change.post.end) !== source.slice(removed.endIndex, gapEnd)) return [];
    return replaceCandidates(ctx, removed, post.slice(span.first, span.last), "replace_node");
  }
  if (change.added.length === 0 || !insertions) return [];
  const { post, source } = state;
  const out: Candidate[] = [];
  const preGap = source.slice(prev ? prev.endIndex : change.pre.start, next ? next.startIndex : change.pre.end);
  const postGap = post.slice(change.post.start, change.post.end);
  if (prev && postGap.endsWith(preGap)) {
    const text = source.slice(prev.startIndex, prev.endIndex) + postGap.slice(0, postGap.length - preGap.length);
    out.push(...replaceCandidates(ctx, prev, text, "replace_node:previous"));
  }
  if (next && postGap.startsWith(preGap)) {
    const text = postGap.slice(preGap.length) + source.slice(next.startIndex, next.endIndex);
    out.push(...replaceCandidates(ctx, next, text, "replace_node:next"));
  }
  return out;
}

/** add_import / add_method / add_class_attribute where a splice is exactly what they do. */
function composedInsertions(
  state: FileState,
  change: Change & { kind: "splice" },
  next: Node | undefined,
  parent: Node | undefined,
): Candidate[] {
  if (change.removed.length > 0 || change.added.length !== 1 || !parent) return [];
  const { language, file, post } = state;
  const added = change.added[0]!;
  const text = post.slice(added.start, added.end);
  const out: Candidate[] = [];
  const spec = LANGUAGES[language];
  if (
    spec.importTypes.includes(added.type) &&
    parent.type === (language === "python" ? "module" : parent.type) &&
    !parent.parent
  ) {
    out.push({ step: { op: "add_import", params: { file, import_statement: text } }, form: "add_import" });
  }
  const cls = parent.parent;
  if (cls && spec.definitions[cls.type]?.kind === "class" && parent.id === cls.childForFieldName("body")?.id) {
    const className = cls.childForFieldName("name")?.text;
    if (className) {
      const indent = lineIndentOf(post, added.start);
      const code = relative(text, indent);
      if (
        !next &&
        ["function_definition", "decorated_definition", "method_definition", "method_declaration"].includes(added.type)
      )
        out.push({
          step: { op: "add_method", params: { file, class_name: className, method_code: code } },
          form: "add_method",
        });
      if (added.type === "expression_statement" || added.type.includes("field"))
        out.push({
          step: { op: "add_class_attribute", params: { file, class_name: className, attribute_code: code } },
          form: "add_class_attribute",
        });
    }
  }
  return out;
}

/** delete_node of each removed sibling (then the insertion, if any); exact as a whole or not at all. */
function deletions(
  state: FileState,
  change: Change & { kind: "splice" },
  expected: string,
  removed: readonly Node[],
  options: CompileOptions,
): Accepted[] | undefined {
  const { file, language } = state;
  if (change.added.length > 0) return undefined;
  // Forecast: deleting from the last to the first, the earlier nodes keep their offsets.
  const forecast = [...removed]
    .reverse()
    .flatMap((n) => predictDelete({ path: file, source: state.source, language, tree: state.tree }, n));
  if (!gives(state.source, forecast, expected)) return undefined;
  let source = state.source;
  let tree = state.tree.copy();
  const accepted: Accepted[] = [];
  try {
    const targets = [...removed].reverse().map((n) => ({ start: n.startIndex, end: n.endIndex, type: n.type }));
    for (const target of targets) {
      const node = findNode(tree, target.start, target.end, target.type);
      if (!node) return undefined;
      const [locator] = locatorsFor({ tree, source, language, file }, node, 1);
      if (!locator) return undefined;
      const step: Step = { op: "delete_node", params: { locator } };
      let sim: Simulated | undefined;
      if (options.trustForecast) {
        const edits = predictDelete({ path: file, source, language, tree }, node);
        sim = { text: applyEdits(source, edits), edits };
      } else sim = simulateStep(step, file, source, language, options.handlers);
      if (!sim) return undefined;
      accepted.push({ step, sim, form: "delete_node" });
      tree = advance(tree, source, sim.edits, sim.text, language);
      source = sim.text;
    }
    return source === expected ? accepted : undefined;
  } finally {
    tree.delete();
  }
}

/**
 * replace_node of the smallest enclosing node (and then larger ones) that holds change `i`;
 * it takes in every later change inside it. `last` is the index of the last change it covers.
 */
function enclosingReplacement(
  state: FileState,
  changes: readonly Change[],
  i: number,
  mapRange: (start: number, end: number) => { start: number; end: number },
  options: CompileOptions,
  isBanned: (form: string, variant?: string) => boolean,
  holder: Node | undefined,
): { accepted: Accepted; last: number } | undefined {
  const { file, language, source, post } = state;
  const ctx: LocateContext = { tree: state.tree, source, language, file };
  const first = changes[i]!;
  const cur = mapRange(first.preRange.start, first.preRange.end);
  // Current-text ranges of the later changes, as if they were not applied yet (same shift).
  const shift = cur.start - first.preRange.start;
  let node: Node | null = holder ?? state.tree.rootNode.descendantForIndex(cur.start, cur.end);
  const isOwn = (n: Node) => first.kind === "replace" && n.startIndex === cur.start && n.endIndex === cur.end;
  while (node && (node.startIndex > cur.start || node.endIndex < cur.end || isOwn(node) || !node.isNamed))
    node = node.parent;
  for (; node; node = node.parent) {
    if (!node.isNamed || node.type === "ERROR") continue;
    const start = node.startIndex;
    const end = node.endIndex;
    let last = i;
    let straddles = false;
    for (let k = i + 1; k < changes.length; k++) {
      const c = changes[k]!;
      const cs = c.preRange.start + shift;
      const ce = c.preRange.end + shift;
      if (cs >= end && !(cs === end && ce === end && false)) break;
      if (ce > end) {
        straddles = true;
        break;
      }
      last = k;
    }
    if (straddles) continue;
    // New text of the node: its current text with changes i..last applied.
    let text = "";
    let at = start;
    for (let k = i; k <= last; k++) {
      const c = changes[k]!;
      const cs = k === i ? cur.start : c.preRange.start + shift;
      const ce = k === i ? cur.end : c.preRange.end + shift;
      text += source.slice(at, cs) + post.slice(c.postRange.start, c.postRange.end);
      at = ce;
    }
    text += source.slice(at, end);
    const expected = source.slice(0, start) + text + source.slice(end);
    const variant = String(node.startIndex);
    options.trace?.(`enclosing ${node.type} ${node.startIndex} ${node.endIndex} ${last}`);
    if (isBanned(`enclosing:${node.type}`, variant)) continue;
    for (const { step, form, predicted } of replaceCandidates(ctx, node, text, `enclosing:${node.type}`)) {
      if (predicted && !gives(source, predicted, expected)) continue;
      const sim =
        predicted && options.trustForecast
          ? { text: expected, edits: predicted }
          : simulateStep(step, file, source, language, options.handlers);
      if (sim && sim.text === expected) return { accepted: { step, sim, form, variant }, last };
    }
  }
  return undefined;
}

/** The last resort: replace_text quoting the smallest run of whole lines that holds the change and occurs once. */
function textReplacement(
  state: FileState,
  expected: string,
  handlers: Readonly<Record<string, StepHandler>> | undefined,
): Accepted | undefined {
  const { source, file, language } = state;
  // The changed range of the current text and of the expected text.
  const [edit] = minimalEdit(source, expected);
  if (!edit) return undefined;
  // The smallest edit between the texts, not the whole change's range (which may be the root).
  let start = edit.start;
  let end = edit.end;
  // Grow to whole lines, then by lines, until the pattern's first occurrence is here.
  start = lineStartOf(source, start);
  const eol = source.indexOf("\n", end);
  end = eol < 0 ? source.length : eol;
  for (let tries = 0; tries < 200; tries++) {
    const pattern = source.slice(start, end);
    if (pattern.trim().length > 0 && source.indexOf(pattern) === start && source.indexOf(pattern, start + 1) < 0) {
      const delta = expected.length - source.length;
      const replacement = expected.slice(start, end + delta);
      if (source.slice(0, start) + replacement + source.slice(end) === expected) {
        const step: Step = { op: "replace_text", params: { file, find: pattern, replace: replacement } };
        const sim = simulateStep(step, file, source, language, handlers);
        if (sim && sim.text === expected) return { step, sim, form: "text" };
      }
    }
    if (start === 0 && end === source.length) break;
    if (start > 0) start = lineStartOf(source, start - 1);
    if (end < source.length) {
      const next = source.indexOf("\n", end + 1);
      end = next < 0 ? source.length : next;
    }
  }
  return undefined;
}

/** The defaults: the catalog's handlers, tier detection and forecasts, every suggester. */
export const DEFAULT_COMPILE_OPTIONS: CompileOptions = {
  handlers: formalHandlers,
  tierOf: (step) => detectTier(step) as Tier,
  suggest: suggesters,
  forecast: (step, doc) =>
    forecastFormal(step, doc) ?? stepEdits(step, new Map([[doc.path, doc.source]])).get(doc.path),
};

/**
 * Compiles a unified diff against the pre-images in `files` (path → text) into a plan, with
 * what the compiler knows of each step. Throws `CompileError` and `PatchError`.
 */
export function compile(
  files: ReadonlyMap<string, string>,
  unifiedDiff: string,
  overrides: CompileOptions = {},
): CompiledPlan {
  const options: CompileOptions = { ...DEFAULT_COMPILE_OPTIONS, ...overrides };
  const patches = parseUnifiedDiff(unifiedDiff);
  const post = postImages(patches, files);
  const records: StepRecord[] = [];
  const deletions: StepRecord[] = [];
  const out = new Map<string, string>();
  for (const patch of patches) {
    const path = (patch.newPath ?? patch.oldPath)!;
    const after = post.get(path);
    const before = patch.oldPath === undefined ? undefined : files.get(patch.oldPath);
    if (after === null || after === undefined) {
      // Deletions go last: the plan's edits of other files are checked against the file first.
      deletions.push(
        fileRecord(
          { op: "delete_file", params: { path } },
          path,
          before === undefined ? [] : [{ start: 0, end: before.length, text: "" }],
        ),
      );
      continue;
    }
    out.set(path, after);
    const mode = patch.mode ? [fileRecord({ op: "set_file_mode", params: { path, mode: patch.mode } }, path, [])] : [];
    if (before === undefined) {
      records.push(
        fileRecord(
          { op: "create_file", params: { path, content: after } },
          path,
          after ? [{ start: 0, end: 0, text: after }] : [],
        ),
        ...mode,
      );
      continue;
    }
    if (patch.oldPath !== undefined && patch.oldPath !== path)
      records.push(fileRecord({ op: "rename_file", params: { from: patch.oldPath, to: path } }, path, []));
    records.push(...compileContent(path, before, after, options), ...mode);
  }
  records.push(...deletions);
  if (records.length === 0) throw new CompileError(undefined, "empty", "the patch changes nothing");
  return { plan: records.map((r) => r.step), records, post: out };
}

/**
 * A file's change of content: structural steps for a code file, text steps where its change (or a
 * part of it) has no exact structural step, and for a file with no grammar.
 */
function compileContent(path: string, before: string, after: string, options: CompileOptions): StepRecord[] {
  if (before === after) return [];
  const language = detectFileLanguage(path, before);
  if (language) {
    try {
      return compileFile(path, language, before, after, options);
    } catch (error) {
      if (!(error instanceof CompileError)) throw error;
      options.trace?.(`${path}: ${error.message}; the whole change as text steps`);
    }
  }
  const data = dataSteps(path, before, after, options.handlers);
  if (data)
    return data.map(({ step, edits }, change) => ({
      ...fileRecord(step as Step & { op: string }, path, edits),
      tier: 1,
      form: "data",
      change,
      key: banKey(path, change, "data"),
    }));
  return textSteps(path, before, after, options.handlers).map(({ step, edits }, change) => ({
    ...fileRecord(step as Step & { op: string }, path, edits),
    form: "text",
    text: true,
    change,
    key: banKey(path, change, "text"),
  }));
}

/** The record of a file operation's step (create_file, delete_file, rename_file, set_file_mode). */
function fileRecord(step: Step & { op: string }, file: string, edits: readonly Edit[]): StepRecord {
  return {
    step,
    file,
    tier: 0,
    legacy: false,
    text: false,
    form: step.op,
    locator: undefined,
    edits,
    bytes: edits.reduce((sum, e) => sum + (e.end - e.start) + e.text.length, 0),
    change: 0,
    key: `${file}#0#${step.op}`,
  };
}

/** `compile`, the plan only: the JSON plan an LLM would write for this diff. */
export function compilePatch(
  files: ReadonlyMap<string, string>,
  unifiedDiff: string,
  options: CompileOptions = {},
): WrittenPlan {
  return compile(files, unifiedDiff, options).plan;
}

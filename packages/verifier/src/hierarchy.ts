/**
 * The formal-transforms verification hierarchy, checked on each simulated step: `kind` (L1,
 * kind preservation) and `containment` (L2) are errors, `references` (L3, referential
 * integrity), `imports` (L4, import closure) and `triviality` (L6) warnings. L5 is `syntax`.
 */
import type { Graph } from "@graphplan/graph";
import type { Node } from "web-tree-sitter";
import { didYouMean } from "@graphplan/catalog";
import { preview } from "./fuzzy.js";
import type { Check, Severity } from "./issues.js";
import { bodyStatements, containsClass, keepsKind, kindClass, trivialBody, trivialStatements } from "./kinds.js";
import {
  ancestry,
  childrenTouching,
  container,
  lineRegion,
  mergeSpans,
  newSpans,
  topNodes,
  trim,
  within,
  type Span,
} from "./regions.js";
import { scopeModel } from "./scope/index.js";
import type { FileChange, FileVersion, Sim } from "./sim.js";

export interface Finding {
  readonly check: Check;
  readonly severity: Severity;
  readonly message: string;
  readonly fix: string;
  readonly file: string;
  readonly line?: number;
}

export interface HierarchyInput {
  readonly change: FileChange;
  /**
   * What the step was meant to change, in the file before the step: the nodes its locator
   * targets, for ops that edit nothing else. `undefined` when the op may legitimately edit
   * other places (imports, a statement before the target): containment is then checked
   * against the edits themselves.
   */
  readonly targets: readonly Span[] | undefined;
  /** The op removes code: an empty replacement is what it is for. */
  readonly removes: boolean;
  readonly graph: Graph;
  readonly sim: Sim;
}

const lines = (change: FileChange, span: Span, side: "before" | "after"): string => {
  const doc = side === "before" ? change.before : change.after;
  const a = doc.lineOf(span.start);
  const b = doc.lineOf(Math.max(span.start, span.end - 1));
  return a === b ? `line ${a}` : `lines ${a}-${b}`;
};

/** `kind` (L1): each replaced node keeps its kind class. */
function kindPreservation(input: HierarchyInput, out: Finding[]): void {
  const { change } = input;
  const { before, after } = change;
  const spans = newSpans(change.edits);
  change.edits.forEach((edit, i) => {
    if (edit.end === edit.start) return;
    const oldSpan = trim(before.source, edit);
    if (oldSpan.end === oldSpan.start) return;
    const oldNodes = topNodes(before.tree.rootNode, oldSpan, before.language);
    if (!oldNodes || oldNodes.length !== 1) return;
    const old = oldNodes[0]!;
    const newSpan = trim(after.source, spans[i]!);
    if (newSpan.end === newSpan.start) return; // a deletion: `triviality` and the op decide
    const fresh = topNodes(after.tree.rootNode, newSpan, after.language);
    if (!fresh) return; // straddles: `containment`'s business
    const was = kindClass(old, before.language);
    const now = fresh.map((n) => ({
      cls: kindClass(n, after.language),
      contains: (cls: string) => containsClass(n, cls, after.language),
    }));
    if (keepsKind(was, now)) return;
    const nowText = now.length ? [...new Set(now.map((n) => n.cls))].join(" + ") : "nothing";
    out.push({
      check: "kind",
      severity: "error",
      file: before.path,
      line: before.lineOf(oldSpan.start),
      message: `kind not preserved in ${before.path}: the ${old.type} at ${lines(change, oldSpan, "before")} (${was}) was replaced by ${fresh.map((n) => n.type).join(", ") || "nothing"} (${nowText})`,
      fix: was.startsWith("definition:")
        ? `write the replacement as a whole ${was.slice("definition:".length)} (its full header and body), not only part of it; to remove it use delete_node`
        : `write the replacement as a ${was === "statement" ? "statement" : was} like the code it replaces, or target the node you mean to change`,
    });
  });
}

/** `containment` (L2): nothing outside the edited region changed, as text or as structure. */
function containment(input: HierarchyInput, out: Finding[]): void {
  const { change } = input;
  const { before, after } = change;
  const file = before.path;
  // Text: every edit inside the lines of the targets.
  if (input.targets) {
    const allowed = mergeSpans(input.targets.map((t) => lineRegion(before, t)));
    for (const edit of change.edits) {
      const span = trim(before.source, edit);
      const probe = span.end > span.start ? span : { start: edit.start, end: edit.end };
      if (within(probe, allowed) || gapsKept(before.source, edit, allowed)) continue;
      out.push({
        check: "containment",
        severity: "error",
        file,
        line: before.lineOf(edit.start),
        message: `the step changes ${file} outside its target: ${lines(change, { start: edit.start, end: Math.max(edit.end, edit.start + 1) }, "before")} (${preview(before.source.slice(edit.start, edit.end) || edit.text)}) lie outside ${allowed.map((a) => lines(change, a, "before")).join(", ")}`,
        fix: "target exactly the node you mean to change; to change several places use one step per place",
      });
    }
  }
  // Structure: tree-sitter's changed ranges must lie within the lines of the new text.
  const written = mergeSpans(newSpans(change.edits).map((s) => lineRegion(after, s)));
  const outside = change.changedRanges
    .map((r) => ({ start: r.startIndex, end: r.endIndex }))
    .filter((r) => r.end > r.start && !within(r, written) && !blankOutside(after.source, r, written))
    .filter((r) => !onlyComments(after.tree.rootNode, r, after.language))
    // tree-sitter reports re-created nodes as changed (a block whose first statement went); compare
    // the tokens outside the edit, with their ancestor kinds, before and after.
    .flatMap((r) => outsideSegments(after.source, r, written).filter((seg) => !sameStructure(change, seg)));
  for (const r of mergeSpans(outside).slice(0, 3)) {
    const inner = after.tree.rootNode.descendantForIndex(r.start, Math.max(r.start, r.end - 1));
    out.push({
      check: "containment",
      severity: "error",
      file,
      line: after.lineOf(r.start),
      message: `the step changes how code outside the edit parses in ${file}: ${lines(change, r, "after")} (${preview(after.source.slice(r.start, r.end))}) now parse as part of ${!inner ? "other code" : inner.startIndex < r.start || inner.endIndex > r.end ? inner.type : (inner.parent?.type ?? inner.type)}`,
      fix: "close every string, comment and bracket the new code opens, and keep its indentation at the level of the code it replaces",
    });
  }
  // Ancestry: the code around each replaced range is still the same kind of code.
  const spans = newSpans(change.edits);
  change.edits.forEach((edit, i) => {
    const oldSpan = trim(before.source, edit);
    const newSpan = trim(after.source, spans[i]!);
    if (oldSpan.end <= oldSpan.start || newSpan.end <= newSpan.start) return;
    const was = ancestry(container(before.tree.rootNode, oldSpan));
    const now = ancestry(container(after.tree.rootNode, newSpan));
    if (was.join(">") === now.join(">")) return;
    // Growing into the parent (e.g. the only statement of a block) is fine when the rest agrees.
    if (was.slice(1).join(">") === now.join(">") || was.join(">") === now.slice(1).join(">")) return;
    out.push({
      check: "containment",
      severity: "error",
      file,
      line: after.lineOf(newSpan.start),
      message: `the edited code in ${file} now sits in a different place in the syntax tree: it was inside ${was.slice(0, 3).join(" < ")}, now inside ${now.slice(0, 3).join(" < ")}`,
      fix: "keep the replacement at the indentation and nesting of the code it replaces",
    });
  });
}

/**
 * For an edit that spans several targets (a diff of several replacements): whether it starts
 * and ends inside targets and every stretch of old text between targets is still there, in
 * order, in the new text.
 */
function gapsKept(
  source: string,
  edit: { start: number; end: number; text: string },
  allowed: readonly Span[],
): boolean {
  const inside = (i: number) => allowed.some((a) => a.start <= i && i <= a.end);
  if (!inside(edit.start) || !inside(edit.end)) return false;
  let at = 0;
  for (let k = 0; k + 1 < allowed.length; k++) {
    const gap = { start: Math.max(allowed[k]!.end, edit.start), end: Math.min(allowed[k + 1]!.start, edit.end) };
    if (gap.end <= gap.start) continue;
    const found = edit.text.indexOf(source.slice(gap.start, gap.end), at);
    if (found < 0) return false;
    at = found + (gap.end - gap.start);
  }
  return true;
}

/** The non-blank parts of `range` outside `spans`. */
function outsideSegments(source: string, range: Span, spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  let at = range.start;
  const push = (a: number, b: number) => {
    const t = trim(source, { start: a, end: b });
    if (t.end > t.start) out.push(t);
  };
  for (const s of spans) {
    if (s.end <= at) continue;
    if (s.start >= range.end) break;
    push(at, Math.min(s.start, range.end));
    at = Math.max(at, s.end);
  }
  if (at < range.end) push(at, range.end);
  return out;
}

/**
 * Leaves intersecting `span`, as `type:text` under their ancestors' types (at most `limit`).
 * The walk starts at the smallest node holding the span (its ancestors give the path's start)
 * and reads only the children that overlap the span.
 */
function leaves(root: Node, span: Span, limit = 400): string[] {
  const out: string[] = [];
  let start: Node = root.descendantForIndex(span.start, Math.max(span.start, span.end - 1)) ?? root;
  while (start.parent && (start.startIndex > span.start || start.endIndex < span.end)) start = start.parent;
  const path: string[] = [];
  for (let p = start.parent; p; p = p.parent) path.unshift(p.type);
  const visit = (node: Node): void => {
    if (out.length >= limit || node.endIndex <= span.start || node.startIndex >= span.end) return;
    if (node.childCount === 0) {
      out.push(`${path.join(">")}|${node.type}:${node.text}`);
      return;
    }
    path.push(node.type);
    for (const child of childrenTouching(node, span)) visit(child);
    path.pop();
  };
  visit(start);
  return out;
}

/** Whether the code in `segment` (new offsets, outside every edit) parses as it did before. */
function sameStructure(change: FileChange, segment: Span): boolean {
  let delta = 0;
  for (const e of change.edits) {
    const newStart = e.start + delta;
    if (newStart >= segment.end) break;
    delta += e.text.length - (e.end - e.start);
  }
  const old = { start: segment.start - delta, end: segment.end - delta };
  if (change.before.source.slice(old.start, old.end) !== change.after.source.slice(segment.start, segment.end))
    return false;
  const a = leaves(change.before.tree.rootNode, old);
  const b = leaves(change.after.tree.rootNode, segment);
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Whether the part of `range` outside `spans` is only whitespace. */
function blankOutside(source: string, range: Span, spans: readonly Span[]): boolean {
  let at = range.start;
  for (const s of spans) {
    if (s.end <= at) continue;
    if (s.start >= range.end) break;
    if (source.slice(at, Math.min(s.start, range.end)).trim() !== "") return false;
    at = Math.max(at, s.end);
  }
  return at >= range.end || source.slice(at, range.end).trim() === "";
}

function onlyComments(root: Node, span: Span, language: FileChange["after"]["language"]): boolean {
  const nodes = topNodes(root, span, language);
  if (nodes === undefined) return false;
  return nodes.length === 0;
}

/** `references` (L3) and `imports` (L4): names in the new code resolve; names defined elsewhere are imported; new imports resolve. */
function references(input: HierarchyInput, out: Finding[]): void {
  const { change, graph, sim } = input;
  const { after } = change;
  const regions = mergeSpans(
    newSpans(change.edits)
      .map((s) => trim(after.source, s))
      .filter((s) => s.end > s.start),
  );
  nameFindings(after, regions, graph, sim, out);
}

/** The `references` and `imports` findings of the names used and imported in `regions` of `doc`. */
function nameFindings(doc: FileVersion, regions: readonly Span[], graph: Graph, sim: Sim, out: Finding[]): void {
  const model = scopeModel(doc.language);
  if (!model) return;
  const context = { sim, graph };
  const seen = new Set<string>();
  for (const region of regions) {
    const unresolved = model.unresolved(doc, region.start, region.end, context);
    if (unresolved === "unknown") break;
    for (const use of unresolved) {
      if (seen.has(use.name)) continue;
      seen.add(use.name);
      // Only what an import brings in: a method, a constructor or a field of another file's class is not.
      const elsewhere = graph.symbols.filter(
        (s) => s.name === use.name && s.file !== doc.path && model.importable(s.kind),
      );
      if (elsewhere.length) {
        const where = [...new Set(elsewhere.map((s) => s.file))];
        out.push({
          check: "imports",
          severity: "warning",
          file: doc.path,
          line: use.line,
          message: `'${use.name}' (line ${use.line}) is defined in ${where.join(", ")} but not imported in ${doc.path}`,
          fix:
            model.importFix(use.name, where[0]!, doc, context) ??
            `import '${use.name}' in ${doc.path} before this step`,
        });
        continue;
      }
      const suggestion = didYouMean(use.name, candidateNames(doc, region, model));
      out.push({
        check: "references",
        severity: "warning",
        file: doc.path,
        line: use.line,
        message: `'${use.name}' (line ${use.line} of ${doc.path}) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported`,
        fix: suggestion
          ? `did you mean '${suggestion}'? Otherwise define or import '${use.name}'`
          : `define '${use.name}' in the new code, or import it, or correct the name`,
      });
    }
  }
  for (const region of regions) {
    for (const problem of model.importProblems(doc, region.start, region.end, context))
      out.push({ check: "imports", severity: "warning", file: doc.path, ...problem });
  }
}

/** The checks whose findings a later step of the same plan can answer (a name defined, an import added): re-judged on the plan's final state. */
export const NAME_CHECKS: ReadonlySet<Check> = new Set(["references", "imports"]);

/**
 * The `references` and `imports` findings of the whole of `doc` (the file as the plan leaves it):
 * what a finding of an earlier step is re-judged against (see {@link findingKey}).
 */
export function nameFindingsOfFile(doc: FileVersion, graph: Graph, sim: Sim): Finding[] {
  const out: Finding[] = [];
  nameFindings(doc, [{ start: 0, end: doc.source.length }], graph, sim, out);
  return out;
}

/** What identifies a finding from one version of its file to the next: its check, file and message without line numbers (lines move). */
export function findingKey(finding: {
  readonly check: string;
  readonly file?: string | undefined;
  readonly message: string;
}): string {
  const message = finding.message.replace(/ ?\(line \d+[^)]*\)/g, "").replace(/\blines? \d+(-\d+)?\b/g, "");
  return `${finding.check}\u0000${finding.file ?? ""}\u0000${message}`;
}

function candidateNames(
  doc: FileVersion,
  region: Span,
  model: NonNullable<ReturnType<typeof scopeModel>>,
): Set<string> {
  const names = new Set(model.definedAtTopLevel(doc));
  // Names used near the edit (the enclosing top-level definition).
  let top: Node = container(doc.tree.rootNode, region);
  while (top.parent && top.parent.parent) top = top.parent;
  for (const id of top.descendantsOfType("identifier")) if (id) names.add(id.text);
  return names;
}

/**
 * `triviality` (L6): the step does something, and what it writes is not a placeholder.
 * Long on purpose: the design's (docs/design.md, Origins) shapes of a step that does nothing (unchanged code, inserted code with no effect, an empty replacement, a placeholder body, code replaced by a placeholder), each a few lines, checked in order.
 */
function nonTriviality(input: HierarchyInput, out: Finding[]): void {
  const { change } = input;
  const { before, after } = change;
  if (before.source === after.source) {
    out.push({
      check: "triviality",
      severity: "warning",
      file: before.path,
      message: `the step leaves ${before.path} unchanged: the new code is identical to the original`,
      fix: "write the change you mean to make, or drop the step",
    });
    return;
  }
  const spans = newSpans(change.edits);
  change.edits.forEach((edit, i) => {
    const oldSpan = trim(before.source, edit);
    const newSpan = trim(after.source, spans[i]!);
    if (oldSpan.end <= oldSpan.start) {
      // An insertion: only a bare placeholder is degenerate.
      if (newSpan.end <= newSpan.start) return;
      const nodes = topNodes(after.tree.rootNode, newSpan, after.language);
      if (
        nodes &&
        nodes.length &&
        trivialStatements(nodes, after.language) &&
        nodes.every((n) => n.type !== "comment")
      ) {
        out.push({
          check: "triviality",
          severity: "warning",
          file: after.path,
          line: after.lineOf(newSpan.start),
          message: `the inserted code at ${lines(change, newSpan, "after")} of ${after.path} does nothing (${preview(after.source.slice(newSpan.start, newSpan.end))})`,
          fix: "insert the real code, or drop the step",
        });
      }
      return;
    }
    if (newSpan.end <= newSpan.start) {
      if (input.removes) return;
      out.push({
        check: "triviality",
        severity: "warning",
        file: before.path,
        line: before.lineOf(oldSpan.start),
        message: `the replacement for ${lines(change, oldSpan, "before")} of ${before.path} is empty`,
        fix: "write the new code; to remove the code use delete_node",
      });
      return;
    }
    if (before.source.slice(oldSpan.start, oldSpan.end) === after.source.slice(newSpan.start, newSpan.end)) return;
    const olds = topNodes(before.tree.rootNode, oldSpan, before.language);
    const news = topNodes(after.tree.rootNode, newSpan, after.language);
    if (!olds || !news || news.length === 0) return;
    // A definition or block whose body became a placeholder.
    if (olds.length === 1 && news.length >= 1) {
      const old = olds[0]!;
      const oldTrivial = trivialBody(old, before.language);
      for (const node of news) {
        const nowTrivial = trivialBody(node, after.language);
        if (nowTrivial && oldTrivial === false) {
          const body = bodyStatements(node, after.language) ?? [];
          out.push({
            check: "triviality",
            severity: "warning",
            file: after.path,
            line: node.startPosition.row + 1,
            message: `the new ${node.type} at ${lines(change, newSpan, "after")} of ${after.path} has a placeholder body (${preview(body.map((b) => b.text).join("; ") || "empty")}) where the original had code`,
            fix: "write the real body",
          });
          return;
        }
      }
    }
    // Statements replaced by placeholders.
    if (
      trivialStatements(news, after.language) &&
      !trivialStatements(olds, before.language) &&
      news.every((n) => kindClass(n, after.language) === "statement")
    ) {
      out.push({
        check: "triviality",
        severity: "warning",
        file: after.path,
        line: after.lineOf(newSpan.start),
        message: `${lines(change, oldSpan, "before")} of ${before.path} were replaced by a placeholder (${preview(after.source.slice(newSpan.start, newSpan.end))})`,
        fix: "write the real code; to remove code use delete_node",
      });
    }
  });
}

/** Runs `kind`, `containment`, `references`, `imports` and `triviality` on one simulated change (that parses). */
export function checkHierarchy(input: HierarchyInput): Finding[] {
  const out: Finding[] = [];
  kindPreservation(input, out);
  containment(input, out);
  references(input, out);
  nonTriviality(input, out);
  return out;
}

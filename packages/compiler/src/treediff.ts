/**
 * Structural diff of two syntax trees of one file: which nodes of the pre-image changed, which
 * siblings were added or removed, at the smallest level where the change can be said with nodes.
 *
 * Both trees are walked top-down. At a node pair of the same type, the children are aligned with
 * an LCS over (type, text); the children left over between two aligned ones are paired by identity
 * (type, and name for definitions) and recursed into; what stays unpaired is a splice (siblings
 * inserted, removed, or the whitespace between siblings changed). A pair is replaced whole when
 * that is cheaper than its parts (a cost in changed bytes plus a fixed cost per step) or when its
 * parts cannot be said with nodes (an operator token changed, whitespace inside an expression).
 *
 * The result is a list of disjoint changes in document order; replacing each one's pre range by
 * its post range turns the pre-image into the post-image exactly.
 */
import { diffArrays } from "diff";
import { LANGUAGES, type LanguageId } from "@graphplan/graph";
import type { Node } from "web-tree-sitter";

/** A node by its type and its range (UTF-16 offsets) in the text it was parsed from. */
export interface NodeRef {
  readonly type: string;
  readonly start: number;
  readonly end: number;
  readonly named: boolean;
}

export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A node of the pre-image replaced by a node of the post-image. */
export interface ReplaceChange {
  readonly kind: "replace";
  readonly pre: NodeRef;
  readonly post: NodeRef;
}

/**
 * Siblings between `prev` and `next` (children of `parent`) removed and/or added, or only the
 * whitespace between them changed. `pre`/`post` run from the end of `prev` (or the parent's start)
 * to the start of `next` (or the parent's end).
 */
export interface SpliceChange {
  readonly kind: "splice";
  readonly parent: NodeRef;
  readonly postParent: NodeRef;
  readonly prev: NodeRef | undefined;
  readonly next: NodeRef | undefined;
  readonly removed: readonly NodeRef[];
  readonly added: readonly NodeRef[];
  readonly pre: Span;
  readonly post: Span;
}

export type Change = (ReplaceChange | SpliceChange) & {
  /** Ranges of the change: replacing `preRange` of the pre-image by `postRange` of the post-image. */
  readonly preRange: Span;
  readonly postRange: Span;
};

export interface TreeDiffOptions {
  /** Fixed cost of one step, in bytes, when choosing between a node and its parts (default 60). */
  readonly stepCost?: number;
}

const ref = (n: Node): NodeRef => ({ type: n.type, start: n.startIndex, end: n.endIndex, named: n.isNamed });

/** Punctuation that may be inserted or removed along with list elements (`f(a)` → `f(a, b)`). */
const SEPARATORS = new Set([",", ";"]);

/** The name a definition (or a decorated one) is known by, for pairing siblings. */
function definitionKey(node: Node, language: LanguageId): string | undefined {
  const defs = LANGUAGES[language].definitions;
  let target: Node | null = node;
  if (node.type === "decorated_definition") target = node.childForFieldName("definition");
  if (!target || !defs[target.type]) return undefined;
  const rule = defs[target.type]!;
  const name = rule.name ? rule.name(target) : (target.childForFieldName("name")?.text ?? null);
  return name === null ? undefined : `${target.type}:${name}`;
}

interface Side {
  readonly source: string;
  readonly node: Node;
}

/**
 * Computes the changes from `pre` to `post` (roots of trees parsed from `preSource`/`postSource`).
 * Long on purpose: `diffPair` and `diffChildren` recurse into each other and share the two sources
 * and the cost model as closures; the child alignment, which needs neither, is `alignChildren`.
 */
export function diffTrees(
  preRoot: Node,
  preSource: string,
  postRoot: Node,
  postSource: string,
  language: LanguageId,
  options: TreeDiffOptions = {},
): Change[] {
  const stepCost = options.stepCost ?? 60;
  const text = (source: string, n: { startIndex: number; endIndex: number }) => source.slice(n.startIndex, n.endIndex);
  const comments = LANGUAGES[language].commentTypes;

  const replace = (p: Node, q: Node): Change => ({
    kind: "replace",
    pre: ref(p),
    post: ref(q),
    preRange: { start: p.startIndex, end: p.endIndex },
    postRange: { start: q.startIndex, end: q.endIndex },
  });

  const wholeFile: Change = {
    kind: "replace",
    pre: ref(preRoot),
    post: ref(postRoot),
    preRange: { start: 0, end: preSource.length },
    postRange: { start: 0, end: postSource.length },
  };

  const cost = (changes: readonly Change[]): number =>
    changes.reduce(
      (sum, c) =>
        sum + (c.preRange.end - c.preRange.start) + (c.postRange.end - c.postRange.start) + stepCost * stepsOf(c),
      0,
    );
  /** Steps a change needs: one replacement or insertion; a deletion per removed sibling beyond one replaced. */
  const stepsOf = (c: Change): number => {
    if (c.kind === "replace") return 1;
    const named = c.removed.filter((r) => r.named).length;
    const adds = c.added.some((a) => a.named);
    return Math.max(1, adds ? Math.max(1, named) : named);
  };

  /** Whether a splice can be said with node steps (else the parent is replaced). */
  const speakable = (
    removed: readonly Node[],
    added: readonly Node[],
    whitespaceOnly: boolean,
    parent: Node,
  ): boolean => {
    if (whitespaceOnly) return LANGUAGES[language].blockTypes.includes(parent.type);
    const all = [...removed, ...added];
    if (!all.some((n) => n.isNamed)) return false;
    return all.every((n) => n.isNamed || SEPARATORS.has(n.type));
  };

  /** Changes that turn `p` into `q`; `undefined` when `p` must be replaced whole. */
  const diffPair = (p: Node, q: Node): Change[] => {
    const isRoot = p.id === preRoot.id;
    const pText = isRoot ? preSource : text(preSource, p);
    const qText = isRoot ? postSource : text(postSource, q);
    if (pText === qText) return [];
    const whole = [isRoot ? wholeFile : replace(p, q)];
    if (p.type !== q.type || p.childCount === 0 || q.childCount === 0) return whole;
    const parts = diffChildren({ source: preSource, node: p }, { source: postSource, node: q });
    if (!parts) return whole;
    // The whole file is never the smallest enclosing node of a change that has parts.
    return isRoot || cost(parts) < cost(whole) ? parts : whole;
  };

  const diffChildren = (P: Side, Q: Side): Change[] | undefined => {
    const p = P.node;
    const q = Q.node;
    const pc = p.children.filter((n): n is Node => n !== null);
    const qc = q.children.filter((n): n is Node => n !== null);

    const pairs = alignChildren(
      pc,
      qc,
      (n) => `${n.type}\u0000${text(preSource, n)}`,
      (n) => `${n.type}\u0000${text(postSource, n)}`,
      (n) => definitionKey(n, language) ?? n.type,
    );
    if (!pairs) return undefined;

    const changes: Change[] = [];
    // Walk the slots between consecutive pairs (with the parents' edges as virtual anchors).
    let prevP: Node | undefined;
    let prevQ: Node | undefined;
    let lastI = -1;
    let lastJ = -1;
    const slot = (nextI: number, nextJ: number): boolean => {
      const nextP = pc[nextI];
      const nextQ = qc[nextJ];
      const removed = pc.slice(lastI + 1, nextI);
      const added = qc.slice(lastJ + 1, nextJ);
      const isRoot = p.id === preRoot.id;
      const preStart = prevP ? prevP.endIndex : isRoot ? 0 : p.startIndex;
      const preEnd = nextP ? nextP.startIndex : isRoot ? preSource.length : p.endIndex;
      const postStart = prevQ ? prevQ.endIndex : isRoot ? 0 : q.startIndex;
      const postEnd = nextQ ? nextQ.startIndex : isRoot ? postSource.length : q.endIndex;
      const preGap = preSource.slice(preStart, preEnd);
      const postGap = postSource.slice(postStart, postEnd);
      if (removed.length === 0 && added.length === 0 && preGap === postGap) return true;
      const whitespaceOnly = removed.length === 0 && added.length === 0;
      if (!speakable(removed, added, whitespaceOnly, p)) return false;
      changes.push({
        kind: "splice",
        parent: ref(p),
        postParent: ref(q),
        prev: prevP ? ref(prevP) : undefined,
        next: nextP ? ref(nextP) : undefined,
        removed: removed.map(ref),
        added: added.map(ref),
        pre: { start: preStart, end: preEnd },
        post: { start: postStart, end: postEnd },
        preRange: { start: preStart, end: preEnd },
        postRange: { start: postStart, end: postEnd },
      });
      return true;
    };
    for (const pair of pairs) {
      if (!slot(pair.i, pair.j)) return undefined;
      const a = pc[pair.i]!;
      const b = qc[pair.j]!;
      const inner = diffPair(a, b);
      if (inner.length === 1 && inner[0]!.kind === "replace" && !a.isNamed) return undefined;
      if (inner.length === 1 && inner[0]!.kind === "replace" && comments.includes(a.type) !== comments.includes(b.type))
        return undefined;
      changes.push(...inner);
      prevP = a;
      prevQ = b;
      lastI = pair.i;
      lastJ = pair.j;
    }
    if (!slot(pc.length, qc.length)) return undefined;
    return mergeAdjacent(changes);
  };

  return diffPair(preRoot, postRoot);
}

/**
 * Aligns two child lists: equal children (same `contentKey`) are anchors, and between anchors the
 * leftovers are paired by identity (`identityKey`: type, and name for definitions). Returns the
 * pairs `{i, j}` in order, or `undefined` when they would cross.
 */
function alignChildren(
  pc: readonly Node[],
  qc: readonly Node[],
  preKey: (n: Node) => string,
  postKey: (n: Node) => string,
  identityKey: (n: Node) => string,
): Array<{ i: number; j: number }> | undefined {
  const pKeys = pc.map(preKey);
  const qKeys = qc.map(postKey);
  // Aligned pairs, in order: [pre index, post index]; equal ones and paired changed ones.
  const pairs: Array<{ i: number; j: number }> = [];
  let i = 0;
  let j = 0;
  const pendingP: number[] = [];
  const pendingQ: number[] = [];
  const flushGap = (): void => {
    if (pendingP.length === 0 && pendingQ.length === 0) return;
    // Pair leftovers by identity: type, and name for definitions.
    const gp = pendingP.map((k) => identityKey(pc[k]!));
    const gq = pendingQ.map((k) => identityKey(qc[k]!));
    let a = 0;
    let b = 0;
    for (const part of diffArrays(gp, gq)) {
      const count = part.count ?? part.value.length;
      if (!part.added && !part.removed) {
        for (let k = 0; k < count; k++) pairs.push({ i: pendingP[a + k]!, j: pendingQ[b + k]! });
        a += count;
        b += count;
      } else if (part.removed) a += count;
      else b += count;
    }
    pendingP.length = 0;
    pendingQ.length = 0;
  };
  for (const part of diffArrays(pKeys, qKeys)) {
    const count = part.count ?? part.value.length;
    if (!part.added && !part.removed) {
      flushGap();
      for (let k = 0; k < count; k++) pairs.push({ i: i + k, j: j + k });
      i += count;
      j += count;
    } else if (part.removed) {
      for (let k = 0; k < count; k++) pendingP.push(i + k);
      i += count;
    } else {
      for (let k = 0; k < count; k++) pendingQ.push(j + k);
      j += count;
    }
  }
  flushGap();
  pairs.sort((x, y) => x.i - y.i);
  // Pairing by identity inside gaps keeps order, and gaps are separated by equal anchors: the
  // pairs are increasing in both indices.
  for (let k = 1; k < pairs.length; k++) if (pairs[k]!.j <= pairs[k - 1]!.j) return undefined;
  return pairs;
}

/**
 * A splice right after or before a replaced node, or two splices touching, stay separate changes:
 * they are different steps. Nothing to merge today; kept as the one place to do it.
 */
function mergeAdjacent(changes: Change[]): Change[] {
  return changes;
}

/** Applies changes (pre ranges → post texts) to `preSource`; the identity `applyChanges(...) === post` is the diff's contract. */
export function applyChanges(preSource: string, postSource: string, changes: readonly Change[]): string {
  let out = "";
  let at = 0;
  for (const c of changes) {
    out += preSource.slice(at, c.preRange.start) + postSource.slice(c.postRange.start, c.postRange.end);
    at = c.preRange.end;
  }
  return out + preSource.slice(at);
}

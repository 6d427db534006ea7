/**
 * Narrowed searches: instead of visiting every node of a tree, start from the places where the
 * text a match must contain occurs (a name's longest word, an S-expression's `#eq?` literal) and
 * look only at the nodes around them. Each function returns `undefined` when it cannot narrow
 * soundly (the caller then searches the whole tree); when it returns nodes, they are every node
 * the whole-tree search would have found.
 */
import { CaptureQuantifier, type Node, type Query, type Tree } from "web-tree-sitter";

/** Internal switch for tests that compare narrowed searches with whole-tree ones. */
export const narrowing = { enabled: true };

/** Above this many occurrences of the literal, a whole-tree search is cheaper. */
const MAX_OCCURRENCES = 200;

const texts = new WeakMap<Tree, { text: string; base: number }>();

/** The tree's text (as parsed) and the offset of its first character. */
function treeText(tree: Tree): { text: string; base: number } {
  let hit = texts.get(tree);
  if (!hit) {
    const root = tree.rootNode;
    hit = { text: root.text, base: root.startIndex };
    texts.set(tree, hit);
  }
  return hit;
}

/** Offsets (in the tree's coordinates) where `needle` occurs, or undefined when there are too many. */
function occurrences(tree: Tree, needle: string): number[] | undefined {
  const { text, base } = treeText(tree);
  const out: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
    if (out.length >= MAX_OCCURRENCES) return undefined;
    out.push(base + i);
  }
  return out;
}

/** The longest run of word characters of a name (what must occur in the text of a node so named). */
function longestWord(name: string): string | undefined {
  let best: string | undefined;
  for (const m of name.matchAll(/[\p{L}\p{N}_$]+/gu)) if (!best || m[0].length > best.length) best = m[0];
  return best;
}

/**
 * The nodes of `types` strictly inside one of `scopes` whose text contains the longest word of
 * `name`: a superset of the nodes that answer to `name` (names are read from the node's own
 * text: a definition's name field, a call's callee, an import's modules...). `undefined` when the
 * name is synthetic (`(anonymous)`), has no word, or occurs too often.
 */
export function nodesContainingName(
  tree: Tree,
  scopes: readonly Node[],
  types: readonly string[],
  name: string,
): Node[] | undefined {
  if (!narrowing.enabled || name.includes("(")) return undefined;
  const word = longestWord(name);
  if (!word) return undefined;
  const at = occurrences(tree, word);
  if (!at) return undefined;
  const typeSet = new Set(types);
  const scopeIds = new Set(scopes.map((s) => s.id));
  const root = tree.rootNode;
  /** Per visited node: whether it or an ancestor is a scope. */
  const visited = new Map<number, boolean>();
  const found = new Map<number, Node>();
  for (const offset of at) {
    const chain: Node[] = [];
    let inside = false;
    for (let n: Node | null = root.descendantForIndex(offset); n; n = n.parent) {
      const known = visited.get(n.id);
      if (known !== undefined) {
        inside = known;
        break;
      }
      chain.push(n);
    }
    // Top-down: a node counts when a scope is above it.
    for (let i = chain.length - 1; i >= 0; i--) {
      const n = chain[i]!;
      if (inside && typeSet.has(n.type)) found.set(n.id, n);
      inside ||= scopeIds.has(n.id);
      visited.set(n.id, inside);
    }
  }
  return [...found.values()];
}

interface Literals {
  /** The texts one capture of the pattern must equal (one of them). */
  readonly values: readonly string[];
  /** Upper bound of how many levels the pattern's root lies above that capture. */
  readonly depth: number;
}

const compiled = new WeakMap<Query, readonly Literals[] | null>();

const EQ = /\(#eq\?\s+@([\w.-]+)\s+"((?:[^"\\]|\\.)*)"\s*\)/g;
const ANY_OF = /\(#any-of\?\s+@([\w.-]+)((?:\s+"(?:[^"\\]|\\.)*")+)\s*\)/g;

/** Nesting depth of brackets outside strings: at least the depth of the pattern's tree (plus one for a bare `_`). */
function nesting(pattern: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === ";") {
      const nl = pattern.indexOf("\n", i);
      i = nl < 0 ? pattern.length : nl;
    } else if (c === "(" || c === "[") max = Math.max(max, ++depth);
    else if (c === ")" || c === "]") depth--;
  }
  return max;
}

/**
 * For each pattern of the query, the literal texts one of its captures must equal (from a
 * `#eq? @c "text"` or `#any-of? @c "a" "b"` predicate on a capture that occurs exactly once or
 * more in every match), or `null` when some pattern has none or is not local to its root.
 */
function literalsOf(query: Query, source: string): readonly Literals[] | null {
  const cached = compiled.get(query);
  if (cached !== undefined) return cached;
  const bytes = new TextEncoder().encode(source);
  const ascii = bytes.length === source.length;
  const out: Literals[] = [];
  let result: readonly Literals[] | null = out;
  const count = query.patternCount();
  for (let i = 0; i < count && result; i++) {
    if (!query.isPatternRooted(i) || query.isPatternNonLocal(i)) {
      result = null;
      break;
    }
    const start = query.startIndexForPattern(i);
    const end = query.endIndexForPattern(i);
    const text = ascii ? source.slice(start, end) : new TextDecoder().decode(bytes.subarray(start, end));
    const required = (capture: string): boolean => {
      const index = query.captureNames.indexOf(capture);
      const quantifier = index < 0 ? undefined : query.captureQuantifiers[i]?.[index];
      return quantifier === CaptureQuantifier.One || quantifier === CaptureQuantifier.OneOrMore;
    };
    let values: string[] | undefined;
    for (const m of text.matchAll(EQ)) {
      if (!m[2]!.includes("\\") && m[2] !== "" && required(m[1]!)) {
        values = [m[2]!];
        break;
      }
    }
    if (!values) {
      for (const m of text.matchAll(ANY_OF)) {
        const strings = [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((s) => s[1]!);
        if (strings.every((s) => !s.includes("\\") && s !== "") && required(m[1]!)) {
          values = strings;
          break;
        }
      }
    }
    if (!values) result = null;
    else out.push({ values, depth: nesting(text) });
  }
  compiled.set(query, result);
  return result;
}

function isInside(node: Node, ancestor: Node): boolean {
  for (
    let n: Node | null = node;
    n && n.startIndex >= ancestor.startIndex && n.endIndex <= ancestor.endIndex;
    n = n.parent
  ) {
    if (n.id === ancestor.id) return true;
  }
  return false;
}

/**
 * The captures of `query` over `tree`, found by running it only on the subtrees around the
 * occurrences of each pattern's required literal. `undefined` when the query cannot be narrowed
 * (a pattern without a literal predicate, a non-local pattern, too many occurrences).
 */
export function narrowedCaptures(
  tree: Tree,
  query: Query,
  querySource: string,
): { name: string; node: Node }[] | undefined {
  if (!narrowing.enabled) return undefined;
  const literals = literalsOf(query, querySource);
  if (!literals) return undefined;
  const root = tree.rootNode;
  const subtrees = new Map<number, Node>();
  for (const { values, depth } of literals) {
    for (const value of values) {
      const at = occurrences(tree, value);
      if (!at) return undefined;
      for (const offset of at) {
        const end = offset + value.length;
        // The topmost node whose text is exactly the literal: the capture, or an ancestor of it.
        let exact: Node | undefined;
        let n: Node | null = root.descendantForIndex(offset);
        for (; n && n.startIndex >= offset && n.endIndex <= end; n = n.parent) {
          if (n.startIndex === offset && n.endIndex === end) exact = n;
        }
        if (!exact) continue;
        let top = exact;
        for (let k = 0; k < depth && top.parent; k++) top = top.parent;
        while (top.parent && top.parent.startIndex === top.startIndex && top.parent.endIndex === top.endIndex)
          top = top.parent;
        subtrees.set(top.id, top);
      }
    }
  }
  // Subtrees inside another one are searched with it.
  const ordered = [...subtrees.values()].sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  const outer: Node[] = [];
  for (const s of ordered) {
    const last = outer[outer.length - 1];
    if (last && s.startIndex >= last.startIndex && s.endIndex <= last.endIndex && isInside(s, last)) continue;
    outer.push(s);
  }
  return outer.flatMap((s) => query.captures(s));
}

/**
 * Locator resolution against a live tree. Trees are treated as immutable values (edit a copy,
 * as @graphplan/primitives does): each locator is resolved once per tree (a cache keyed by the
 * tree and the locator's JSON), whole-tree searches by node type are shared by the resolutions
 * of one tree, and searches that must contain a known text (a name, an `#eq?` literal) start
 * from the places where that text occurs instead of visiting every node.
 */
import { Query, type Node, type Tree } from "web-tree-sitter";
import { distance } from "fastest-levenshtein";
import { grammar, LANGUAGES, type LanguageId } from "@graphplan/graph";
import { KIND_EXTRAS, KIND_FILTERS, KIND_SYNONYMS, NORMALIZED_KINDS, normalizedKinds } from "./kinds.js";
import { nodeName, nodeNames, definitionName } from "./names.js";
import {
  InvalidLocator,
  InvalidQuery,
  LocatorAmbiguous,
  LocatorNotFound,
  UnknownKind,
  type Candidate,
  type Match,
} from "./errors.js";
import { formatIssues, locatorIssues } from "./issues.js";
import { narrowedCaptures, nodesContainingName } from "./narrow.js";
import { LocatorSchema, type Locator, type ParentLocator, type SexpLocator } from "./schema.js";

type Structured = ParentLocator;

/** Kinds tried in this order when naming a node's kind (the most specific first). */
const KIND_PRIORITY = [
  "constructor",
  "method",
  "function",
  "class",
  "struct",
  "interface",
  "trait",
  "enum",
  "impl",
  "module",
  "namespace",
  "type_alias",
  "typedef",
  "import",
];

interface KindSpec {
  readonly types: readonly string[];
  readonly filter?: ((node: Node) => boolean) | undefined;
  readonly extra?: ((scope: Node) => Node[]) | undefined;
  /** True when `kind` was a normalized kind (definition nodes without a name are then skipped). */
  readonly normalized: boolean;
}

function ownFilter(language: LanguageId, kind: string): ((node: Node) => boolean) | undefined {
  const filters = KIND_FILTERS[language];
  return filters && Object.hasOwn(filters, kind) ? filters[kind] : undefined;
}

function isNodeType(language: LanguageId, type: string): boolean {
  const id = grammar(language).idForNodeType(type, true);
  return id !== null && id !== 0;
}

/** Normalized kinds of `language`, the closest to `kind` first. */
export function closestKinds(language: LanguageId, kind: string): string[] {
  const meant = Object.hasOwn(KIND_SYNONYMS, kind) ? KIND_SYNONYMS[kind] : undefined;
  const rank = (k: string): number => (k === meant ? -1 : distance(kind, k));
  return normalizedKinds(language).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

function kindSpec(file: string, language: LanguageId, kind: string | undefined, hasName: boolean): KindSpec | "root" {
  if (kind === undefined) {
    if (!hasName) return "root";
    return { types: Object.keys(LANGUAGES[language].definitions), normalized: true };
  }
  const table = NORMALIZED_KINDS[language];
  const types = Object.hasOwn(table, kind) ? table[kind] : undefined;
  if (types) {
    const extras = KIND_EXTRAS[language];
    return {
      types,
      filter: ownFilter(language, kind),
      extra: extras && Object.hasOwn(extras, kind) ? extras[kind] : undefined,
      normalized: true,
    };
  }
  if (isNodeType(language, kind)) return { types: [kind], normalized: false };
  throw new UnknownKind(file, kind, language, closestKinds(language, kind));
}

/** The normalized kind a node would be located by (its most specific one), or its node type. */
export function kindOfNode(node: Node, language: LanguageId): string {
  const table = NORMALIZED_KINDS[language];
  for (const kind of [...KIND_PRIORITY, ...Object.keys(table)]) {
    const types = Object.hasOwn(table, kind) ? table[kind] : undefined;
    if (!types?.includes(node.type)) continue;
    const filter = ownFilter(language, kind);
    if (filter && !filter(node)) continue;
    return kind;
  }
  return node.type;
}

/**
 * Whole-tree searches, per tree and node-type list. Trees are immutable, so a tree's nodes of a
 * type never change; repeated resolutions on one tree (parent, postcondition checks,
 * candidates) walk it once.
 */
const rootSearches = new WeakMap<Tree, Map<string, Node[]>>();

function descendants(scope: Node, types: readonly string[]): Node[] {
  const walk = () => scope.descendantsOfType([...types]).filter((n): n is Node => n !== null && n.id !== scope.id);
  if (scope.parent !== null) return walk();
  const tree = scope.tree;
  let cache = rootSearches.get(tree);
  if (!cache) {
    cache = new Map();
    rootSearches.set(tree, cache);
  }
  const key = types.join("\u0000");
  let found = cache.get(key);
  if (!found) {
    found = walk();
    cache.set(key, found);
  }
  return found;
}

/** Whether a node of one of the kind's types is of the kind (its filter; a named definition for normalized kinds). */
function keep(n: Node, spec: KindSpec, language: LanguageId): boolean {
  if (spec.filter && !spec.filter(n)) return false;
  if (spec.normalized && definitionName(n, language) === null) return false;
  return true;
}

function ofKind(scope: Node, spec: KindSpec, language: LanguageId): Node[] {
  const found = descendants(scope, spec.types).filter((n) => keep(n, spec, language));
  if (!spec.extra) return found;
  const extra = spec.extra(scope).filter((n) => n.id !== scope.id);
  return extra.length ? uniqueInOrder([...found, ...extra]) : found;
}

/** Named children that are not comments: what `nth_child` counts. */
export function codeChildren(node: Node, language: LanguageId): Node[] {
  const comments = LANGUAGES[language].commentTypes;
  return node.namedChildren.filter((c): c is Node => c !== null && !comments.includes(c.type));
}

const pick = <T>(items: readonly T[], index: number): T | undefined => items[index < 0 ? items.length + index : index];

function uniqueInOrder(nodes: Node[]): Node[] {
  const seen = new Set<number>();
  const out: Node[] = [];
  for (const n of nodes.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex)) {
    if (seen.has(n.id)) continue;
    seen.add(n.id);
    out.push(n);
  }
  return out;
}

/** A one-line description of a node for error messages. */
export function describeMatch(node: Node): Match {
  const first = node.text.split("\n")[0]?.trim() ?? "";
  return { line: node.startPosition.row + 1, text: first.length > 80 ? `${first.slice(0, 77)}...` : first };
}

interface Resolution {
  readonly nodes: Node[];
  /** Why nothing matched, when known precisely. */
  readonly reason?: string;
  readonly candidates?: () => Candidate[];
}

const queries = new Map<string, Query>();
const QUERY_CACHE_LIMIT = 256;

function compileQuery(file: string, language: LanguageId, source: string): Query {
  const key = `${language}\u0000${source}`;
  const cached = queries.get(key);
  if (cached) return cached;
  let query: Query;
  try {
    query = new Query(grammar(language), source);
  } catch (error) {
    throw new InvalidQuery(file, source, error instanceof Error ? error.message : String(error));
  }
  if (queries.size >= QUERY_CACHE_LIMIT) {
    const [oldestKey, oldest] = queries.entries().next().value as [string, Query];
    queries.delete(oldestKey);
    oldest.delete();
  }
  queries.set(key, query);
  return query;
}

function resolveSexp(tree: Tree, language: LanguageId, locator: SexpLocator): Resolution {
  const query = compileQuery(locator.file, language, locator.query);
  const capture = (locator.capture ?? "target").replace(/^@/, "");
  if (!query.captureNames.includes(capture)) {
    const names = query.captureNames.map((n) => `@${n}`).join(", ") || "none";
    throw new InvalidQuery(
      locator.file,
      locator.query,
      `the query has no capture @${capture} (its captures: ${names}); set "capture" to one of them`,
    );
  }
  let nodes: Node[];
  try {
    const captures = narrowedCaptures(tree, query, locator.query) ?? query.captures(tree.rootNode);
    nodes = uniqueInOrder(captures.filter((c) => c.name === capture).map((c) => c.node));
  } catch (error) {
    throw new InvalidQuery(locator.file, locator.query, error instanceof Error ? error.message : String(error));
  }
  return withIndex(nodes, locator.index);
}

/**
 * What each target node of an S-expression locator's matches captured: target node id → capture
 * name → the text of that capture's (first) node in the match that produced the target. Predicates
 * (`#eq?`, `#match?`, ...) apply as in resolution. The templates of `replace_all_matching` use it.
 */
export function sexpCaptures(
  tree: Tree,
  language: LanguageId,
  locator: SexpLocator,
): Map<number, Readonly<Record<string, string>>> {
  const query = compileQuery(locator.file, language, locator.query);
  const capture = (locator.capture ?? "target").replace(/^@/, "");
  const out = new Map<number, Readonly<Record<string, string>>>();
  try {
    for (const match of query.matches(tree.rootNode)) {
      const texts: Record<string, string> = {};
      for (const c of match.captures) texts[c.name] ??= c.node.text;
      for (const c of match.captures) if (c.name === capture && !out.has(c.node.id)) out.set(c.node.id, texts);
    }
  } catch (error) {
    throw new InvalidQuery(locator.file, locator.query, error instanceof Error ? error.message : String(error));
  }
  return out;
}

/** The capture names of an S-expression query (compiled once, cached). */
export function sexpCaptureNames(file: string, language: LanguageId, query: string): readonly string[] {
  return compileQuery(file, language, query).captureNames;
}

function withIndex(nodes: Node[], index: number | undefined): Resolution {
  if (index === undefined || nodes.length === 0) return { nodes };
  const chosen = pick(nodes, index);
  if (!chosen)
    return {
      nodes: [],
      reason: `index ${index} is out of range: ${nodes.length} node${nodes.length === 1 ? "" : "s"} matched (use 0..${nodes.length - 1} or -1)`,
    };
  return { nodes: [chosen] };
}

function resolveStructured(tree: Tree, language: LanguageId, file: string, locator: Structured): Resolution {
  const spec = kindSpec(file, language, locator.kind, locator.name !== undefined);
  let scopes: Node[] = [tree.rootNode];
  if (locator.parent) {
    const parent = resolveStructured(tree, language, file, locator.parent);
    if (parent.nodes.length === 0) {
      return {
        nodes: [],
        reason: `its parent ${JSON.stringify(locator.parent)} matches nothing${parent.reason ? ` (${parent.reason})` : ""}`,
        ...(parent.candidates ? { candidates: parent.candidates } : {}),
      };
    }
    scopes = parent.nodes;
  }

  let nodes: Node[];
  if (spec === "root") {
    nodes = locator.parent ? scopes : [tree.rootNode];
  } else {
    const everyOfKind = (): Node[] => uniqueInOrder(scopes.flatMap((scope) => ofKind(scope, spec, language)));
    // A named search looks only at the nodes whose text contains the name.
    const near =
      locator.name !== undefined && !spec.extra
        ? nodesContainingName(tree, scopes, spec.types, locator.name)
        : undefined;
    nodes = near ? uniqueInOrder(near.filter((n) => keep(n, spec, language))) : everyOfKind();
    if (locator.name !== undefined) {
      const name = locator.name;
      const named = nodes.filter((n) => nodeNames(n, language).includes(name));
      if (named.length === 0) {
        const sameKind = near ? everyOfKind : () => nodes;
        return { nodes: [], candidates: () => candidatesFor(tree, language, locator, spec, scopes, sameKind()) };
      }
      nodes = named;
    }
  }
  if (nodes.length === 0)
    return { nodes, candidates: () => (spec === "root" ? [] : otherKinds(tree, language, locator)) };

  if (locator.field !== undefined) {
    const field = locator.field;
    const withField = nodes.map((n) => n.childForFieldName(field)).filter((n): n is Node => n !== null);
    if (withField.length === 0) {
      const fields = fieldNames(nodes[0]!);
      return {
        nodes: [],
        reason: `the matched ${nodes[0]!.type} has no field "${field}" (its fields: ${fields.join(", ") || "none"})`,
      };
    }
    nodes = withField;
  }

  if (locator.nth_child !== undefined) {
    const nth = locator.nth_child;
    const children = nodes.map((n) => pick(codeChildren(n, language), nth)).filter((n): n is Node => n !== undefined);
    if (children.length === 0) {
      const counts = nodes.map((n) => codeChildren(n, language).length);
      return {
        nodes: [],
        reason: `nth_child ${nth} is out of range (the matched node has ${counts[0]} named non-comment children)`,
      };
    }
    nodes = children;
  }
  return withIndex(nodes, locator.index);
}

function fieldNames(node: Node): string[] {
  const names = new Set<string>();
  for (let i = 0; i < node.childCount; i++) {
    const f = node.fieldNameForChild(i);
    if (f) names.add(f);
  }
  return [...names];
}

function candidatesFor(
  tree: Tree,
  language: LanguageId,
  locator: Structured,
  spec: KindSpec,
  scopes: Node[],
  sameKindInScope: Node[],
): Candidate[] {
  const name = locator.name ?? "";
  const out: Candidate[] = [];
  const kindLabel = locator.kind ?? "symbol";
  // Same kind, similar name (inside the parent, if any).
  const limit = Math.max(2, Math.ceil(name.length * 0.4));
  const similar = sameKindInScope
    .map((n) => ({ n, nm: nodeName(n, language) }))
    .filter((x): x is { n: Node; nm: string } => !!x.nm)
    .map((x) => ({ ...x, d: distance(x.nm.toLowerCase(), name.toLowerCase()) }))
    .filter(
      (x) =>
        x.d <= limit ||
        x.nm.toLowerCase().includes(name.toLowerCase()) ||
        name.toLowerCase().includes(x.nm.toLowerCase()),
    )
    .sort((a, b) => a.d - b.d);
  for (const { n, nm } of similar.slice(0, 5))
    out.push({ kind: kindLabel, name: nm, line: n.startPosition.row + 1, reason: "similar_name" });
  // Same kind and name, but outside the parent.
  if (locator.parent) {
    for (const n of ofKind(tree.rootNode, spec, language)) {
      if (
        nodeNames(n, language).includes(name) &&
        !scopes.some((s) => s.startIndex <= n.startIndex && n.endIndex <= s.endIndex)
      ) {
        out.push({ kind: kindLabel, name, line: n.startPosition.row + 1, reason: "outside_parent" });
      }
    }
  }
  out.push(...otherKinds(tree, language, locator));
  return dedupe(out).slice(0, 10);
}

/** Definitions of other kinds with the locator's name (an LLM said `function` for a method). */
function otherKinds(tree: Tree, language: LanguageId, locator: Structured): Candidate[] {
  if (locator.name === undefined) return [];
  const name = locator.name;
  const out: Candidate[] = [];
  const defs = descendants(tree.rootNode, Object.keys(LANGUAGES[language].definitions));
  for (const n of defs) {
    if (!nodeNames(n, language).includes(name)) continue;
    const kind = kindOfNode(n, language);
    if (kind === locator.kind) continue;
    out.push({ kind, name: nodeName(n, language) ?? name, line: n.startPosition.row + 1, reason: "other_kind" });
  }
  return out;
}

function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => {
    const key = `${c.kind}\u0000${c.name}\u0000${c.line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function parseLocator(locator: unknown): Locator {
  const parsed = LocatorSchema.safeParse(locator);
  if (!parsed.success) {
    const issues = locatorIssues(locator);
    throw new InvalidLocator(locator, issues.length ? issues : formatIssues(parsed.error));
  }
  return parsed.data;
}

interface Resolved {
  readonly locator: Locator;
  readonly resolution: Resolution;
}

/** Resolutions per tree, keyed by language and locator JSON: a locator is resolved once per tree. */
const resolutions = new WeakMap<Tree, Map<string, Resolved>>();
const RESOLUTIONS_PER_TREE = 512;

function cacheKey(language: LanguageId, locator: unknown): string | undefined {
  try {
    return `${language}\u0000${JSON.stringify(locator)}`;
  } catch {
    return undefined;
  }
}

function resolveAny(tree: Tree, language: LanguageId, locator: unknown): Resolved {
  const key = cacheKey(language, locator);
  let cache = resolutions.get(tree);
  const hit = key === undefined ? undefined : cache?.get(key);
  if (hit) return hit;
  const valid = parseLocator(locator);
  const resolution =
    "type" in valid && valid.type === "sexp"
      ? resolveSexp(tree, language, valid)
      : resolveStructured(tree, language, valid.file, valid as Structured);
  let candidates: Candidate[] | undefined;
  const resolved: Resolved = {
    locator: valid,
    resolution: resolution.candidates
      ? { ...resolution, candidates: () => (candidates ??= resolution.candidates!()) }
      : resolution,
  };
  if (key !== undefined) {
    if (!cache) {
      cache = new Map();
      resolutions.set(tree, cache);
    }
    if (cache.size >= RESOLUTIONS_PER_TREE) cache.delete(cache.keys().next().value!);
    cache.set(key, resolved);
  }
  return resolved;
}

/**
 * Every node the locator matches, in document order (after `field`, `nth_child` and `index`).
 * An empty array when nothing matches. Throws `UnknownKind`, `InvalidQuery` or
 * `InvalidLocator` when the locator itself is wrong. `source` must be the text `tree` was
 * parsed from (it is accepted for symmetry with {@link resolveOne}; names come from the tree).
 */
export function resolveLocator(tree: Tree, _source: string, language: LanguageId, locator: Locator | unknown): Node[] {
  return [...resolveAny(tree, language, locator).resolution.nodes];
}

/**
 * All matches, at least one: throws `LocatorNotFound` (with candidates: same kind with similar
 * names, other kinds with the same name, matches outside the parent) when none matches.
 */
export function resolveSome(tree: Tree, source: string, language: LanguageId, locator: Locator | unknown): Node[] {
  const { locator: valid, resolution } = resolveAny(tree, language, locator);
  if (resolution.nodes.length === 0) {
    throw new LocatorNotFound(valid.file, valid, resolution.candidates?.() ?? [], resolution.reason);
  }
  void source;
  return [...resolution.nodes];
}

/** Exactly one match: `LocatorNotFound` for none, `LocatorAmbiguous` (matches with lines) for several. */
export function resolveOne(tree: Tree, source: string, language: LanguageId, locator: Locator | unknown): Node {
  const nodes = resolveSome(tree, source, language, locator);
  if (nodes.length > 1) {
    throw new LocatorAmbiguous((locator as Locator).file, locator as Locator, nodes.map(describeMatch));
  }
  return nodes[0]!;
}

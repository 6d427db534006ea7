/**
 * Structured locators for a given node, as an LLM would write them: a definition by kind and
 * name (inside its enclosing definitions when the name is not unique), a field of such a node,
 * a node by kind (and name) inside its enclosing definition with an `index` when several
 * match, or the n-th child of an addressable node. Never line numbers or offsets. Every
 * locator returned is checked against the tree: it resolves to exactly the node.
 */
import { fieldOf, LANGUAGES, type LanguageId } from "@graphplan/graph";
import {
  codeChildren,
  kindOfNode,
  NORMALIZED_KINDS,
  nodeName,
  resolveLocator,
  type StructuredLocator,
} from "@graphplan/locators";
import type { Node, Tree } from "web-tree-sitter";

/** A locator without `file` (the shape of `parent`). */
export type Loc = Omit<StructuredLocator, "file" | "parent"> & { parent?: Loc };

export interface LocateContext {
  readonly tree: Tree;
  readonly source: string;
  readonly language: LanguageId;
  readonly file: string;
}

const isDefinition = (n: Node, language: LanguageId): boolean => !!LANGUAGES[language].definitions[n.type];

function definitionName(n: Node, language: LanguageId): string | undefined {
  const rule = LANGUAGES[language].definitions[n.type];
  if (!rule) return undefined;
  return (rule.name ? rule.name(n) : n.childForFieldName("name")?.text) ?? undefined;
}

/** Innermost enclosing definition of `n` (not `n` itself). */
function enclosingDefinition(n: Node, language: LanguageId): Node | undefined {
  for (let p = n.parent; p; p = p.parent) if (isDefinition(p, language) && definitionName(p, language)) return p;
  return undefined;
}

const withFile = (loc: Loc, file: string): StructuredLocator => ({ ...loc, file }) as StructuredLocator;

function resolve(ctx: LocateContext, loc: Loc): Node[] {
  try {
    return resolveLocator(ctx.tree, ctx.source, ctx.language, withFile(loc, ctx.file));
  } catch {
    return [];
  }
}

/** Whether a resolved node stands for `target` (same range; a decorated definition by its definition). */
function standsFor(resolved: Node, target: Node): boolean {
  if (resolved.startIndex === target.startIndex && resolved.endIndex === target.endIndex) return true;
  return (
    target.type === "decorated_definition" && resolved.parent?.id === target.id && resolved.endIndex === target.endIndex
  );
}

/** `loc` if it resolves to `target` alone, else with the `index` that picks it, else undefined. */
function pin(ctx: LocateContext, loc: Loc, target: Node): Loc | undefined {
  const found = resolve(ctx, loc);
  const at = found.findIndex((n) => standsFor(n, target));
  if (at < 0) return undefined;
  if (found.length === 1) return loc;
  const pinned = { ...loc, index: at };
  const again = resolve(ctx, pinned);
  return again.length === 1 && standsFor(again[0]!, target) ? pinned : undefined;
}

/** The locator of a definition: kind and name, inside its enclosing definitions when needed. */
function definitionLocator(ctx: LocateContext, def: Node, cache: Map<number, Loc | null>): Loc | undefined {
  const cached = cache.get(def.id);
  if (cached !== undefined) return cached ?? undefined;
  const name = definitionName(def, ctx.language);
  let result: Loc | undefined;
  if (name) {
    const kind = kindOfNode(def, ctx.language);
    const bare: Loc = { kind, name };
    const found = resolve(ctx, bare);
    if (found.length === 1 && standsFor(found[0]!, def)) result = bare;
    else {
      const outer = enclosingDefinition(def, ctx.language);
      const parent = outer ? definitionLocator(ctx, outer, cache) : undefined;
      const scoped: Loc = parent ? { kind, name, parent } : bare;
      result = pin(ctx, scoped, def);
    }
  }
  cache.set(def.id, result ?? null);
  return result;
}

/** Normalized kinds whose node types include `type`, the narrowest first, then the raw node type. */
function kindsFor(node: Node, language: LanguageId): string[] {
  const table = NORMALIZED_KINDS[language];
  const normalized = Object.entries(table)
    .filter(([, types]) => types.includes(node.type))
    .sort((a, b) => a[1].length - b[1].length)
    .map(([kind]) => kind);
  const narrow = normalized.filter((k) => (table[k]?.length ?? 0) <= 3);
  const broad = normalized.filter((k) => (table[k]?.length ?? 0) > 3);
  return [...new Set([...narrow, node.type, ...broad])];
}

const simpleName = (name: string | undefined): name is string =>
  !!name && name.length <= 80 && !name.includes("\n") && name.trim() === name && name.length > 0;

/** A short, readable name for the locator, when the node has one. */
function nameOf(node: Node, language: LanguageId): string | undefined {
  const name = nodeName(node, language);
  return simpleName(name) ? name : undefined;
}

/**
 * Locators that resolve to `node` alone, the most readable first (at most `limit`).
 * Empty when the node cannot be addressed (an anonymous token, an ERROR node).
 */
export function locatorsFor(ctx: LocateContext, node: Node, limit = 3): StructuredLocator[] {
  const out: Loc[] = [];
  const cache = new Map<number, Loc | null>();
  const push = (loc: Loc | undefined): boolean => {
    if (loc && !out.some((o) => JSON.stringify(o) === JSON.stringify(loc))) out.push(loc);
    return out.length >= limit;
  };
  if (!node.isNamed || node.type === "ERROR") return [];
  const language = ctx.language;

  // A definition (a decorated one by its definition).
  const def = node.type === "decorated_definition" ? node.childForFieldName("definition") : node;
  if (def && isDefinition(def, language) && push(definitionLocator(ctx, def, cache)))
    return out.map((l) => withFile(l, ctx.file));
  if (node.id === ctx.tree.rootNode.id) return [withFile({}, ctx.file)];

  const scope = enclosingDefinition(node, language);
  const scopeLoc = scope ? definitionLocator(ctx, scope, cache) : undefined;
  if (scope && !scopeLoc) return out.map((l) => withFile(l, ctx.file));
  const inScope = (loc: Loc): Loc => (scopeLoc ? { ...loc, parent: scopeLoc } : loc);

  // A field of an addressable parent (the condition of an if, the body of a function, ...).
  const parent = node.parent;
  if (parent) {
    const field = fieldOf(node);
    if (field) {
      const parentDef = parent.type === "decorated_definition" ? parent.childForFieldName("definition") : parent;
      let parentLoc: Loc | undefined;
      if (parentDef && isDefinition(parentDef, language)) parentLoc = definitionLocator(ctx, parentDef, cache);
      else parentLoc = kindLocator(ctx, parent, inScope);
      if (parentLoc && parentLoc.field === undefined && parentLoc.nth_child === undefined) {
        // `index` applies after `field` (among the matches that have the field): `pin` sets it anew.
        const { index: _index, ...rest } = parentLoc;
        if (push(pin(ctx, { ...rest, field }, node))) return out.map((l) => withFile(l, ctx.file));
      }
    }
  }

  // By kind (and name) inside the enclosing definition.
  if (push(kindLocator(ctx, node, inScope))) return out.map((l) => withFile(l, ctx.file));

  // The n-th code child of an addressable parent.
  if (parent && out.length === 0) {
    const children = codeChildren(parent, language);
    const at = children.findIndex((c) => c.id === node.id);
    if (at >= 0) {
      const parentDef = parent.type === "decorated_definition" ? parent.childForFieldName("definition") : parent;
      const parentLoc =
        parentDef && isDefinition(parentDef, language)
          ? definitionLocator(ctx, parentDef, cache)
          : kindLocator(ctx, parent, inScope);
      if (parentLoc && parentLoc.nth_child === undefined) {
        const { index: _index, ...rest } = parentLoc;
        const nth = at === children.length - 1 ? -1 : at;
        push(pin(ctx, { ...rest, nth_child: nth }, node));
      }
    }
  }
  return out.map((l) => withFile(l, ctx.file));
}

/** `{kind, name?}` inside the scope, pinned with `index` when needed. */
function kindLocator(ctx: LocateContext, node: Node, inScope: (loc: Loc) => Loc): Loc | undefined {
  const name = nameOf(node, ctx.language);
  // An expression statement holding one expression is also found by that expression's kind.
  const only = node.type === "expression_statement" && node.namedChildCount === 1 ? node.namedChild(0) : null;
  const targets: Node[] = only ? [node, only] : [node];
  for (const target of targets) {
    const targetName = target === node ? name : nameOf(target, ctx.language);
    for (const kind of kindsFor(target, ctx.language)) {
      if (targetName) {
        const named = pin(ctx, inScope({ kind, name: targetName }), node);
        if (named) return named;
      }
      const plain = pin(ctx, inScope({ kind }), node);
      if (plain) return plain;
    }
  }
  return undefined;
}

/** A short label of a locator's addressing, for the report: `kind` plus `+name`, `+parent`, `+field`, `+nth_child`, `+index`. */
export function locatorLabel(locator: Record<string, unknown>): string {
  const kind = typeof locator.kind === "string" ? locator.kind : locator.name !== undefined ? "(named)" : "(file)";
  const marks = ["field", "nth_child", "index"].filter((k) => locator[k] !== undefined).map((k) => `+${k}`);
  return [kind, ...marks].join("");
}

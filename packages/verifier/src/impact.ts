/**
 * Check `importers`: cross-file impact through the import graph. A step that renames, removes or
 * re-signatures a symbol that files outside the plan import gets a warning naming them.
 */
import { LANGUAGES, type Graph } from "@graphplan/graph";
import { isLocatorError, resolveLocator } from "@graphplan/locators";
import type { Node } from "web-tree-sitter";
import type { Report } from "./checks.js";
import { mayReferTo } from "./modules.js";
import { newSpans, type Span } from "./regions.js";
import type { FileVersion, FileChange, Sim } from "./sim.js";

interface Def {
  readonly name: string;
  /** Enclosing definitions' names, outermost first (a method's class). */
  readonly owners: readonly string[];
  readonly signature: string | undefined;
  readonly start: number;
}

const squash = (s: string): string =>
  s
    .replace(/\s+/g, " ")
    .replace(/\s*([(),:=])\s*/g, "$1")
    .trim();

function defName(doc: FileVersion, node: Node): string | null {
  const rule = LANGUAGES[doc.language].definitions[node.type];
  if (!rule) return null;
  return rule.name ? rule.name(node) : (node.childForFieldName("name")?.text ?? null);
}

function describe(doc: FileVersion, node: Node): Def | undefined {
  const name = defName(doc, node);
  if (!name) return undefined;
  const owners: string[] = [];
  for (let p = node.parent; p; p = p.parent) {
    const owner = defName(doc, p);
    if (owner) owners.unshift(owner);
  }
  const params =
    node.childForFieldName("parameters") ??
    node.childForFieldName("declarator")?.childForFieldName("parameters") ??
    null;
  return { name, owners, signature: params ? squash(params.text) : undefined, start: node.startIndex };
}

/** Definitions that a set of spans touch: inside them, or containing them. */
function touched(doc: FileVersion, spans: readonly Span[]): Map<string, Def> {
  const types = Object.keys(LANGUAGES[doc.language].definitions);
  const out = new Map<string, Def>();
  const add = (node: Node | null) => {
    if (!node || !LANGUAGES[doc.language].definitions[node.type]) return;
    const def = describe(doc, node);
    if (def) out.set([...def.owners, def.name].join("."), def);
  };
  for (const span of spans) {
    const end = Math.max(span.start, span.end);
    // Definitions inside the span are below the smallest node holding it; the ones holding it are its ancestors.
    const holder = doc.tree.rootNode.descendantForIndex(span.start, Math.max(span.start, end - 1)) ?? doc.tree.rootNode;
    for (const node of holder.descendantsOfType(types, doc.position(span.start), doc.position(end))) {
      if (node && node.endIndex > span.start && node.startIndex <= end) add(node);
    }
    for (let n: Node | null = holder; n; n = n.parent) add(n);
  }
  return out;
}

export interface SymbolChange {
  readonly kind: "removed" | "renamed" | "signature";
  readonly name: string;
  readonly owners: readonly string[];
  readonly detail: string;
}

/** What a change did to the definitions it touched. */
export function symbolChanges(change: FileChange): SymbolChange[] {
  const before = touched(
    change.before,
    change.edits.map((e) => ({ start: e.start, end: e.end })),
  );
  const after = touched(change.after, newSpans(change.edits));
  const out: SymbolChange[] = [];
  const gone = [...before].filter(([key]) => !after.has(key));
  const fresh = [...after].filter(([key]) => !before.has(key));
  for (const [, def] of gone) {
    // A definition of the same owners at the same place under another name: a rename.
    const twin = fresh.find(
      ([, d]) => d.owners.join(".") === def.owners.join(".") && Math.abs(d.start - def.start) <= 2,
    );
    out.push(
      twin
        ? { kind: "renamed", name: def.name, owners: def.owners, detail: `renamed to '${twin[1].name}'` }
        : { kind: "removed", name: def.name, owners: def.owners, detail: "removed" },
    );
  }
  for (const [key, def] of before) {
    const now = after.get(key);
    if (now && def.signature !== undefined && now.signature !== undefined && def.signature !== now.signature) {
      out.push({
        kind: "signature",
        name: def.name,
        owners: def.owners,
        detail: `signature changed from ${def.signature} to ${now.signature}`,
      });
    }
  }
  return out;
}

export function checkImpact(
  change: FileChange,
  sim: Sim,
  graph: Graph,
  planFiles: ReadonlySet<string>,
  report: Report,
): void {
  const file = change.before.path;
  for (const c of symbolChanges(change)) {
    // Files import top-level names: a method's change reaches them through its class.
    const imported = c.owners[0] ?? c.name;
    const still = c.kind !== "removed" && c.kind !== "renamed" ? false : stillDefined(change.after, imported, c);
    if (still) continue;
    const importers = [
      ...new Set(
        graph.imports
          .filter(
            (i) =>
              i.symbol === imported &&
              i.file !== file &&
              !planFiles.has(i.file) &&
              mayReferTo(i.module, i.file, file, sim, graph),
          )
          .map((i) => i.file),
      ),
    ];
    if (importers.length === 0) continue;
    const what = c.owners.length
      ? `'${[...c.owners, c.name].join(".")}' (${c.detail}; its ${c.owners.length === 1 ? "class" : "owner"} '${imported}'`
      : `'${c.name}' (${c.detail}`;
    report({
      check: "importers",
      severity: "warning",
      file,
      message: `${what}) is imported by files not in this plan: [${importers.map((f) => `'${f}'`).join(", ")}]`,
      fix:
        c.kind === "signature"
          ? `add steps that update the calls in ${importers.join(", ")}, or keep the old parameters working (defaults)`
          : `add steps that update ${importers.join(", ")}, or keep '${c.name}' available (an alias)`,
    });
  }
}

/**
 * A removed/renamed method still matters; a removed top-level name defined again elsewhere in the
 * file does not. Top-level: a child of the root, or the definition inside one (a decorated or
 * exported definition). Looks only at the definitions around the name's occurrences.
 */
function stillDefined(doc: FileVersion, imported: string, c: SymbolChange): boolean {
  if (c.owners.length) return false;
  const rules = LANGUAGES[doc.language].definitions;
  const root = doc.tree.rootNode;
  let candidates: Node[];
  try {
    candidates = resolveLocator(doc.tree, doc.source, doc.language, { file: doc.path, name: imported });
  } catch (error) {
    if (isLocatorError(error)) return false;
    throw error;
  }
  return candidates.some((def) => {
    const parent = def.parent;
    if (!parent) return false;
    const topLevel = parent.id === root.id || (parent.parent?.id === root.id && !rules[parent.type]);
    return topLevel && defName(doc, def) === imported;
  });
}

/**
 * A file the plan deletes (or renames away) that files outside the plan import: their imports
 * break (an ImportError in Python), so it is an error naming each import, and, for a rename, the
 * module path to import instead.
 */
export function checkDeletedFile(
  file: string,
  renamedTo: string | undefined,
  sim: Sim,
  graph: Graph,
  planFiles: ReadonlySet<string>,
  report: Report,
): void {
  const imports = graph.imports.filter(
    (i) => i.file !== file && !planFiles.has(i.file) && mayReferTo(i.module, i.file, file, sim, graph),
  );
  if (imports.length === 0) return;
  const listed = imports.map((i) => `${i.file} line ${i.line} (${i.module}${i.symbol ? `: ${i.symbol}` : ""})`);
  report({
    check: "importers",
    severity: "error",
    file,
    message: `${renamedTo ? `renaming ${file} to ${renamedTo}` : `deleting ${file}`} breaks imports of files not in this plan: ${listed.join("; ")}`,
    fix: `add steps that change those imports${renamedTo ? ` to the new module (${renamedTo})` : ""}, or keep ${file}`,
  });
}

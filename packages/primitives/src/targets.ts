/**
 * Which text an edit of a node really covers: the decorators, `export` and sole-declaration
 * wrappers around it, the comma that separates it, the whole lines it occupies alone.
 */
import type { Node, Tree } from "web-tree-sitter";
import { codeEnd, LANGUAGES, type LanguageId } from "@graphplan/graph";
import { codeChildren } from "@graphplan/locators";
import { lineEnd, lineStart, startsLine, endsLine } from "./indent.js";

const JS_LIKE: readonly LanguageId[] = ["javascript", "typescript", "tsx"];
const DECLARATOR_WRAPPERS: Readonly<Record<string, readonly string[]>> = {
  variable_declarator: [
    "lexical_declaration",
    "variable_declaration",
    "local_variable_declaration",
    "field_declaration",
  ],
  init_declarator: ["declaration"],
  type_spec: ["type_declaration"],
  type_alias: ["type_declaration"],
  var_spec: ["var_declaration"],
  const_spec: ["const_declaration"],
};

const sameTypeChildren = (parent: Node, type: string): number =>
  parent.namedChildren.filter((c) => c?.type === type).length;

/**
 * The node as a statement: a decorated Python definition with its decorators, an exported
 * declaration with `export`, a sole declarator with its declaration, a call or assignment
 * with its expression statement.
 */
export function outerNode(node: Node, language: LanguageId): Node {
  let n = node;
  for (;;) {
    const p = n.parent;
    if (!p) return n;
    if (language === "python" && p.type === "decorated_definition") {
      n = p;
      continue;
    }
    if (
      JS_LIKE.includes(language) &&
      p.type === "export_statement" &&
      p.childForFieldName("declaration")?.id === n.id
    ) {
      n = p;
      continue;
    }
    if (DECLARATOR_WRAPPERS[n.type]?.includes(p.type) && sameTypeChildren(p, n.type) === 1) {
      n = p;
      continue;
    }
    if (p.type === "expression_statement" && codeChildren(p, language).length === 1) {
      n = p;
      continue;
    }
    if (language === "cpp" && p.type === "template_declaration" && p.lastNamedChild?.id === n.id) {
      n = p;
      continue;
    }
    return n;
  }
}

/** Start of a node including the decorators/attributes that are its preceding siblings (JS/TS class members, Rust items). */
export function attachedStart(node: Node, language: LanguageId): number {
  const attached = JS_LIKE.includes(language) ? "decorator" : language === "rust" ? "attribute_item" : undefined;
  let start = node.startIndex;
  if (!attached) return start;
  for (let p = node.previousNamedSibling; p && p.type === attached; p = p.previousNamedSibling) start = p.startIndex;
  return start;
}

/** End of a node's code: without trailing comments, with the `;` that ends a C/C++ struct/class/enum specifier. */
export function codeEndIndex(node: Node, language: LanguageId): number {
  let end = codeEnd(node, language).endIndex;
  const next = node.nextSibling;
  if (next && !next.isNamed && next.type === ";" && node.type.endsWith("_specifier")) end = next.endIndex;
  return end;
}

/** True when a comment (and nothing else) follows `index` on its line. */
export function onlyCommentAfter(tree: Tree, source: string, language: LanguageId, index: number): boolean {
  const rest = source.slice(index, lineEnd(source, index));
  const offset = rest.search(/\S/);
  if (offset < 0) return true;
  const node = tree.rootNode.descendantForIndex(index + offset);
  if (!node) return false;
  const comments = LANGUAGES[language].commentTypes;
  for (let n: Node | null = node; n; n = n.parent) {
    if (comments.includes(n.type))
      return (
        n.startIndex === index + offset &&
        n.endIndex >= lineEnd(source, index) - (source[lineEnd(source, index) - 1] === "\r" ? 1 : 0)
      );
  }
  return false;
}

const isBlankLine = (source: string, start: number): boolean =>
  source.slice(start, lineEnd(source, start)).trim() === "";

/** Blank lines immediately before the line starting at `start`: the offset of the first one and their count. */
function blankRunBefore(source: string, start: number): { from: number; count: number } {
  let from = start;
  let count = 0;
  while (from > 0) {
    const prev = lineStart(source, from - 1);
    if (!isBlankLine(source, prev)) break;
    from = prev;
    count++;
  }
  return { from, count };
}

/** Blank lines starting at `start`: the offset after the last one and their count. */
function blankRunAfter(source: string, start: number): { to: number; count: number } {
  let to = start;
  let count = 0;
  while (to < source.length && isBlankLine(source, to)) {
    const end = lineEnd(source, to);
    to = end < source.length ? end + 1 : end;
    count++;
  }
  return { to, count };
}

export interface Range {
  readonly start: number;
  readonly end: number;
}

/**
 * The text to remove for deleting `[start, end)`: the whole lines when the range occupies them
 * alone, then the blank lines that would be left doubled (at the end of the file, after a block
 * opener, or more than were there before the node).
 */
export function deletionRange(source: string, start: number, end: number): Range {
  if (!(startsLine(source, start) && endsLine(source, end))) {
    // Inline: also take the spaces before the node when nothing follows it on the line.
    let s = start;
    if (endsLine(source, end)) while (s > 0 && (source[s - 1] === " " || source[s - 1] === "\t")) s--;
    if (s > 0 && source[s - 1] === "\n") s = start;
    return { start: s, end };
  }
  const ls = lineStart(source, start);
  const le = lineEnd(source, end);
  let delStart = ls;
  let delEnd = le < source.length ? le + 1 : le;
  const before = blankRunBefore(source, ls);
  const after = blankRunAfter(source, delEnd);
  if (after.to >= source.length && source.slice(delEnd).trim() === "") {
    // Last thing in the file: drop the blank lines around it, keep the final newline.
    delStart = before.from;
    delEnd = source.length;
    return { start: delStart, end: delEnd };
  }
  if (before.count > 0 && after.count > 0) {
    const drop = Math.min(before.count, after.count);
    let to = delEnd;
    for (let i = 0; i < drop; i++) {
      const e = lineEnd(source, to);
      to = e < source.length ? e + 1 : e;
    }
    delEnd = to;
  } else if (
    before.count > 0 &&
    after.count === 0 &&
    /^\s*(\}|\)|\]|end\b)/.test(source.slice(delEnd, lineEnd(source, delEnd)))
  ) {
    // Last member of a block: no blank line before the closing brace/`end`.
    delStart = before.from;
  } else if (before.count === 0 && after.count > 0 && ls === 0) {
    delEnd = after.to;
  } else if (before.count === 0 && after.count > 0 && ls > 0) {
    const prevLine = source.slice(lineStart(source, ls - 1), ls - 1).trimEnd();
    if (/[:{([]$/.test(prevLine)) delEnd = after.to;
  }
  return { start: delStart, end: delEnd };
}

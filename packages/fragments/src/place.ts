/**
 * Putting a block of statements at a node: indentation taken from the target location, lines
 * inside multi-line strings left alone, trailing comments of the target kept (codeEnd).
 * Shared by fragments (tier 3), templates (tier 2) and surgery (tier 1).
 */
import { codeEnd, LANGUAGES, withTree, type LanguageId, type Node } from "@graphplan/graph";
import { indentUnit, lineIndent, normalizeCode, type Edit } from "@graphplan/primitives";

export type PlaceAction = "replace" | "insert_before" | "insert_after";

/** Line numbers (0-based) of `code` that start inside a multi-line string: re-indenting them would change the string. */
function frozenLines(code: string, language: LanguageId | undefined): Set<number> {
  const frozen = new Set<number>();
  if (!language || !code.includes("\n")) return frozen;
  const stringTypes = LANGUAGES[language].stringTypes;
  withTree(code, language, (tree) => {
    const starts: number[] = [];
    let at = 0;
    for (const line of code.split("\n")) {
      starts.push(at);
      at += line.length + 1;
    }
    const visit = (node: Node): void => {
      if (node.endPosition.row === node.startPosition.row) return;
      if (stringTypes.includes(node.type)) {
        for (let row = node.startPosition.row + 1; row <= node.endPosition.row; row++) frozen.add(row);
        return;
      }
      for (const child of node.namedChildren) if (child) visit(child);
    };
    visit(tree.rootNode);
  });
  return frozen;
}

/**
 * Prefixes a (possibly multi-line) logical line of serialized code with `prefix`. When the line holds
 * a string that may span lines (`multilineString` matches it), its continuation lines are left as
 * written (re-indenting them would change the string); blank lines stay empty.
 */
export function indentLine(line: string, prefix: string, multilineString: RegExp): string {
  if (!line.includes("\n")) return line === "" ? "" : prefix + line;
  if (multilineString.test(line)) {
    const [first, ...rest] = line.split("\n");
    return [prefix + first, ...rest].join("\n");
  }
  return line
    .split("\n")
    .map((l) => (l.trim() === "" ? "" : prefix + l))
    .join("\n");
}

/**
 * Re-indents a block: strips its common indentation and prefixes every line with `indent`
 * (the first line too). Lines inside multi-line strings are kept as they are when `language` is given.
 */
export function reindent(code: string, indent: string, language?: LanguageId, unit?: () => string): string {
  // The file's conventions first: no trailing whitespace, the file's indentation character.
  const fileUnit =
    unit ??
    (indent.includes("\t")
      ? () => "\t"
      : indent.length > 0
        ? () => (indent.length % 4 === 0 ? "    " : indent.length % 2 === 0 ? "  " : " ")
        : undefined);
  const text = normalizeCode(code, fileUnit, language)
    .code.replace(/\r\n/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .replace(/\s+$/, "");
  const lines = text.split("\n");
  const frozen = frozenLines(text, language);
  let common: string | undefined;
  lines.forEach((line, row) => {
    if (frozen.has(row) || line.trim() === "") return;
    const lead = /^[ \t]*/.exec(line)![0];
    if (common === undefined) common = lead;
    else {
      let i = 0;
      while (i < common.length && i < lead.length && common[i] === lead[i]) i++;
      common = common.slice(0, i);
    }
  });
  const cut = common?.length ?? 0;
  return lines
    .map((line, row) => (frozen.has(row) ? line : line.trim() === "" ? "" : indent + line.slice(cut)))
    .join("\n");
}

/** The node's text as a block whose first line carries the node's column, so {@link reindent} sees its real shape. */
export function nodeBlock(source: string, node: Node, language: LanguageId): string {
  const end = codeEnd(node, language).endIndex;
  const lineStart = source.lastIndexOf("\n", node.startIndex - 1) + 1;
  const before = source.slice(lineStart, node.startIndex);
  const lead = before.trim() === "" ? before : " ".repeat(node.startPosition.column);
  return lead + source.slice(node.startIndex, end);
}

/**
 * The statement-level node to place code around: a decorated definition instead of its inner
 * def/class; with `exported`, a JavaScript/TypeScript `export` statement instead of the declaration
 * it exports (code inserted before `export function f` goes before `export`, not between the two).
 */
export function statementOf(node: Node, options: { readonly exported?: boolean } = {}): Node {
  const parent = node.parent;
  if (parent?.type === "decorated_definition" && parent.childForFieldName("definition")?.id === node.id) return parent;
  if (
    options.exported &&
    parent?.type === "export_statement" &&
    parent.childForFieldName("declaration")?.id === node.id
  )
    return parent;
  return node;
}

export interface PlaceOptions {
  /** Blank lines between the code and the node for insertions (e.g. 1 between methods, 2 between top-level Python definitions). */
  readonly blankLines?: number;
}

/**
 * The edit that puts `code` (a block, any indentation) at `node`: replacing it, or as new lines
 * before / after it, indented like the node's line. The replaced range ends at `codeEnd` so
 * comments after a definition survive.
 */
export function placeBlock(
  source: string,
  language: LanguageId,
  node: Node,
  action: PlaceAction,
  code: string,
  options: PlaceOptions = {},
): Edit {
  const indent = lineIndent(source, node.startIndex);
  let unit: string | undefined;
  const body = reindent(code, indent, language, () => (unit ??= indentUnit(source, language))).slice(indent.length);
  const end = codeEnd(node, language).endIndex;
  const gap = "\n".repeat(options.blankLines ?? 0);
  switch (action) {
    case "replace":
      return { start: node.startIndex, end, text: body };
    case "insert_before":
      return { start: node.startIndex, end: node.startIndex, text: `${body}\n${gap}${indent}` };
    case "insert_after":
      return { start: end, end, text: `\n${gap}${indent}${body}` };
  }
}

const DEFINITIONS = new Set([
  "function_definition",
  "class_definition",
  "decorated_definition",
  "function_declaration",
  "generator_function_declaration",
  "class_declaration",
  "abstract_class_declaration",
  "method_definition",
  "interface_declaration",
]);

/** True for function, class and method definitions (which get blank lines around them). */
export function isDefinition(node: Node): boolean {
  return (
    DEFINITIONS.has(node.type) ||
    (node.type === "export_statement" && DEFINITIONS.has(node.childForFieldName("declaration")?.type ?? ""))
  );
}

/** Blank lines that separate a definition placed next to `node`: 2 at Python module level (PEP 8), else 1. */
export function definitionGap(node: Node, language: LanguageId): number {
  return language === "python" && node.parent?.type === "module" ? 2 : 1;
}

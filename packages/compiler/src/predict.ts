/**
 * A cheap forecast of what a primitive step will write, so that the compiler runs the engine
 * (two parses of the file) only on candidates that can be exact. The forecast follows the
 * primitives' documented behaviour (re-indentation with `placements`, the anchor's code end,
 * the separator rules) using their exported helpers; it is a filter, never the judge: every
 * accepted step is still run by the engine.
 */
import { codeEnd, type LanguageId } from "@graphplan/graph";
import { deleteEditsFor, lineIndent, outerNode, placements, type Edit, type ParsedDoc } from "@graphplan/primitives";
import type { Node } from "web-tree-sitter";

const isBlank = (line: string): boolean => line.trim() === "";

function trimBlankLines(code: string): { code: string; leading: number } {
  const lines = code.replace(/\r\n/g, "\n").split("\n");
  let leading = 0;
  while (lines.length > 1 && isBlank(lines[0]!)) {
    lines.shift();
    leading++;
  }
  while (lines.length > 1 && isBlank(lines[lines.length - 1]!)) lines.pop();
  return { code: lines.join("\n"), leading };
}

const lineStart = (s: string, i: number): number => s.lastIndexOf("\n", i - 1) + 1;
const lineEnd = (s: string, i: number): number => {
  const e = s.indexOf("\n", i);
  return e < 0 ? s.length : e;
};
const startsLine = (s: string, i: number): boolean => s.slice(lineStart(s, i), i).trim() === "";

const COMMENT_START: Partial<Record<LanguageId, RegExp>> = { python: /^#/, ruby: /^#/ };

function onlyCommentAfter(source: string, language: LanguageId, index: number): boolean {
  const rest = source.slice(index, lineEnd(source, index)).trim();
  if (rest === "") return true;
  return (COMMENT_START[language] ?? /^(\/\/|\/\*)/).test(rest);
}

/** The edit replace_node would make on `node` with `replacement` (first indentation reading). */
export function predictReplace(doc: ParsedDoc, node: Node, replacement: string): Edit {
  const r = trimBlankLines(replacement).code;
  const head = r.trimStart();
  let target = node;
  const outer = outerNode(node, doc.language);
  if (outer.id !== node.id && head.startsWith("@") && outer.type === "decorated_definition") target = outer;
  const start = target.startIndex;
  const end = codeEnd(target, doc.language).endIndex;
  return { start, end, text: placements(r, lineIndent(doc.source, start))[0]! };
}

/** The edit insert_after_node would make after `node`. */
export function predictInsertAfter(doc: ParsedDoc, node: Node, code: string, separator: string): Edit {
  const anchor = outerNode(node, doc.language);
  const end = codeEnd(anchor, doc.language).endIndex;
  const { code: c, leading } = trimBlankLines(code);
  const indent = lineIndent(doc.source, anchor.startIndex);
  const pos =
    separator.startsWith("\n") && onlyCommentAfter(doc.source, doc.language, end) ? lineEnd(doc.source, end) : end;
  const lead = separator.endsWith("\n") ? `${"\n".repeat(leading)}${indent}` : "";
  return { start: pos, end: pos, text: `${separator}${lead}${placements(c, indent)[0]!}` };
}

/** The edit insert_before_node would make before `node`. */
export function predictInsertBefore(doc: ParsedDoc, node: Node, code: string, separator: string): Edit {
  const anchor = outerNode(node, doc.language);
  const start = anchor.startIndex;
  const { code: c, leading } = trimBlankLines(code);
  const indent = lineIndent(doc.source, start);
  const placed = placements(c, indent)[0]!;
  if (separator.includes("\n") && startsLine(doc.source, start)) {
    const pos = lineStart(doc.source, start);
    const sep = separator.endsWith("\n") ? separator : `${separator}\n`;
    return { start: pos, end: pos, text: `${"\n".repeat(leading)}${indent}${placed}${sep}` };
  }
  const tail = separator.endsWith("\n") ? indent : "";
  return { start, end: start, text: `${placed}${separator}${tail}` };
}

/** The edits delete_node would make. */
export function predictDelete(doc: ParsedDoc, node: Node): readonly Edit[] {
  return deleteEditsFor(doc, node);
}

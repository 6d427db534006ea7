/**
 * Tier 1 node surgery: copy, move, swap, reorder. Each computes edits from resolved locators;
 * code keeps its relative indentation and takes the indentation of where it lands.
 */
import { codeEnd, type LanguageId, type Node } from "@graphplan/graph";
import { codeChildren, nodeName } from "@graphplan/locators";
import { definitionGap, isDefinition, nodeBlock, placeBlock, reindent } from "@graphplan/fragments";
import { deleteEditsFor, lineIndent, outerNode, type Edit } from "@graphplan/primitives";
import { TransformRejected, type Target } from "../workspace.js";

const within = (outer: Node, inner: Node): boolean =>
  outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
const overlaps = (a: Node, b: Node): boolean => a.startIndex < b.endIndex && b.startIndex < a.endIndex;
const line = (n: Node): number => n.startPosition.row + 1;

/** The node as a unit that can be copied: a def with its decorators, an exported declaration with `export` (primitives' outerNode). */
export function unitOf(node: Node, language: LanguageId): Node {
  return outerNode(node, language);
}

/** The code of `node` as a block at column 0 (continuation lines keep their relative indentation). */
export function blockOf(target: Target): string {
  const node = unitOf(target.node, target.language);
  return reindent(nodeBlock(target.source, node, target.language), "", target.language);
}

/** The edits that delete a node the way the delete_node primitive does (decorators, separator, line; `pass` for an emptied Python block). */
export function deletionEdits(t: Target, node: Node = t.node): Edit[] {
  return deleteEditsFor({ path: t.file, source: t.source, language: t.language, tree: t.tree }, node);
}

export type Position = "before" | "after";

function insertion(target: Target, position: Position, code: string, moved: Target): Edit {
  const anchor = unitOf(target.node, target.language);
  const spaced = isDefinition(unitOf(moved.node, moved.language)) || isDefinition(anchor);
  return placeBlock(
    target.source,
    target.language,
    anchor,
    position === "before" ? "insert_before" : "insert_after",
    code,
    spaced ? { blankLines: definitionGap(anchor, target.language) } : {},
  );
}

function sameLanguage(op: string, a: Target, b: Target): void {
  if (a.language !== b.language)
    throw new TransformRejected(op, b.file, `cannot put ${a.language} code from ${a.file} into a ${b.language} file`);
}

export function copyNode(source: Target, target: Target, position: Position): [string, Edit][] {
  sameLanguage("copy_node", source, target);
  return [[target.file, insertion(target, position, blockOf(source), source)]];
}

export function moveNode(source: Target, target: Target, position: Position): [string, Edit][] {
  sameLanguage("move_node", source, target);
  const unit = unitOf(source.node, source.language);
  if (source.file === target.file && within(unit, target.node)) {
    throw new TransformRejected(
      "move_node",
      source.file,
      `the target (line ${line(target.node)}) is inside the node being moved (line ${line(unit)})`,
    );
  }
  const removal = deletionEdits(source);
  const insert = insertion(target, position, blockOf(source), source);
  if (source.file === target.file && removal.some((r) => insert.start > r.start && insert.start < r.end)) {
    throw new TransformRejected(
      "move_node",
      source.file,
      "the target is next to the moved node: moving it there changes nothing",
    );
  }
  return [...removal.map((r): [string, Edit] => [source.file, r]), [target.file, insert]];
}

/** Replaces `node` with `code` (a column-0 block) re-indented to the node's place, keeping the first line at the node's column. */
function replaceWith(target: Target, node: Node, code: string): Edit {
  return placeBlock(target.source, target.language, node, "replace", code);
}

export function swapNodes(first: Target, second: Target): [string, Edit][] {
  sameLanguage("swap_nodes", first, second);
  const a = unitOf(first.node, first.language);
  const b = unitOf(second.node, second.language);
  if (first.file === second.file && overlaps(a, b)) {
    throw new TransformRejected(
      "swap_nodes",
      first.file,
      `the two nodes overlap (lines ${line(a)} and ${line(b)}): one contains the other`,
    );
  }
  return [
    [first.file, replaceWith(first, a, blockOf(second))],
    [second.file, replaceWith(second, b, blockOf(first))],
  ];
}

/** The children `reorder_children` permutes: the body of a def/class, else the node's named non-comment children. */
export function reorderableChildren(target: Target): { container: Node; children: Node[] } {
  let container = target.node;
  const body =
    container.type === "decorated_definition"
      ? container.childForFieldName("definition")?.childForFieldName("body")
      : container.childForFieldName("body");
  if (
    body &&
    [
      "function_definition",
      "class_definition",
      "decorated_definition",
      "class_declaration",
      "function_declaration",
      "method_definition",
      "class",
      "abstract_class_declaration",
      "interface_declaration",
    ].includes(container.type)
  )
    container = body;
  return { container, children: codeChildren(container, target.language) };
}

function describeChild(node: Node, index: number, language: LanguageId): string {
  const name = nodeName(
    node.type === "decorated_definition" ? (node.childForFieldName("definition") ?? node) : node,
    language,
  );
  const text = node.text.split("\n")[0]!.trim();
  return `[${index}] ${name ? `${name}: ` : ""}${text.length > 50 ? `${text.slice(0, 47)}...` : text}`;
}

/** Permutes the children of a node. `order[i]` names the child that goes to slot i: its index, or its name. */
export function reorderChildren(target: Target, order: readonly (number | string)[]): Edit[] {
  const { children } = reorderableChildren(target);
  const listing = children.map((c, i) => describeChild(c, i, target.language)).join("; ");
  const reject = (reason: string): never => {
    throw new TransformRejected("reorder_children", target.file, `${reason}. The children are: ${listing}`);
  };
  if (children.length < 2)
    reject(`the node has ${children.length} child${children.length === 1 ? "" : "ren"}: nothing to reorder`);
  if (order.length !== children.length)
    reject(`order has ${order.length} entries but there are ${children.length} children; list every child once`);
  const names = children.map((c) =>
    nodeName(c.type === "decorated_definition" ? (c.childForFieldName("definition") ?? c) : c, target.language),
  );
  const indices = order.map((entry) => {
    if (typeof entry === "number") {
      if (!Number.isInteger(entry) || entry < 0 || entry >= children.length)
        reject(`index ${entry} is out of range 0..${children.length - 1}`);
      return entry;
    }
    const matches = names.flatMap((n, i) => (n === entry ? [i] : []));
    if (matches.length !== 1)
      reject(
        matches.length === 0
          ? `no child is named ${JSON.stringify(entry)}`
          : `${matches.length} children are named ${JSON.stringify(entry)}; use indices`,
      );
    return matches[0]!;
  });
  if (new Set(indices).size !== indices.length) reject("order lists a child twice; it must be a permutation");
  const edits: Edit[] = [];
  children.forEach((slot, i) => {
    const from = children[indices[i]!]!;
    if (from.id === slot.id) return;
    const code = reindent(nodeBlock(target.source, from, target.language), "", target.language);
    const indent = lineIndent(target.source, slot.startIndex);
    const text = reindent(code, indent, target.language).slice(indent.length);
    edits.push({ start: slot.startIndex, end: codeEnd(slot, target.language).endIndex, text });
  });
  return edits;
}

/**
 * add_method and add_class_attribute on Go, where a "class" is a named type: a method is a top-level
 * `func (r *T) Name(…)` placed after the type's last method in the file, a field is a line of the
 * struct, aligned as gofmt aligns a run of fields.
 */
import { withTree, type Node } from "@graphplan/graph";
import { placeBlock } from "@graphplan/fragments";
import type { Edit } from "@graphplan/primitives";
import { TransformRejected, type Target } from "../workspace.js";

const line = (node: Node): number => node.startPosition.row + 1;
const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);

/** The type a locator found (`{kind: "struct", name: "Cart"}` finds its type_spec). */
function typeSpec(t: Target, op: string): Node {
  const node =
    t.node.type === "type_declaration" && named(t.node).filter((n) => n.type === "type_spec").length === 1
      ? named(t.node).find((n) => n.type === "type_spec")!
      : t.node;
  if (node.type !== "type_spec")
    throw new TransformRejected(
      op,
      t.file,
      `the target (line ${line(t.node)}) is a ${t.node.type}, not a type; point the locator at a type: {"kind": "struct", "name": ...}`,
    );
  return node;
}

/** The name of the type a method's receiver has (`(c *Cart)`, `(c Cart[T])` → Cart). */
function receiverType(method: Node): string | undefined {
  let type = named(method.childForFieldName("receiver"))
    .find((n) => n.type === "parameter_declaration")
    ?.childForFieldName("type");
  while (type && (type.type === "pointer_type" || type.type === "generic_type" || type.type === "parenthesized_type"))
    type = type.type === "generic_type" ? type.childForFieldName("type") : named(type)[0];
  return type?.type === "type_identifier" ? type.text : undefined;
}

/** The methods of type `name` that the file declares, in source order. */
const methodsOf = (root: Node, name: string): Node[] =>
  named(root).filter((n) => n.type === "method_declaration" && receiverType(n) === name);

/** The field names of a struct type. */
function fieldNames(spec: Node): Map<string, Node> {
  const out = new Map<string, Node>();
  const list = named(spec.childForFieldName("type")).find((n) => n.type === "field_declaration_list");
  for (const field of named(list).filter((n) => n.type === "field_declaration")) {
    const names = field.childrenForFieldName("name").filter((n): n is Node => !!n);
    // An embedded field is named by its type.
    if (names.length === 0)
      out.set(field.childForFieldName("type")?.text.replace(/^\*/, "").split(".").pop() ?? "", field);
    for (const n of names) out.set(n.text, field);
  }
  return out;
}

/** A member (method or field) of the type named `member`, if the file declares one. */
function memberOf(t: Target, spec: Node, member: string): Node | undefined {
  const typeName = spec.childForFieldName("name")!.text;
  return (
    methodsOf(t.tree.rootNode, typeName).find((m) => m.childForFieldName("name")?.text === member) ??
    fieldNames(spec).get(member)
  );
}

export function goAddMethod(t: Target, code: string, after: string | undefined): Edit {
  const spec = typeSpec(t, "add_method");
  const typeName = spec.childForFieldName("name")!.text;
  const [receiver, name] = withTree(`package _p\n${code}\n`, "go", (tree) => {
    const fn = named(tree.rootNode).find((n) => n.type === "method_declaration" || n.type === "function_declaration");
    return [
      fn?.type === "method_declaration" ? receiverType(fn) : undefined,
      fn?.childForFieldName("name")?.text,
    ] as const;
  });
  if (receiver !== typeName) {
    throw new TransformRejected(
      "add_method",
      t.file,
      receiver
        ? `the method's receiver is ${receiver}, not ${typeName}`
        : `a Go method needs a receiver: func (x *${typeName}) ${name ?? "Name"}(…)`,
    );
  }
  const existing = name ? memberOf(t, spec, name) : undefined;
  if (existing)
    throw new TransformRejected(
      "add_method",
      t.file,
      `${typeName} already has a member named ${name} (line ${line(existing)}); change it with replace_function_body or replace_node`,
    );
  const methods = methodsOf(t.tree.rootNode, typeName);
  let anchor: Node = methods.at(-1) ?? spec.parent!;
  if (after !== undefined) {
    const found = methods.find((m) => m.childForFieldName("name")?.text === after);
    if (!found)
      throw new TransformRejected(
        "add_method",
        t.file,
        `${t.file} declares no method ${after} of ${typeName}${methods.length ? ` (it has ${methods.map((m) => m.childForFieldName("name")!.text).join(", ")})` : ""}`,
      );
    anchor = found;
  }
  return placeBlock(t.source, t.language, anchor, "insert_after", code, { blankLines: 1 });
}

export function goAddField(t: Target, name: string, type: string | undefined, value: string | undefined): Edit[] {
  const spec = typeSpec(t, "add_class_attribute");
  const typeName = spec.childForFieldName("name")!.text;
  if (value !== undefined)
    throw new TransformRejected(
      "add_class_attribute",
      t.file,
      `a Go struct field has no value: give "name" and "type" only, and set it where a ${typeName} is built`,
    );
  if (type === undefined)
    throw new TransformRejected("add_class_attribute", t.file, `a Go struct field needs a type: give "type"`);
  const struct = spec.childForFieldName("type");
  const list = named(struct).find((n) => n.type === "field_declaration_list");
  if (struct?.type !== "struct_type" || !list)
    throw new TransformRejected(
      "add_class_attribute",
      t.file,
      `${typeName} (line ${line(spec)}) is not a struct type; fields are added to structs`,
    );
  const existing = memberOf(t, spec, name);
  if (existing)
    throw new TransformRejected(
      "add_class_attribute",
      t.file,
      `${typeName} already has a member named ${name} (line ${line(existing)})`,
    );
  const fields = named(list).filter((n) => n.type === "field_declaration");
  const indent = "\t";
  if (fields.length === 0) {
    const space = t.source[list.startIndex - 1] === " " ? "" : " ";
    return [{ start: list.startIndex, end: list.endIndex, text: `${space}{\n${indent}${name} ${type}\n}` }];
  }
  // gofmt aligns the types of a run of fields: consecutive one-line fields with names (a blank line,
  // a comment on its own line or an embedded field ends it; a tag or a trailing comment comes after
  // the type and does not). The new field joins the run that ends with the last field.
  const inRun = (f: Node): boolean =>
    f.childrenForFieldName("name").some((n) => n) && f.startPosition.row === f.endPosition.row;
  const run: Node[] = [];
  for (let i = fields.length - 1; i >= 0 && inRun(fields[i]!); i--) {
    if (run[0] && fields[i]!.endPosition.row !== run[0].startPosition.row - 1) break;
    run.unshift(fields[i]!);
  }
  const namesOf = (f: Node) => f.childrenForFieldName("name").filter((n): n is Node => !!n);
  const width = Math.max(
    name.length,
    ...run.map(
      (f) =>
        namesOf(f)
          .map((n) => n.text)
          .join(", ").length,
    ),
  );
  // Whitespace only: the space between each field's names and its type.
  const edits: Edit[] = [];
  for (const f of run) {
    const names = namesOf(f);
    const gap = { start: names.at(-1)!.endIndex, end: f.childForFieldName("type")!.startIndex };
    const text = " ".repeat(width - names.map((n) => n.text).join(", ").length + 1);
    if (t.source.slice(gap.start, gap.end) !== text) edits.push({ ...gap, text });
  }
  // After the last field's line (its trailing comment included).
  const last = fields.at(-1)!;
  const lineEnd = t.source.indexOf("\n", last.endIndex);
  const at = lineEnd === -1 ? t.source.length : lineEnd;
  edits.push({ start: at, end: at, text: `\n${indent}${name.padEnd(run.length ? width : name.length)} ${type}` });
  return edits;
}

/**
 * rename_identifier on a Java PRIVATE field or method. A private member is visible only inside its
 * top-level class, so one file holds every use — but without a type checker only the uses whose
 * meaning the tree decides are renamed, and every other case is refused:
 * - unqualified uses inside the declaring class's body (nested, local and anonymous classes and
 *   lambdas in it included) that `analyzeJava` binds to no local;
 * - `this.x` where `this` is the declaring class, `C.x`, `C.this.x`, `this::m`, `C::m`, and
 *   `v.x` / `v::m` where `v` is a local declared with the type `C` (C: the declaring class's simple name).
 * Anything else qualified with the name (`other.x`, `super.x`, `x::m`) is refused: its type is unknown.
 * The result is parsed and analyzed again: every renamed use must still name the member, none may be
 * captured by a local, and no use of the old name may be left.
 */
import { withTree, type Node, type Tree } from "@graphplan/graph";
import { applyEdits, editedRanges, mapOffset, type Edit } from "@graphplan/primitives";
import { analyzeJava, type JavaBinding, type JavaOccurrence, type JavaScopeAnalysis } from "@graphplan/scope";
import { BindingNotFound, NameCollision } from "./rename-errors.js";
import type { RenameRequest } from "./rename.js";

/** Why a Java name that is no local was not renamed, for messages: what is renamed and what is refused. */
export const JAVA_MEMBER_SCOPE =
  "rename_identifier renames Java locals and private fields and methods; types and non-private members are refused, since other files may use them";

const CLASS_DECLARATIONS = new Set([
  "class_declaration",
  "interface_declaration",
  "enum_declaration",
  "record_declaration",
  "annotation_type_declaration",
]);
const BODIES = new Set(["class_body", "interface_body", "enum_body", "annotation_type_body"]);
const KEYWORDS = new Set(
  (
    "abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if " +
    "implements import instanceof int interface long native new package private protected public return short static strictfp super switch " +
    "synchronized this throw throws transient try void volatile while true false null _"
  ).split(" "),
);
/** Methods every class inherits (Object's, an enum's from Enum): a private method of such a name would be hidden in nested classes, or not allowed. */
const INHERITED_METHODS = new Set(
  "equals hashCode toString getClass notify notifyAll wait clone finalize name ordinal compareTo getDeclaringClass describeConstable values valueOf".split(
    " ",
  ),
);

interface Member {
  readonly kind: "field" | "method" | "record component" | "enum constant" | "annotation element";
  readonly name: Node;
  readonly declaration: Node;
  /** The class that declares it: a class/interface/enum/record declaration, or `new T() {…}`. */
  readonly owner: Node;
}

/** Throws the refusal of `request`, naming the line of `at`. */
const refuser =
  ({ file, name, newName }: RenameRequest) =>
  (at: Node, detail: string): never => {
    throw new NameCollision(file, name, newName, line(at), detail);
  };

const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);
const line = (node: Node): number => node.startPosition.row + 1;
const within = (outer: { startIndex: number; endIndex: number }, inner: Node): boolean =>
  outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;

/** The class around a node: the owner of the innermost class body that contains it. */
function bodyAround(node: Node): Node | undefined {
  for (let n = node.parent; n; n = n.parent) if (BODIES.has(n.type)) return n;
  return undefined;
}
const ownerOfBody = (body: Node): Node => body.parent!;
function bodyOf(owner: Node): Node | undefined {
  return owner.childForFieldName("body") ?? named(owner).find((c) => BODIES.has(c.type));
}

/** Every member declaration of the file, with the class that declares it. */
function membersOf(root: Node): Member[] {
  const out: Member[] = [];
  const add = (kind: Member["kind"], name: Node | null, declaration: Node): void => {
    const body = bodyAround(declaration);
    if (name && body) out.push({ kind, name, declaration, owner: ownerOfBody(body) });
  };
  for (const d of root.descendantsOfType([
    "field_declaration",
    "constant_declaration",
    "method_declaration",
    "enum_constant",
    "annotation_type_element_declaration",
  ])) {
    if (!d) continue;
    if (d.type === "method_declaration") add("method", d.childForFieldName("name"), d);
    else if (d.type === "enum_constant") add("enum constant", d.childForFieldName("name"), d);
    else if (d.type === "annotation_type_element_declaration")
      add("annotation element", d.childForFieldName("name"), d);
    else for (const v of named(d)) if (v.type === "variable_declarator") add("field", v.childForFieldName("name"), d);
  }
  for (const r of root.descendantsOfType("record_declaration")) {
    for (const p of named(r?.childForFieldName("parameters"))) {
      const name =
        p.childForFieldName("name") ??
        named(p)
          .find((c) => c.type === "variable_declarator")
          ?.childForFieldName("name") ??
        null;
      if (name) out.push({ kind: "record component", name, declaration: p, owner: r! });
    }
  }
  return out;
}

function isPrivate(declaration: Node): boolean {
  return named(declaration).some((c) => c.type === "modifiers" && c.children.some((k) => k?.type === "private"));
}

/** The type a local was declared with, as written (`Point` of `Point p`, `final Point p`, `for (Point p : ps)`, `o instanceof Point p`). */
function declaredType(binding: JavaBinding): string | undefined {
  let holder = binding.node.parent;
  if (holder?.type === "variable_declarator") holder = holder.parent;
  if (!holder) return undefined;
  if (holder.type === "type_pattern") return named(holder)[0]?.text;
  return holder.childForFieldName("type")?.text;
}

/** The class's direct supertypes: declarations in the file, or the names of types declared elsewhere. */
function supertypes(owner: Node, types: ReadonlyMap<string, Node[]>): (Node | string)[] {
  const names: Node[] = [];
  if (owner.type === "object_creation_expression") names.push(owner.childForFieldName("type")!);
  else if (owner.type === "enum_constant") return [ownerOfBody(bodyAround(owner)!)];
  else
    for (const c of named(owner))
      if (["superclass", "super_interfaces", "extends_interfaces"].includes(c.type))
        for (const t of named(c)) names.push(...(t.type === "type_list" ? named(t) : [t]));
  return names.flatMap((t): (Node | string)[] => {
    const text = t.type === "generic_type" ? (named(t)[0]?.text ?? t.text) : t.text;
    if (text === "Object" || text === "java.lang.Object") return [];
    const declared = types.get(text);
    return declared?.length === 1 ? [declared[0]!] : [text];
  });
}

/** The first supertype of `owner`, or of an in-file supertype of it, that is declared in another file (whose members are unknown). */
function unknownSupertype(
  owner: Node,
  types: ReadonlyMap<string, Node[]>,
  seen = new Set<number>(),
): string | undefined {
  if (seen.has(owner.id)) return undefined;
  seen.add(owner.id);
  for (const s of supertypes(owner, types)) {
    const unknown = typeof s === "string" ? s : unknownSupertype(s, types, seen);
    if (unknown) return unknown;
  }
  return undefined;
}

/** Where the member lives, as offsets (so that the renamed text can be judged by the same rules). */
interface Place {
  readonly kind: "field" | "method";
  /** The declaring class's simple name (none for an anonymous class). */
  readonly className: string | undefined;
  readonly body: { readonly startIndex: number; readonly endIndex: number };
  readonly top: { readonly startIndex: number; readonly endIndex: number };
}

interface Uses {
  /** Uses of the member, not its declaration. */
  readonly renamed: Node[];
  /** Unqualified uses: a local of the new name in scope there would capture them. */
  readonly unqualified: Node[];
  readonly refused: { node: Node; detail: string }[];
}

/** The uses of `name` that name the member at `place`, and the ones whose meaning the tree does not decide. */
function usesOf(root: Node, analysis: JavaScopeAnalysis, name: string, place: Place): Uses {
  const occurrence = new Map<number, JavaOccurrence>(analysis.occurrences.map((o) => [o.node.id, o]));
  const out: Uses = { renamed: [], unqualified: [], refused: [] };
  const unqualified = (id: Node): void => {
    // Outside the declaring class's body an unqualified name cannot name its private member: it is not in scope there.
    if (!within(place.body, id)) return;
    if (id.parent?.type === "switch_label")
      out.refused.push({
        node: id,
        detail: `\`case ${name}\` may name an enum constant rather than the field; rename that label by hand`,
      });
    else out.renamed.push(id), out.unqualified.push(id);
  };
  const qualified = (object: Node, id: Node, written: string): void => {
    const local = object.type === "identifier" ? occurrence.get(object.id)?.binding : undefined;
    const ok =
      (object.type === "this" && bodyAround(object)?.startIndex === place.body.startIndex) ||
      (object.type === "identifier" && !local && object.text === place.className) ||
      (object.type === "field_access" &&
        object.childForFieldName("field")?.type === "this" &&
        object.childForFieldName("object")?.text === place.className) ||
      (!!local && place.className !== undefined && declaredType(local) === place.className);
    if (ok) out.renamed.push(id);
    else {
      const why =
        object.type === "this"
          ? "`this` there is an instance of another class"
          : local
            ? `${object.text} is declared as ${declaredType(local) ?? "an untyped local"}, not ${place.className ?? "the declaring class"}`
            : `the type of ${object.text} is not known without a type checker`;
      out.refused.push({
        node: id,
        detail: `\`${written}\` may not name this ${place.kind}: ${why}; rename that use by hand`,
      });
    }
  };
  for (const id of root.descendantsOfType("identifier")) {
    if (!id || id.text !== name) continue;
    const parent = id.parent;
    if (!parent) continue;
    const object = parent.childForFieldName("object");
    if (place.kind === "field") {
      if (parent.type === "field_access" && parent.childForFieldName("field")?.id === id.id)
        qualified(object!, id, `${object!.text}.${name}`);
      else if (parent.type === "method_reference" && named(parent)[0]?.id === id.id) {
        out.refused.push({
          node: id,
          detail: `\`${parent.text}\` may use the field or a local named ${name} (the scope model does not resolve method references); rename that use by hand`,
        });
      } else if (occurrence.has(id.id) && !occurrence.get(id.id)!.binding) unqualified(id);
    } else if (parent.type === "method_invocation" && parent.childForFieldName("name")?.id === id.id) {
      if (object) qualified(object, id, `${object.text}.${name}(…)`);
      else unqualified(id);
    } else if (parent.type === "method_reference" && named(parent).at(-1)?.id === id.id && named(parent).length >= 2) {
      qualified(named(parent)[0]!, id, parent.text);
    }
  }
  return out;
}

/** The refusal of the member itself: it must be one private field, or one private method without overloads, of one class of the file. */
function theMember(members: readonly Member[], request: RenameRequest, typeNames: ReadonlySet<string>): Member {
  const { file, name } = request;
  const refuse = refuser(request);
  const declared = members.filter((m) => m.name.text === name);
  if (declared.length === 0) {
    const detail = typeNames.has(name)
      ? `${name} is a type`
      : `${name} is neither a local ${request.scopeNode ? "of that method" : "in the file"} nor a field or method declared in the file`;
    throw new BindingNotFound(file, name, `${detail} (${JAVA_MEMBER_SCOPE})`, []);
  }
  const owners = [...new Set(declared.map((m) => m.owner.id))];
  if (owners.length > 1)
    refuse(
      declared[1]!.name,
      `${owners.length} classes of the file declare a member ${name} (lines ${declared.map((m) => line(m.name)).join(", ")}), and which one a use names needs a type checker; rename it by hand`,
    );
  if (declared.length > 1) {
    const kinds = new Set(declared.map((m) => m.kind));
    refuse(
      declared[1]!.name,
      kinds.size > 1
        ? `the class declares both a field and a method ${name}; rename it by hand`
        : `${name} is overloaded (${declared.length} methods, lines ${declared.map((m) => line(m.name)).join(", ")}): which one a call resolves to could change; rename them by hand`,
    );
  }
  const member = declared[0]!;
  if (member.kind !== "field" && member.kind !== "method")
    refuse(
      member.name,
      `${name} is ${member.kind === "record component" ? "a record component, whose accessor is public" : `an ${member.kind}, which is public`}: other files may use it; rename it by hand with its users`,
    );
  if (!isPrivate(member.declaration))
    refuse(
      member.name,
      `${name} is not private: other classes and files may use it (${JAVA_MEMBER_SCOPE}); rename it by hand with its users`,
    );
  return member;
}

/** The new name: a valid identifier, declared as no member or type of the file, used in the top-level class by no non-local identifier. */
function checkNewName(
  root: Node,
  analysis: JavaScopeAnalysis,
  members: readonly Member[],
  typeNames: ReadonlySet<string>,
  member: Member,
  top: Node,
  request: RenameRequest,
): void {
  const { name, newName } = request;
  const refuse = refuser(request);
  if (!/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(newName) || KEYWORDS.has(newName))
    refuse(member.name, `${newName} is not a Java identifier (a keyword or a literal)`);
  // The restricted identifiers (record, var, sealed, permits, yield) name fields and methods, but an
  // unqualified call of a method named yield is not Java (JLS §3.9).
  if (member.kind === "method" && newName === "yield")
    refuse(member.name, "a method named yield cannot be called unqualified (JLS §3.9)");
  if (member.kind === "method" && (INHERITED_METHODS.has(name) || INHERITED_METHODS.has(newName))) {
    refuse(
      member.name,
      `${INHERITED_METHODS.has(name) ? name : newName} is the name of a method every class inherits (from Object or Enum), which a call in a nested class would name instead`,
    );
  }
  const taken = members.find((m) => m.name.text === newName);
  if (taken)
    refuse(
      taken.name,
      `${newName} is already declared as a ${taken.kind === "method" ? "method" : "field"} in the file`,
    );
  if (typeNames.has(newName)) refuse(member.name, `${newName} is the name of a type declared in the file`);
  const local = new Map(analysis.occurrences.map((o) => [o.node.id, o.binding]));
  const used = root
    .descendantsOfType("identifier")
    .find((id) => id?.text === newName && within(top, id) && !local.get(id.id));
  if (used)
    refuse(
      used,
      `${newName} is already used here, naming another (maybe inherited) member, which the renamed ${name} could capture`,
    );
}

/**
 * The edits of renaming a private field or method of a Java file (a name that is no local where
 * the request points), or a refusal naming the line and what to do.
 */
export function renameJavaMember(
  source: string,
  tree: Tree,
  analysis: JavaScopeAnalysis,
  request: RenameRequest,
): Edit[] {
  const { name, newName } = request;
  const root = tree.rootNode;
  const members = membersOf(root);
  const classes = root.descendantsOfType([...CLASS_DECLARATIONS]).filter((c): c is Node => !!c);
  const types = new Map<string, Node[]>();
  for (const c of classes) {
    const n = c.childForFieldName("name")?.text;
    if (n) types.set(n, [...(types.get(n) ?? []), c]);
  }
  const typeNames = new Set(types.keys());
  const member = theMember(members, request, typeNames);
  const owner = member.owner;
  let top = owner;
  for (let n = owner.parent; n; n = n.parent) if (CLASS_DECLARATIONS.has(n.type)) top = n;
  checkNewName(root, analysis, members, typeNames, member, top, request);

  const refuse = refuser(request);
  // An anonymous class, or the body of an enum constant, has no name to qualify with.
  const className =
    owner.type === "object_creation_expression" || owner.type === "enum_constant"
      ? undefined
      : owner.childForFieldName("name")?.text;
  if (className && (types.get(className)?.length ?? 0) > 1)
    refuse(
      owner,
      `the file declares several classes named ${className}, so \`${className}.${name}\` is ambiguous; rename it by hand`,
    );
  const unknown = unknownSupertype(owner, types);
  if (unknown)
    refuse(
      owner,
      `the declaring class extends or implements ${unknown}, declared in another file, which may have a member ${newName} that the renamed ${name} would hide or overload; rename it by hand`,
    );
  const body = bodyOf(owner)!;
  const place: Place = { kind: member.kind === "method" ? "method" : "field", className, body, top };
  const uses = usesOf(root, analysis, name, place);
  if (uses.refused.length) refuse(uses.refused[0]!.node, uses.refused[0]!.detail);
  // An unqualified use inside a nested class names that class's inherited member first, if it has one.
  for (const use of uses.unqualified) {
    for (let b = bodyAround(use); b && b.startIndex !== body.startIndex; b = bodyAround(b)) {
      const inherited = unknownSupertype(ownerOfBody(b), types);
      if (inherited)
        refuse(
          use,
          `this use of ${name} is inside a class that extends or implements ${inherited}, declared in another file, which may have a member ${name} or ${newName}; write ${className ? `${className}.this.${name}` : "it qualified"} or rename it by hand`,
        );
    }
  }
  // A local of the new name in scope at an unqualified use would capture it (a call too: Java would resolve it, but a reader would not).
  for (const use of uses.unqualified) {
    const local = analysis.scopes
      .map((s) => s.bindings.get(newName))
      .find((b) => b && within(b.scope.node, use) && b.from <= use.startIndex);
    if (local)
      refuse(
        use,
        `the local ${newName} declared at line ${line(local.node)} is in scope here and would capture this use of ${name}; rename that local first or choose another name`,
      );
  }
  const renamed = [member.name, ...uses.renamed].sort((a, b) => a.startIndex - b.startIndex);
  const edits: Edit[] = renamed.map((n) => ({ start: n.startIndex, end: n.endIndex, text: newName }));
  verifyMember(source, edits, renamed, member.name, uses, place, request);
  return edits;
}

/**
 * The renamed text parsed and analyzed again: the declaration and every renamed use name the
 * member under its new name (none captured by a local), and no use of the old name is left.
 */
function verifyMember(
  source: string,
  edits: readonly Edit[],
  renamed: readonly Node[],
  declaration: Node,
  uses: Uses,
  place: Place,
  request: RenameRequest,
): void {
  const { file, name, newName } = request;
  const map = (offset: number): number => mapOffset(edits, offset) ?? offset;
  const shift = (r: { startIndex: number; endIndex: number }) => ({
    startIndex: map(r.startIndex),
    endIndex: map(r.endIndex),
  });
  // Where each renamed node starts in the new text (one edit per node, in the same order).
  const written = editedRanges(edits);
  const newStart = new Map(renamed.map((n, i) => [n.id, written[i]!.start]));
  const after = applyEdits(source, edits);
  withTree(after, "java", (newTree) => {
    const analysis = analyzeJava(newTree);
    const newPlace: Place = { ...place, body: shift(place.body), top: shift(place.top) };
    const found = new Set(usesOf(newTree.rootNode, analysis, newName, newPlace).renamed.map((n) => n.startIndex));
    const declarations = membersOf(newTree.rootNode).filter((m) => m.name.text === newName);
    if (declarations.length !== 1 || declarations[0]!.name.startIndex !== newStart.get(declaration.id)) {
      throw new NameCollision(
        file,
        name,
        newName,
        line(declaration),
        `the renamed declaration would not be the only member ${newName} of the file; rename it by hand`,
      );
    }
    for (const use of uses.renamed) {
      const at = newStart.get(use.id)!;
      if (found.has(at)) continue;
      const captured = analysis.occurrences.find((o) => o.node.startIndex === at)?.binding;
      const detail = captured
        ? `the local ${newName} declared at line ${line(captured.node)} is in scope here and would capture this use of ${name}; rename that local first or choose another name`
        : `this use of ${name} would no longer name the renamed ${place.kind}; rename it by hand`;
      throw new NameCollision(file, name, newName, line(use), detail);
    }
    const left = usesOf(newTree.rootNode, analysis, name, newPlace);
    const stale = [...left.renamed, ...left.refused.map((r) => r.node)][0];
    if (stale)
      throw new NameCollision(
        file,
        name,
        newName,
        line(stale),
        `a use of ${name} would be left naming nothing after the rename; rename it by hand`,
      );
  });
}

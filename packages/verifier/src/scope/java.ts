/**
 * The verifier's Java {@link ScopeModel}: locals by `analyzeJava` of @graphplan/scope (GraphPlan's
 * one model of Java's local scopes, which rename uses too), and the rest of JLS §6 that one method
 * cannot see: the members (fields, methods, nested types) of the enclosing classes and of their
 * supertypes, the file's imports, the types of its package (the `.java` files of its directory)
 * and `java.lang`. A name is reported only when that is certain: when a supertype is outside the
 * workspace (a library class may declare any member), or an on-demand import may supply the name,
 * the name is taken as resolved.
 */
import { didYouMean } from "@graphplan/catalog";
import type { Node, Tree } from "@graphplan/graph";
import { analyzeJava, type JavaScopeAnalysis } from "@graphplan/scope";
import type { FileVersion } from "../sim.js";
import { dirOf, filesIn } from "./paths.js";
import { JDK_FIELDLESS_TYPES, JDK_METHODLESS_TYPES } from "./java-jdk.js";
import { JAVA_LANG_TYPES } from "./java-lang.js";
import type { ImportProblem, NameUse, ScopeContext, ScopeModel } from "./types.js";

const JAVA_LANG = new Set(JAVA_LANG_TYPES);
/** JDK supertypes known to give a subclass no field, or no method but Object's. */
const MEMBERLESS = { fields: new Set(JDK_FIELDLESS_TYPES), methods: new Set(JDK_METHODLESS_TYPES) } as const;
const TYPE_DECLARATIONS = new Set([
  "class_declaration",
  "interface_declaration",
  "enum_declaration",
  "record_declaration",
  "annotation_type_declaration",
]);
const TYPE_KINDS = new Set(["class", "interface", "enum", "record", "struct", "type"]);
/** Methods every class has (java.lang.Object's). */
const OBJECT_METHODS = [
  "equals",
  "hashCode",
  "toString",
  "getClass",
  "notify",
  "notifyAll",
  "wait",
  "clone",
  "finalize",
];
/** Methods every enum has (java.lang.Enum's and the compiler's). */
const ENUM_METHODS = ["name", "ordinal", "compareTo", "getDeclaringClass", "describeConstable", "values", "valueOf"];
/** First segments of fully qualified names written in code (`java.util.List.of()`): packages, not variables. */
const PACKAGE_ROOTS = new Set(["java", "javax", "jdk", "sun", "com", "org", "net", "io"]);

const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);
const stemOf = (path: string): string => path.slice(path.lastIndexOf("/") + 1).replace(/\.java$/, "");

/** A class body's own members and the simple names of its direct supertypes. */
interface TypeInfo {
  readonly fields: ReadonlySet<string>;
  readonly methods: ReadonlySet<string>;
  readonly supertypes: readonly string[];
}

/** What a file declares and imports. */
interface JavaFile {
  readonly package: string;
  /** Every type the file declares, at any depth, by simple name. */
  readonly types: ReadonlyMap<string, Node>;
  /** Simple names the file declares more than one type of. */
  readonly ambiguous: ReadonlySet<string>;
  /** `import a.b.C;`: C → a.b.C. */
  readonly singleTypes: ReadonlyMap<string, string>;
  /** `import static a.b.C.m;`: m. */
  readonly staticMembers: ReadonlySet<string>;
  readonly onDemand: boolean;
  /** The packages of `import a.b.*;`. */
  readonly onDemandPackages: readonly string[];
  readonly staticOnDemand: boolean;
  readonly locals: JavaScopeAnalysis;
  readonly infos: Map<number, TypeInfo>;
}

const files = new WeakMap<Tree, JavaFile>();
function javaFile(doc: FileVersion): JavaFile {
  const known = files.get(doc.tree);
  if (known) return known;
  const root = doc.tree.rootNode;
  const types = new Map<string, Node>();
  const ambiguous = new Set<string>();
  for (const decl of root.descendantsOfType([...TYPE_DECLARATIONS])) {
    const name = decl?.childForFieldName("name")?.text;
    if (decl && name && types.has(name)) ambiguous.add(name);
    else if (decl && name) types.set(name, decl);
  }
  const singleTypes = new Map<string, string>();
  const staticMembers = new Set<string>();
  let onDemand = false;
  const onDemandPackages: string[] = [];
  let staticOnDemand = false;
  for (const imp of named(root).filter((n) => n.type === "import_declaration")) {
    const isStatic = imp.children.some((c) => c?.type === "static");
    const path = named(imp).find((n) => n.type === "scoped_identifier" || n.type === "identifier")?.text ?? "";
    const wildcard = named(imp).some((n) => n.type === "asterisk");
    if (wildcard && isStatic) staticOnDemand = true;
    else if (wildcard) (onDemand = true), onDemandPackages.push(path);
    else if (isStatic) staticMembers.add(path.split(".").pop()!);
    else singleTypes.set(path.split(".").pop()!, path);
  }
  const pkg = named(root).find((n) => n.type === "package_declaration");
  const file: JavaFile = {
    package: named(pkg).find((n) => n.type === "scoped_identifier" || n.type === "identifier")?.text ?? "",
    types,
    ambiguous,
    singleTypes,
    staticMembers,
    onDemand,
    onDemandPackages,
    staticOnDemand,
    locals: analyzeJava(doc.tree),
    infos: new Map(),
  };
  files.set(doc.tree, file);
  return file;
}

/** The name of a type as written, without type arguments (`List<T>` → `List`, `Outer.Inner<T>` → `Outer.Inner`). */
function typeName(type: Node | null | undefined): string | undefined {
  if (!type) return undefined;
  if (type.type === "type_identifier" || type.type === "identifier") return type.text;
  if (type.type === "generic_type" || type.type === "scoped_type_identifier") {
    const parts = named(type)
      .filter((n) => n.type !== "type_arguments" && n.type !== "annotation" && n.type !== "marker_annotation")
      .map(typeName);
    return parts.every((p) => p) ? parts.join(".") : undefined;
  }
  return undefined;
}

/** The members and supertypes of a type declaration or of an anonymous class (`new T() {…}`). */
function typeInfo(file: JavaFile, decl: Node): TypeInfo {
  const known = file.infos.get(decl.id);
  if (known) return known;
  const fields = new Set<string>();
  const methods = new Set<string>(OBJECT_METHODS);
  const supertypes: string[] = [];
  const body =
    decl.type === "object_creation_expression"
      ? named(decl).find((n) => n.type === "class_body")
      : decl.childForFieldName("body");
  // An enum constant with a body is an anonymous subclass of its enum.
  if (decl.type === "enum_constant") supertypes.push(decl.parent?.parent?.childForFieldName("name")?.text ?? "?");
  const members = named(body).flatMap((m) => (m.type === "enum_body_declarations" ? named(m) : [m]));
  for (const member of members) {
    if (member.type === "field_declaration" || member.type === "constant_declaration") {
      for (const d of member.childrenForFieldName("declarator"))
        if (d?.childForFieldName("name")) fields.add(d.childForFieldName("name")!.text);
    } else if (member.type === "enum_constant") fields.add(member.childForFieldName("name")!.text);
    else if (member.type === "method_declaration") methods.add(member.childForFieldName("name")!.text);
    else if (TYPE_DECLARATIONS.has(member.type) && member.childForFieldName("name"))
      fields.add(member.childForFieldName("name")!.text);
  }
  if (decl.type === "record_declaration") {
    // A record's components are its private fields and its accessor methods.
    for (const p of named(decl.childForFieldName("parameters"))) {
      const component = p.childForFieldName("name")?.text;
      if (component) fields.add(component), methods.add(component);
    }
  }
  if (decl.type === "enum_declaration") for (const m of ENUM_METHODS) methods.add(m);
  if (decl.type === "object_creation_expression") supertypes.push(typeName(decl.childForFieldName("type")) ?? "?");
  const superclass = decl.childForFieldName("superclass");
  if (superclass) supertypes.push(typeName(named(superclass)[0]) ?? "?");
  for (const list of [decl.childForFieldName("interfaces"), named(decl).find((n) => n.type === "extends_interfaces")]) {
    for (const t of named(named(list).find((n) => n.type === "type_list"))) supertypes.push(typeName(t) ?? "?");
  }
  const info: TypeInfo = { fields, methods, supertypes };
  file.infos.set(decl.id, info);
  return info;
}

/**
 * The directories of a file's package: its own, and those of the other source roots that hold the
 * same package (Maven's `src/main/java/a/b` and `src/test/java/a/b` are one package `a.b`).
 */
function packageDirs(doc: FileVersion, context: ScopeContext): string[] {
  const dir = dirOf(doc.path);
  const path = javaFile(doc).package.split(".").join("/");
  if (!path || !(dir === path || dir.endsWith(`/${path}`))) return [dir];
  return [...new Set([dir, ...dirsOfPackage(path, context)])];
}

/** The directories holding `.java` files of the package at `path` (`a/b`), under any source root. */
function dirsOfPackage(path: string, context: ScopeContext): Set<string> {
  const dirs = new Set<string>();
  for (const p of context.sim.paths())
    if (p.endsWith(".java") && (dirOf(p) === path || dirOf(p).endsWith(`/${path}`))) dirs.add(dirOf(p));
  return dirs;
}

/** The types declared in some directories: their files' names, and the graph's types there. */
function typesIn(dirs: ReadonlySet<string>, context: ScopeContext): Set<string> {
  const names = new Set([...dirs].flatMap((dir) => filesIn(dir, ".java", context).map(stemOf)));
  for (const s of context.graph.symbols) if (TYPE_KINDS.has(s.kind) && dirs.has(dirOf(s.file))) names.add(s.name);
  return names;
}

/** The types of a file's package that other files declare: its directories' files, by their names and by the graph. */
function packageTypes(doc: FileVersion, context: ScopeContext): Set<string> {
  return typesIn(new Set(packageDirs(doc, context)), context);
}

/**
 * The declaration of type `name` as `doc` sees it: in the file, imported from the workspace, or in
 * its package's directory; `Outer.Inner` through Outer's members. Undefined when it is not in the
 * workspace, or when the file declares two types of that name (which one depends on where).
 */
function findType(name: string, doc: FileVersion, context: ScopeContext): { doc: FileVersion; decl: Node } | undefined {
  const [first, ...rest] = name.split(".");
  let found = findSimpleType(first!, doc, context);
  for (const member of rest) {
    if (!found) return undefined;
    const body = found.decl.childForFieldName("body");
    const inner = named(body)
      .flatMap((m) => (m.type === "enum_body_declarations" ? named(m) : [m]))
      .find((m) => TYPE_DECLARATIONS.has(m.type) && m.childForFieldName("name")?.text === member);
    found = inner ? { doc: found.doc, decl: inner } : undefined;
  }
  return found;
}

function findSimpleType(
  name: string,
  doc: FileVersion,
  context: ScopeContext,
): { doc: FileVersion; decl: Node } | undefined {
  const file = javaFile(doc);
  if (file.ambiguous.has(name)) return undefined;
  const local = file.types.get(name);
  if (local) return { doc, decl: local };
  const qualified = file.singleTypes.get(name);
  // Exact paths (the package's directories), or path suffixes (a qualified name, under some source root).
  const exact = qualified ? [] : packageDirs(doc, context).map((dir) => `${dir ? `${dir}/` : ""}${name}.java`);
  const suffixes = (qualified ? [qualified] : file.onDemandPackages.map((p) => `${p}.${name}`)).map(
    (q) => `${q.split(".").join("/")}.java`,
  );
  // The package shadows an on-demand import (JLS §6.4.1).
  const paths = [...context.sim.paths()];
  const candidates = [
    ...paths.filter((p) => exact.includes(p)),
    ...paths.filter((p) => suffixes.some((suffix) => p === suffix || p.endsWith(`/${suffix}`))),
  ];
  for (const path of candidates) {
    const other = context.sim.doc(path);
    const decl = other && javaFile(other).types.get(name);
    if (other && decl) return { doc: other, decl };
  }
  return undefined;
}

/** The qualified name of a JDK type as `doc` names it (`java.io.Serializable`, an import of it, or a type of java.lang), when that is certain. */
function jdkName(name: string, doc: FileVersion, context: ScopeContext): string | undefined {
  if (/^javax?\./.test(name)) return name;
  if (name.includes(".")) return undefined;
  const file = javaFile(doc);
  const imported = file.singleTypes.get(name);
  if (imported) return /^javax?\./.test(imported) ? imported : undefined;
  // The package's own type shadows java.lang's and on-demand imports (JLS §6.4.1).
  if (packageTypes(doc, context).has(name)) return undefined;
  if (JAVA_LANG.has(name)) return `java.lang.${name}`;
  // An on-demand import of a JDK package that has the type (two on-demand imports of one name do not compile).
  const known = (q: string): boolean => MEMBERLESS.fields.has(q) || MEMBERLESS.methods.has(q);
  return file.onDemandPackages.map((p) => `${p}.${name}`).find((q) => /^javax?\./.test(q) && known(q));
}

/** Whether a type or one of its supertypes declares a member: "unknown" when a supertype is outside the workspace. */
function declares(
  doc: FileVersion,
  decl: Node,
  member: string,
  kind: "fields" | "methods",
  context: ScopeContext,
  seen = new Set<number>(),
): boolean | "unknown" {
  if (seen.has(decl.id)) return false;
  seen.add(decl.id);
  const info = typeInfo(javaFile(doc), decl);
  if (info[kind].has(member)) return true;
  let answer: boolean | "unknown" = false;
  for (const supertype of info.supertypes) {
    if (supertype === "Object") continue;
    const found = findType(supertype, doc, context);
    if (!found) {
      if (!MEMBERLESS[kind].has(jdkName(supertype, doc, context) ?? "")) answer = "unknown";
      continue;
    }
    const inSuper = declares(found.doc, found.decl, member, kind, context, seen);
    if (inSuper === true) return true;
    if (inSuper === "unknown") answer = "unknown";
  }
  return answer;
}

/** Whether some class around `node` declares (or may inherit) the member. */
function enclosingDeclares(
  doc: FileVersion,
  node: Node,
  member: string,
  kind: "fields" | "methods",
  context: ScopeContext,
): boolean | "unknown" {
  let answer: boolean | "unknown" = false;
  for (let n: Node | null = node.parent; n; n = n.parent) {
    const isClass =
      TYPE_DECLARATIONS.has(n.type) ||
      (n.type === "object_creation_expression" &&
        named(n).some(
          (c) => c.type === "class_body" && c.startIndex <= node.startIndex && node.endIndex <= c.endIndex,
        )) ||
      (n.type === "enum_constant" && !!n.childForFieldName("body"));
    if (!isClass) continue;
    const found = declares(doc, n, member, kind, context);
    if (found === true) return true;
    if (found === "unknown") answer = "unknown";
  }
  return answer;
}

const hasAncestor = (node: Node, type: string): boolean => {
  for (let n = node.parent; n; n = n.parent) if (n.type === type) return true;
  return false;
};

function javaUnresolved(doc: FileVersion, start: number, end: number, context: ScopeContext): NameUse[] | "unknown" {
  const file = javaFile(doc);
  if (file.staticOnDemand) return "unknown";
  // module-info.java names modules, not variables.
  if (doc.tree.rootNode.namedChildren.some((n) => n?.type === "module_declaration")) return [];
  const inRegion = (n: Node): boolean => n.startIndex >= start && n.endIndex <= end;
  let samePackage: Set<string> | undefined;
  const out: NameUse[] = [];
  const report = (node: Node): void =>
    void out.push({ name: node.text, index: node.startIndex, line: node.startPosition.row + 1 });
  for (const o of file.locals.occurrences) {
    if (o.binding || !inRegion(o.node) || hasAncestor(o.node, "switch_label")) continue;
    const name = o.name;
    if (file.types.has(name) || file.singleTypes.has(name) || file.staticMembers.has(name) || JAVA_LANG.has(name))
      continue;
    if (file.onDemand && /^\p{Lu}/u.test(name)) continue;
    if (PACKAGE_ROOTS.has(name) && o.node.parent?.type === "field_access") continue;
    if (enclosingDeclares(doc, o.node, name, "fields", context) !== false) continue;
    if ((samePackage ??= packageTypes(doc, context)).has(name)) continue;
    // A type of the same package in a file not given: unknown, not undefined.
    if (/^\p{Lu}/u.test(name) && context.sim.unseenIn(dirOf(doc.path), ".java")) continue;
    report(o.node);
  }
  // A method called without a receiver: one of the enclosing classes', or statically imported.
  const root = doc.tree.rootNode;
  for (const call of root.descendantsOfType("method_invocation", doc.position(start), doc.position(end))) {
    if (!call || !inRegion(call) || call.childForFieldName("object")) continue;
    const name = call.childForFieldName("name");
    if (!name || file.staticMembers.has(name.text)) continue;
    if (enclosingDeclares(doc, name, name.text, "methods", context) !== false) continue;
    report(name);
  }
  return out.sort((a, b) => a.index - b.index);
}

/** A new single-type import of the workspace naming no type; `Type.method(…)` of a workspace type that has no such method. */
function javaImportProblems(doc: FileVersion, start: number, end: number, context: ScopeContext): ImportProblem[] {
  const out: ImportProblem[] = [];
  const root = doc.tree.rootNode;
  const inRegion = (n: Node): boolean => n.startIndex >= start && n.endIndex <= end;
  for (const imp of named(root).filter((n) => n.type === "import_declaration" && inRegion(n))) {
    if (imp.children.some((c) => c?.type === "static") || named(imp).some((n) => n.type === "asterisk")) continue;
    const qualified = named(imp).find((n) => n.type === "scoped_identifier")?.text;
    if (!qualified) continue;
    const parts = qualified.split(".");
    const dirSuffix = parts.slice(0, -1).join("/");
    // The package's directory in the workspace, if it is there; a nested type's outer file counts.
    const dirs = dirsOfPackage(dirSuffix, context);
    if (dirs.size === 0) continue;
    const types = [...typesIn(dirs, context)];
    if (types.includes(parts.at(-1)!)) continue;
    // A type in a file of the package that was not given (`Name.java`, or any such file for a nested type).
    if ([...dirs].some((dir) => context.sim.unseenIn(dir, ".java"))) continue;
    const suggestion = didYouMean(parts.at(-1)!, types);
    out.push({
      line: imp.startPosition.row + 1,
      message: `the new import \`${qualified}\` names no type of package ${parts.slice(0, -1).join(".")} (${[...dirs].join(", ")})`,
      fix: suggestion
        ? `did you mean \`${parts.slice(0, -1).join(".")}.${suggestion}\`?`
        : `import a type the package declares (see the graph), or create ${parts.at(-1)} there first`,
    });
  }
  const file = javaFile(doc);
  for (const call of root.descendantsOfType("method_invocation", doc.position(start), doc.position(end))) {
    const object = call?.childForFieldName("object");
    const method = call?.childForFieldName("name");
    if (!call || !object || !method || !inRegion(call) || object.type !== "identifier" || !/^\p{Lu}/u.test(object.text))
      continue;
    // A local or field named like a type is a variable, not the type.
    if (
      file.locals.occurrences.some((o) => o.node.id === object.id && o.binding) ||
      enclosingDeclares(doc, object, object.text, "fields", context) === true
    )
      continue;
    const found = findType(object.text, doc, context);
    if (!found || declares(found.doc, found.decl, method.text, "methods", context) !== false) continue;
    const suggestion = didYouMean(method.text, [...typeInfo(javaFile(found.doc), found.decl).methods]);
    const line = call.startPosition.row + 1;
    out.push({
      line,
      message: `\`${object.text}.${method.text}(…)\` (line ${line}): ${object.text} (${found.doc.path}) declares no method '${method.text}'`,
      fix: suggestion
        ? `did you mean '${object.text}.${suggestion}'?`
        : `call a method ${object.text} declares (see the graph), or add '${method.text}' to it first`,
    });
  }
  return out;
}

export const javaScope: ScopeModel = {
  language: "java",
  unresolved: javaUnresolved,
  definedAtTopLevel(doc: FileVersion): ReadonlySet<string> {
    const file = javaFile(doc);
    const names = new Set(file.types.keys());
    for (const decl of file.types.values()) {
      const info = typeInfo(file, decl);
      for (const n of [...info.fields, ...info.methods]) names.add(n);
    }
    return names;
  },
  isBuiltin(name: string): boolean {
    return JAVA_LANG.has(name);
  },
  // A type is imported; a method or field of another class is reached through its class or an instance.
  importable: (kind) => TYPE_KINDS.has(kind),
  importFix(name: string, file: string, _doc: FileVersion, context: ScopeContext): string | undefined {
    const other = context.sim.doc(file);
    if (!other) return undefined;
    const pkg = javaFile(other).package;
    return `add an add_import step for \`import ${pkg ? `${pkg}.` : ""}${name};\` before this step`;
  },
  importProblems: javaImportProblems,
};

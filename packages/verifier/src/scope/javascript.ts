/**
 * A static scope model for JavaScript, TypeScript and TSX: names declared in a function (with
 * `var`, `let`, `const`, `function`, `class`, `import`, `catch`, `for ... of`) count as visible in
 * the whole function, parameters in the function, a named function or class expression's name
 * inside it, the program's declarations everywhere, plus the globals of {@link JS_GLOBALS}.
 * Block scoping of `let`/`const` and the temporal dead zone are not modelled (a name declared in
 * a sibling block resolves); types (`type_identifier`) are not checked.
 */
import type { LanguageId } from "@graphplan/graph";
import type { Node } from "web-tree-sitter";
import type { FileVersion } from "../sim.js";
import { JS_GLOBALS } from "./javascript-globals.js";
import type { NameUse, ScopeModel } from "./types.js";

const GLOBALS = new Set(JS_GLOBALS);

const FUNCTIONS = new Set([
  "function_declaration",
  "generator_function_declaration",
  "function_expression",
  "function",
  "generator_function",
  "arrow_function",
  "method_definition",
]);
const CLASSES = new Set(["class_declaration", "abstract_class_declaration", "class"]);
const PATTERNS = new Set(["object_pattern", "array_pattern", "pair_pattern", "assignment_pattern", "rest_pattern", "required_parameter", "optional_parameter"]);

const named = (node: Node): Node[] => node.namedChildren.filter((n): n is Node => n !== null);
const same = (a: Node | null | undefined, b: Node): boolean => !!a && a.id === b.id;

/** Names a binding pattern declares (`{a, b: c, ...d}`, `[e, f = 1]`, `x`). */
function patternNames(node: Node | null, out: Set<string>): void {
  if (!node) return;
  switch (node.type) {
    case "identifier":
    case "shorthand_property_identifier_pattern":
      out.add(node.text);
      return;
    case "pair_pattern":
      patternNames(node.childForFieldName("value"), out);
      return;
    case "assignment_pattern":
      patternNames(node.childForFieldName("left"), out);
      return;
    case "required_parameter":
    case "optional_parameter":
      patternNames(node.childForFieldName("pattern") ?? named(node)[0] ?? null, out);
      return;
    default:
      if (PATTERNS.has(node.type) || node.type === "formal_parameters") for (const c of named(node)) patternNames(c, out);
  }
}

function parameterNames(fn: Node, out: Set<string>): void {
  patternNames(fn.childForFieldName("parameters"), out);
  patternNames(fn.childForFieldName("parameter"), out);
}

/** Declarations directly in a function body or the program (nested functions and classes: their names only). */
function declarations(scope: Node | null): Set<string> {
  const out = new Set<string>();
  if (!scope) return out;
  const visit = (node: Node): void => {
    if (FUNCTIONS.has(node.type) || CLASSES.has(node.type)) {
      if (node.type === "function_declaration" || node.type === "generator_function_declaration" || node.type === "class_declaration" || node.type === "abstract_class_declaration") {
        const name = node.childForFieldName("name");
        if (name) out.add(name.text);
      }
      return;
    }
    switch (node.type) {
      case "variable_declarator":
        patternNames(node.childForFieldName("name"), out);
        break;
      case "import_clause":
        for (const c of named(node)) {
          if (c.type === "identifier") out.add(c.text);
          else if (c.type === "namespace_import") for (const id of named(c)) out.add(id.text);
          else if (c.type === "named_imports")
            for (const spec of named(c)) {
              const local = spec.childForFieldName("alias") ?? spec.childForFieldName("name");
              if (local) out.add(local.text);
            }
        }
        return;
      case "catch_clause":
        patternNames(node.childForFieldName("parameter"), out);
        break;
      case "for_in_statement":
        patternNames(node.childForFieldName("left"), out);
        break;
      case "enum_declaration":
      case "internal_module":
      case "module": {
        const name = node.childForFieldName("name");
        if (name) out.add(name.text);
        break;
      }
      default:
        break;
    }
    for (const child of named(node)) visit(child);
  };
  for (const child of named(scope)) visit(child);
  return out;
}

function memo<T>(doc: FileVersion, key: string, make: () => T): T {
  if (doc.memo.has(key)) return doc.memo.get(key) as T;
  const value = make();
  doc.memo.set(key, value);
  return value;
}

const programNames = (doc: FileVersion): Set<string> => memo(doc, "js:program", () => declarations(doc.tree.rootNode));

function functionNames(doc: FileVersion, fn: Node): Set<string> {
  return memo(doc, `js:fn:${fn.id}`, () => {
    const names = declarations(fn.childForFieldName("body"));
    parameterNames(fn, names);
    const own = fn.type === "method_definition" ? null : fn.childForFieldName("name");
    if (own) names.add(own.text);
    return names;
  });
}

/** Whether an identifier is a declaration (a binding) rather than a use. */
function isBinding(id: Node): boolean {
  let child: Node = id;
  for (let up = id.parent; up; child = up, up = up.parent) {
    switch (up.type) {
      case "variable_declarator":
        return same(up.childForFieldName("name"), child);
      case "formal_parameters":
      case "import_clause":
      case "namespace_import":
      case "import_specifier":
      case "export_specifier":
        return true;
      case "catch_clause":
        return same(up.childForFieldName("parameter"), child);
      case "for_in_statement":
        return same(up.childForFieldName("left"), child);
      case "arrow_function":
        return same(up.childForFieldName("parameter"), child);
      case "assignment_pattern":
        if (same(up.childForFieldName("right"), child)) return false;
        continue;
      case "pair_pattern":
        if (same(up.childForFieldName("key"), child)) return true;
        continue;
      default:
        if (PATTERNS.has(up.type)) continue;
        if (FUNCTIONS.has(up.type) || CLASSES.has(up.type) || up.type === "enum_declaration" || up.type === "internal_module" || up.type === "module") {
          return same(up.childForFieldName("name"), child);
        }
        return false;
    }
  }
  return false;
}

/** JSX element names starting in lower case are HTML tags, not names. */
function isIntrinsicTag(id: Node): boolean {
  const parent = id.parent;
  return !!parent && /^jsx_(opening|closing|self_closing)_element$/.test(parent.type) && /^[a-z]/.test(id.text);
}

function resolves(doc: FileVersion, id: Node): boolean {
  const name = id.text;
  if (GLOBALS.has(name)) return true;
  let child: Node = id;
  for (let up = id.parent; up; child = up, up = up.parent) {
    if (FUNCTIONS.has(up.type)) {
      // Default values and the name itself are outside; the parameters and body inside.
      if (same(up.childForFieldName("name"), child)) continue;
      if (functionNames(doc, up).has(name)) return true;
    } else if (CLASSES.has(up.type)) {
      const own = up.childForFieldName("name");
      if (own && own.text === name) return true;
    }
  }
  return programNames(doc).has(name);
}

const REFERENCE_TYPES = ["identifier", "shorthand_property_identifier"];

export function javascriptScope(language: LanguageId): ScopeModel {
  return {
    language,
    unresolved(doc: FileVersion, start: number, end: number): NameUse[] {
      const cover = doc.tree.rootNode.descendantForIndex(start, Math.max(start, end - 1)) ?? doc.tree.rootNode;
      const scope = cover.startIndex <= start && cover.endIndex >= end ? cover : doc.tree.rootNode;
      const ids = REFERENCE_TYPES.includes(scope.type) ? [scope] : scope.descendantsOfType(REFERENCE_TYPES, doc.position(start), doc.position(end));
      const out: NameUse[] = [];
      for (const id of ids) {
        if (!id || id.startIndex < start || id.endIndex > end) continue;
        if (id.type === "identifier" && (isBinding(id) || isIntrinsicTag(id))) continue;
        if (resolves(doc, id)) continue;
        out.push({ name: id.text, index: id.startIndex, line: id.startPosition.row + 1 });
      }
      return out;
    },
    definedAtTopLevel(doc: FileVersion): ReadonlySet<string> {
      return programNames(doc);
    },
    isBuiltin(name: string): boolean {
      return GLOBALS.has(name);
    },
  };
}


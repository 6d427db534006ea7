/** Reading `{module, symbol}` pairs out of each language's import statements. */
import type { Node } from "web-tree-sitter";
import type { LanguageId } from "./languages.js";

export interface ImportedName {
  readonly module: string;
  /** The imported name; `*` for a wildcard; null when the statement imports the module itself. */
  readonly symbol: string | null;
  /** 1-based line, when it is not the statement's own (each spec of a Go import group). */
  readonly line?: number;
}

const unquote = (text: string): string => text.replace(/^[<"'`]|[>"'`]$/g, "");
const fields = (node: Node, name: string): Node[] =>
  node.childrenForFieldName(name).filter((n): n is Node => n !== null);
const named = (node: Node): Node[] => node.namedChildren.filter((n): n is Node => n !== null);

/** A Python dotted name as `ast` spells it: `a . b`, and `a.` + backslash-newline + `b`, are both `a.b`. */
const dotted = (n: Node): string => n.text.replace(/[\s\\]+/g, "");

function python(node: Node): ImportedName[] {
  const nameOf = (n: Node) => dotted(n.type === "aliased_import" ? (n.childForFieldName("name") ?? n) : n);
  if (node.type === "import_statement") return fields(node, "name").map((n) => ({ module: nameOf(n), symbol: null }));
  const moduleNode = node.type === "future_import_statement" ? null : node.childForFieldName("module_name");
  const module = node.type === "future_import_statement" ? "__future__" : moduleNode ? dotted(moduleNode) : "";
  if (named(node).some((n) => n.type === "wildcard_import")) return [{ module, symbol: "*" }];
  return fields(node, "name").map((n) => ({ module, symbol: nameOf(n) }));
}

function javascript(node: Node): ImportedName[] {
  if (node.type === "call_expression") {
    // require("m") and import("m") with a literal module name; every other call is no import.
    const callee = node.childForFieldName("function");
    if (!callee || !(callee.type === "import" || (callee.type === "identifier" && callee.text === "require")))
      return [];
    const first = node.childForFieldName("arguments")?.namedChild(0);
    return first?.type === "string" ? [{ module: unquote(first.text), symbol: null }] : [];
  }
  const clause = named(node).find(
    (n) =>
      n.type === "import_clause" ||
      n.type === "import_require_clause" ||
      n.type === "export_clause" ||
      n.type === "namespace_export",
  );
  const source =
    node.childForFieldName("source") ??
    (clause?.type === "import_require_clause" ? clause.childForFieldName("source") : null);
  if (!source) return [];
  const module = unquote(source.text);
  if (node.type === "export_statement") {
    // export * from "m" / export * as ns from "m" / export { a, b as c } from "m"
    if (clause?.type !== "export_clause") return [{ module, symbol: "*" }];
    return named(clause)
      .filter((n) => n.type === "export_specifier")
      .map((spec) => ({ module, symbol: spec.childForFieldName("name")?.text ?? spec.text }));
  }
  if (!clause || clause.type === "import_require_clause") return [{ module, symbol: null }];
  const out: ImportedName[] = [];
  for (const part of named(clause)) {
    if (part.type === "identifier") out.push({ module, symbol: "default" });
    else if (part.type === "namespace_import") out.push({ module, symbol: "*" });
    else if (part.type === "named_imports") {
      for (const spec of named(part)) {
        if (spec.type === "import_specifier")
          out.push({ module, symbol: spec.childForFieldName("name")?.text ?? spec.text });
      }
    }
  }
  return out.length ? out : [{ module, symbol: null }];
}

function java(node: Node): ImportedName[] {
  const path = named(node).find((n) => n.type === "scoped_identifier" || n.type === "identifier");
  if (!path) return [];
  if (named(node).some((n) => n.type === "asterisk")) return [{ module: path.text, symbol: "*" }];
  const dot = path.text.lastIndexOf(".");
  return [{ module: dot < 0 ? path.text : path.text.slice(0, dot), symbol: dot < 0 ? null : path.text.slice(dot + 1) }];
}

function go(node: Node): ImportedName[] {
  const specs: Node[] = [];
  const collect = (n: Node) => {
    for (const child of named(n)) {
      if (child.type === "import_spec") specs.push(child);
      else if (child.type === "import_spec_list") collect(child);
    }
  };
  collect(node);
  // `str "strings"` and `_ "embed"` import the package itself; `. "math"` imports all its names.
  return specs.map((spec) => ({
    module: unquote(spec.childForFieldName("path")?.text ?? ""),
    symbol: spec.childForFieldName("name")?.type === "dot" ? "*" : null,
    line: spec.startPosition.row + 1,
  }));
}

function rust(node: Node): ImportedName[] {
  if (node.type === "extern_crate_declaration")
    return [{ module: node.childForFieldName("name")?.text ?? "", symbol: null }];
  const out: ImportedName[] = [];
  const walk = (n: Node | null, prefix: string): void => {
    if (!n) return;
    const join = (a: string, b: string) => (a ? `${a}::${b}` : b);
    switch (n.type) {
      case "scoped_identifier": {
        const path = n.childForFieldName("path")?.text ?? "";
        out.push({ module: join(prefix, path), symbol: n.childForFieldName("name")?.text ?? null });
        return;
      }
      case "scoped_use_list":
        walk(n.childForFieldName("list"), join(prefix, n.childForFieldName("path")?.text ?? ""));
        return;
      case "use_list":
        for (const child of named(n)) walk(child, prefix);
        return;
      case "use_as_clause":
        walk(n.childForFieldName("path"), prefix);
        return;
      case "use_wildcard": {
        const inner = named(n)[0];
        out.push({ module: join(prefix, inner?.text ?? ""), symbol: "*" });
        return;
      }
      case "self":
        // `use std::fmt::{self, Display}`: `self` is the module std::fmt itself.
        out.push({ module: prefix || "self", symbol: null });
        return;
      default:
        out.push(prefix ? { module: prefix, symbol: n.text } : { module: n.text, symbol: null });
    }
  };
  walk(node.childForFieldName("argument"), "");
  return out;
}

const RUBY_LOADERS = new Set(["require", "require_relative", "load", "autoload"]);
function ruby(node: Node): ImportedName[] {
  const method = node.childForFieldName("method")?.text;
  if (!method || !RUBY_LOADERS.has(method) || node.childForFieldName("receiver")) return [];
  const args = node.childForFieldName("arguments");
  const path = args && named(args).find((n) => n.type === "string");
  return path ? [{ module: unquote(path.text), symbol: null }] : [];
}

/** `A\B\C` -> module `A\B`, symbol `C`; a name without a namespace is a module of its own. */
function phpName(path: string): ImportedName {
  const text = path.replace(/^\\/, "");
  const cut = text.lastIndexOf("\\");
  return cut < 0 ? { module: text, symbol: null } : { module: text.slice(0, cut), symbol: text.slice(cut + 1) };
}

function php(node: Node): ImportedName[] {
  if (node.type !== "namespace_use_declaration") {
    // include/require: a literal path, or the literal parts of `__DIR__ . '/x.php'`.
    const argument = named(node)[0];
    if (!argument) return [];
    if (argument.type === "string" || argument.type === "encapsed_string")
      return [{ module: unquote(argument.text), symbol: null }];
    const parts = argument.descendantsOfType(["string_value", "string_content"]).map((n) => n?.text ?? "");
    return [{ module: parts.length ? parts.join("") : argument.text, symbol: null }];
  }
  const out: ImportedName[] = [];
  const group = named(node).find((n) => n.type === "namespace_use_group");
  if (group) {
    // use App\Contracts\{Payable, Shippable as Ship};
    const prefix = named(node).find((n) => n.type === "namespace_name")?.text ?? "";
    for (const clause of named(group)) {
      const path = named(clause).find(
        (n) => n.type === "namespace_name" || n.type === "name" || n.type === "qualified_name",
      );
      if (path) out.push(phpName(`${prefix}\\${path.text}`));
    }
    return out;
  }
  for (const clause of named(node)) {
    if (clause.type !== "namespace_use_clause") continue;
    const qualified = named(clause).find((n) => n.type === "qualified_name" || n.type === "name");
    out.push(phpName(qualified?.text ?? clause.text));
  }
  return out;
}

function cFamily(node: Node): ImportedName[] {
  if (node.type === "preproc_include") {
    const path = node.childForFieldName("path");
    return path ? [{ module: unquote(path.text), symbol: null }] : [];
  }
  // C++ `using std::string;` / `using namespace std;`
  const target = named(node).at(-1);
  if (!target) return [];
  if (node.text.startsWith("using namespace")) return [{ module: target.text, symbol: "*" }];
  const cut = target.text.lastIndexOf("::");
  return cut < 0
    ? [{ module: target.text, symbol: null }]
    : [{ module: target.text.slice(0, cut), symbol: target.text.slice(cut + 2) }];
}

/** CSS `@import url("theme.css") screen;` / `@import "theme.css";` imports the stylesheet. */
function css(node: Node): ImportedName[] {
  const target = named(node).find((n) => n.type === "string_value" || n.type === "call_expression");
  if (!target) return [];
  const text =
    target.type === "call_expression"
      ? (named(target)
          .find((n) => n.type === "arguments")
          ?.text.slice(1, -1) ?? "")
      : target.text;
  return [{ module: unquote(text.trim()), symbol: null }];
}

const READERS: Record<LanguageId, (node: Node) => ImportedName[]> = {
  python,
  javascript,
  typescript: javascript,
  tsx: javascript,
  java,
  go,
  rust,
  ruby,
  php,
  c: cFamily,
  cpp: cFamily,
  bash: () => [],
  css,
  html: () => [],
};

/** The names an import node brings in. */
export function extractImports(node: Node, language: LanguageId): ImportedName[] {
  return READERS[language](node);
}

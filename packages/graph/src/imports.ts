/** Reading `{module, symbol}` pairs out of each language's import statements. */
import type { Node } from "web-tree-sitter";
import type { LanguageId } from "./languages.js";

export interface ImportedName {
  readonly module: string;
  /** The imported name; `*` for a wildcard; null when the statement imports the module itself. */
  readonly symbol: string | null;
}

const unquote = (text: string): string => text.replace(/^[<"'`]|[>"'`]$/g, "");
const fields = (node: Node, name: string): Node[] => node.childrenForFieldName(name).filter((n): n is Node => n !== null);
const named = (node: Node): Node[] => node.namedChildren.filter((n): n is Node => n !== null);

function python(node: Node): ImportedName[] {
  const nameOf = (n: Node) => (n.type === "aliased_import" ? (n.childForFieldName("name")?.text ?? n.text) : n.text);
  if (node.type === "import_statement") return fields(node, "name").map((n) => ({ module: nameOf(n), symbol: null }));
  const module = node.type === "future_import_statement" ? "__future__" : (node.childForFieldName("module_name")?.text ?? "");
  if (named(node).some((n) => n.type === "wildcard_import")) return [{ module, symbol: "*" }];
  return fields(node, "name").map((n) => ({ module, symbol: nameOf(n) }));
}

function javascript(node: Node): ImportedName[] {
  const source = node.childForFieldName("source");
  if (!source) return [];
  const module = unquote(source.text);
  const clause = named(node).find((n) => n.type === "import_clause");
  if (!clause) return [{ module, symbol: null }];
  const out: ImportedName[] = [];
  for (const part of named(clause)) {
    if (part.type === "identifier") out.push({ module, symbol: "default" });
    else if (part.type === "namespace_import") out.push({ module, symbol: "*" });
    else if (part.type === "named_imports") {
      for (const spec of named(part)) {
        if (spec.type === "import_specifier") out.push({ module, symbol: spec.childForFieldName("name")?.text ?? spec.text });
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
  return specs.map((spec) => ({
    module: unquote(spec.childForFieldName("path")?.text ?? ""),
    symbol: spec.childForFieldName("name")?.text ?? null,
  }));
}

function rust(node: Node): ImportedName[] {
  if (node.type === "extern_crate_declaration") return [{ module: node.childForFieldName("name")?.text ?? "", symbol: null }];
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

function php(node: Node): ImportedName[] {
  if (node.type !== "namespace_use_declaration") {
    const path = named(node).find((n) => n.type === "string" || n.type === "encapsed_string");
    return path ? [{ module: unquote(path.text), symbol: null }] : [];
  }
  const out: ImportedName[] = [];
  for (const clause of named(node)) {
    if (clause.type !== "namespace_use_clause") continue;
    const qualified = named(clause).find((n) => n.type === "qualified_name" || n.type === "name");
    const text = (qualified?.text ?? clause.text).replace(/^\\/, "");
    const cut = text.lastIndexOf("\\");
    out.push(cut < 0 ? { module: text, symbol: null } : { module: text.slice(0, cut), symbol: text.slice(cut + 1) });
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
  return cut < 0 ? [{ module: target.text, symbol: null }] : [{ module: target.text.slice(0, cut), symbol: target.text.slice(cut + 2) }];
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
};

/** The names an import node brings in. */
export function extractImports(node: Node, language: LanguageId): ImportedName[] {
  return READERS[language](node);
}

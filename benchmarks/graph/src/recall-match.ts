/** What the recall benchmark counts as a ctags definition, and when the graph has found it. */
import type { GraphSymbol } from "@graphplan/graph";

export interface CtagsTag {
  readonly name: string;
  readonly path: string;
  /** ctags' language name (`C++`, `TypeScript`, ...). */
  readonly language: string;
  /** ctags' kind, long name (`function`, `prototype`, ...). */
  readonly kind: string;
  readonly line: number;
  readonly scope?: string | undefined;
  readonly pattern: string;
}

/**
 * ctags' kinds that name a definition the graph means to list: types, functions and methods,
 * modules and namespaces with a body. Left out: variables, constants, fields and members,
 * properties, enumerators, macros, `package`/`namespace` statements, imports, and the kinds
 * ctags disables by default (C/C++ prototypes, locals, parameters).
 */
const KINDS: Readonly<Record<string, readonly string[]>> = {
  python: ["class", "function", "member"],
  javascript: ["function", "class", "method", "generator", "getter", "setter"],
  typescript: ["function", "class", "interface", "enum", "method", "namespace", "alias", "generator"],
  tsx: ["function", "class", "interface", "enum", "method", "namespace", "alias", "generator"],
  go: ["func", "type", "struct", "interface", "talias", "methodSpec"],
  rust: ["module", "struct", "interface", "implementation", "function", "enum", "typedef", "method"],
  ruby: ["class", "method", "module", "singletonMethod"],
  php: ["class", "function", "interface", "trait"],
  java: ["class", "interface", "enum", "method", "annotation"],
  c: ["function", "struct", "union", "enum", "typedef"],
  cpp: ["function", "struct", "union", "enum", "typedef", "class", "namespace"],
};
/**
 * Tags of a counted kind that are not definitions, left out: ctags' JavaScript parser calls every
 * object literal held by a name a `class` (`var req = { method: 'GET' }`), and its TypeScript
 * parser reads `type X` inside `import {...}` / `export {...}` lists as a type alias. Only a
 * JavaScript `class` whose line has the `class` keyword and a TypeScript `alias` whose line
 * declares `type NAME` with `=` or type parameters count.
 */
export function isDefinition(language: string, tag: CtagsTag): boolean {
  if (language === "javascript" && tag.kind === "class") return /\bclass\b/.test(tag.pattern);
  if ((language === "typescript" || language === "tsx") && tag.kind === "alias") {
    return new RegExp(`\\btype\\s+${tag.name.replace(/[$]/g, "\\$")}\\s*(=|<|$)`).test(
      tag.pattern.replace(/\$\/$/, ""),
    );
  }
  return true;
}

const KIND_SETS = new Map(Object.entries(KINDS).map(([language, kinds]) => [language, new Set(kinds)]));
export const countedKinds = (language: string): ReadonlySet<string> => KIND_SETS.get(language) ?? new Set();

const BY_CTAGS: Readonly<Record<string, string>> = {
  Python: "python",
  JavaScript: "javascript",
  TypeScript: "typescript",
  Go: "go",
  Rust: "rust",
  Ruby: "ruby",
  PHP: "php",
  Java: "java",
  C: "c",
  "C++": "cpp",
};

/**
 * The language a tag is counted under: ctags' own, except `.tsx` (TSX) and `.h`, which ctags
 * always reads as C++: a header counts as C++ in a repository with C++ sources, as C otherwise.
 */
export function ctagsLanguage(tag: CtagsTag, repoHasCpp: boolean): string | undefined {
  if (tag.path.endsWith(".tsx")) return "tsx";
  if (tag.path.endsWith(".h")) return repoHasCpp ? "cpp" : "c";
  return BY_CTAGS[tag.language];
}

/** The names a graph symbol answers to: its own, its last `::`/`.`/`\` part, both sides of `Trait for Type`. */
export function namesOf(symbol: GraphSymbol): string[] {
  const names = [symbol.name];
  const last = symbol.name.split(/::|\.|\\/).pop()!;
  if (last !== symbol.name) names.push(last);
  const impl = /^(.+) for (.+)$/s.exec(symbol.name);
  if (impl)
    names.push(impl[1]!, impl[2]!.replace(/^&('\w+\s+)?(mut\s+)?|^\[|\]$/g, "").replace(/^&('\w+\s+)?(mut\s+)?/, ""));
  // A C function defined through a macro, `TEST_IMPL(name)`, answers to the macro's name (ctags').
  const macro = /^(\w+)\(/.exec(symbol.name);
  if (macro) names.push(macro[1]!);
  // Generic arguments: `Foo<T>` answers to `Foo`.
  for (const name of [...names]) {
    const bare = name.replace(/<.*$/s, "").split(/::|\./).pop()!;
    if (bare && !names.includes(bare)) names.push(bare);
  }
  return names;
}

/** Same file, same name, and the ctags line inside the symbol's lines (one line of slack before its start). */
export function matches(symbol: GraphSymbol, tag: CtagsTag): boolean {
  if (tag.line < symbol.start_line - 1 || tag.line > symbol.end_line) return false;
  // ctags writes `operator !=`, the source (and the graph) `operator!=`.
  const squeeze = (name: string) => name.replace(/\s+/g, "");
  const exact = squeeze(tag.name);
  const wanted = squeeze(tag.name.replace(/<.*$/s, ""));
  return namesOf(symbol).some((name) => squeeze(name) === exact || squeeze(name) === wanted);
}

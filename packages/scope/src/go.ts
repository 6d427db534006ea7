/**
 * Go's scoping over a tree-sitter tree, by the rules of the Go specification ("Declarations and
 * scope"): the package block (top-level functions, types, variables, constants, and the file's
 * imports), a function block (receiver, type parameters, parameters and named results, and the
 * body's own declarations), every `{…}` block, and the implicit blocks of `if`, `for`, `switch`,
 * `select` and of each case clause. A local variable, constant or type is in scope from the end of
 * its declaration (`x := x + 1` reads the outer `x`); a package-level one everywhere. `x, err := …`
 * declares only the names new in that block. Labels, struct fields and methods (field identifiers)
 * are other namespaces and are not names here; a key of a composite literal (`T{name: …}`) may be a
 * field or a variable, and is reported as such.
 */
import type { Node, Tree } from "@graphplan/graph";

export type GoScopeKind = "package" | "function" | "block";

export interface GoScope {
  readonly id: number;
  readonly kind: GoScopeKind;
  readonly node: Node;
  readonly parent: GoScope | undefined;
  /** Names declared in this block → their bindings. */
  readonly bindings: Map<string, GoBinding>;
}

export interface GoBinding {
  readonly name: string;
  readonly scope: GoScope;
  /** The declaring identifier (the first, for a name `:=` declares again). */
  readonly node: Node;
  /** Where it comes into scope (package level: 0). */
  readonly from: number;
  /** A file's import, named by its alias or by its path's last element. */
  readonly imported: boolean;
}

export interface GoOccurrence {
  readonly node: Node;
  readonly name: string;
  /** The binding it names; undefined for a predeclared name (`len`, `int`, `nil`) or one declared in another file. */
  readonly binding: GoBinding | undefined;
}

export interface GoScopeAnalysis {
  readonly package: GoScope;
  readonly scopes: readonly GoScope[];
  /** Every declaring and referring identifier, in source order. */
  readonly occurrences: readonly GoOccurrence[];
  /** Identifiers used as keys of composite literals: a struct's field, or a variable used as a map key. */
  readonly keys: readonly Node[];
}

const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);
const IMPLICIT_BLOCKS = new Set([
  "if_statement",
  "for_statement",
  "expression_switch_statement",
  "type_switch_statement",
  "select_statement",
  "expression_case",
  "default_case",
  "type_case",
  "communication_case",
]);
const FUNCTIONS = new Set(["function_declaration", "method_declaration", "func_literal"]);

/**
 * The scopes, bindings and occurrences of one Go file.
 * Long on purpose: one visitor with a case per Go construct that declares a name or opens a block (the specification's list), sharing the scope stack and the lists of declarations and uses as closures; split, each case would take them all as arguments.
 */
export function analyzeGo(tree: Tree): GoScopeAnalysis {
  const scopes: GoScope[] = [];
  const pending: { node: Node; scope: GoScope }[] = [];
  const declared: { node: Node; binding: GoBinding }[] = [];
  const keys: Node[] = [];
  const open = (kind: GoScopeKind, node: Node, parent: GoScope | undefined): GoScope => {
    const scope: GoScope = { id: scopes.length, kind, node, parent, bindings: new Map() };
    scopes.push(scope);
    return scope;
  };
  const declare = (identifier: Node, scope: GoScope, from: number, imported = false): void => {
    const name = identifier.text;
    if (name === "_") return;
    const existing = scope.bindings.get(name);
    if (existing) {
      // `a, err := …` again in the same block: the same variable.
      declared.push({ node: identifier, binding: existing });
      return;
    }
    const binding: GoBinding = { name, scope, node: identifier, from, imported };
    scope.bindings.set(name, binding);
    declared.push({ node: identifier, binding });
  };
  /** The identifiers a declaration's names field or expression list holds. */
  const names = (node: Node | null | undefined): Node[] =>
    !node
      ? []
      : node.type === "identifier" || node.type === "type_identifier" || node.type === "package_identifier"
        ? [node]
        : named(node).filter((n) => n.type === "identifier");

  const pkg = open("package", tree.rootNode, undefined);
  // The package block first: its names are in scope everywhere in the file.
  for (const top of named(tree.rootNode)) {
    if (top.type === "function_declaration") declare(top.childForFieldName("name")!, pkg, 0);
    if (top.type === "type_declaration")
      for (const spec of named(top))
        if (spec.childForFieldName("name")) declare(spec.childForFieldName("name")!, pkg, 0);
    if (top.type === "var_declaration" || top.type === "const_declaration") {
      for (const spec of top.descendantsOfType(["var_spec", "const_spec"]))
        if (spec) for (const n of spec.childrenForFieldName("name")) if (n) declare(n, pkg, 0);
    }
    if (top.type === "import_declaration") {
      for (const spec of top.descendantsOfType("import_spec")) {
        const alias = spec?.childForFieldName("name");
        if (alias?.type === "package_identifier") declare(alias, pkg, 0, true);
        else if (spec && !alias) {
          const last = goImportName(spec.childForFieldName("path")?.text.slice(1, -1) ?? "");
          if (last) pkg.bindings.set(last, { name: last, scope: pkg, node: spec, from: 0, imported: true });
        }
      }
    }
  }

  /**
   * The names of a parameter list. Go's rule is that either every parameter is named or none is;
   * tree-sitter-go (as tree-sitter-wasms ships it) reads a list of ten or more names as a first
   * unnamed parameter of type `a` followed by the rest (`(a, b, …, j int)`), so in a list with
   * names, a parameter that is a bare type name is a name.
   */
  const declareParameters = (list: Node, scope: GoScope, from: number): void => {
    const decls = named(list).filter((d) => d.type !== "comment");
    const withNames = decls.some((d) => d.childrenForFieldName("name").some((n) => n));
    for (const decl of decls) {
      const names = decl.childrenForFieldName("name").filter((n): n is Node => !!n);
      const type = decl.childForFieldName("type");
      if (
        withNames &&
        names.length === 0 &&
        decl.type === "parameter_declaration" &&
        type?.type === "type_identifier"
      ) {
        declare(type, scope, from);
        continue;
      }
      for (const n of names) declare(n, scope, from);
      for (const c of named(decl)) if (!names.some((n) => n.id === c.id)) visit(c, scope);
    }
  };

  const visit = (node: Node, scope: GoScope): void => {
    switch (node.type) {
      case "source_file":
        for (const c of named(node)) visit(c, scope);
        return;
      case "import_declaration":
      case "package_clause":
      case "comment":
      case "field_identifier":
      case "label_name":
        return;
      case "function_declaration":
      case "method_declaration":
      case "func_literal": {
        const fn = open("function", node, scope);
        for (const field of ["receiver", "type_parameters", "parameters", "result"]) {
          const list = node.childForFieldName(field);
          if (!list) continue;
          // A result that is a bare type (`func f() int`) is read, not declared.
          if (list.type !== "parameter_list" && list.type !== "type_parameter_list") {
            visit(list, fn);
            continue;
          }
          declareParameters(list, fn, node.startIndex);
          // `func (r *T[K, V]) m()`: the receiver's type arguments declare the method's type parameters.
          if (field === "receiver") {
            for (const args of list.descendantsOfType("type_arguments"))
              for (const t of named(args)) if (t.type === "type_identifier") declare(t, fn, node.startIndex);
          }
        }
        const body = node.childForFieldName("body");
        // The body's statements share the function block with the parameters.
        if (body) for (const c of named(body)) visit(c, fn);
        return;
      }
      case "block": {
        const inner = open("block", node, scope);
        for (const c of named(node)) visit(c, inner);
        return;
      }
      case "short_var_declaration": {
        visit(node.childForFieldName("right")!, scope);
        for (const n of names(node.childForFieldName("left"))) declare(n, scope, node.endIndex);
        return;
      }
      case "var_spec":
      case "const_spec": {
        for (const c of named(node))
          if (!node.childrenForFieldName("name").some((n) => n?.id === c.id)) visit(c, scope);
        if (scope.kind !== "package")
          for (const n of node.childrenForFieldName("name")) if (n) declare(n, scope, node.endIndex);
        return;
      }
      case "type_spec":
      case "type_alias": {
        // A local type is in scope from its own name on (`type list struct{ next *list }`).
        const name = node.childForFieldName("name");
        if (name && scope.kind !== "package") declare(name, scope, name.startIndex);
        // `type C[P any] …`: the type parameters are in scope in the whole specification.
        const parameters = node.childForFieldName("type_parameters");
        const inner = parameters ? open("block", node, scope) : scope;
        if (parameters) declareParameters(parameters, inner, node.startIndex);
        for (const c of named(node)) if (c.id !== name?.id && c.id !== parameters?.id) visit(c, inner);
        return;
      }
      case "range_clause": {
        visit(node.childForFieldName("right")!, scope);
        const left = node.childForFieldName("left");
        if (node.children.some((c) => c?.type === ":=")) for (const n of names(left)) declare(n, scope, node.endIndex);
        else if (left) visit(left, scope);
        return;
      }
      case "receive_statement": {
        const right = node.childForFieldName("right");
        if (right) visit(right, scope);
        const left = node.childForFieldName("left");
        if (node.children.some((c) => c?.type === ":=")) for (const n of names(left)) declare(n, scope, node.endIndex);
        else if (left) visit(left, scope);
        return;
      }
      case "type_switch_statement": {
        const implicit = open("block", node, scope);
        const initializer = node.childForFieldName("initializer");
        if (initializer) visit(initializer, implicit);
        visit(node.childForFieldName("value")!, implicit);
        // `switch v := x.(type)`: v is declared in each clause; one variable here.
        for (const n of names(node.childForFieldName("alias")))
          declare(n, implicit, node.childForFieldName("value")!.endIndex);
        for (const c of named(node)) if (c.type === "type_case" || c.type === "default_case") visit(c, implicit);
        return;
      }
      case "parameter_declaration":
      case "variadic_parameter_declaration": {
        // In a function type or an interface's method: its names are in no scope; its type is read
        // (not a bare type name beside named parameters: that is a name, see declareParameters).
        const siblings = named(node.parent).filter((d) => d.type !== "comment");
        if (
          node.childrenForFieldName("name").every((n) => !n) &&
          node.childForFieldName("type")?.type === "type_identifier" &&
          siblings.some((d) => d.childrenForFieldName("name").some((n) => n))
        )
          return;
        for (const c of named(node))
          if (!node.childrenForFieldName("name").some((n) => n?.id === c.id)) visit(c, scope);
        return;
      }
      case "keyed_element": {
        const [key, value] = named(node);
        const id = key?.type === "literal_element" ? named(key)[0] : key;
        if (id?.type === "identifier") keys.push(id);
        else if (key) visit(key, scope);
        if (value) visit(value, scope);
        return;
      }
      case "qualified_type": {
        // pkg.Type: the package is a name here; the type is the other package's.
        const pkgName = node.childForFieldName("package");
        if (pkgName) pending.push({ node: pkgName, scope });
        return;
      }
      case "identifier":
      case "type_identifier":
      case "package_identifier":
        // `_` is the blank identifier: it names nothing.
        if (node.text !== "_") pending.push({ node, scope });
        return;
      case "binary_expression": {
        // Walked down its left spine without recursion: generated code chains thousands of `+`.
        const rights: Node[] = [];
        let left: Node = node;
        while (left.type === "binary_expression") {
          const right = left.childForFieldName("right");
          if (right) rights.push(right);
          left = left.childForFieldName("left")!;
        }
        visit(left, scope);
        for (const right of rights.reverse()) visit(right, scope);
        return;
      }
      default: {
        const inner = IMPLICIT_BLOCKS.has(node.type) ? open("block", node, scope) : scope;
        for (const c of named(node)) visit(c, inner);
      }
    }
  };
  visit(tree.rootNode, pkg);

  const declaredAt = new Map(declared.map((d) => [d.node.id, d.binding] as const));
  const resolveAt = (name: string, scope: GoScope, at: number): GoBinding | undefined => {
    for (let s: GoScope | undefined = scope; s; s = s.parent) {
      const binding = s.bindings.get(name);
      if (binding && (s.kind === "package" || binding.from <= at)) return binding;
    }
    return undefined;
  };
  const occurrences: GoOccurrence[] = [
    ...declared
      .filter((d) => d.node.type !== "import_spec")
      .map((d) => ({ node: d.node, name: d.node.text, binding: d.binding })),
    ...pending
      .filter((p) => !declaredAt.has(p.node.id))
      .map((p) => ({ node: p.node, name: p.node.text, binding: resolveAt(p.node.text, p.scope, p.node.startIndex) })),
  ].sort((a, b) => a.node.startIndex - b.node.startIndex);
  return { package: pkg, scopes, occurrences, keys };
}

/** The Go specification's predeclared identifiers (the universe block): types, constants, zero value, functions. */
export const GO_PREDECLARED: ReadonlySet<string> = new Set([
  ..."any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr".split(
    " ",
  ),
  ..."true false iota nil".split(" "),
  ..."append cap clear close complex copy delete imag len make max min new panic print println real recover".split(" "),
]);

/**
 * The name an import of `path` binds when it has no alias, guessed from the path as goimports
 * does: the last element, skipping a major-version element (`…/y/v2` → `y`), without a `go-`
 * prefix, a `.go`/`-go` suffix or a gopkg.in version (`yaml.v3` → `yaml`). Undefined when that is
 * not an identifier: the package clause of the imported package decides, which one file cannot see.
 */
export function goImportName(path: string): string | undefined {
  const parts = path.split("/");
  let last = parts.pop() ?? "";
  if (/^v\d+$/.test(last) && parts.length) last = parts.pop()!;
  last = last.replace(/\.v\d+$/, "").replace(/^go-|[-.]go$/g, "");
  return /^[A-Za-z_]\w*$/.test(last) ? last : undefined;
}

/** "function Total (line 7)", "a block (line 9)", "the package"; without the line with `line: false`. */
export function goScopeLabel(scope: GoScope, line = true): string {
  if (scope.kind === "package") return "the package";
  const name = FUNCTIONS.has(scope.node.type) ? scope.node.childForFieldName("name")?.text : undefined;
  return `${scope.kind === "function" ? `function${name ? ` ${name}` : " literal"}` : "a block"}${line ? ` (line ${scope.node.startPosition.row + 1})` : ""}`;
}

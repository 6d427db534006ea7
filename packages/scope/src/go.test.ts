import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, withTree } from "@graphplan/graph";
import { analyzeGo, goImportName } from "./go.js";

beforeAll(() => loadGrammars(["go"]));

/** Each occurrence as `name@line->line of its binding` (`-` for a predeclared or unknown name). */
const resolved = (source: string): string[] =>
  withTree(source, "go", (tree) =>
    analyzeGo(tree).occurrences.map(
      (o) =>
        `${o.name}@${o.node.startPosition.row + 1}->${o.binding ? (o.binding.node.type === "import_spec" ? "import" : o.binding.node.startPosition.row + 1) : "-"}`,
    ),
  );

describe("analyzeGo", () => {
  test("a := redeclaration in an inner block reads the outer variable on its right, then shadows it", () => {
    const source =
      "package main\n\nfunc main() {\n\tn, err := f()\n\tif err != nil {\n\t\tn, err := g(n)\n\t\th(n, err)\n\t}\n\th(n, err)\n}\n";
    expect(resolved(source)).toEqual([
      "main@3->3",
      "n@4->4",
      "err@4->4",
      "f@4->-",
      "err@5->4",
      "n@6->6",
      "err@6->6",
      "g@6->-",
      "n@6->4",
      "h@7->-",
      "n@7->6",
      "err@7->6",
      "h@9->-",
      "n@9->4",
      "err@9->4",
    ]);
  });

  test("a := in the same block declares only the new names", () => {
    const source = "package main\n\nfunc main() {\n\ta, err := f()\n\tb, err := g(a)\n\th(b, err)\n}\n";
    const scopes = withTree(source, "go", (tree) => analyzeGo(tree).scopes.map((s) => [...s.bindings.keys()]));
    expect(scopes).toEqual([["main"], ["a", "err", "b"]]);
    expect(resolved(source)).toContain("err@5->4");
  });

  test("packages, types, function literals, type switches and keys", () => {
    const source = [
      "package main",
      "",
      'import str "strings"',
      'import "fmt"',
      "",
      "type P struct{ x int }",
      "",
      "func main() {",
      "\tvar b str.Builder",
      "\tf := func(x int) int { return x }",
      "\tswitch v := any(f(1)).(type) {",
      "\tcase int:",
      "\t\tfmt.Println(v, b, P{x: 1})",
      "\t}",
      "}",
      "",
    ].join("\n");
    expect(resolved(source)).toEqual([
      "str@3->3",
      "P@6->6",
      "int@6->-",
      "main@8->8",
      "b@9->9",
      "str@9->3",
      "f@10->10",
      "x@10->10",
      "int@10->-",
      "int@10->-",
      "x@10->10",
      "v@11->11",
      "any@11->-",
      "f@11->10",
      "int@12->-",
      "fmt@13->import",
      "v@13->11",
      "b@13->9",
      "P@13->6",
    ]);
    expect(withTree(source, "go", (tree) => analyzeGo(tree).keys.map((k) => k.text))).toEqual(["x"]);
  });

  test("an import without an alias binds its package's name, guessed from the path as goimports does", () => {
    expect(
      [
        "fmt",
        "net/http",
        "github.com/x/yaml/v2",
        "gopkg.in/yaml.v3",
        "github.com/mattn/go-sqlite3",
        "github.com/x/pq-go",
        "github.com/x/foo-bar",
      ].map(goImportName),
    ).toEqual(["fmt", "http", "yaml", "yaml", "sqlite3", "pq", undefined]);
    const source = 'package main\n\nimport "github.com/x/yaml/v2"\n\nfunc main() { yaml.Marshal(1) }\n';
    expect(resolved(source)).toEqual(["main@5->5", "yaml@5->import"]);
  });

  test("found on the Go standard library: long parameter lists, type parameters of receivers and types, recursive local types, the blank identifier", () => {
    const names = Array.from({ length: 10 }, (_, i) => `p${i}`);
    const unbound = (source: string): string[] =>
      withTree(source, "go", (tree) =>
        analyzeGo(tree)
          .occurrences.filter((o) => !o.binding)
          .map((o) => o.name),
      );
    // tree-sitter-go reads ten names as an unnamed `p0` followed by nine: p0 is a parameter all the same.
    expect(unbound(`package p\n\nfunc f(${names.join(", ")} int) int { return ${names.join(" + ")} }\n`)).toEqual([
      "int",
      "int",
    ]);
    expect(
      unbound(
        "package p\n\nfunc (q *T[K, V]) get(k K) V { var v V; return v }\n\ntype T[K comparable, V any] struct{ m map[K]V }\n",
      ),
    ).toEqual(["comparable", "any"]);
    expect(unbound("package p\n\nfunc f() {\n\ttype node struct{ next *node }\n\t_ = node{}\n}\n")).toEqual([]);
  });

  test("a chain of thousands of + is read without exhausting the stack", () => {
    const source = `package p\n\nconst s = ${Array.from({ length: 20000 }, () => '"x"').join(" + ")} + y\n`;
    expect(withTree(source, "go", (tree) => analyzeGo(tree).occurrences.map((o) => o.name))).toEqual(["s", "y"]);
  });
});

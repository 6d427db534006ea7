import { Parser, Tree } from "web-tree-sitter";
import { afterEach, describe, expect, it, vi } from "vitest";
import { buildGraph, detectFileLanguage, GraphCache, GraphSchema, graphOfFile, loadGrammars } from "./index.js";
import { blankMacros } from "./graph.js";

const python = (name: string, body = "pass") => `import os\n\n\ndef ${name}():\n    ${body}\n`;

describe("buildGraph", () => {
  it("reports an unknown extension as an error entry and still graphs the other files", async () => {
    const graph = await buildGraph([
      { path: "notes.txt", source: "def not_python(): pass" },
      { path: "a.py", source: python("a") },
    ]);
    expect(graph.errors).toHaveLength(1);
    expect(graph.errors[0]).toMatch(/^Unsupported file type: notes\.txt \(GraphPlan reads .*\.py/);
    expect(graph.symbols.map((s) => s.name)).toEqual(["a"]);
  });

  it("reports a file with syntax errors with its line and keeps what it could read", async () => {
    const graph = await buildGraph([{ path: "broken.js", source: "function ok() { return 1; }\nfunction bad( {\n" }]);
    expect(graph.errors).toHaveLength(1);
    expect(graph.errors[0]).toMatch(/^Syntax error in broken\.js: line 2/);
    expect(graph.symbols.map((s) => s.name)).toContain("ok");
  });

  it("graphs an empty file as nothing, without errors", async () => {
    const graph = await buildGraph([{ path: "empty.go", source: "" }]);
    expect(graph).toEqual({ symbols: [], imports: [], line_kinds: {}, errors: [] });
  });

  it("appends the caller's own errors (files it could not read)", async () => {
    const graph = await buildGraph([{ path: "a.py", source: python("a") }], {
      extraErrors: ["Cannot read b.py: EACCES"],
    });
    expect(graph.errors).toEqual(["Cannot read b.py: EACCES"]);
  });

  it("gives output that the Graph schema accepts, with every record in the design's field order", async () => {
    const graph = await buildGraph([{ path: "pkg/a.py", source: python("a", "if True:\n        return 1") }]);
    expect(GraphSchema.parse(graph)).toEqual(graph);
    expect(Object.keys(graph)).toEqual(["symbols", "imports", "line_kinds", "errors"]);
    expect(Object.keys(graph.symbols[0]!)).toEqual(["name", "kind", "file", "start_line", "end_line"]);
    expect(Object.keys(graph.imports[0]!)).toEqual(["file", "module", "symbol", "line"]);
    expect(graph.line_kinds).toEqual({ "pkg/a.py": { "5": "if_statement", "6": "return_statement" } });
  });

  it("reads a file with CRLF line endings and a BOM with the same lines", async () => {
    const source = "\uFEFFimport os\r\n\r\nclass A:\r\n    def f(self):\r\n        return 1\r\n";
    const graph = await buildGraph([{ path: "crlf.py", source }]);
    expect(graph.errors).toEqual([]);
    expect(graph.symbols.map((s) => [s.name, s.start_line, s.end_line])).toEqual([
      ["A", 3, 5],
      ["f", 4, 5],
    ]);
  });
});

describe("trees", () => {
  afterEach(() => vi.restoreAllMocks());

  it("every tree parsed while building a graph is deleted, also for files with errors", async () => {
    await loadGrammars(["python", "rust"]);
    const parsed: Tree[] = [];
    const deleted = new Set<Tree>();
    const parse = Parser.prototype.parse;
    vi.spyOn(Parser.prototype, "parse").mockImplementation(function (this: Parser, ...args) {
      const tree = parse.apply(this, args);
      if (tree) parsed.push(tree);
      return tree;
    });
    const del = Tree.prototype.delete;
    vi.spyOn(Tree.prototype, "delete").mockImplementation(function (this: Tree) {
      deleted.add(this);
      del.call(this);
    });
    await buildGraph([
      { path: "a.py", source: python("a") },
      { path: "b.py", source: "def broken(:\n" },
      { path: "c.rs", source: "fn main() {}" },
      { path: "d.unknown", source: "" },
    ]);
    expect(parsed).toHaveLength(3);
    expect(parsed.every((tree) => deleted.has(tree))).toBe(true);
  });

  it("graphOfFile turns a parser failure into an error entry", async () => {
    await loadGrammars(["python"]);
    vi.spyOn(Parser.prototype, "parse").mockImplementation(() => {
      throw new Error("out of memory");
    });
    const graph = graphOfFile({ path: "a.py", source: "x = 1" });
    expect(graph.errors).toEqual(["Parse failed for a.py: out of memory"]);
  });
});

describe("GraphCache", () => {
  const files = Array.from({ length: 8 }, (_, i) => ({ path: `pkg/m${i}.py`, source: python(`f${i}`) }));

  it("parses every file on the first build, and none when nothing changed", async () => {
    const cache = new GraphCache();
    await buildGraph(files, { cache });
    expect(cache.lastParsed).toEqual(files.map((f) => f.path));
    await buildGraph(files, { cache });
    expect(cache.lastParsed).toEqual([]);
    expect(cache.size).toBe(8);
  });

  it("re-parses only the file that changed, and gives the graph a fresh build gives", async () => {
    const cache = new GraphCache();
    await buildGraph(files, { cache });
    const changed = files.map((f, i) => (i === 5 ? { ...f, source: python("renamed", "return 2") } : f));
    const graph = await buildGraph(changed, { cache });
    expect(cache.lastParsed).toEqual(["pkg/m5.py"]);
    expect(graph).toEqual(await buildGraph(changed));
    expect(graph.symbols.map((s) => s.name)).toContain("renamed");
    expect(graph.symbols.map((s) => s.name)).not.toContain("f5");
  });

  it("treats an equal text read again (a different string) as unchanged", async () => {
    const cache = new GraphCache();
    await buildGraph(files, { cache });
    const reread = files.map((f) => ({ path: f.path, source: [...f.source].join("") }));
    await buildGraph(reread, { cache });
    expect(cache.lastParsed).toEqual([]);
  });

  it("parses a file added since the last build, and a forgotten one again", async () => {
    const cache = new GraphCache();
    await buildGraph(files, { cache });
    cache.forget("pkg/m0.py");
    await buildGraph([...files, { path: "pkg/new.py", source: python("added") }], { cache });
    expect(cache.lastParsed).toEqual(["pkg/m0.py", "pkg/new.py"]);
  });

  it("hands out frozen records, so a caller cannot corrupt the cache", async () => {
    const cache = new GraphCache();
    const graph = await buildGraph(files, { cache });
    expect(() => {
      (graph.symbols[0] as { name: string }).name = "changed";
    }).toThrow(TypeError);
    expect(() => {
      graph.line_kinds["pkg/m0.py"]!["1"] = "if_statement";
    }).toThrow(TypeError);
    expect(cache.get("pkg/m0.py")?.hash).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe("C and C++ macros and headers", () => {
  it("blanks the macros the grammars cannot read, keeping every position", () => {
    const source = [
      "#define FIELDS int a;",
      "struct s {",
      "  FIELDS",
      "};",
      "FMT_BEGIN_NAMESPACE",
      "FMT_CONSTEXPR auto f() -> int { return 1; }",
      "GTEST_DISALLOW_COPY_(Foo);",
      "class GTEST_API_ Bar {",
      "  void g() LOCKS_EXCLUDED(mu_) {}",
      "};",
      "TEST(Suite, Name) {",
      "}",
      "UV_EXTERN BOOL h(void);",
      "typedef BOOL (WINAPI *fn)(int);",
      "extern int ZEXPORT deflate(z_streamp strm, int flush);",
      "JNIEXPORT jint JNICALL Java_Z_get(JNIEnv *env);",
      "LEVELDB_EXPORT Env* NewMemEnv(Env* base_env);",
    ].join("\n");
    const blanked = blankMacros(source);
    expect(blanked.length).toBe(source.length);
    expect(blanked.split("\n").map((line) => line.trim())).toEqual([
      "#define FIELDS int a;",
      "struct s {",
      "",
      "};",
      "",
      "auto f() -> int { return 1; }",
      "",
      `class ${" ".repeat("GTEST_API_".length)} Bar {`,
      `void g() ${" ".repeat("LOCKS_EXCLUDED(mu_)".length)} {}`,
      "};",
      "TEST(Suite, Name) {",
      "}",
      "BOOL h(void);",
      `typedef BOOL (${" ".repeat("WINAPI".length)} *fn)(int);`,
      `extern int ${" ".repeat("ZEXPORT".length)} deflate(z_streamp strm, int flush);`,
      `JNIEXPORT jint ${" ".repeat("JNICALL".length)} Java_Z_get(JNIEnv *env);`,
      "Env* NewMemEnv(Env* base_env);",
    ]);
  });

  it("reads a .h header as C++ only when it is C++", async () => {
    await loadGrammars(["c", "cpp"]);
    expect(detectFileLanguage("a.h", "struct point { int x; };\nint add(int a, int b);\n")).toBe("c");
    expect(detectFileLanguage("a.h", "namespace n {\nclass A { public: int x; };\n}\n")).toBe("cpp");
    const graph = await buildGraph([
      {
        path: "a.h",
        source: "namespace n {\ntemplate <typename T> class A { public: T f() const { return T(); } };\n}\n",
      },
    ]);
    expect(graph.symbols.map((s) => `${s.kind} ${s.name}`)).toEqual(["namespace n", "class A", "function f"]);
    expect(graph.errors).toEqual([]);
  });

  it("adds the definitions only the macro-blanked reading finds to a file read as written", async () => {
    await loadGrammars(["cpp"]);
    // As written, `WIDGET_API` hides the class; blanked, five `1 %` lose their operand: the file is
    // read as written (smaller errors), and the class and its method come from the blanked reading.
    const fives = ["a", "b", "c", "d", "e"].map(
      (name) => `int ${name}() { return 1 %\n  EXTRA_${name.toUpperCase()}\n  ; }`,
    );
    const source = ["class WIDGET_API Widget {", " public:", "  void Draw() {}", "};", ...fives, ""].join("\n");
    const graph = graphOfFile({ path: "w.cc", source });
    expect(graph.symbols.map((s) => `${s.kind} ${s.name} ${s.start_line}-${s.end_line}`)).toEqual([
      "class Widget 1-4",
      "function Draw 3-3",
      "function a 5-7",
      "function b 8-10",
      "function c 11-13",
      "function d 14-16",
      "function e 17-19",
    ]);
    expect(graph.errors).toEqual(["Syntax error in w.cc: line 3"]);
    // A header's conversion operators are named as ctags and readers name them.
    const ops = graphOfFile({
      path: "h.cc",
      source:
        "struct H {\n  explicit operator bool() const { return true; }\n};\nH::operator int() const { return 1; }\n",
    });
    expect(ops.symbols.map((s) => s.name)).toEqual(["H", "operator bool", "H::operator int"]);
  });
});

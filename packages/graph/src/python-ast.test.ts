/**
 * The Python graph agrees exactly with CPython's own `ast` (python3 must be on PATH) on a
 * corpus written for the edge cases: decorators, async defs, nested classes and functions,
 * methods, relative/star/aliased imports, multi-line signatures, trailing comments, syntax
 * errors. The mapping from `ast` to graph records is defined in fixtures/ast_facts.py.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildGraph, type Graph } from "./index.js";
import { graphNodes } from "./graph.js";
import { loadGrammars, withTree } from "./parser.js";

const corpus = join(import.meta.dirname, "fixtures", "python-ast");
const names = readdirSync(corpus)
  .filter((name) => name.endsWith(".py"))
  .sort();
const files = names.map((name) => ({ path: name, source: readFileSync(join(corpus, name), "utf8") }));

type AstFacts =
  | { error: string }
  | {
      symbols: { name: string; kind: string; start_line: number; end_line: number }[];
      imports: { module: string; symbol: string | null; line: number }[];
    };

const astFacts: Record<string, AstFacts> = JSON.parse(
  execFileSync("python3", [join(import.meta.dirname, "fixtures", "ast_facts.py"), ...names], {
    cwd: corpus,
    encoding: "utf8",
  }),
);

const byLine = <T extends { start_line?: number; line?: number }>(rows: T[]): T[] =>
  [...rows].sort(
    (a, b) =>
      (a.start_line ?? a.line ?? 0) - (b.start_line ?? b.line ?? 0) ||
      JSON.stringify(a).localeCompare(JSON.stringify(b)),
  );

function ours(graph: Graph, file: string) {
  return {
    symbols: byLine(
      graph.symbols
        .filter((s) => s.file === file)
        .map(({ name, kind, start_line, end_line }) => ({ name, kind, start_line, end_line })),
    ),
    imports: byLine(
      graph.imports.filter((i) => i.file === file).map(({ module, symbol, line }) => ({ module, symbol, line })),
    ),
  };
}

describe("the Python graph against CPython's ast", async () => {
  const graph = await buildGraph(files);
  const valid = names.filter((name) => !("error" in astFacts[name]!));
  const invalid = names.filter((name) => "error" in astFacts[name]!);

  it("has a corpus with both valid files and syntax errors", () => {
    expect(valid.length).toBeGreaterThanOrEqual(8);
    expect(invalid.length).toBeGreaterThanOrEqual(3);
  });

  it.each(valid)("%s: classes, functions (start and end lines) and imports agree exactly", (name) => {
    expect(ours(graph, name)).toEqual(astFacts[name]);
  });

  it.each(valid)("%s: parses without syntax errors", (name) => {
    expect(graph.errors.filter((e) => e.includes(name))).toEqual([]);
  });

  it.each(invalid)("%s: ast rejects it, and the graph reports an error on ast's line instead of throwing", (name) => {
    const reported = graph.errors.filter((e) => e.startsWith(`Syntax error in ${name}:`));
    expect(reported).toHaveLength(1);
    const astLine = /\(line (\d+)\)$/.exec((astFacts[name] as { error: string }).error)?.[1];
    expect(astLine).toBeDefined();
    expect(reported[0]).toMatch(new RegExp(`^Syntax error in ${name.replace(".", "\\.")}: line ${astLine}\\b`));
  });

  it("keeps the symbols before the error in a broken file", () => {
    expect(graph.symbols.find((s) => s.file === "error_unclosed.py" && s.name === "fine")).toMatchObject({
      start_line: 1,
      end_line: 2,
    });
  });

  it.each(valid)("%s: the pruned walk finds the same nodes as a walk of every node", async (name) => {
    await loadGrammars(["python"]);
    const source = files.find((f) => f.path === name)!.source;
    withTree(source, "python", (tree) => {
      const pruned = graphNodes(tree, "python", source).map((n) => n.id);
      const full = graphNodes(tree, "python", source, "full").map((n) => n.id);
      expect(pruned.length).toBeGreaterThan(0);
      expect(pruned).toEqual(full);
    });
  });
});

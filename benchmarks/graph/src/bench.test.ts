import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGraph, type SourceFile } from "@graphplan/graph";
import { astGrepDefinitions, astGrepDefinitionsAsync } from "./astgrep.js";
import { GraphPool, split } from "./pool.js";

const fixtures = join(import.meta.dirname, "..", "..", "..", "packages", "graph", "src", "fixtures");

function folder(dir: string, prefix: string): SourceFile[] {
  return readdirSync(dir)
    .filter((name) => !name.startsWith("expected") && !name.endsWith(".json"))
    .sort()
    .map((name) => ({ path: `${prefix}/${name}`, source: readFileSync(join(dir, name), "utf8") }));
}

const everyLanguage = readdirSync(fixtures, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== "python-ast")
  .flatMap((entry) => folder(join(fixtures, entry.name), entry.name));
const corpus = folder(join(fixtures, "python-ast"), "python-ast").filter((file) => !file.path.includes("/error_"));

describe("split", () => {
  it("puts every file in exactly one batch, balancing text length", () => {
    const files = [5, 1, 4, 2, 3, 3].map((n, i) => ({ path: `f${i}`, source: "x".repeat(n * 100) }));
    const batches = split(files, 2);
    expect(batches.flat().map((f) => f.path).sort()).toEqual(files.map((f) => f.path).sort());
    expect(batches.map((batch) => batch.reduce((sum, f) => sum + f.source.length, 0))).toEqual([900, 900]);
  });
});

describe("GraphPool", () => {
  let pool: GraphPool;
  beforeAll(async () => {
    pool = await GraphPool.start(2, everyLanguage);
  }, 120_000);
  afterAll(async () => {
    await pool?.close();
  });

  it("gives exactly buildGraph's graph for the fixtures of every language, in input order", async () => {
    expect(everyLanguage.length).toBeGreaterThanOrEqual(11);
    expect(await pool.build(everyLanguage)).toEqual(await buildGraph(everyLanguage));
  });
});

describe("the ast-grep baseline", () => {
  it("finds the same classes and functions, on the same start lines, as the graph", async () => {
    const graph = await buildGraph(corpus);
    const ours = graph.symbols.map((s) => `${s.file} ${s.kind} ${s.name} ${s.start_line}`).sort();
    const theirs = astGrepDefinitions(corpus)
      .flatMap((defs, i) => defs.map((d) => `${corpus[i]!.path} ${d.kind} ${d.name} ${d.start_line}`))
      .sort();
    expect(ours.length).toBeGreaterThan(50);
    expect(theirs).toEqual(ours);
  });

  it("gives the same definitions with parseAsync", async () => {
    expect(await astGrepDefinitionsAsync(corpus)).toEqual(astGrepDefinitions(corpus));
  });
});

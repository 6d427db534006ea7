import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGraph, type SourceFile } from "@graphplan/graph";
import { astGrepDefinitions, astGrepDefinitionsAsync } from "./astgrep.js";
import { chunks, GraphPool } from "./pool.js";

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

describe("chunks", () => {
  it("puts every file in exactly one chunk, largest first, each within the size unless one file alone exceeds it", () => {
    const files = [5, 1, 4, 2, 3, 3, 9].map((n, i) => ({ path: `f${i}`, source: "x".repeat(n * 100) }));
    const out = chunks(files, 600);
    expect(
      out
        .flat()
        .map((f) => f.path)
        .sort(),
    ).toEqual(files.map((f) => f.path).sort());
    expect(out.map((chunk) => chunk.map((f) => f.source.length / 100))).toEqual([[9], [5], [4], [3, 3], [2, 1]]);
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

  it("gives the same graph when the files are cut into many chunks shared by both workers", async () => {
    expect(await pool.build(everyLanguage, 500)).toEqual(await buildGraph(everyLanguage));
    expect(pool.lastBusyMs.every((ms) => ms > 0)).toBe(true);
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

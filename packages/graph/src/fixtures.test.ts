/**
 * One hand-written fixture folder per grammar (fixtures/<language>/) with the graph it must
 * give (expected.json, checked line by line against the sources).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildGraph,
  GraphSchema,
  LANGUAGE_IDS,
  LANGUAGES,
  detectFileLanguage,
  languagesOf,
  loadGrammars,
  type Graph,
} from "./index.js";

const root = join(import.meta.dirname, "fixtures");

function fixture(language: string) {
  const dir = join(root, language);
  const files = readdirSync(dir)
    .filter((name) => name !== "expected.json")
    .sort()
    .map((name) => ({ path: `${language}/${name}`, source: readFileSync(join(dir, name), "utf8") }));
  const expected = GraphSchema.parse(JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")));
  return { files, expected };
}

describe.each(LANGUAGE_IDS)("the %s fixture", (language) => {
  const { files, expected } = fixture(language);

  it("is written in that language", async () => {
    expect(files.length).toBeGreaterThan(0);
    await loadGrammars(languagesOf(files));
    // By content: the C++ fixture has a `.h` header, which is C++ only by what it holds.
    for (const file of files) expect(detectFileLanguage(file.path, file.source)).toBe(language);
  });

  it("gives exactly the expected graph", async () => {
    const graph: Graph = await buildGraph(files);
    expect(graph).toEqual(expected);
  });

  it("has symbols, imports and line kinds to check", () => {
    expect(expected.symbols.length).toBeGreaterThanOrEqual(4);
    // Shell scripts and HTML read no imports, CSS no control flow: those checks are for the languages that have them.
    if (LANGUAGES[language].importTypes.length > 0) expect(expected.imports.length).toBeGreaterThanOrEqual(3);
    if (Object.keys(LANGUAGES[language].lineKinds).length > 0)
      expect(Object.values(expected.line_kinds).flatMap(Object.keys).length).toBeGreaterThanOrEqual(5);
    expect(expected.errors).toEqual([]);
  });
});

describe("symbol kinds across the fixtures", () => {
  const kinds = (language: string) => new Set(fixture(language).expected.symbols.map((s) => s.kind));

  it.each([
    ["python", ["class", "function"]],
    ["javascript", ["class", "function", "method"]],
    ["typescript", ["class", "function", "method", "interface", "enum", "type_alias", "module", "namespace"]],
    ["tsx", ["class", "function", "method", "interface", "type_alias"]],
    ["java", ["class", "method", "interface", "enum", "constructor"]],
    ["go", ["function", "method", "struct", "interface", "type", "type_alias"]],
    ["rust", ["function", "struct", "enum", "trait", "impl", "module", "type_alias"]],
    ["ruby", ["class", "method", "module", "singleton_method"]],
    ["php", ["class", "function", "method", "interface", "trait", "enum"]],
    ["c", ["function", "struct", "enum", "typedef"]],
    ["cpp", ["function", "class", "struct", "enum", "namespace", "type_alias"]],
    ["bash", ["function"]],
    ["css", ["rule", "at_rule"]],
    ["html", ["element", "heading"]],
  ])("%s has exactly the kinds %j", (language, expected) => {
    expect([...kinds(language)].sort()).toEqual([...expected].sort());
  });
});

import { beforeAll, describe, expect, test } from "vitest";
import { grammar, LANGUAGE_IDS, loadGrammars } from "@graphplan/graph";
import { NORMALIZED_KINDS } from "./kinds.js";

beforeAll(() => loadGrammars());

describe("NORMALIZED_KINDS", () => {
  test.each([...LANGUAGE_IDS])("every node type listed for %s is a named node type of its grammar", (language) => {
    const missing: string[] = [];
    for (const [kind, types] of Object.entries(NORMALIZED_KINDS[language])) {
      for (const type of types) {
        const id = grammar(language).idForNodeType(type, true);
        if (id === null || id === 0) missing.push(`${kind}: ${type}`);
      }
    }
    expect(missing).toEqual([]);
  });

  // Shell scripts, CSS and HTML are not programming languages with imports and returns: their own kinds below.
  const MARKUP: readonly string[] = ["bash", "css", "html"];
  test.each(LANGUAGE_IDS.filter((l) => !MARKUP.includes(l)))("%s maps the design's core kinds", (language) => {
    const kinds = Object.keys(NORMALIZED_KINDS[language]);
    for (const kind of ["function", "import", "statement", "call", "identifier", "string", "comment", "if", "return"]) {
      expect(kinds, `${language} lacks ${kind}`).toContain(kind);
    }
  });

  test.each([
    [
      "bash",
      ["function", "statement", "command", "call", "assignment", "string", "comment", "if", "for", "while", "case"],
    ],
    ["css", ["rule", "at_rule", "declaration", "import", "comment", "block"]],
    ["html", ["element", "heading", "script", "style", "attribute", "comment", "text"]],
  ] as const)("%s maps the kinds its grammar makes natural", (language, expected) => {
    expect(Object.keys(NORMALIZED_KINDS[language])).toEqual(expect.arrayContaining([...expected]));
  });
});

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

  test.each([...LANGUAGE_IDS])("%s maps the design's core kinds", (language) => {
    const kinds = Object.keys(NORMALIZED_KINDS[language]);
    for (const kind of ["function", "import", "statement", "call", "identifier", "string", "comment", "if", "return"]) {
      expect(kinds, `${language} lacks ${kind}`).toContain(kind);
    }
  });
});

/**
 * Narrowed searches (from the occurrences of a name or an `#eq?` literal) find exactly what a
 * whole-tree search finds, and a locator is resolved once per tree.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { detectLanguage, loadGrammars, parse, type LanguageId, type Tree } from "@graphplan/graph";
import { SAMPLE_FILES, sample } from "@graphplan/testkit";
import { Query } from "web-tree-sitter";
import { normalizedKinds } from "./kinds.js";
import { nodeName } from "./names.js";
import { narrowing } from "./narrow.js";
import { resolveLocator } from "./resolve.js";

const samples = SAMPLE_FILES.map((file) => ({ file, language: detectLanguage(file)!, source: sample(file) }));

beforeAll(() => loadGrammars());
const trees: Tree[] = [];
afterAll(() => trees.forEach((t) => t.delete()));
const fresh = (source: string, language: LanguageId): Tree => {
  const tree = parse(source, language);
  trees.push(tree);
  return tree;
};

/** `[type:start-end]` of each match, or the error's tag. */
function matches(tree: Tree, source: string, language: LanguageId, locator: unknown, narrowed: boolean): string[] {
  narrowing.enabled = narrowed;
  try {
    return resolveLocator(tree, source, language, locator).map((n) => `${n.type}:${n.startIndex}-${n.endIndex}`);
  } catch (error) {
    return [`error:${(error as { _tag?: string })._tag}`];
  } finally {
    narrowing.enabled = true;
  }
}

describe("narrowed searches equal whole-tree searches", () => {
  test.each(samples.map((s) => [s.file, s] as const))(
    "%s: every kind + name, name only, with a parent, and #eq? queries",
    (_file, { file, language, source }) => {
      // Two trees of the same text: resolutions are cached per tree, so each mode gets its own.
      const narrow = fresh(source, language);
      const whole = fresh(source, language);
      const locators: unknown[] = [];
      const names = new Set<string>();
      for (const kind of normalizedKinds(language)) {
        for (const node of resolveLocator(whole, source, language, { kind, file })) {
          const name = nodeName(node, language);
          if (!name) continue;
          names.add(name);
          locators.push({ kind, name, file }, { kind, name: name.split(/\.|::/).pop(), file });
        }
      }
      for (const name of names) {
        locators.push(
          { name, file },
          { kind: "call", name, file, parent: { kind: "function", file } },
          { kind: "identifier", name, file, parent: { kind: "class" } },
        );
        locators.push({
          type: "sexp",
          file,
          query: `((_) @id (#eq? @id "${name.replace(/["\\]/g, "")}"))`,
          capture: "id",
        });
        locators.push({
          type: "sexp",
          file,
          query: `((_ (_) @inner (#eq? @inner "${name.replace(/["\\]/g, "")}")) @target)`,
        });
        locators.push({
          type: "sexp",
          file,
          query: `((_ (_ (_) @a)) @target (#any-of? @a "${name.replace(/["\\]/g, "")}" "x"))`,
        });
      }
      expect(locators.length).toBeGreaterThan(20);
      let found = 0;
      for (const locator of locators) {
        const expected = matches(whole, source, language, locator, false);
        expect(matches(narrow, source, language, locator, true), JSON.stringify(locator)).toEqual(expected);
        if (expected.length && !expected[0]!.startsWith("error")) found++;
      }
      expect(found).toBeGreaterThan(10);
    },
  );
});

describe("resolution cost", () => {
  const big = (() => {
    const parts = ["import os\n\n"];
    for (let i = 0; i < 300; i++) parts.push(`\ndef f${i}(a, b):\n    x${i} = a + b\n    return helper(x${i})\n\n`);
    return parts.join("");
  })();

  test("a locator is resolved once per tree: the same locator on the same tree runs no query", () => {
    const tree = fresh(big, "python");
    const locator = { type: "sexp", file: "big.py", query: '((identifier) @id (#eq? @id "x7"))', capture: "id" };
    const spy = vi.spyOn(Query.prototype, "captures");
    try {
      const first = resolveLocator(tree, big, "python", locator);
      const calls = spy.mock.calls.length;
      expect(calls).toBeGreaterThan(0);
      expect(resolveLocator(tree, big, "python", JSON.parse(JSON.stringify(locator)))).toEqual(first);
      expect(spy.mock.calls.length).toBe(calls);
      // Another tree (another version of the file) is resolved again.
      const edited = fresh(big.replace("x7 = a + b", "x7 = a - b\n    x7 = x7 * 2"), "python");
      expect(resolveLocator(edited, big, "python", locator)).toHaveLength(4);
      expect(spy.mock.calls.length).toBeGreaterThan(calls);
    } finally {
      spy.mockRestore();
    }
  });

  test("an #eq? query runs only on the statements around the literal, not on the whole tree", () => {
    const tree = fresh(big, "python");
    const spy = vi.spyOn(Query.prototype, "captures");
    try {
      const nodes = resolveLocator(tree, big, "python", {
        type: "sexp",
        file: "big.py",
        query: '((identifier) @id (#eq? @id "x12"))',
        capture: "id",
      });
      expect(nodes.map((n) => n.startPosition.row)).toEqual([64, 65]);
      expect(spy.mock.calls.length).toBeGreaterThan(0);
      for (const [node] of spy.mock.calls) expect(node.endIndex - node.startIndex).toBeLessThan(200);
    } finally {
      spy.mockRestore();
    }
  });

  test("a named structured search looks only at the nodes around the name", () => {
    const tree = fresh(big, "python");
    const spy = vi.spyOn(tree.rootNode.constructor.prototype, "descendantsOfType");
    try {
      const [node] = resolveLocator(tree, big, "python", { kind: "function", name: "f250", file: "big.py" });
      expect(node?.startPosition.row).toBe(1253);
      expect(spy).not.toHaveBeenCalled();
      // Without a name, the kind's nodes are searched in the whole tree.
      expect(resolveLocator(tree, big, "python", { kind: "function", file: "big.py" })).toHaveLength(300);
      expect(spy).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});

/**
 * Every primitive and composed operator on every language, against the sample files of
 * @graphplan/testkit. Each result must parse without errors and contain the exact text expected.
 */
import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, parse, syntaxErrors, type LanguageId } from "@graphplan/graph";
import { sample } from "@graphplan/testkit";
import { runPlan } from "./run.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars());

interface Case {
  file: string;
  /** Indentation of class members. */
  member: string;
  /** Indentation of statements in helper. */
  body: string;
  import: string;
  method: string;
  attr: string;
  /** The signature of helper after deleting its first parameter. */
  withoutA: string;
  /** A statement for helper's body. */
  stmt: string;
  wrapBefore: string;
  wrapAfter: string;
  /** Expected text of the wrapped last statement of helper. */
  wrapped: string;
}

const CASES: Record<LanguageId, Case> = {
  python: {
    file: "sample.py",
    member: "    ",
    body: "    ",
    import: "import sys",
    method: "def size(self):\n    return len(self.data)",
    attr: "cache = None",
    withoutA: "def helper(b):",
    stmt: "log(a)",
    wrapBefore: "if DEBUG:\n",
    wrapAfter: "",
    wrapped: "    if DEBUG:\n        return total\n",
  },
  javascript: {
    file: "sample.js",
    member: "  ",
    body: "  ",
    import: 'import os from "os";',
    method: "size() {\n  return 0;\n}",
    attr: "cache = null;",
    withoutA: "function helper(b) {",
    stmt: "log(a);",
    wrapBefore: "if (DEBUG) {\n",
    wrapAfter: "\n}",
    wrapped: "  if (DEBUG) {\n    return total;\n  }\n",
  },
  typescript: {
    file: "sample.ts",
    member: "  ",
    body: "  ",
    import: 'import os from "os";',
    method: "size(): number {\n  return 0;\n}",
    attr: "cache: number = 0;",
    withoutA: "function helper(b: number): number {",
    stmt: "log(a);",
    wrapBefore: "if (DEBUG) {\n",
    wrapAfter: "\n}",
    wrapped: "  if (DEBUG) {\n    return total;\n  }\n",
  },
  tsx: {
    file: "sample.tsx",
    member: "  ",
    body: "  ",
    import: 'import os from "os";',
    method: "size(): number {\n  return 0;\n}",
    attr: "cache: number = 0;",
    withoutA: "function helper(b: number): number {",
    stmt: "log(a);",
    wrapBefore: "if (DEBUG) {\n",
    wrapAfter: "\n}",
    wrapped: "  if (DEBUG) {\n    return total;\n  }\n",
  },
  java: {
    file: "Sample.java",
    member: "    ",
    body: "        ",
    import: "import java.util.Set;",
    method: "public int size() {\n    return 0;\n}",
    attr: "private int cache = 0;",
    withoutA: "public static int helper(int b) {",
    stmt: "log(a);",
    wrapBefore: "if (DEBUG) {\n",
    wrapAfter: "\n}",
    wrapped: "        if (DEBUG) {\n            return total;\n        }\n",
  },
  go: {
    file: "sample.go",
    member: "",
    body: "\t",
    import: 'import "os"',
    method: "func (s *Store) Size() int {\n\treturn 0\n}",
    attr: "cache int",
    withoutA: "func helper(b int) int {",
    stmt: "log(a)",
    wrapBefore: "if debug {\n",
    wrapAfter: "\n}",
    wrapped: "\tif debug {\n\t\treturn total\n\t}\n",
  },
  rust: {
    file: "sample.rs",
    member: "    ",
    body: "    ",
    import: "use std::fmt;",
    method: "pub fn size(&self) -> u32 {\n    0\n}",
    attr: "cache: u32,",
    withoutA: "pub fn helper(b: u32) -> u32 {",
    stmt: "log(a);",
    wrapBefore: "if DEBUG {\n",
    wrapAfter: "\n} else { 0 }",
    wrapped: "    if DEBUG {\n        total\n    } else { 0 }\n",
  },
  ruby: {
    file: "sample.rb",
    member: "  ",
    body: "  ",
    import: "require 'set'",
    method: "def size\n  0\nend",
    attr: "CACHE = nil",
    withoutA: "def helper(b)",
    stmt: "log(a)",
    wrapBefore: "if debug\n",
    wrapAfter: "\nend",
    wrapped: "  if debug\n    total\n  end\n",
  },
  php: {
    file: "sample.php",
    member: "    ",
    body: "    ",
    import: "use App\\Models\\Post;",
    method: "public function size()\n{\n    return 0;\n}",
    attr: "private $cache = null;",
    withoutA: "function helper($b)",
    stmt: "log($a);",
    wrapBefore: "if ($debug) {\n",
    wrapAfter: "\n}",
    wrapped: "    if ($debug) {\n        return $total;\n    }\n",
  },
  c: {
    file: "sample.c",
    member: "    ",
    body: "    ",
    import: "#include <stdlib.h>",
    method: "",
    attr: "",
    withoutA: "int helper(int b) {",
    stmt: "log(a);",
    wrapBefore: "if (DEBUG) {\n",
    wrapAfter: "\n}",
    wrapped: "    if (DEBUG) {\n        return total;\n    }\n",
  },
  cpp: {
    file: "sample.cpp",
    member: "    ",
    body: "    ",
    import: "#include <map>",
    method: "int size() {\n    return 0;\n}",
    attr: "int cache = 0;",
    withoutA: "int helper(int b) {",
    stmt: "log(a);",
    wrapBefore: "if (DEBUG) {\n",
    wrapAfter: "\n}",
    wrapped: "    if (DEBUG) {\n        return total;\n    }\n",
  },
};

const fixture = sample;

function apply(language: LanguageId, file: string, plan: unknown): string {
  const result = runPlan(planOf(plan), new Map([[file, fixture(file)]]));
  if (!result.ok) throw result.error;
  const out = result.files.get(file)!;
  const tree = parse(out, language);
  try {
    expect(syntaxErrors(tree)).toEqual([]);
  } finally {
    tree.delete();
  }
  return out;
}

const indentLines = (code: string, indent: string) =>
  code
    .split("\n")
    .map((l) => (l ? indent + l : l))
    .join("\n");

describe.each(Object.entries(CASES) as [LanguageId, Case][])("%s", (language, c) => {
  const { file } = c;
  const helper = { kind: "function", name: "helper", file };
  const firstStmt = { kind: "statement", file, parent: { kind: "function", name: "helper" }, index: 0 };
  const lastStmt = { ...firstStmt, index: -1 };

  test("add_import puts the import after the last import, once", () => {
    const out = apply(language, file, [
      { op: "add_import", params: { file, import_statement: c.import } },
      { op: "add_import", params: { file, import_statement: c.import } },
    ]);
    expect(out.split(c.import).length - 1).toBe(1);
    const before = fixture(file);
    const lines = out.split("\n");
    const at = lines.indexOf(c.import);
    expect(at).toBeGreaterThan(0);
    expect(before.split("\n")[at - 1]).toBe(lines[at - 1]);
  });

  test.skipIf(language === "c")("add_method puts the method in the class, indented as a member", () => {
    const out = apply(language, file, [
      { op: "add_method", params: { file, class_name: "Store", method_code: c.method } },
    ]);
    expect(out).toContain(`\n${indentLines(c.method, c.member)}\n`);
  });

  test.skipIf(language === "c")("add_class_attribute puts the attribute first in the class body", () => {
    const out = apply(language, file, [
      { op: "add_class_attribute", params: { file, class_name: "Store", attribute_code: c.attr } },
    ]);
    expect(out).toContain(`\n${language === "cpp" ? "" : language === "go" ? "\t" : c.member}${c.attr}\n`);
  });

  test("delete_node removes the function and leaves no run of blank lines", () => {
    const out = apply(language, file, [{ op: "delete_node", params: { locator: helper } }]);
    expect(out).not.toContain("helper");
    expect(out).not.toMatch(/\n[ \t]*\n[ \t]*\n[ \t]*\n/);
  });

  test("delete_node of a parameter takes its comma", () => {
    const out = apply(language, file, [
      {
        op: "delete_node",
        params: { locator: { kind: "parameter", file, parent: { kind: "function", name: "helper" }, index: 0 } },
      },
    ]);
    expect(out).toContain(c.withoutA);
  });

  test("insert_before_node and insert_after_node put statements on their own lines", () => {
    const out = apply(language, file, [
      { op: "insert_before_node", params: { locator: firstStmt, code: c.stmt } },
      { op: "insert_after_node", params: { locator: firstStmt, code: c.stmt.replace("a", "b") } },
    ]);
    expect(out).toContain(`\n${c.body}${c.stmt}\n`);
    expect(out).toContain(`\n${c.body}${c.stmt.replace("a", "b")}\n`);
    expect(out.indexOf(c.stmt)).toBeLessThan(out.indexOf(c.stmt.replace("a", "b")));
  });

  test("replace_node replaces a statement at its indentation", () => {
    const out = apply(language, file, [{ op: "replace_node", params: { locator: firstStmt, replacement: c.stmt } }]);
    const helperAt = out.indexOf(c.withoutA.replace("b", "a, b").replace("($b)", "($a, $b)"));
    expect(out.indexOf(`\n${c.body}${c.stmt}\n`)).toBeGreaterThan(helperAt);
  });

  test("wrap_node wraps the last statement and indents it", () => {
    const out = apply(language, file, [
      { op: "wrap_node", params: { locator: lastStmt, before: c.wrapBefore, after: c.wrapAfter } },
    ]);
    expect(out).toContain(c.wrapped);
  });

  test("replace_all_matching renames an identifier everywhere but strings", () => {
    const out = apply(language, file, [
      {
        op: "replace_all_matching",
        params: {
          locator: { kind: "identifier", name: language === "php" ? "total" : "total", file },
          replacement: "sum",
          filter: "not_in_string_or_comment",
        },
      },
    ]);
    const code = out.replace(/"[^"\n]*"/g, '""');
    expect(code).not.toMatch(/\btotal\b/);
    expect(out).toMatch(/\bsum\b/);
  });
});

/** One failing and one passing case for every check of the design's (docs/design.md, Origins) verification layers (plan gate, 0, 0b, 1–6), named as the verifier names them (CHECKS). */
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { verifyPlan, type VerifyResult } from "./index.js";
import type { Issue } from "./issues.js";

const APP = `import os

from pkg.util import helper


class Service:
    """A service."""

    def run(self, x):
        data = helper(x)
        # data is logged here
        return data

    def stop(self):
        print("data stopped")


def main():
    return Service().run(1)
`;
const UTIL = `def helper(value):
    return value * 2


def unused():
    return 0
`;
const OTHER = `from pkg.util import helper

print(helper(3))
`;

const FILES = new Map([
  ["pkg/app.py", APP],
  ["pkg/util.py", UTIL],
  ["pkg/other.py", OTHER],
]);

async function verify(plan: unknown, files: ReadonlyMap<string, string> = FILES): Promise<VerifyResult> {
  const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
  return verifyPlan(plan, files, graph);
}

const of = (result: VerifyResult, checks: Issue["check"] | readonly Issue["check"][], severity?: Issue["severity"]) =>
  result.issues.filter((i) => [checks].flat().includes(i.check) && (!severity || i.severity === severity));

const replaceMain = (body: string) => ({
  op: "replace_node",
  params: { locator: { kind: "function", name: "main", file: "pkg/app.py" }, replacement: `def main():\n${body}` },
});

describe("the plan gate", () => {
  it("rejects an empty plan, a file list and a non-plan", async () => {
    for (const plan of [[], ["pkg/app.py"], { steps: [] }]) {
      const result = await verify(plan);
      expect(result.passed).toBe(false);
      expect(of(result, "plan", "error")).toHaveLength(1);
      expect(result.errors[0]).toMatch(/^Plan: .* — fix: /);
    }
  });

  it("rejects a custom operator named like an operator or a tier 1–3 handler", async () => {
    const def = (define: string) => ({
      define,
      params_schema: {},
      steps: [{ primitive: "locate", params: { locator: { kind: "function", file: "pkg/app.py" } } }],
    });
    for (const name of ["replace_node", "rename_identifier"]) {
      const result = await verify({ define_operators: [def(name)], plan: [replaceMain("    return 2")] });
      expect(result.errors).toEqual([
        `Plan: define_operators: '${name}' is already an operator (or defined twice) — fix: give the custom operator another name`,
      ]);
    }
  });

  it("accepts the object format with define_operators", async () => {
    const result = await verify({ define_operators: [], plan: [replaceMain("    return 2")] });
    expect(result.errors).toEqual([]);
    expect(result.passed).toBe(true);
  });
});

describe("operator, files, symbols, lines (layer 0)", () => {
  it("reports an unknown operator with the closest name", async () => {
    const result = await verify([{ op: "replace_nod", params: {} }]);
    expect(result.errors[0]).toMatch(
      /^Step 1 \(replace_nod\): Unknown operator 'replace_nod' — fix: did you mean 'replace_node'\?/,
    );
  });

  it("reports a missing parameter", async () => {
    const result = await verify([{ op: "replace_code", params: { file: "pkg/app.py", pattern: "return data" } }]);
    expect(result.errors).toEqual([
      expect.stringMatching(/^Step 1 \(replace_code\): Missing parameter 'replacement' for replace_code/),
    ]);
  });

  it("reports a file that does not exist, with the likely path", async () => {
    const result = await verify([{ op: "add_import", params: { file: "pkg/ap.py", import_statement: "import re" } }]);
    expect(of(result, "files", "error")[0]?.message).toBe("File 'pkg/ap.py' does not exist");
    expect(of(result, "files", "error")[0]?.fix).toMatch(/did you mean 'pkg\/app.py'/);
  });

  it("reports a class that is not in the graph", async () => {
    const result = await verify([
      {
        op: "add_method",
        params: { file: "pkg/app.py", class_name: "Servce", method_code: "def pause(self):\n    return 1" },
      },
    ]);
    const issue = of(result, "symbols", "error")[0];
    expect(issue?.message).toBe("Class 'Servce' not found in pkg/app.py");
    expect(issue?.fix).toMatch(/did you mean 'Service'/);
  });

  it("reports lines out of range and inverted ranges", async () => {
    const result = await verify([
      { op: "delete_lines", params: { file: "pkg/util.py", start_line: 5, end_line: 99 } },
      { op: "delete_lines", params: { file: "pkg/util.py", start_line: 4, end_line: 2 } },
    ]);
    expect(result.errors).toEqual([
      expect.stringMatching(
        /^Step 1 \(delete_lines\): end_line 99 out of range for pkg\/util.py \(1\.\.6 when this step runs\)/,
      ),
      expect.stringMatching(/^Step 2 \(delete_lines\): start_line 4 > end_line 2/),
    ]);
  });

  it("passes a step whose file, symbol and lines exist", async () => {
    const result = await verify([
      {
        op: "add_method",
        params: { file: "pkg/app.py", class_name: "Service", method_code: "def pause(self):\n    return self.run(0)" },
      },
      { op: "delete_lines", params: { file: "pkg/util.py", start_line: 5, end_line: 6 } },
    ]);
    expect(of(result, ["operator", "files", "symbols", "lines"])).toEqual([]);
    expect(result.passed).toBe(true);
  });
});

describe("locator: locators resolve (layer 0b)", () => {
  it("reports a structured locator that matches nothing, with candidates", async () => {
    const result = await verify([
      { op: "delete_node", params: { locator: { kind: "method", name: "stp", file: "pkg/app.py" } } },
    ]);
    const issue = of(result, "locator", "error")[0];
    expect(issue?.message).toMatch(/^Locator did not match any AST node in pkg\/app.py/);
    expect(issue?.fix).toMatch(/'stop'/);
  });

  it("reports an S-expression locator with an invalid query, and one that matches nothing", async () => {
    const result = await verify([
      {
        op: "delete_node",
        params: {
          locator: {
            type: "sexp",
            file: "pkg/app.py",
            query: "(function_definition name: (identifier) @target",
            capture: "target",
          },
        },
      },
      {
        op: "delete_node",
        params: {
          locator: {
            type: "sexp",
            file: "pkg/app.py",
            query: '((identifier) @target (#eq? @target "nowhere"))',
            capture: "target",
          },
        },
      },
    ]);
    expect(of(result, "locator", "error").map((i) => i.step)).toEqual([0, 1]);
    expect(of(result, "locator", "error")[0]?.message).toMatch(/Invalid S-expression query/);
    expect(of(result, "locator", "error")[1]?.message).toMatch(/did not match any AST node/);
  });

  it("warns when a positional locator's parent matches several nodes (a property's getter and setter), naming the one its index picked", async () => {
    const box =
      "class Box:\n    @property\n    def size(self):\n        return self._size\n\n    @size.setter\n    def size(self, value):\n        self._size = value\n";
    const files = new Map([["box.py", box]]);
    const statement = (parent: Record<string, unknown>) => ({ kind: "statement", file: "box.py", parent, index: 0 });
    const step = (locator: Record<string, unknown>) => [
      { op: "insert_before_node", params: { locator, code: "assert value is not None" } },
    ];
    const result = await verify(step(statement({ kind: "method", name: "size" })), files);
    const [warning] = of(result, "locator", "warning");
    expect(warning?.message).toBe(
      'its parent {"kind":"method","name":"size"} matches 2 nodes (lines 3, 7): index 0 counts the statement nodes of all of them and picked line 4, in the one at line 3',
    );
    // The fix names the getter (the one the index picked); with a parent index there is nothing to warn about.
    const fixed = JSON.parse(/say so: (\{.*\}); else/.exec(warning!.fix)![1]!) as Record<string, unknown>;
    expect(fixed["parent"]).toEqual({ kind: "method", name: "size", index: 0 });
    const parentWarnings = async (locator: Record<string, unknown>) =>
      of(await verify(step(locator), files), "locator").filter((i) => i.message.startsWith("its parent"));
    expect(await parentWarnings(fixed)).toEqual([]);
    expect(await parentWarnings(statement({ kind: "method", name: "size", index: 1 }))).toEqual([]);
  });

  it("passes locators (structured and S-expression) that resolve", async () => {
    const result = await verify([
      {
        op: "replace_all_matching",
        params: {
          locator: {
            type: "sexp",
            file: "pkg/app.py",
            query: '((identifier) @target (#eq? @target "data"))',
            capture: "target",
          },
          replacement: "payload",
          filter: "not_in_string_or_comment",
        },
      },
      {
        op: "insert_after_node",
        params: { locator: { kind: "import", file: "pkg/app.py", index: -1 }, code: "import re" },
      },
    ]);
    expect(of(result, "locator")).toEqual([]);
    expect(result.errors).toEqual([]);
  });
});

describe("content: content existence (layer 1)", () => {
  it("errors when a pattern is nowhere in the file", async () => {
    const result = await verify([
      { op: "replace_code", params: { file: "pkg/app.py", pattern: "while True:\n    spin()", replacement: "pass" } },
    ]);
    expect(of(result, "content", "error")[0]?.message).toMatch(/^Pattern not found in pkg\/app.py/);
    expect(result.errors).toHaveLength(1);
  });

  it("warns on a near match, saying where the similar text is", async () => {
    const result = await verify([
      {
        op: "replace_code",
        params: { file: "pkg/app.py", pattern: "return Service().run(2)", replacement: "return Service().run(3)" },
      },
    ]);
    const warning = of(result, "content", "warning")[0];
    expect(warning?.message).toMatch(/not found exactly in pkg\/app.py, but a \d+% similar text at line 19/);
  });

  it("warns on a duplicate import and a duplicate method", async () => {
    const result = await verify([
      { op: "add_import", params: { file: "pkg/app.py", import_statement: "import os" } },
      {
        op: "add_method",
        params: { file: "pkg/app.py", class_name: "Service", method_code: "def stop(self):\n    return None" },
      },
    ]);
    expect(of(result, "content", "warning").map((i) => i.message)).toEqual([
      "duplicate import: 'import os' is already in pkg/app.py",
      expect.stringMatching(/^a method 'stop' already exists in pkg\/app.py/),
    ]);
  });

  it("warns when code to insert is already in the file, line for line, and says at which line", async () => {
    const twice = {
      op: "insert_after_node",
      params: {
        locator: { kind: "method", name: "run", file: "pkg/app.py" },
        code: 'def stop(self):\n    print("data stopped")',
      },
    };
    const result = await verify([twice]);
    expect(of(result, "content", "warning")).toEqual([
      expect.objectContaining({
        line: 14,
        message: expect.stringMatching(/^duplicate insertion: the code to insert is already in pkg\/app.py at line 14/),
      }),
    ]);
    // The first line alone is not a duplicate.
    const other = {
      op: "insert_after_node",
      params: {
        locator: { kind: "method", name: "run", file: "pkg/app.py" },
        code: 'def stop(self):\n    print("other text here")',
      },
    };
    expect(of(await verify([other]), "1")).toEqual([]);
  });

  it("passes a pattern that is in the file and new code that is not", async () => {
    const result = await verify([
      {
        op: "replace_code",
        params: { file: "pkg/app.py", pattern: "return Service().run(1)", replacement: "return Service().run(2)" },
      },
      { op: "add_import", params: { file: "pkg/app.py", import_statement: "import re" } },
    ]);
    expect(of(result, "content")).toEqual([]);
    expect(result.passed).toBe(true);
  });
});

describe("drift: line drift of line-based steps (layer 2)", () => {
  it("warns when an earlier step moved the lines a later step names", async () => {
    const result = await verify([
      {
        op: "insert_code",
        params: { file: "pkg/util.py", anchor_line: 1, position: "before", code: "import math\nimport re\n" },
      },
      { op: "delete_lines", params: { file: "pkg/util.py", start_line: 5, end_line: 6 } },
    ]);
    const warning = of(result, "drift", "warning")[0];
    expect(warning?.step).toBe(1);
    expect(warning?.message).toMatch(
      /start_line 5 may be off by \+\d lines due to earlier edits on pkg\/util.py \(step 1\)/,
    );
  });

  it("does not warn when the earlier edit is below the lines", async () => {
    const result = await verify([
      {
        op: "insert_code",
        params: { file: "pkg/util.py", anchor_line: 6, position: "after", code: "\n\ndef more():\n    return 1" },
      },
      { op: "delete_lines", params: { file: "pkg/util.py", start_line: 1, end_line: 2 } },
    ]);
    expect(of(result, "drift")).toEqual([]);
  });
});

describe("context: pattern context (layer 3)", () => {
  it("warns when a pattern matches inside a string", async () => {
    const result = await verify([
      { op: "replace_code", params: { file: "pkg/app.py", pattern: "data stopped", replacement: "stopped" } },
    ]);
    expect(of(result, "context", "warning")[0]?.message).toMatch(
      /^Pattern match in pkg\/app.py at line 15 \(offset \d+\) is inside a string node/,
    );
  });

  it("is quiet when the pattern is code", async () => {
    const result = await verify([
      {
        op: "replace_code",
        params: { file: "pkg/app.py", pattern: "data = helper(x)", replacement: "data = helper(x + 1)" },
      },
    ]);
    expect(of(result, "context")).toEqual([]);
  });
});

describe("rename: occurrences of a renamed symbol (layer 4)", () => {
  it("warns that a regex rename also changes strings and comments", async () => {
    const result = await verify([
      { op: "rename_symbol", params: { file: "pkg/app.py", old_name: "data", new_name: "payload" } },
    ]);
    expect(of(result, "rename", "warning")[0]?.message).toBe(
      "'data' also appears in strings (1x) and comments (1x) in pkg/app.py (besides 0 definitions and 2 references) -- regex rename will change these too",
    );
  });

  it("is quiet when the name is only code", async () => {
    const result = await verify([
      { op: "rename_symbol", params: { file: "pkg/util.py", old_name: "value", new_name: "amount" } },
    ]);
    expect(of(result, "rename")).toEqual([]);
  });
});

describe("syntax: preflight syntax, for every op (layer 5)", () => {
  it("errors when replacement or inserted code does not parse", async () => {
    const result = await verify([
      replaceMain("    return Service(.run(1)"),
      {
        op: "insert_after_node",
        params: { locator: { kind: "function", name: "helper", file: "pkg/util.py" }, code: "def broken(:\n    pass" },
      },
    ]);
    expect(of(result, "syntax", "error").map((i) => i.step)).toEqual([0, 1]);
    expect(result.errors[0]).toMatch(/^Step 1 \(replace_node\): Replacement produces syntax error in pkg\/app.py/);
  });

  it("passes code that parses", async () => {
    const result = await verify([replaceMain("    return Service().run(2)")]);
    expect(of(result, "syntax")).toEqual([]);
  });
});

describe("importers: cross-file impact (layer 6)", () => {
  const changeHelper = {
    op: "replace_node",
    params: {
      locator: { kind: "function", name: "helper", file: "pkg/util.py" },
      replacement: "def helper(value, factor):\n    return value * factor",
    },
  };

  it("warns when a re-signatured symbol is imported by a file outside the plan", async () => {
    const result = await verify([changeHelper]);
    expect(of(result, "importers", "warning").map((i) => i.message)).toEqual([
      "'helper' (signature changed from (value) to (value,factor)) is imported by files not in this plan: ['pkg/app.py', 'pkg/other.py']",
    ]);
  });

  it("warns for renamed and removed symbols too, and not for importers in the plan", async () => {
    const result = await verify([
      { op: "rename_symbol", params: { file: "pkg/util.py", old_name: "helper", new_name: "assist" } },
      {
        op: "replace_code",
        params: {
          file: "pkg/other.py",
          pattern: "from pkg.util import helper",
          replacement: "from pkg.util import assist as helper",
        },
      },
    ]);
    expect(of(result, "importers", "warning").map((i) => i.message)).toEqual([
      "'helper' (renamed to 'assist') is imported by files not in this plan: ['pkg/app.py']",
    ]);
  });

  it("is quiet when nobody imports the symbol", async () => {
    const result = await verify([
      { op: "delete_node", params: { locator: { kind: "function", name: "unused", file: "pkg/util.py" } } },
    ]);
    expect(of(result, "importers")).toEqual([]);
  });
});

describe("collecting every problem", () => {
  it("reports all the errors of a plan with several, in step order", async () => {
    const result = await verify([
      { op: "frobnicate", params: {} },
      { op: "replace_code", params: { file: "pkg/app.py", pattern: "nothing like this", replacement: "x" } },
      { op: "delete_node", params: { locator: { kind: "function", name: "absent", file: "pkg/util.py" } } },
      replaceMain("    return (1"),
      { op: "add_import", params: { file: "missing.py", import_statement: "import re" } },
    ]);
    expect(result.passed).toBe(false);
    expect(result.issues.filter((i) => i.severity === "error").map((i) => [i.step, i.check])).toEqual([
      [0, "operator"],
      [1, "content"],
      [2, "locator"],
      [3, "syntax"],
      [4, "files"],
    ]);
    expect(result.errors).toHaveLength(5);
  });
});

describe("adaptive simulation", () => {
  it("checks each step against the files as the earlier steps leave them", async () => {
    const addThenUse = await verify([
      {
        op: "add_method",
        params: { file: "pkg/app.py", class_name: "Service", method_code: "def pause(self):\n    return 1" },
      },
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "pause", file: "pkg/app.py" },
          replacement: "def pause(self):\n    return 2",
        },
      },
    ]);
    expect(addThenUse.errors).toEqual([]);
    const deleteThenUse = await verify([
      { op: "delete_node", params: { locator: { kind: "function", name: "main", file: "pkg/app.py" } } },
      replaceMain("    return 3"),
    ]);
    expect(deleteThenUse.errors).toEqual([
      expect.stringMatching(/^Step 2 \(replace_node\): Locator did not match any AST node/),
    ]);
  });
});

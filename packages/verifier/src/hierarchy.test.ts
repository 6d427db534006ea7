/** One failing and one passing case for each check of the hierarchy: kind (L1), containment (L2) errors; references (L3), imports (L4), triviality (L6) warnings. */
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import type { StepHandler } from "@graphplan/primitives";
import { verifyPlan, type VerifyResult } from "./index.js";
import type { Issue } from "./issues.js";

const APP = `import os

from pkg.util import helper


class Service:
    def run(self, x):
        data = helper(x)
        return data

    def stop(self):
        print("stopped")


def main():
    return Service().run(1)
`;
const UTIL = `LIMIT = 10


def helper(value):
    return value * 2


def scale(value):
    return value * LIMIT
`;
const JS = `function a() {
  first();
  second(); // end */
  third();
}

function b() {
  return 1;
}
`;
const FILES = new Map([
  ["pkg/app.py", APP],
  ["pkg/util.py", UTIL],
  ["web/a.js", JS],
  ["web/lib/b.js", "export function helperJs() {\n  return 1;\n}\n"],
]);

async function verify(plan: unknown): Promise<VerifyResult> {
  const graph = await buildGraph([...FILES].map(([path, source]) => ({ path, source })));
  return verifyPlan(plan, FILES, graph);
}

const checked = (result: VerifyResult, check: Issue["check"]) => result.issues.filter((i) => i.check === check);
const replace = (locator: Record<string, unknown>, replacement: string) => ({
  op: "replace_node",
  params: { locator, replacement },
});
const runMethod = { kind: "method", name: "run", file: "pkg/app.py", parent: { kind: "class", name: "Service" } };
const main = { kind: "function", name: "main", file: "pkg/app.py" };

describe("L1 kind preservation (error)", () => {
  it("rejects a method replaced by bare statements (the def line lost)", async () => {
    // (With a `return`, the result would not even compile: 'return' outside function, refused by `syntax` first.)
    const result = await verify([replace(runMethod, "data = helper(x)\nresult = data + 1")]);
    const [issue] = checked(result, "kind");
    expect(issue?.severity).toBe("error");
    expect(issue?.message).toMatch(
      /the function_definition at lines 7-9 \(definition:function\) was replaced by expression_statement, expression_statement \(statement\)/,
    );
    expect(result.passed).toBe(false);
  });

  it("rejects a function replaced by a class", async () => {
    const result = await verify([replace(main, "class main:\n    pass")]);
    expect(checked(result, "kind")[0]?.message).toMatch(
      /\(definition:function\) was replaced by class_definition \(definition:class\)/,
    );
  });

  it("accepts a method replaced by a method, decorated or not", async () => {
    const plain = await verify([replace(runMethod, "def run(self, x):\n    return helper(x) + 1")]);
    const decorated = await verify([replace(main, "@staticmethod\ndef main():\n    return 0")]);
    expect(checked(plain, "kind")).toEqual([]);
    expect(checked(decorated, "kind")).toEqual([]);
    expect(plain.passed).toBe(true);
  });
});

describe("L2 containment (error)", () => {
  it("rejects new code that swallows the code after it (an unclosed block comment)", async () => {
    const result = await verify([
      replace(
        { kind: "statement", file: "web/a.js", parent: { kind: "function", name: "a" }, index: 0 },
        "first(); /*",
      ),
    ]);
    const [issue] = checked(result, "containment");
    expect(issue?.severity).toBe("error");
    expect(issue?.message).toMatch(
      /^the step changes how code outside the edit parses in web\/a.js: line 3 \(second\(\); \/\/ end \*\/\) now parse as part of comment/,
    );
    expect(checked(result, "containment")).toHaveLength(1);
  });

  it("rejects an insertion that changes what the following definition is (a stray decorator)", async () => {
    const result = await verify([
      {
        op: "insert_after_node",
        params: {
          locator: { kind: "function", name: "helper", file: "pkg/util.py" },
          code: "@staticmethod",
          separator: "\n\n\n",
        },
      },
    ]);
    expect(checked(result, "containment").length).toBeGreaterThan(0);
    expect(result.passed).toBe(false);
  });

  it("rejects an operator whose edits reach outside the node its locator names", async () => {
    // A (deliberately wrong) replace_node handler that also rewrites the first line of the file.
    const sloppy: StepHandler = (step, ctx) => {
      const params = (step as { params: { locator: { file: string }; replacement: string } }).params;
      const source = ctx.source(params.locator.file);
      const at = source.indexOf("def main");
      return {
        edits: {
          [params.locator.file]: [
            { start: 0, end: 9, text: "import re" },
            { start: at, end: source.length - 1, text: params.replacement },
          ],
        },
      };
    };
    const graph = await buildGraph([...FILES].map(([path, source]) => ({ path, source })));
    const result = await verifyPlan([replace(main, "def main():\n    return 2")], FILES, graph, {
      handlers: { replace_node: sloppy },
    });
    const [issue] = checked(result, "containment");
    expect(issue?.message).toMatch(
      /^the step changes pkg\/app.py outside its target: lines? 1(-\d+)? \(.*\) lie outside lines 13-16$/,
    );
    expect(result.passed).toBe(false);
  });

  it("accepts edits that stay inside their node", async () => {
    const result = await verify([
      replace({ kind: "statement", file: "web/a.js", parent: { kind: "function", name: "a" }, index: 0 }, "first(1);"),
      {
        op: "insert_after_node",
        params: {
          locator: { kind: "function", name: "helper", file: "pkg/util.py" },
          code: "def twice(value):\n    return helper(helper(value))",
          separator: "\n\n\n",
        },
      },
    ]);
    expect(checked(result, "containment")).toEqual([]);
    expect(result.passed).toBe(true);
  });
});

describe("L3 referential integrity (warning)", () => {
  it("warns about a name that is not in scope, builtin, defined or imported", async () => {
    const result = await verify([replace(runMethod, "def run(self, x):\n    result = helper(x)\n    return reslt")]);
    const [issue] = checked(result, "references");
    expect(issue?.severity).toBe("warning");
    expect(issue?.message).toBe(
      "'reslt' (line 9 of pkg/app.py) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported",
    );
    expect(issue?.fix).toMatch(/did you mean 'result'/);
    expect(result.passed).toBe(true);
  });

  it("is quiet when every name is a parameter, a new local, a module name, an import or a builtin", async () => {
    const result = await verify([
      replace(
        runMethod,
        "def run(self, x):\n    result = [helper(v) for v in range(x)]\n    print(os.sep, Service, main, len(result))\n    return result",
      ),
    ]);
    expect(checked(result, "references")).toEqual([]);
  });
});

describe("L4 import closure (warning)", () => {
  it("warns when new code uses a name another file defines but this one does not import", async () => {
    const result = await verify([replace(main, "def main():\n    return scale(Service().run(1))")]);
    const [issue] = checked(result, "imports");
    expect(issue?.message).toBe("'scale' (line 16) is defined in pkg/util.py but not imported in pkg/app.py");
    expect(issue?.fix).toMatch(/add_import step for `from pkg.util import scale`/);
    expect(checked(result, "references")).toEqual([]);
  });

  it("suggests the relative import for JavaScript", async () => {
    const result = await verify([
      replace({ kind: "function", name: "b", file: "web/a.js" }, "function b() {\n  return helperJs();\n}"),
    ]);
    const [issue] = checked(result, "imports");
    expect(issue?.message).toBe("'helperJs' (line 8) is defined in web/lib/b.js but not imported in web/a.js");
    expect(issue?.fix).toBe('add an add_import step for `import { helperJs } from "./lib/b"` before this step');
  });

  it("warns when a new import names something the module does not define", async () => {
    const result = await verify([
      { op: "add_import", params: { file: "pkg/app.py", import_statement: "from pkg.util import scaled" } },
    ]);
    const [issue] = checked(result, "imports");
    expect(issue?.message).toMatch(/names 'scaled', which pkg\/util.py does not define/);
    expect(issue?.fix).toMatch(/did you mean 'scale'/);
  });

  it("is quiet when the used names are imported and new imports resolve", async () => {
    const result = await verify([
      { op: "add_import", params: { file: "pkg/app.py", import_statement: "from pkg.util import scale, LIMIT" } },
      replace(main, "def main():\n    return scale(LIMIT)"),
    ]);
    expect(checked(result, "imports")).toEqual([]);
    expect(checked(result, "references")).toEqual([]);
  });
});

describe("L6 non-triviality (warning)", () => {
  it("warns about a body replaced by pass or return None", async () => {
    for (const body of ["    pass", "    return None", "    ..."]) {
      const result = await verify([replace(main, `def main():\n${body}`)]);
      const [issue] = checked(result, "triviality");
      expect(issue?.severity).toBe("warning");
      expect(issue?.message).toMatch(/has a placeholder body .* where the original had code/);
    }
  });

  it("warns about a replacement identical to the original", async () => {
    const result = await verify([replace(main, "def main():\n    return Service().run(1)")]);
    expect(checked(result, "triviality")[0]?.message).toMatch(
      /changes nothing: the new code is identical to the original/,
    );
  });

  it("is quiet about real code", async () => {
    const result = await verify([replace(main, "def main():\n    return Service().run(2)")]);
    expect(checked(result, "triviality")).toEqual([]);
  });
});

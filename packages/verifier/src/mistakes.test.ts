/** Plans as models write them: corrections said as warnings, rejections that name the fix, positional locators. */
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { verifyPlan } from "./index.js";
import type { VerifyOptions } from "./verify.js";

const APP = `class Service:
    def run(self, x):
        data = helper(x)
        print(data)
        return data

    def stop(self):
        print("stopped")
`;
const FILES = new Map([["pkg/app.py", APP]]);
const graph = await buildGraph([...FILES].map(([path, source]) => ({ path, source })));
const verify = (plan: unknown, options: VerifyOptions = {}) => verifyPlan(plan, FILES, graph, options);
const run = { kind: "method", name: "run", file: "pkg/app.py", parent: { kind: "class", name: "Service" } };

describe("certain corrections are verified as corrected and said as warnings", () => {
  it("runs an operator given as a template as the operator", async () => {
    const result = await verify([
      { template: "replace_node", params: { locator: run, replacement: "def run(self, x):\n    return helper(x)" } },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.warnings.join("\n")).toContain('corrected: "replace_node" is an operator, not a template');
  });

  it("takes an absolute path under the root as the relative path when the root is known", async () => {
    const result = await verify(
      [{ op: "delete_node", params: { locator: { kind: "method", name: "stop", file: "/srv/repo/pkg/app.py" } } }],
      { root: "/srv/repo" },
    );
    expect(result.errors).toEqual([]);
    expect(result.warnings.join("\n")).toContain('took "/srv/repo/pkg/app.py" as "pkg/app.py"');
  });

  it("without the root, rejects an absolute path naming the relative one", async () => {
    const result = await verify([
      { op: "delete_node", params: { locator: { kind: "method", name: "stop", file: "/srv/repo/pkg/app.py" } } },
    ]);
    expect(result.errors[0]).toContain("is an absolute path; paths are relative to the workspace root");
    expect(result.errors[0]).toContain('"file": "pkg/app.py"');
  });
});

describe("rejections name the fix", () => {
  it("an operator synonym is answered with the operator it means", async () => {
    const result = await verify([{ op: "insert_after", params: { locator: run, code: "x = 1" } }]);
    expect(result.errors[0]).toContain("did you mean 'insert_after_node'?");
  });

  it("rename_identifier's scope without a file means the step's file (it is not rejected)", async () => {
    const result = await verify([
      {
        op: "rename_identifier",
        params: { file: "pkg/app.py", name: "data", new_name: "value", scope: { kind: "method", name: "run" } },
      },
    ]);
    expect(result.errors).toEqual([]);
  });
});

describe("what CPython would not compile is an error, with the rule", () => {
  it("rejects a method replaced by statements that end in a return at class level", async () => {
    const result = await verify([
      { op: "replace_node", params: { locator: run, replacement: "data = helper(x)\nreturn data" } },
    ]);
    expect(result.passed).toBe(false);
    expect(result.errors.join("\n")).toContain("would not compile: line 3: 'return' outside function");
  });

  it("rejects code whose lines after the first are indented deeper than any reading allows", async () => {
    const result = await verify([
      {
        op: "insert_after_node",
        params: {
          locator: { kind: "method", name: "stop", file: "pkg/app.py" },
          code: "x = 1\n  y = 2",
          separator: "\n\n",
        },
      },
    ]);
    expect(result.errors.join("\n")).toContain("unexpected indent");
  });
});

describe("positional locators", () => {
  it("warns when a node picked by index has a name, giving the locator by name", async () => {
    const result = await verify([
      { op: "delete_node", params: { locator: { kind: "method", file: "pkg/app.py", index: 1 } } },
    ]);
    const warning = result.issues.find((i) => i.message.includes("by position alone"));
    expect(warning?.fix).toContain('"name":"stop"');
    expect(warning?.fix).toContain('"parent":{"kind":"class","name":"Service"}');
  });

  it("warns when an index has no parent although the node is inside a named function", async () => {
    const result = await verify([
      { op: "delete_node", params: { locator: { kind: "expression_statement", file: "pkg/app.py", index: 0 } } },
    ]);
    expect(result.issues.find((i) => i.message.includes("by position alone"))?.fix).toContain(
      '"parent":{"kind":"method","name":"run"}',
    );
  });

  it("suggests a name only when it finds the node (an assignment statement by its target)", async () => {
    const result = await verify([
      {
        op: "insert_after_node",
        params: {
          locator: {
            kind: "expression_statement",
            file: "pkg/app.py",
            index: 0,
            parent: { kind: "method", name: "run" },
          },
          code: "print(x)",
        },
      },
    ]);
    const warning = result.issues.find((i) => i.message.includes("by position alone"));
    expect(warning?.fix).toBe(
      'address it by name: {"kind":"expression_statement","file":"pkg/app.py","parent":{"kind":"method","name":"run"},"name":"data"}',
    );
  });

  it("an error from a step addressed by position says the index or the missing parent may have picked another node", async () => {
    // The model meant the `return data` of run (index 2 of its statements) but wrote index 1: the print call.
    const result = await verify([
      {
        op: "replace_node",
        params: {
          locator: {
            kind: "expression_statement",
            file: "pkg/app.py",
            index: 1,
            parent: { kind: "method", name: "run" },
          },
          replacement: "return data +",
        },
      },
    ]);
    expect(result.passed).toBe(false);
    expect(result.errors.join("\n")).toContain(
      "the locator picks its node by position (index 1 of the expression_statement nodes in method run); check the index",
    );
    const noParent = await verify([
      {
        op: "replace_node",
        params: {
          locator: { kind: "expression_statement", file: "pkg/app.py", index: 1 },
          replacement: "return data +",
        },
      },
    ]);
    expect(noParent.errors.join("\n")).toContain("with no parent); check the index and give the parent");
    // A step addressed by name gets no such hint.
    const named = await verify([{ op: "replace_node", params: { locator: run, replacement: "def run(self, x) +" } }]);
    expect(named.errors.join("\n")).not.toContain("by position");
  });

  it("a locator that matched before the plan ran but no longer does names the earlier step that changed the code", async () => {
    // Step 1 was meant for `print(data)` (index 1) but says index 0, and rewrites the helper call; step 2 then finds no helper call.
    const result = await verify([
      {
        op: "replace_node",
        params: {
          locator: {
            kind: "expression_statement",
            file: "pkg/app.py",
            index: 0,
            parent: { kind: "method", name: "run" },
          },
          replacement: "print(x)",
        },
      },
      {
        op: "replace_node",
        params: {
          locator: { kind: "call", name: "helper", file: "pkg/app.py", parent: { kind: "method", name: "run" } },
          replacement: "helper(x, strict=True)",
        },
      },
    ]);
    const second = result.issues.filter((i) => i.step === 1 && i.severity === "error");
    expect(second.length).toBeGreaterThan(0);
    expect(second[0]!.fix).toContain(
      "Before the plan ran, this locator matched line 3 of pkg/app.py; step 1 changed that file since",
    );
    // The same locator failing on its own (no earlier step) gets no such hint.
    const alone = await verify([
      {
        op: "replace_node",
        params: { locator: { kind: "call", name: "helpr", file: "pkg/app.py" }, replacement: "helper(x)" },
      },
    ]);
    expect(alone.errors.join("\n")).not.toContain("Before the plan ran");
  });

  it("a replace_code edit at the pattern's closest match that breaks the code says where the match was", async () => {
    const result = await verify([
      {
        op: "replace_code",
        params: { file: "pkg/app.py", pattern: "data = helpr(x)", replacement: "data = helper(x" },
      },
    ]);
    expect(result.passed).toBe(false);
    expect(result.errors.join("\n")).toContain("it was matched to the closest text, at line 3 (similar");
    const exact = await verify([
      {
        op: "replace_code",
        params: { file: "pkg/app.py", pattern: "data = helper(x)", replacement: "data = helper(x" },
      },
    ]);
    expect(exact.errors.join("\n")).not.toContain("closest text");
  });

  it("never quotes a docstring as the name: it gives the function and the string's index inside it", async () => {
    const doc = `    """Run the service on x.\n\n    ${"A long explanation of what running means. ".repeat(6)}\n    """`;
    const files = new Map([
      [
        "pkg/svc.py",
        `"""The service module."""\n\n\ndef run(x):\n${doc}\n    return "ok: " + x\n\n\ndef stop():\n    """Stop."""\n    return "stopped"\n`,
      ],
    ]);
    const g = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    // Index 1 of the file's strings: run's docstring.
    const result = await verifyPlan(
      [
        {
          op: "replace_node",
          params: { locator: { kind: "string", file: "pkg/svc.py", index: 1 }, replacement: '"""Run the service."""' },
        },
      ],
      files,
      g,
    );
    const warning = result.issues.find((i) => i.message.includes("by position alone"));
    expect(warning?.fix).toBe(
      'address it by parent: {"kind":"string","file":"pkg/svc.py","parent":{"kind":"function","name":"run"},"index":0}',
    );
    // A short string keeps its name: it is what the model would write.
    const short = await verifyPlan(
      [
        {
          op: "replace_node",
          params: { locator: { kind: "string", file: "pkg/svc.py", index: 3 }, replacement: '"""Halt."""' },
        },
      ],
      files,
      g,
    );
    expect(short.issues.find((i) => i.message.includes("by position alone"))?.fix).toBe(
      'address it by name and parent: {"kind":"string","file":"pkg/svc.py","name":"Stop.","parent":{"kind":"function","name":"stop"}}',
    );
  });

  it("says nothing for the last one (-1), which is how 'after the last member' is said", async () => {
    const result = await verify([
      {
        op: "insert_after_node",
        params: {
          locator: { kind: "method", file: "pkg/app.py", index: -1, parent: { kind: "class", name: "Service" } },
          code: "def last(self):\n    pass",
          separator: "\n\n",
        },
      },
    ]);
    expect(result.issues.filter((i) => i.message.includes("by position alone"))).toEqual([]);
  });
});

describe("a locator that names a definition of another file", () => {
  const BASE = "class App:\n    def make_config(self):\n        return {}\n\n    def run(self):\n        pass\n";
  const SUB = "from base import App\n\n\nclass Flask(App):\n    def run(self):\n        pass\n";
  const files = new Map([
    ["base.py", BASE],
    ["flask.py", SUB],
  ]);
  const locator = { kind: "method", name: "make_config", file: "flask.py", parent: { kind: "class", name: "Flask" } };

  it("says which file and class define it, for an operator that resolves its own locator and for a template", async () => {
    const g = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const op = await verifyPlan(
      [{ op: "insert_after_node", params: { locator, code: "def extra(self):\n    pass" } }],
      files,
      g,
    );
    expect(op.errors[0]).toContain(
      "'make_config' is not defined in flask.py; it is defined in base.py (method 'make_config' of class App, line 2): put that file in the locator, and its class as the parent",
    );
    const template = await verifyPlan(
      [{ template: "change_return_value", params: { target: locator, value: "None" } }],
      files,
      g,
    );
    expect(template.errors.join("\n")).toContain(
      "it is defined in base.py (method 'make_config' of class App, line 2)",
    );
  });

  it("keeps to the file's own near matches when the file has the name, although another file has it too", async () => {
    const g = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const result = await verifyPlan(
      [{ op: "delete_node", params: { locator: { kind: "class", name: "run", file: "flask.py" } } }],
      files,
      g,
    );
    expect(result.errors[0]).not.toContain("is not defined in flask.py");
    expect(result.errors[0]).toContain("did you mean method 'run' (line 5)");
  });
});

describe("a tier-0 step whose locator is malformed", () => {
  it("says what the locator lacks or has too much of, not 'Invalid input'", async () => {
    const noFile = await verify([{ op: "delete_node", params: { locator: { kind: "method", name: "stop" } } }]);
    expect(noFile.errors[0]).toContain(
      'delete_node: the locator has no "file": add the path of its file, relative to the workspace root',
    );
    const typo = await verify([
      { op: "delete_node", params: { locator: { kind: "method", nam: "stop", file: "pkg/app.py" } } },
    ]);
    expect(typo.errors[0]).toContain('delete_node: locator: Unrecognized key: "nam"');
    const missing = await verify([{ op: "replace_node", params: { locator: run } }]);
    expect(missing.errors[0]).toContain("Missing parameter 'replacement' for replace_node");
  });
});

describe("a locator kind that no language has", () => {
  it("suggests the kind meant and lists every kind of the language", async () => {
    const result = await verify([
      { op: "delete_node", params: { locator: { kind: "funktion", name: "stop", file: "pkg/app.py" } } },
    ]);
    expect(result.errors[0]).toContain("Unknown locator kind 'funktion' for python");
    expect(result.errors[0]).toContain("did you mean 'function'?");
    expect(result.errors[0]).toMatch(/The kinds of python: .*\bclass\b.*\bfunction\b.*\bmethod\b/);
  });
});

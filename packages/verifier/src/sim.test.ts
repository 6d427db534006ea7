/**
 * The simulation runs steps with @graphplan/primitives' PlanSession: the same texts as runPlan,
 * each step's edits reproduce its result, and every incremental tree equals a fresh parse.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadGrammars, parse } from "@graphplan/graph";
import { applyEdits, runPlan, type Step, type StepHandler } from "@graphplan/primitives";
import { formalHandlers } from "@graphplan/catalog";
import { Sim } from "./sim.js";
import { carryModuleScope, pythonScope } from "./scope/python.js";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";

const SRC = `import os


class Service:
    def run(self, x):
        return x


def helper(value):
    return value * 2


def main():
    data = helper(1)
    return Service().run(data)
`;

const OPERATORS = [
  {
    define: "bump_both",
    params_schema: { file: "string" },
    steps: [
      {
        primitive: "replace_node",
        params: {
          locator: { kind: "return", file: "$file", parent: { kind: "function", name: "helper" } },
          replacement: "return value * 3",
        },
      },
      {
        primitive: "insert_before_node",
        params: {
          locator: { kind: "return", file: "$file", parent: { kind: "function", name: "main" } },
          code: "data += 1",
        },
      },
    ],
  },
];

const STEPS: Step[] = [
  {
    op: "replace_node",
    params: {
      locator: { kind: "function", name: "helper", file: "m.py" },
      replacement: "def helper(value, k=2):\n    return value * k",
    },
  },
  {
    op: "insert_after_node",
    params: {
      locator: { kind: "function", name: "helper", file: "m.py" },
      code: "def twice(v):\n    return helper(helper(v))",
      separator: "\n\n\n",
    },
  },
  {
    op: "add_method",
    params: { file: "m.py", class_name: "Service", method_code: "def stop(self):\n    return None" },
  },
  {
    op: "wrap_node",
    params: {
      locator: { kind: "statement", file: "m.py", parent: { kind: "function", name: "main" }, index: 0 },
      before: "try:\n",
      after: "\nexcept ValueError:\n    data = 0",
    },
  },
  {
    op: "replace_all_matching",
    params: {
      locator: { type: "sexp", file: "m.py", query: '((identifier) @id (#eq? @id "data"))', capture: "id" },
      replacement: "payload",
    },
  },
  { op: "delete_node", params: { locator: { kind: "function", name: "twice", file: "m.py" } } },
  { op: "replace_code", params: { file: "m.py", pattern: "return x", replacement: "return x + 1" } },
  {
    op: "rename_symbol",
    params: {
      locator: { type: "sexp", file: "m.py", query: '((identifier) @id (#eq? @id "payload"))', capture: "id" },
      new_name: "value_in",
    },
  },
  { op: "bump_both", params: { file: "m.py" } },
  {
    template: "change_return_value",
    params: { target: { kind: "function", name: "main", file: "m.py" }, value: "None" },
  },
];

const sameAsFreshParse = (source: string, tree: { rootNode: { toString(): string } }): void => {
  const fresh = parse(source, "python");
  try {
    expect(tree.rootNode.toString()).toBe(fresh.rootNode.toString());
  } finally {
    fresh.delete();
  }
};

beforeAll(() => loadGrammars(["python", "javascript"]));

describe("the simulated workspace", () => {
  it("runs each step as runPlan does; each change's edits reproduce it and its tree equals a fresh parse", () => {
    const sim = new Sim(new Map([["m.py", SRC]]), { handlers: formalHandlers, operators: OPERATORS });
    const texts: string[] = [];
    try {
      for (const [index, step] of STEPS.entries()) {
        const changes = sim.runStep(step, index);
        expect(changes.map((c) => c.after.path)).toEqual(["m.py"]);
        for (const change of changes) {
          expect(applyEdits(change.before.source, change.edits)).toBe(change.after.source);
          sameAsFreshParse(change.after.source, change.after.tree);
          sim.commit(change);
        }
        sim.endStep();
        texts.push(sim.text("m.py")!);
      }
    } finally {
      sim.dispose();
    }
    const expected = STEPS.map((_, i) => {
      const r = runPlan(
        parsePlanOrThrow({ define_operators: OPERATORS, plan: STEPS.slice(0, i + 1) }),
        new Map([["m.py", SRC]]),
        {
          handlers: formalHandlers,
        },
      );
      if (!r.ok) throw r.error;
      return r.files.get("m.py")!;
    });
    expect(texts).toEqual(expected);
    expect(texts.at(-1)).toMatch(
      /def stop\(self\):[\s\S]*def helper\(value, k=2\):\n {4}return value \* 3[\s\S]*value_in = helper\(1\)/,
    );
  });

  it("gives a custom operator's two edits of one file as two edits, not one diff", () => {
    const sim = new Sim(new Map([["m.py", SRC]]), { operators: OPERATORS });
    try {
      const [change] = sim.runStep({ op: "bump_both", params: { file: "m.py" } }, 0);
      expect(change!.edits.map((e) => SRC.slice(e.start, e.end))).toEqual(["return value * 2", ""]);
    } finally {
      sim.dispose();
    }
  });

  it("carries the module scope over a change exactly as a fresh read would find it", () => {
    const sim = new Sim(new Map([["m.py", SRC]]), { handlers: formalHandlers });
    try {
      for (const [index, step] of STEPS.slice(0, 6).entries()) {
        pythonScope.definedAtTopLevel(sim.doc("m.py")!);
        for (const change of sim.runStep(step, index)) {
          expect(change.before).toBe(sim.doc("m.py"));
          carryModuleScope(change);
          const carried = [...pythonScope.definedAtTopLevel(change.after)].sort();
          const again = new Sim(new Map([["m.py", change.after.source]]));
          expect(carried).toEqual([...pythonScope.definedAtTopLevel(again.doc("m.py")!)].sort());
          again.dispose();
          sim.commit(change);
        }
        sim.endStep();
      }
      expect(pythonScope.definedAtTopLevel(sim.doc("m.py")!).has("twice")).toBe(false);
    } finally {
      sim.dispose();
    }
  });

  it("reports the structure that changed outside an edit (code swallowed by a comment)", () => {
    const insert: StepHandler = (step) => ({
      edits: { [String(step.params?.["file"] ?? "")]: [{ start: 4, end: 4, text: " /*" }] },
    });
    const sim = new Sim(
      new Map([
        ["a.js", "f();\n/* note */\ng();\n"],
        ["b.js", "f();\ng(); // */\nh();\n"],
      ]),
      { handlers: { insert } },
    );
    try {
      const [closed] = sim.runStep({ op: "insert", params: { file: "a.js" } }, 0);
      expect(closed!.changedRanges.some((r) => r.endIndex > closed!.after.source.indexOf("g();"))).toBe(false);
      sim.endStep();
      const [swallowed] = sim.runStep({ op: "insert", params: { file: "b.js" } }, 1);
      expect(swallowed!.changedRanges.some((r) => r.endIndex >= swallowed!.after.source.indexOf("g();") + 4)).toBe(
        true,
      );
    } finally {
      sim.dispose();
    }
  });

  it("a dropped change leaves its file as it was; a failed step throws its tagged error", () => {
    const sim = new Sim(new Map([["m.py", SRC]]));
    try {
      const [change] = sim.runStep({ op: "add_import", params: { file: "m.py", import_statement: "import sys" } }, 0);
      sim.rollback(change!);
      sim.endStep();
      expect(sim.text("m.py")).toBe(SRC);
      expect(sim.doc("m.py")!.source).toBe(SRC);
      expect(() =>
        sim.runStep({ op: "delete_node", params: { locator: { kind: "function", name: "nope", file: "m.py" } } }, 1),
      ).toThrow(expect.objectContaining({ _tag: "LocatorNotFound" }));
      expect(sim.text("m.py")).toBe(SRC);
    } finally {
      sim.dispose();
    }
  });
});

import { afterEach, beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, parse } from "@graphplan/graph";
import { applyEdits } from "./edits.js";
import { PlanSession, type StepChange } from "./session.js";
import { runPlan } from "./run.js";
import type { StepHandler } from "./session.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["python"]));

const A = `import os


def helper(value):
    return value * 2


def main():
    data = helper(1)
    return data
`;
const B = "def b():\n    return 2\n";
const files = () =>
  new Map([
    ["a.py", A],
    ["b.py", B],
  ]);

let open: PlanSession[] = [];
afterEach(() => {
  open.forEach((s) => s.dispose());
  open = [];
});
const session = (...args: ConstructorParameters<typeof PlanSession>) => {
  const s = new PlanSession(...args);
  open.push(s);
  return s;
};

/** The change is consistent: its edits take `before` to `after`, and the tree is the tree of the text. */
function checkChange(change: StepChange): void {
  expect(applyEdits(change.before.source, change.edits)).toBe(change.after.source);
  const fresh = parse(change.after.source, change.language);
  try {
    expect(change.after.tree.rootNode.toString()).toBe(fresh.rootNode.toString());
  } finally {
    fresh.delete();
  }
}

describe("PlanSession", () => {
  test("a step reports each changed file's versions, edits and changed ranges; commit makes them current", () => {
    const s = session(files());
    const r = s.run({
      op: "replace_node",
      params: {
        locator: { kind: "function", name: "helper", file: "a.py" },
        replacement: "def helper(value, k=2):\n    return value * k",
      },
    });
    if (!r.ok) throw r.error;
    expect(r.changes.map((c) => c.file)).toEqual(["a.py"]);
    const [change] = r.changes;
    checkChange(change!);
    const start = A.indexOf("def helper");
    const end = A.indexOf("value * 2") + "value * 2".length;
    expect(change!.edits).toEqual([{ start, end, text: "def helper(value, k=2):\n    return value * k" }]);
    // tree-sitter's changed ranges lie around the edit (not to the end of the file).
    expect(change!.changedRanges.length).toBeGreaterThan(0);
    const main = change!.after.source.indexOf("data = helper");
    expect(
      change!.changedRanges.every((range) => range.startIndex >= A.indexOf("\n\n") && range.endIndex <= main),
    ).toBe(true);
    expect(change!.errorsAfter).toEqual([]);
    // Pending: the committed text is still the old one.
    expect(s.text("a.py")).toBe(A);
    expect(() => s.run({ op: "locate", params: { locator: { kind: "function", file: "a.py" } } })).toThrow(
      /commit\(\) or discard\(\)/,
    );
    s.commit();
    expect(s.text("a.py")).toBe(change!.after.source);
    expect(s.parsed("a.py").tree).toBe(change!.after.tree);
    expect(s.changed).toEqual(["a.py"]);
  });

  test("steps see earlier committed steps; discard drops a step", () => {
    const s = session(files());
    const first = s.run({ op: "add_import", params: { file: "a.py", import_statement: "import sys" } });
    expect(first.ok).toBe(true);
    s.discard();
    expect(s.text("a.py")).toBe(A);
    const again = s.run({ op: "add_import", params: { file: "a.py", import_statement: "import sys" } });
    if (!again.ok) throw again.error;
    s.commit();
    const located = s.run({ op: "locate", params: { locator: { kind: "import", file: "a.py" } } });
    if (!located.ok) throw located.error;
    expect(located.changes).toEqual([]);
    expect(located.output).toMatchObject({ count: 2 });
  });

  test("a failed step changes nothing and says which step (1-based in the message)", () => {
    const s = session(files());
    const r = s.run({ op: "delete_node", params: { locator: { kind: "function", name: "nope", file: "a.py" } } }, 4);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({
      _tag: "StepFailed",
      step: 4,
      op: "delete_node",
      cause: { _tag: "LocatorNotFound" },
    });
    expect(r.error.message).toMatch(/^Step 5 \(delete_node\)/);
    expect(s.pending).toBe(false);
    expect(s.text("a.py")).toBe(A);
  });

  test("several changes of one file in a step compose into exact edits from the step's start", () => {
    const s = session(files(), {
      operators: [
        {
          define: "touch_both",
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
      ],
    });
    const r = s.run({ op: "touch_both", params: { file: "a.py" } });
    if (!r.ok) throw r.error;
    const [change] = r.changes;
    checkChange(change!);
    // Two separate places, not one diff spanning both.
    expect(change!.edits).toHaveLength(2);
    expect(change!.edits.map((e) => A.slice(e.start, e.end))).toEqual(["return value * 2", ""]);
  });

  test("commit of some files keeps only their changes", () => {
    const handler: StepHandler = () => ({
      edits: { "a.py": [{ start: 0, end: 9, text: "import re" }], "b.py": [{ start: 20, end: 21, text: "3" }] },
    });
    const s = session(files(), { handlers: { both: handler } });
    const r = s.run({ op: "both", params: {} });
    if (!r.ok) throw r.error;
    expect(r.changes.map((c) => c.file)).toEqual(["a.py", "b.py"]);
    s.commit(["b.py"]);
    expect(s.text("a.py")).toBe(A);
    expect(s.text("b.py")).toBe("def b():\n    return 3\n");
  });

  test("open() refuses a custom operator that takes an operator's name", () => {
    const redefined = {
      define_operators: [{ define: "replace_node", params_schema: {}, steps: [{ primitive: "locate", params: {} }] }],
      plan: [{ op: "replace_node", params: {} }],
    };
    expect(PlanSession.open(planOf(redefined), files())).toMatchObject({
      ok: false,
      error: { _tag: "OperatorRedefined" },
    });
  });

  test("runPlan is the session run to the end", () => {
    const plan = [
      { op: "add_import", params: { file: "a.py", import_statement: "import sys" } },
      {
        op: "wrap_node",
        params: {
          locator: { kind: "statement", file: "a.py", parent: { kind: "function", name: "main" }, index: 0 },
          before: "try:\n",
          after: "\nexcept ValueError:\n    data = 0",
        },
      },
      {
        op: "replace_all_matching",
        params: {
          locator: { type: "sexp", file: "a.py", query: '((identifier) @id (#eq? @id "data"))', capture: "id" },
          replacement: "payload",
        },
      },
    ];
    const viaRunPlan = runPlan(planOf(plan), files());
    if (!viaRunPlan.ok) throw viaRunPlan.error;
    const s = session(files());
    for (const step of plan) {
      const r = s.run(step);
      if (!r.ok) throw r.error;
      r.changes.forEach(checkChange);
      s.commit();
    }
    expect(s.files()).toEqual(viaRunPlan.files);
    expect(viaRunPlan.files.get("a.py")).toContain(
      "try:\n        payload = helper(1)\n    except ValueError:\n        payload = 0\n    return payload",
    );
  });
});

describe("a .h header", () => {
  const WIDGET_H =
    "#pragma once\nnamespace ui {\nclass Widget {\n public:\n  int size() const { return 0; }\n};\n}  // namespace ui\n";
  const POINT_H = "struct point { int x; };\nint add(int a, int b);\n";

  test("is edited as C++ when it holds C++, and as C otherwise, as the graph reads it", async () => {
    await loadGrammars(["c", "cpp"]);
    const s = session(
      new Map([
        ["widget.h", WIDGET_H],
        ["point.h", POINT_H],
      ]),
    );
    expect(s.language("widget.h")).toBe("cpp");
    expect(s.language("point.h")).toBe("c");
    const result = runPlan(
      planOf([
        {
          op: "replace_node",
          params: {
            locator: { kind: "function", name: "size", file: "widget.h", parent: { kind: "class", name: "Widget" } },
            replacement: "int size() const { return 42; }",
          },
        },
      ]),
      new Map([["widget.h", WIDGET_H]]),
    );
    expect(result.files.get("widget.h")).toContain("  int size() const { return 42; }\n");
    const fresh = parse(result.files.get("widget.h")!, "cpp");
    expect(fresh.rootNode.hasError).toBe(false);
    fresh.delete();
  });
});

import { describe, expect, it } from "vitest";
import { PlanSchema, planParts, stepLabel, stepLocator } from "./plan.js";

const steps = planParts(
  PlanSchema.parse([
    {
      op: "replace_node",
      params: { locator: { file: "a.py", kind: "function", name: "f" }, new_code: "def f(): pass" },
    },
    { template: "guard_clause", params: { file: "a.py", func_name: "f", class_name: "C", condition: "x is None" } },
    { fragment: { kind: "return" }, locator: { file: "a.py", kind: "function", name: "g" } },
    { fragment: { kind: "return" }, action: "insert_after", locator: { file: "a.py", kind: "function", name: "g" } },
    { op: "add_import", params: { import_statement: "import os" } },
  ]),
).steps;

describe("a step's label and locator, the same in every report", () => {
  it("labels an op by its name, a template and a fragment by their kind and name or action", () => {
    expect(steps.map(stepLabel)).toEqual([
      "replace_node",
      "template:guard_clause",
      "fragment:replace",
      "fragment:insert_after",
      "add_import",
    ]);
  });

  it("finds the locator of an op, a fragment, and a legacy step addressed by file and names", () => {
    expect(steps.map(stepLocator)).toEqual([
      { file: "a.py", kind: "function", name: "f" },
      { file: "a.py", class_name: "C", func_name: "f" },
      { file: "a.py", kind: "function", name: "g" },
      { file: "a.py", kind: "function", name: "g" },
      undefined,
    ]);
  });
});

/** applyPlan with the real plan runner of @graphplan/primitives (tree-sitter parses, real primitives). */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { applyPlan } from "./apply.js";
import { snapshot, tempDir } from "./fixtures/tmp.js";
import { Workspace } from "./workspace.js";

const A = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
const B = "class K:\n    def m(self):\n        pass\n\n    def n(self):\n        return 0\n";

function project(): string {
  const root = tempDir();
  mkdirSync(join(root, "pkg"));
  writeFileSync(join(root, "a.py"), A);
  writeFileSync(join(root, "pkg/b.py"), B);
  return root;
}
const apply = (root: string, steps: unknown) =>
  Effect.runPromise(applyPlan(parsePlanOrThrow(steps)).pipe(Effect.provide(Workspace.layer(root))));

const replaceF = {
  op: "replace_node",
  params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f():\n    return 10" },
};
const deleteM = {
  op: "delete_node",
  params: { locator: { kind: "method", name: "m", file: "pkg/b.py", parent: { kind: "class", name: "K" } } },
};

describe("applyPlan with @graphplan/primitives' runPlan", () => {
  it("edits several files through the syntax tree and writes them", async () => {
    const root = project();
    const result = await apply(root, [replaceF, deleteM]);
    expect(result).toMatchObject({ ok: true, written: ["a.py", "pkg/b.py"], created: [] });
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe(A.replace("return 1", "return 10"));
    expect(readFileSync(join(root, "pkg/b.py"), "utf8")).toBe("class K:\n    def n(self):\n        return 0\n");
    expect(Object.keys(snapshot(root))).toEqual(["a.py", "pkg/", "pkg/b.py"]);
  });

  it("runs every tier by default: a template, a fragment and a surgery step beside a primitive", async () => {
    const root = project();
    const guard = {
      template: "guard_clause",
      params: { target: { kind: "function", name: "g", file: "a.py" }, condition: "x is None", body: "return 0" },
    };
    const fragment = {
      fragment: { kind: "return_statement", properties: { value: "3" } },
      action: "replace",
      locator: { kind: "return", file: "a.py", parent: { kind: "function", name: "g" }, index: -1 },
    };
    const result = await apply(root, [
      replaceF,
      guard,
      fragment,
      { op: "rename_identifier", params: { file: "pkg/b.py", name: "K", new_name: "Kit" } },
    ]);
    expect(result.steps.map((s) => `${s.step} ${s.status}`)).toEqual(["1 ok", "2 ok", "3 ok", "4 ok"]);
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe(
      "def f():\n    return 10\n\n\ndef g():\n    if x is None:\n        return 0\n    return 3\n",
    );
    expect(readFileSync(join(root, "pkg/b.py"), "utf8")).toBe(B.replace("class K:", "class Kit:"));
  });

  it("leaves every file as it was when a locator matches nothing, naming the step, op and locator", async () => {
    const root = project();
    const before = snapshot(root);
    const locator = { kind: "function", name: "nope", file: "a.py" };
    const result = await apply(root, [replaceF, { op: "delete_node", params: { locator } }, deleteM]);
    expect(snapshot(root)).toEqual(before);
    expect(result.steps.map((s) => `${s.step} ${s.op} ${s.status}`)).toEqual([
      "1 replace_node ok",
      "2 delete_node failed",
      "3 delete_node skipped",
    ]);
    if (result.ok) return;
    expect(result.failure).toMatchObject({
      _tag: "StepFailed",
      step: 2,
      op: "delete_node",
      locator,
      cause: { _tag: "LocatorNotFound" },
    });
    expect(result.failure.message).toContain("No node in a.py matches the locator");
  });

  it("leaves every file as it was when an edit would break the syntax, saying what to fix", async () => {
    const root = project();
    const before = snapshot(root);
    const broken = { op: "replace_node", params: { ...replaceF.params, replacement: "def f(:\n    return 10" } };
    const result = await apply(root, [deleteM, broken]);
    expect(snapshot(root)).toEqual(before);
    expect(!result.ok && result.failure).toMatchObject({ step: 2, cause: { _tag: "PostconditionFailed" } });
    expect(!result.ok && result.failure.message).toContain("fix the code you are inserting");
  });

  it("reports a file the plan names but the workspace lacks as the workspace's FileNotFound", async () => {
    const root = project();
    const missing = { op: "delete_node", params: { locator: { kind: "function", name: "f", file: "src/gone.py" } } };
    const result = await apply(root, [replaceF, missing]);
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe(A);
    expect(!result.ok && result.failure).toMatchObject({
      step: 2,
      cause: { _tag: "FileNotFound", path: "src/gone.py" },
    });
    expect(!result.ok && result.failure.message).toBe(
      `file "src/gone.py" does not exist in the workspace ${root}; check the path (it is relative to the workspace root)`,
    );
  });
});

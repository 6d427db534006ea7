/** create_file / delete_file / rename_file applied to a real directory: in the same journaled, all-or-nothing commit as edits. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { planOf } from "./fixtures/plan.js";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { applyPlan, recover, type ApplyOptions } from "./apply.js";
import { snapshot, tempDir } from "./fixtures/tmp.js";
import { Workspace } from "./workspace.js";

const UTIL = "def helper(x):\n    return x * 2\n";
const MAIN = "from pkg.util import helper\n\n\ndef main():\n    return helper(1)\n";

function project(): string {
  const root = tempDir();
  mkdirSync(join(root, "pkg"));
  writeFileSync(join(root, "pkg/util.py"), UTIL);
  writeFileSync(join(root, "pkg/main.py"), MAIN);
  writeFileSync(join(root, "pkg/old.py"), "OLD = 1\n");
  return root;
}
const apply = (root: string, steps: unknown, options: ApplyOptions = {}) =>
  Effect.runPromise(applyPlan(planOf(steps), options).pipe(Effect.provide(Workspace.layer(root))));

const STEPS = [
  { op: "rename_file", params: { from: "pkg/util.py", to: "pkg/helpers.py" } },
  { op: "replace_node", params: { locator: { kind: "import", file: "pkg/main.py" }, replacement: "from pkg.helpers import helper" } },
  { op: "create_file", params: { path: "tests/test_helpers.py", content: "from pkg.helpers import helper\n\n\ndef test_helper():\n    assert helper(2) == 4\n" } },
  { op: "delete_file", params: { path: "pkg/old.py" } },
];

describe("file operations on disk", () => {
  it("renames, creates (with its directory) and deletes files with the edits, and says which", async () => {
    const root = project();
    const result = await apply(root, STEPS);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(Object.keys(snapshot(root)).filter((k) => !k.endsWith("/")).sort()).toEqual(["pkg/helpers.py", "pkg/main.py", "tests/test_helpers.py"]);
    expect(readFileSync(join(root, "pkg/helpers.py"), "utf8")).toBe(UTIL);
    expect(readFileSync(join(root, "pkg/main.py"), "utf8")).toMatch(/^from pkg\.helpers import helper\n/);
    expect([...result.created].sort()).toEqual(["pkg/helpers.py", "tests/test_helpers.py"]);
    expect([...result.deleted].sort()).toEqual(["pkg/old.py", "pkg/util.py"]);
    expect(existsSync(join(root, ".graphplan"))).toBe(false);
  });

  it("changes nothing when a later step fails, and a create onto an existing file fails", async () => {
    const root = project();
    const before = snapshot(root);
    const result = await apply(root, [...STEPS, { op: "create_file", params: { path: "pkg/main.py", content: "x = 1\n" } }]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toMatchObject({ step: 5, op: "create_file" });
    expect(result.failure.message).toMatch(/"pkg\/main\.py" already exists/);
    expect(snapshot(root)).toEqual(before);
  });

  it("after a crash in the middle of the commit, recover brings back the deleted and renamed files and removes the created ones", async () => {
    const root = project();
    const before = snapshot(root);
    // Writes (and deletions) happen one by one: crash before the last one.
    const crash: ApplyOptions["onBeforeWrite"] = ({ index, total }) => (index === total - 1 ? Effect.die("simulated crash") : Effect.void);
    await expect(apply(root, STEPS, { onBeforeWrite: crash })).rejects.toThrow("simulated crash");
    expect(snapshot(root)).not.toEqual(before);
    const recovered = await Effect.runPromise(recover().pipe(Effect.provide(Workspace.layer(root))));
    expect(recovered.interrupted).toBe(true);
    expect(snapshot(root)).toEqual(before);
  });
});

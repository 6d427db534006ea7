/** The README's opening example, verbatim apart from the import path, so it cannot rot. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";

it("runs the README example", async () => {
  const log: unknown[] = [];
  const console = { log: (...args: unknown[]) => log.push(...args) };
  // --- README example ---
  const Effect = await import("effect/Effect");
  const { loadPlanGrammars, parsePlan } = await import("@graphplan/catalog");
  const { Workspace, applyPlan, recover } = await import("./index.js");

  const root = mkdtempSync(join(tmpdir(), "demo-"));
  writeFileSync(join(root, "a.py"), "def f():\n    return 1\n");
  const json = [
    {
      op: "replace_node",
      params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f():\n    return 2" },
    },
  ];
  await loadPlanGrammars(json);
  const parsed = parsePlan(json); // the plan's one front door: a typed plan, or every problem with its fix
  if (!parsed.ok) throw new Error(parsed.issues.map((i) => `${i.message} (${i.fix})`).join("\n"));
  const program = Effect.andThen(recover(), applyPlan(parsed.plan)); // undo any interrupted apply, then apply
  const result = await Effect.runPromise(program.pipe(Effect.provide(Workspace.layer(root))));
  console.log(result.steps, readFileSync(join(root, "a.py"), "utf8"));
  // --- end ---
  expect(log).toEqual([[{ step: 1, op: "replace_node", status: "ok" }], "def f():\n    return 2\n"]);
  rmSync(root, { recursive: true });
});

/** Diffs that add, delete and rename files, made by real git, compiled into plans that reproduce them. */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadGrammars } from "@graphplan/graph";
import { runFormalPlan } from "@graphplan/catalog";
import { makeRepo } from "@graphplan/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { compile, CompileError } from "./compile.js";
import { PatchError } from "./patch.js";

beforeAll(() => loadGrammars(["python"]));

const UTIL = "def helper(x):\n    return x * 2\n\n\ndef twice(x):\n    return helper(helper(x))\n\n\ndef thrice(x):\n    return helper(x) + x\n";
const MAIN = "from pkg.util import helper\n\n\ndef main():\n    return helper(1)\n";
const OLD = "OLD = 1\n";

/** A git repository with three files, changed by `change`, and `git diff` of the result (renames detected). */
function diffOf(change: (dir: string) => void): { pre: Map<string, string>; diff: string } {
  const repo = makeRepo();
  const files = { "pkg/util.py": UTIL, "pkg/main.py": MAIN, "pkg/old.py": OLD };
  repo.commit(files, "base");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8" });
  change(repo.dir);
  git("add", "-A");
  return { pre: new Map(Object.entries(files)), diff: git("diff", "--cached", "-M") };
}

describe("compiling diffs that add, delete and rename files", () => {
  it("compiles a rename with an edit, a new test file and a deleted module into a plan that reproduces the diff", () => {
    const { pre, diff } = diffOf((dir) => {
      rmSync(join(dir, "pkg/util.py"));
      writeFileSync(join(dir, "pkg/helpers.py"), UTIL.replace("x * 2", "x * 2  # doubled"));
      writeFileSync(join(dir, "pkg/main.py"), MAIN.replace("pkg.util", "pkg.helpers"));
      mkdirSync(join(dir, "tests"));
      writeFileSync(join(dir, "tests/test_helpers.py"), "from pkg.helpers import helper\n\n\ndef test_helper():\n    assert helper(2) == 4\n");
      rmSync(join(dir, "pkg/old.py"));
    });
    expect(diff).toContain("rename from pkg/util.py");
    const compiled = compile(pre, diff);
    const ops = compiled.plan.map((s) => ("op" in s ? s.op : "other"));
    expect(ops[0]).toBe("rename_file");
    expect(ops).toContain("create_file");
    expect(ops.at(-1)).toBe("delete_file");
    const run = runFormalPlan(JSON.parse(JSON.stringify(compiled.plan)), pre);
    expect(run.ok, run.ok ? "" : run.error.message).toBe(true);
    if (!run.ok) return;
    expect(Object.fromEntries(run.files)).toEqual(Object.fromEntries(compiled.post));
    expect([...run.deleted].sort()).toEqual(["pkg/old.py", "pkg/util.py"]);
  });

  it("says a file mode change is not supported, and a new file of no known language cannot be created", () => {
    const { pre, diff } = diffOf((dir) => execFileSync("chmod", ["+x", join(dir, "pkg/main.py")]));
    expect(() => compile(pre, diff)).toThrow(PatchError);
    expect(() => compile(pre, diff)).toThrow(/pkg\/main\.py: file mode changes \(100644 to 100755\) are not supported/);
    const notes = diffOf((dir) => writeFileSync(join(dir, "NOTES.txt"), "hello\n"));
    expect(() => compile(notes.pre, notes.diff)).toThrow(CompileError);
    expect(() => compile(notes.pre, notes.diff)).toThrow(/NOTES\.txt: not a language the graph parses/);
  });
});

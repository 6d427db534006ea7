/** Diffs that add, delete and rename files, made by real git, compiled into plans that reproduce them. */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadDataGrammars, loadGrammars } from "@graphplan/graph";
import { runFormalPlan } from "@graphplan/catalog";
import { makeRepo } from "@graphplan/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { compile } from "./compile.js";
import { gitDiff, PatchError } from "./patch.js";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";

const CHANGES = "Version 3.2.0\n-------------\n\nUnreleased\n\n-   Drop Python 3.9.\n";

beforeAll(() => loadGrammars(["python", "bash"])); // `run.sh` is shell code

const UTIL =
  "def helper(x):\n    return x * 2\n\n\ndef twice(x):\n    return helper(helper(x))\n\n\ndef thrice(x):\n    return helper(x) + x\n";
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
      writeFileSync(
        join(dir, "tests/test_helpers.py"),
        "from pkg.helpers import helper\n\n\ndef test_helper():\n    assert helper(2) == 4\n",
      );
      rmSync(join(dir, "pkg/old.py"));
    });
    expect(diff).toContain("rename from pkg/util.py");
    const compiled = compile(pre, diff);
    const ops = compiled.plan.map((s) => ("op" in s ? s.op : "other"));
    expect(ops[0]).toBe("rename_file");
    expect(ops).toContain("create_file");
    expect(ops.at(-1)).toBe("delete_file");
    const run = runFormalPlan(parsePlanOrThrow(JSON.parse(JSON.stringify(compiled.plan))), pre);
    expect(run.ok, run.ok ? "" : run.error.message).toBe(true);
    if (!run.ok) return;
    expect(Object.fromEntries(run.files)).toEqual(Object.fromEntries(compiled.post));
    expect([...run.deleted].sort()).toEqual(["pkg/old.py", "pkg/util.py"]);
  });

  it("compiles every file of a real change — changelog, docs, config, a script made executable, CRLF and no final newline — exactly", () => {
    const { pre, diff } = diffOf((dir) => {
      writeFileSync(join(dir, "pkg/util.py"), UTIL.replace("x * 2", "x * 3"));
      execFileSync("chmod", ["+x", join(dir, "pkg/main.py")]);
      writeFileSync(join(dir, "pkg/old.py"), "OLD = 2\n");
      mkdirSync(join(dir, "docs"));
      writeFileSync(join(dir, "docs/teardown.md"), "# Teardown\n\nEvery callback runs.\n");
      writeFileSync(join(dir, "run.sh"), "#!/bin/sh\nexec python -m pkg.main\n", { mode: 0o755 });
    });
    // Text files beside the code, changed the way real commits change them.
    const base = new Map([
      ...pre,
      ["CHANGES.rst", CHANGES],
      ["setup.cfg", "[metadata]\r\nname = demo  \r\nversion = 1.0\r\n"],
      ["VERSION", "1.0"],
    ]);
    const post = new Map([
      ["CHANGES.rst", CHANGES.replace("Unreleased\n\n", "Unreleased\n\n-   Call every teardown callback.\n")],
      ["setup.cfg", "[metadata]\r\nname = demo  \r\nversion = 1.1\r\n"],
      ["VERSION", "1.1"],
    ]);
    const textDiff = gitDiff(base, new Map([...base, ...post]));
    const compiled = compile(base, diff + textDiff);
    const ops = compiled.plan.map((s) => ("op" in s ? s.op : "other"));
    expect(ops).toEqual(expect.arrayContaining(["set_file_mode", "create_file", "replace_text"]));
    expect(compiled.plan).toContainEqual({ op: "set_file_mode", params: { path: "pkg/main.py", mode: "100755" } });
    expect(compiled.plan).toContainEqual({ op: "set_file_mode", params: { path: "run.sh", mode: "100755" } });
    // The code change is structural; the text files' changes are text steps.
    expect(compiled.records.filter((r) => r.file === "pkg/util.py").every((r) => !r.text)).toBe(true);
    expect(
      compiled.records.filter((r) => ["CHANGES.rst", "setup.cfg", "VERSION"].includes(r.file)).every((r) => r.text),
    ).toBe(true);
    const run = runFormalPlan(parsePlanOrThrow(JSON.parse(JSON.stringify(compiled.plan))), base);
    expect(run.ok, run.ok ? "" : run.error.message).toBe(true);
    if (!run.ok) return;
    expect(Object.fromEntries(run.files)).toEqual(Object.fromEntries([...base, ...compiled.post]));
    expect(Object.fromEntries(run.modes)).toEqual({ "pkg/main.py": "100755", "run.sh": "100755" });
  });

  it("says a symlink is not a file a plan changes", () => {
    const { pre, diff } = diffOf((dir) => symlinkSync("pkg/util.py", join(dir, "link.py")));
    expect(() => compile(pre, diff)).toThrow(PatchError);
    expect(() => compile(pre, diff)).toThrow(/link\.py: mode 120000 is not a regular file's/);
  });
});

describe("data files", () => {
  beforeAll(() => loadDataGrammars());

  it("compiles a change of values to data steps, and a change beside the values to text steps, both exactly", () => {
    const pyproject =
      '[project]\nname = "demo"\nversion = "1.0.0"\ndependencies = ["click"]\n\n[tool.pytest.ini_options]\naddopts = "-ra"\n';
    const pkg = '{\n  "name": "demo",\n  "scripts": {\n    "test": "vitest",\n    "prepublish": "tsc"\n  }\n}\n';
    const pre = new Map([
      ["pyproject.toml", pyproject],
      ["package.json", pkg],
    ]);
    const post = new Map([
      ["pyproject.toml", pyproject.replace('"1.0.0"', '"1.1.0"').replace('["click"]', '["click", "rich"]')],
      ["package.json", pkg.replace(',\n    "prepublish": "tsc"', "")],
    ]);
    const compiled = compile(pre, gitDiff(pre, post));
    expect(compiled.plan).toEqual([
      { op: "delete_key", params: { locator: { kind: "key", name: "scripts.prepublish", file: "package.json" } } },
      {
        op: "set_key",
        params: { locator: { kind: "key", name: "project.version", file: "pyproject.toml" }, value: "1.1.0" },
      },
      {
        op: "append_item",
        params: { locator: { kind: "key", name: "project.dependencies", file: "pyproject.toml" }, value: "rich" },
      },
    ]);
    expect(compiled.records.every((r) => !r.text)).toBe(true);
    const run = runFormalPlan(parsePlanOrThrow(JSON.parse(JSON.stringify(compiled.plan))), pre);
    expect(run.ok && Object.fromEntries(run.files)).toEqual(Object.fromEntries(post));

    // A comment added beside a value: no data step writes it, so the change is text.
    const commented = new Map([
      ["pyproject.toml", pyproject.replace('addopts = "-ra"', '# verbose\naddopts = "-ra -v"')],
    ]);
    const text = compile(
      new Map([["pyproject.toml", pyproject]]),
      gitDiff(new Map([["pyproject.toml", pyproject]]), commented),
    );
    expect(text.records.map((r) => r.text)).toEqual([true]);
    const again = runFormalPlan(
      parsePlanOrThrow(JSON.parse(JSON.stringify(text.plan))),
      new Map([["pyproject.toml", pyproject]]),
    );
    expect(again.ok && again.files.get("pyproject.toml")).toBe(commented.get("pyproject.toml"));
  });
});

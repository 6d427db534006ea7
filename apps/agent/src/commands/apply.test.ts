/** `graphplan apply`: in-process through `run` (exit codes as the CLI returns them), and once spawned for real. */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runInProcess } from "./fixtures/in-process.js";
import { applyCommand } from "./apply.js";

const A = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
const B = "class K:\n    def m(self):\n        pass\n\n    def n(self):\n        return 0\n";
const replaceF = {
  op: "replace_node",
  params: { locator: { kind: "function", name: "f", file: "a.py" }, replacement: "def f():\n    return 10" },
};
const deleteM = {
  op: "delete_node",
  params: { locator: { kind: "method", name: "m", file: "pkg/b.py", parent: { kind: "class", name: "K" } } },
};
const deleteNope = { op: "delete_node", params: { locator: { kind: "function", name: "nope", file: "a.py" } } };

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project with a.py and pkg/b.py, and a directory for plan files. */
function project() {
  const root = mkdtempSync(join(tmpdir(), "graphplan-apply-"));
  const plans = mkdtempSync(join(tmpdir(), "graphplan-plans-"));
  dirs.push(root, plans);
  mkdirSync(join(root, "pkg"));
  writeFileSync(join(root, "a.py"), A);
  writeFileSync(join(root, "pkg/b.py"), B);
  const planFile = (name: string, content: unknown) => {
    const path = join(plans, name);
    writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
    return path;
  };
  const files = () => ({
    a: readFileSync(join(root, "a.py"), "utf8"),
    b: readFileSync(join(root, "pkg/b.py"), "utf8"),
    entries: readdirSync(root).sort(),
  });
  return { root, planFile, files };
}

const graphplan = (...args: string[]) => runInProcess([applyCommand], ["apply", ...args]);

describe("graphplan apply", () => {
  it("applies every step, prints one line per step and exits 0", async () => {
    const p = project();
    const out = await graphplan(p.planFile("plan.json", [replaceF, deleteM]), "--root", p.root);
    expect(out).toEqual({
      code: 0,
      stdout: "step 1 replace_node ok\nstep 2 delete_node ok\nchanged a.py, pkg/b.py\n",
      stderr: "",
    });
    expect(p.files()).toEqual({
      a: A.replace("return 1", "return 10"),
      b: "class K:\n    def n(self):\n        return 0\n",
      entries: ["a.py", "pkg"],
    });
  });

  it("edits a data file by key beside the code, and refuses a missing key naming the nearest", async () => {
    const p = project();
    const toml = "[tool.pytest.ini_options]\naddopts = '-ra'  # keep\n";
    writeFileSync(join(p.root, "pyproject.toml"), toml);
    const key = (name: string) => ({ kind: "key", name, file: "pyproject.toml" });
    const out = await graphplan(
      p.planFile("plan.json", [
        replaceF,
        { op: "set_key", params: { locator: key("tool.pytest.ini_options.addopts"), value: "-ra -q" } },
      ]),
      "--root",
      p.root,
    );
    expect(out).toEqual({
      code: 0,
      stdout: "step 1 replace_node ok\nstep 2 set_key ok\nchanged a.py, pyproject.toml\n",
      stderr: "",
    });
    expect(readFileSync(join(p.root, "pyproject.toml"), "utf8")).toBe(
      "[tool.pytest.ini_options]\naddopts = '-ra -q'  # keep\n",
    );
    const bad = await graphplan(
      p.planFile("bad.json", [{ op: "delete_key", params: { locator: key("tool.pytest.ini_options.adopts") } }]),
      "--root",
      p.root,
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).toContain("Nearest keys under tool.pytest.ini_options: addopts.");
  });

  it("exits 1 with every file byte-identical when a step fails, saying which and why", async () => {
    const p = project();
    const before = p.files();
    const out = await graphplan(
      p.planFile("plan.json", [replaceF, deleteNope, deleteM]),
      "--root",
      p.root,
      "--no-verify",
    );
    expect(out.code).toBe(1);
    expect(out.stdout.split("\n")).toEqual([
      "step 1 replace_node ok",
      'step 2 delete_node FAILED: No node in a.py matches the locator {"kind":"function","name":"nope","file":"a.py"}.',
      "step 3 delete_node skipped (an earlier step failed)",
      "",
    ]);
    expect(out.stderr).toBe("graphplan: step 2 (delete_node) failed; no file was changed\n");
    expect(p.files()).toEqual(before);
  });

  it("prints the result as JSON with --json", async () => {
    const p = project();
    const ok = await graphplan(p.planFile("ok.json", [replaceF]), "--root", p.root, "--json");
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({
      ok: true,
      recovered: null,
      steps: [{ step: 1, op: "replace_node", status: "ok" }],
      written: ["a.py"],
      created: [],
      deleted: [],
    });
    // A plan that renames a file and adds one: the JSON says which were created and deleted.
    const q = project();
    const files = await graphplan(
      q.planFile("files.json", [
        { op: "rename_file", params: { from: "a.py", to: "lib/a2.py" } },
        { op: "create_file", params: { path: "lib/__init__.py", content: "from .a2 import *\n" } },
      ]),
      "--root",
      q.root,
      "--json",
    );
    expect(files.code, files.stderr).toBe(0);
    expect(JSON.parse(files.stdout)).toMatchObject({
      ok: true,
      written: ["lib/a2.py", "lib/__init__.py"],
      created: ["lib/a2.py", "lib/__init__.py"],
      deleted: ["a.py"],
    });
    expect(existsSync(join(q.root, "a.py"))).toBe(false);
    const failed = await graphplan(
      p.planFile("bad.json", [deleteM, deleteNope]),
      "--root",
      p.root,
      "--json",
      "--no-verify",
    );
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      ok: false,
      steps: [
        { step: 1, op: "delete_node", status: "ok" },
        {
          step: 2,
          op: "delete_node",
          status: "failed",
          error: { tag: "LocatorNotFound", locator: deleteNope.params.locator },
        },
      ],
      written: [],
    });
    expect(p.files().b).toBe(B);
  });

  it("rejects a plan file that is not JSON with one line and exit 2", async () => {
    const p = project();
    const path = p.planFile("plan.json", '[{"op": "replace_node",');
    const out = await graphplan(path, "--root", p.root);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe("");
    expect(out.stderr).toMatch(new RegExp(`^error: ${path} is not valid JSON: [^\\n]+\\n$`));
  });

  it.each([
    ["a step whose op is not a string", [{ op: 3 }], 'Step 1 (?): "op" is 3, not the name of an operator'],
    ["an empty plan", [], "Plan: the plan is empty"],
    [
      "a custom operator with a bad name",
      {
        plan: [replaceF],
        define_operators: [{ define: "1x", params_schema: {}, steps: [{ primitive: "delete_node", params: {} }] }],
      },
      "Plan: define_operators[0] is not a valid operator definition: 'define': an operator name is an identifier",
    ],
    [
      "a step missing a parameter",
      [{ op: "replace_node", params: { locator: { kind: "function", name: "f", file: "a.py" } } }],
      "Step 1 (replace_node): Missing parameter 'replacement' for replace_node",
    ],
  ])("rejects %s naming the first issue, exit 2", async (_what, plan, where) => {
    const p = project();
    const out = await graphplan(p.planFile("plan.json", plan), "--root", p.root);
    expect(out.code).toBe(2);
    expect(out.stderr.split("\n")).toHaveLength(2);
    expect(out.stderr).toContain(`is not a valid plan: ${where}`);
    expect(p.files().a).toBe(A);
  });

  it.each([
    [
      "a path outside the root",
      [replaceF, { op: "delete_node", params: { locator: { kind: "function", name: "f", file: "../a.py" } } }],
      'path "../a.py" is not inside the workspace',
    ],
    [
      "a custom operator redefining a built-in one",
      {
        plan: [replaceF],
        define_operators: [
          { define: "replace_node", params_schema: {}, steps: [{ primitive: "delete_node", params: {} }] },
        ],
      },
      "'replace_node' is already an operator",
    ],
  ])("rejects %s with exit 2 before changing anything", async (_what, plan, message) => {
    const p = project();
    const out = await graphplan(p.planFile("plan.json", plan), "--root", p.root);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(p.files().a).toBe(A);
  });

  it("takes an absolute path under the root as the relative path and says so on stderr", async () => {
    const p = project();
    const absolute = {
      ...replaceF,
      params: { ...replaceF.params, locator: { ...replaceF.params.locator, file: join(p.root, "a.py") } },
    };
    const out = await graphplan(p.planFile("plan.json", [absolute]), "--root", p.root);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain(
      `corrected step 1: paths are relative to the root ${p.root}: took ${JSON.stringify(join(p.root, "a.py"))} as "a.py"`,
    );
    expect(p.files().a).toContain("return 10");
  });

  it("exits 2 for a missing plan file or root directory", async () => {
    const p = project();
    const missingPlan = await graphplan(join(p.root, "nope.json"), "--root", p.root);
    expect(missingPlan.code).toBe(2);
    expect(missingPlan.stderr).toMatch(/^error: cannot read .*nope\.json: ENOENT/);
    const missingRoot = await graphplan(p.planFile("plan.json", [replaceF]), "--root", join(p.root, "nowhere"));
    expect(missingRoot.code).toBe(2);
    expect(missingRoot.stderr).toContain("is not a usable directory");
  });

  it("recovers an interrupted apply before applying, and says so", async () => {
    const p = project();
    // What a killed apply leaves: a journal with a.py's original bytes, and a.py half-way changed.
    mkdirSync(join(p.root, ".graphplan"));
    const journal = { version: 1, files: [{ path: "a.py", original: Buffer.from(A).toString("base64") }], dirs: [] };
    writeFileSync(join(p.root, ".graphplan/journal.json"), JSON.stringify(journal));
    writeFileSync(join(p.root, "a.py"), "garbage from the killed apply\n");
    const out = await graphplan(p.planFile("plan.json", [deleteM]), "--root", p.root);
    expect(out.code).toBe(0);
    expect(out.stderr).toBe("recovered an interrupted apply: restored a.py\n");
    expect(p.files().a).toBe(A);
    expect(existsSync(join(p.root, ".graphplan"))).toBe(false);
  });

  it("exits 1 on a corrupt journal without touching any file", async () => {
    const p = project();
    mkdirSync(join(p.root, ".graphplan"));
    writeFileSync(join(p.root, ".graphplan/journal.json"), "{");
    const out = await graphplan(p.planFile("plan.json", [replaceF]), "--root", p.root);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('graphplan: the journal ".graphplan/journal.json" cannot be read');
    expect(p.files().a).toBe(A);
  });

  it("runs as `pnpm -s graphplan apply` from the repository root", () => {
    const p = project();
    const repo = join(import.meta.dirname, "..", "..", "..", "..");
    const result = spawnSync(
      "pnpm",
      ["-s", "graphplan", "apply", p.planFile("plan.json", [replaceF]), "--root", p.root],
      {
        cwd: repo,
        encoding: "utf8",
      },
    );
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("step 1 replace_node ok\nchanged a.py\n");
    expect(result.status).toBe(0);
    expect(p.files().a).toBe(A.replace("return 1", "return 10"));
  });

  it("changes a changelog, a data file and a script's mode with the code; refuses a text step it cannot place, changing nothing", async () => {
    const p = project();
    writeFileSync(join(p.root, "CHANGES.rst"), "Unreleased\n\n-   First.\n\n-   First.\n");
    writeFileSync(join(p.root, "pyproject.toml"), '[project]\nversion = "1.0"\n');
    writeFileSync(join(p.root, "run.sh"), "#!/bin/sh\n");
    writeFileSync(join(p.root, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00]));
    const good = [
      replaceF,
      {
        op: "insert_text",
        params: { file: "CHANGES.rst", anchor: "Unreleased\n\n", position: "after", text: "-   f returns 10.\n" },
      },
      {
        op: "set_key",
        params: { locator: { kind: "key", name: "project.version", file: "pyproject.toml" }, value: "1.1" },
      },
      { op: "set_file_mode", params: { path: "run.sh", mode: "100755" } },
    ];
    const ok = await graphplan(p.planFile("good.json", good), "--root", p.root);
    expect(ok.code, ok.stderr).toBe(0);
    expect(readFileSync(join(p.root, "CHANGES.rst"), "utf8")).toBe(
      "Unreleased\n\n-   f returns 10.\n-   First.\n\n-   First.\n",
    );
    expect(readFileSync(join(p.root, "pyproject.toml"), "utf8")).toBe('[project]\nversion = "1.1"\n');
    expect(statSync(join(p.root, "run.sh")).mode & 0o111).toBe(0o111);

    const before = { ...p.files(), changes: readFileSync(join(p.root, "CHANGES.rst"), "utf8") };
    for (const step of [
      { op: "replace_text", params: { file: "CHANGES.rst", find: "-   First.", replace: "-   Second." } },
      { op: "replace_text", params: { file: "CHANGES.rst", find: "-   Third.", replace: "-   Fourth." } },
      { op: "append_text", params: { file: "logo.png", text: "x" } },
      { op: "set_file_mode", params: { path: "nope.sh", mode: "100755" } },
      { op: "replace_text", params: { file: "pyproject.toml", find: 'version = "1.1"', replace: 'version = "1.2' } },
    ]) {
      const out = await graphplan(p.planFile("bad.json", [replaceF, step]), "--root", p.root);
      expect(out.code, JSON.stringify(step)).not.toBe(0);
      expect(out.stderr.trim().split("\n").at(-1)).toMatch(/^graphplan: /);
      expect({ ...p.files(), changes: readFileSync(join(p.root, "CHANGES.rst"), "utf8") }).toEqual(before);
    }
  });
});

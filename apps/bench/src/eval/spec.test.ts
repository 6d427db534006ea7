import { describe, expect, it } from "vitest";
import {
  EvalInstanceSchema,
  type EvalInstance,
  evalScript,
  HARNESS_ENVIRONMENT,
  instanceImageName,
  modifiedTestFiles,
  PatchParseError,
  patchApplyCommands,
  SPEC_TABLE,
  specFor,
  testDirectives,
} from "./spec.js";

const BASE = "0123456789abcdef0123456789abcdef01234567";

/** A test patch that edits one file and creates another. */
const DJANGO_PATCH = [
  "diff --git a/tests/httpwrappers/tests.py b/tests/httpwrappers/tests.py",
  "--- a/tests/httpwrappers/tests.py",
  "+++ b/tests/httpwrappers/tests.py",
  "@@ -1,2 +1,3 @@",
  " import json",
  "+import copy",
  " ",
  "diff --git a/tests/httpwrappers/test_new.py b/tests/httpwrappers/test_new.py",
  "new file mode 100644",
  "index 0000000..1111111",
  "--- /dev/null",
  "+++ b/tests/httpwrappers/test_new.py",
  "@@ -0,0 +1 @@",
  "+def test_x(): pass",
  "",
].join("\n");

function instance(fields: Partial<EvalInstance> & Pick<EvalInstance, "repo" | "version" | "test_patch">): EvalInstance {
  return EvalInstanceSchema.parse({
    instance_id: "x__y-1",
    base_commit: BASE,
    FAIL_TO_PASS: "[]",
    PASS_TO_PASS: "[]",
    ...fields,
  });
}

describe("the instance schema", () => {
  it("decodes F2P/P2P given as JSON strings and keeps arrays as they are", () => {
    const parsed = EvalInstanceSchema.parse({
      repo: "pallets/flask",
      instance_id: "pallets__flask-4045",
      base_commit: BASE,
      version: "2.0",
      test_patch: "",
      FAIL_TO_PASS: '["tests/test_blueprints.py::test_dotted_name_not_allowed"]',
      PASS_TO_PASS: ["tests/test_blueprints.py::test_blueprint_specific_error_handling"],
      created_at: "2021-05-13",
    });
    expect(parsed.FAIL_TO_PASS).toEqual(["tests/test_blueprints.py::test_dotted_name_not_allowed"]);
    expect(parsed.PASS_TO_PASS).toEqual(["tests/test_blueprints.py::test_blueprint_specific_error_handling"]);
    expect(parsed.created_at).toBe("2021-05-13");
  });

  it("turns a numeric version into String(n) and missing test lists into []", () => {
    const parsed = EvalInstanceSchema.parse({
      repo: "a/b",
      instance_id: "a__b-1",
      base_commit: BASE,
      version: 3.1,
      test_patch: "",
    });
    expect(parsed.version).toBe("3.1");
    expect(parsed.FAIL_TO_PASS).toEqual([]);
    expect(parsed.PASS_TO_PASS).toEqual([]);
  });

  it("rejects test lists that are not JSON string arrays", () => {
    const base = { repo: "a/b", instance_id: "a__b-1", base_commit: BASE, version: "1.0", test_patch: "" };
    expect(EvalInstanceSchema.safeParse({ ...base, FAIL_TO_PASS: "[not json" }).success).toBe(false);
    expect(EvalInstanceSchema.safeParse({ ...base, FAIL_TO_PASS: "[1, 2]" }).success).toBe(false);
  });
});

describe("the spec table", () => {
  it("holds the 64 (repo, version) pairs of SWE-bench Lite over 12 repositories", () => {
    expect(SPEC_TABLE.size).toBe(12);
    expect([...SPEC_TABLE.values()].reduce((n, versions) => n + versions.size, 0)).toBe(64);
  });

  it("uses the exact test commands, including the second TEST_PYTEST and sympy's inline env var", () => {
    expect(specFor("django/django", "4.0")?.test_cmd).toBe(
      "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1",
    );
    expect(specFor("astropy/astropy", "1.3")?.test_cmd).toBe("pytest -rA -vv -o console_output_style=classic --tb=no");
    expect(specFor("astropy/astropy", "5.2")?.test_cmd).toBe("pytest -rA");
    expect(specFor("sympy/sympy", "1.13")?.test_cmd).toBe(
      "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose",
    );
    expect(specFor("sphinx-doc/sphinx", "7.1")?.test_cmd).toBe("tox --current-env -epy39 -v --");
    expect(specFor("mwaskom/seaborn", "0.12")?.test_cmd).toBe("pytest --no-header -rA");
  });

  it("re-runs each repository's install, non-editable for requests", () => {
    expect(specFor("psf/requests", "2.10")?.install).toBe("python -m pip install .");
    expect(specFor("scikit-learn/scikit-learn", "1.3")?.install).toBe(
      "python -m pip install -v --no-use-pep517 --no-build-isolation -e .",
    );
    expect(specFor("mwaskom/seaborn", "0.13")?.install).toBe("python -m pip install -e .[dev]");
  });

  it("gives django 3.0–3.2 the locale eval_commands and later versions none", () => {
    expect(specFor("django/django", "3.2")?.eval_commands).toHaveLength(4);
    expect(specFor("django/django", "3.0")?.eval_commands[0]).toBe(
      "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
    );
    expect(specFor("django/django", "4.0")?.eval_commands).toEqual([]);
  });

  it("knows no other version and no prototype names", () => {
    expect(specFor("django/django", "1.9")).toBeUndefined();
    expect(specFor("sympy/sympy", "1.3")).toBeUndefined();
    expect(specFor("constructor", "toString")).toBeUndefined();
  });
});

describe("test directives", () => {
  it("turns django test files into modules: tests/ and .py stripped, slashes to dots, new files kept", () => {
    expect(testDirectives({ repo: "django/django", test_patch: DJANGO_PATCH })).toEqual([
      "httpwrappers.tests",
      "httpwrappers.test_new",
    ]);
  });

  it("passes other repositories' paths unchanged, in patch order, without de-duplicating", () => {
    const patch = [
      "diff --git a/sympy/printing/tests/test_ccode.py b/sympy/printing/tests/test_ccode.py",
      "diff --git a/sympy/core/tests/test_args.py b/sympy/core/tests/test_args.py",
      "diff --git a/sympy/printing/tests/test_ccode.py b/sympy/printing/tests/test_ccode.py",
    ].join("\n");
    expect(testDirectives({ repo: "sympy/sympy", test_patch: patch })).toEqual([
      "sympy/printing/tests/test_ccode.py",
      "sympy/core/tests/test_args.py",
      "sympy/printing/tests/test_ccode.py",
    ]);
  });

  it("drops non-test extensions, csv even without a dot, but keeps .rst", () => {
    const patch = [
      "tests/test_x.py",
      "tests/data.txt",
      "pyproject.toml",
      "tests/fixtures/mycsv",
      "tests/roots/index.rst",
      "a.json",
    ]
      .map((p) => `diff --git a/${p} b/${p}`)
      .join("\n");
    expect(testDirectives({ repo: "pallets/flask", test_patch: patch })).toEqual([
      "tests/test_x.py",
      "tests/roots/index.rst",
    ]);
  });

  it("takes the b/ path of a rename and reads a header anywhere on a line, as the unanchored regex does", () => {
    const patch = "diff --git a/tests/old.py b/tests/new.py\n+    # diff --git a/x b/tests/in_a_hunk.py\n";
    expect(testDirectives({ repo: "psf/requests", test_patch: patch })).toEqual(["tests/new.py", "tests/in_a_hunk.py"]);
  });
});

describe("the files the eval script resets", () => {
  it("lists sources that are not /dev/null, a/ stripped, in patch order", () => {
    expect(modifiedTestFiles(DJANGO_PATCH)).toEqual(["tests/httpwrappers/tests.py"]);
  });

  it("keeps deleted files and renames' sources, and skips empty new files", () => {
    const patch = [
      "diff --git a/tests/old.py b/tests/new.py",
      "similarity index 100%",
      "rename from tests/old.py",
      "rename to tests/new.py",
      "diff --git a/tests/gone.py b/tests/gone.py",
      "deleted file mode 100644",
      "--- a/tests/gone.py",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-x = 1",
      "diff --git a/tests/pkg/__init__.py b/tests/pkg/__init__.py",
      "new file mode 100644",
      "index 0000000..e69de29",
      "",
    ].join("\n");
    expect(modifiedTestFiles(patch)).toEqual(["tests/old.py", "tests/gone.py"]);
  });

  it("does not read hunk lines that look like file headers", () => {
    const patch = [
      "diff --git a/t/a.py b/t/a.py",
      "--- a/t/a.py",
      "+++ b/t/a.py",
      "@@ -1,2 +1,2 @@",
      " x",
      "--- a/evil.py",
      "+++ b/evil.py",
      "",
    ].join("\n");
    expect(modifiedTestFiles(patch)).toEqual(["t/a.py"]);
  });

  it("throws where unidiff would reject the patch", () => {
    const short = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n a\n";
    expect(() => modifiedTestFiles(short)).toThrow(PatchParseError);
  });
});

/** The harness's script for a django 3.0 instance, written out by hand. */
const DJANGO_30_SCRIPT = `#!/bin/bash
set -uxo pipefail
source /opt/miniconda3/bin/activate
conda activate testbed
cd /testbed
sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen
export LANG=en_US.UTF-8
export LANGUAGE=en_US:en
export LC_ALL=en_US.UTF-8
git config --global --add safe.directory /testbed
cd /testbed
git status
git show
git -c core.fileMode=false diff ${BASE}
source /opt/miniconda3/bin/activate
conda activate testbed
python -m pip install -e .
git checkout ${BASE} tests/httpwrappers/tests.py
git apply -v - <<'EOF_114329324912'
${DJANGO_PATCH}
EOF_114329324912
: '>>>>> Start Test Output'
./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1 httpwrappers.tests httpwrappers.test_new
: '>>>>> End Test Output'
git checkout ${BASE} tests/httpwrappers/tests.py
`;

describe("the eval script", () => {
  it("is the harness's text for a django 3.0 instance, eval_commands after the first cd", () => {
    const django = instance({ repo: "django/django", version: "3.0", test_patch: DJANGO_PATCH });
    expect(evalScript(django, specFor("django/django", "3.0")!)).toBe(DJANGO_30_SCRIPT);
  });

  it("runs sympy's bin/test with its inline PYTHONWARNINGS and the test file paths", () => {
    const patch =
      "diff --git a/sympy/printing/tests/test_ccode.py b/sympy/printing/tests/test_ccode.py\n--- a/sympy/printing/tests/test_ccode.py\n+++ b/sympy/printing/tests/test_ccode.py\n@@ -1 +1 @@\n-a\n+b\n";
    const sympy = instance({ repo: "sympy/sympy", version: "1.1", test_patch: patch });
    const lines = evalScript(sympy, specFor("sympy/sympy", "1.1")!).split("\n");
    expect(lines.slice(0, 6)).toEqual([
      "#!/bin/bash",
      "set -uxo pipefail",
      "source /opt/miniconda3/bin/activate",
      "conda activate testbed",
      "cd /testbed",
      "git config --global --add safe.directory /testbed",
    ]);
    expect(lines).toContain(
      "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose sympy/printing/tests/test_ccode.py",
    );
    expect(lines.filter((l) => l === `git checkout ${BASE} sympy/printing/tests/test_ccode.py`)).toHaveLength(2);
    expect(lines.at(-1)).toBe("");
  });

  it("degenerates the reset to `git checkout <base> ` (trailing space, no paths) for a new-file-only test patch", () => {
    const patch =
      "diff --git a/tests/test_new.py b/tests/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/tests/test_new.py\n@@ -0,0 +1 @@\n+x\n";
    const script = evalScript(
      instance({ repo: "pallets/flask", version: "2.3", test_patch: patch }),
      specFor("pallets/flask", "2.3")!,
    );
    const lines = script.split("\n");
    expect(lines.filter((l) => l.startsWith("git checkout"))).toEqual([
      `git checkout ${BASE} `,
      `git checkout ${BASE} `,
    ]);
    expect(lines).toContain("pytest -rA tests/test_new.py");
  });

  it("replaces both activations and the install line with a custom environment's", () => {
    const django = instance({ repo: "django/django", version: "3.0", test_patch: DJANGO_PATCH });
    const environment = { activate: ["export PATH=/venv/bin:$PATH"], install: "uv pip install -e ." };
    const script = evalScript(django, specFor("django/django", "3.0")!, environment);
    const expected = DJANGO_30_SCRIPT.replaceAll(
      "source /opt/miniconda3/bin/activate\nconda activate testbed\n",
      "export PATH=/venv/bin:$PATH\n",
    ).replace("python -m pip install -e .\n", "uv pip install -e .\n");
    expect(script).toBe(expected);
    expect(script.split("\n").filter((l) => l === "export PATH=/venv/bin:$PATH")).toHaveLength(2);
  });

  it("keeps the spec's install when the environment has none, and omits it when neither has one", () => {
    const flask = instance({ repo: "pallets/flask", version: "2.0", test_patch: DJANGO_PATCH });
    const withSpecInstall = evalScript(flask, specFor("pallets/flask", "2.0")!, { activate: ["true"] });
    expect(withSpecInstall).toContain("\ntrue\npython -m pip install -e .\ngit checkout ");
    const noInstall = evalScript(flask, { test_cmd: "pytest -rA", eval_commands: [] }, { activate: ["true"] });
    expect(noInstall).toContain(`\ntrue\ngit checkout ${BASE} tests/httpwrappers/tests.py\n`);
    expect(evalScript(flask, specFor("pallets/flask", "2.0")!)).toBe(
      evalScript(flask, specFor("pallets/flask", "2.0")!, HARNESS_ENVIRONMENT),
    );
  });
});

describe("instance image names", () => {
  it("prefix the swebench namespace and turn every __ into _1776_", () => {
    expect(instanceImageName("django__django-11133")).toBe("swebench/sweb.eval.x86_64.django_1776_django-11133:latest");
    expect(instanceImageName("scikit-learn__scikit-learn-13142")).toBe(
      "swebench/sweb.eval.x86_64.scikit-learn_1776_scikit-learn-13142:latest",
    );
  });

  it("lower-case the id, and use the given namespace, tag and arch", () => {
    expect(instanceImageName("Foo__Bar-1", { namespace: "my__ns", tag: "v2", arch: "arm64" })).toBe(
      "my_1776_ns/sweb.eval.arm64.foo_1776_bar-1:v2",
    );
  });

  it("have no prefix and keep __ with no namespace (locally built images)", () => {
    expect(instanceImageName("django__django-11133", { namespace: null })).toBe(
      "sweb.eval.x86_64.django__django-11133:latest",
    );
  });
});

describe("the patch apply chain", () => {
  it("tries git apply, git apply --reject, then patch --fuzz=5, on /tmp/patch.diff by default", () => {
    expect(patchApplyCommands()).toEqual([
      ["git", "apply", "--verbose", "/tmp/patch.diff"],
      ["git", "apply", "--verbose", "--reject", "/tmp/patch.diff"],
      ["patch", "--batch", "--fuzz=5", "-p1", "-i", "/tmp/patch.diff"],
    ]);
    expect(patchApplyCommands("/p.diff")[2]).toEqual(["patch", "--batch", "--fuzz=5", "-p1", "-i", "/p.diff"]);
  });
});

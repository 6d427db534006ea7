/** The verifier on create_file / delete_file / rename_file: simulated like edits, their mistakes said with the fix. */
import { buildGraph } from "@graphplan/graph";
import { describe, expect, it } from "vitest";
import { verifyPlan } from "./index.js";

const FILES = new Map([
  ["pkg/util.py", "def helper(x):\n    return x * 2\n"],
  ["pkg/main.py", "from pkg.util import helper\n\n\ndef main():\n    return helper(1)\n"],
]);

async function verify(plan: unknown) {
  const graph = await buildGraph([...FILES].map(([path, source]) => ({ path, source })));
  return verifyPlan(plan, FILES, graph);
}

describe("file operations in verification", () => {
  it("passes a plan that creates a module, edits it and imports it, with the new file's place", async () => {
    const result = await verify([
      { op: "create_file", params: { path: "pkg/strings.py", content: "def shout(s):\n    return s.upper()\n" } },
      {
        op: "insert_after_node",
        params: {
          locator: { kind: "function", name: "shout", file: "pkg/strings.py" },
          code: "def whisper(s):\n    return s.lower()",
        },
      },
      {
        op: "insert_after_node",
        params: { locator: { kind: "import", file: "pkg/main.py" }, code: "from pkg.strings import shout" },
      },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.places?.[0]).toMatchObject({
      step: 0,
      file: "pkg/strings.py",
      before: "",
      after: "def shout(s):\n    return s.upper()",
    });
  });

  it("says a created file exists, a deleted file does not, and which step deleted a file a later step edits", async () => {
    const result = await verify([
      { op: "create_file", params: { path: "pkg/util.py", content: "x = 1\n" } },
      { op: "delete_file", params: { path: "pkg/nope.py" } },
      { op: "delete_file", params: { path: "pkg/main.py" } },
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "main", file: "pkg/main.py" },
          replacement: "def main():\n    return 0",
        },
      },
    ]);
    expect(result.passed).toBe(false);
    const byStep = (step: number) =>
      result.issues.filter((i) => i.step === step && i.severity === "error").map((i) => `${i.message} — ${i.fix}`);
    expect(byStep(0)).toEqual([
      expect.stringMatching(
        /^create_file: .pkg\/util\.py. already exists — change the existing file with the node operators .*, or delete_file it in an earlier step/,
      ),
    ]);
    expect(byStep(1)).toEqual([
      expect.stringMatching(/^File 'pkg\/nope\.py' does not exist — use the path of an existing file/),
    ]);
    expect(byStep(3)).toEqual([expect.stringMatching(/deleted by step 3/)]);
  });

  it("reports the importers of a module the plan deletes or renames away", async () => {
    const result = await verify([{ op: "rename_file", params: { from: "pkg/util.py", to: "pkg/helpers.py" } }]);
    expect(result.passed).toBe(false);
    expect(result.errors).toEqual([
      expect.stringMatching(
        /renaming pkg\/util\.py to pkg\/helpers\.py breaks imports of files not in this plan: pkg\/main\.py line 1 \(pkg\.util: helper\) — fix: add steps that change those imports to the new module \(pkg\/helpers\.py\)/,
      ),
    ]);
  });
});

describe("file operations and the plan's own files", () => {
  it("does not report an importer that the plan renames too (it is the plan's file)", async () => {
    const graph = await buildGraph([...FILES].map(([path, source]) => ({ path, source })));
    const result = await verifyPlan(
      [
        { op: "rename_file", params: { from: "pkg/util.py", to: "pkg/helpers.py" } },
        { op: "rename_file", params: { from: "pkg/main.py", to: "pkg/app.py" } },
        {
          op: "replace_node",
          params: { locator: { kind: "import", file: "pkg/app.py" }, replacement: "from pkg.helpers import helper" },
        },
      ],
      FILES,
      graph,
    );
    expect(result.errors).toEqual([]);
  });
});

describe("rename_across_files in verification", () => {
  it("passes with every importer listed, and warns naming an importer left out", async () => {
    const files = new Map([...FILES, ["pkg/extra.py", "from pkg.util import helper\n\nX = helper(2)\n"]]);
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const step = (importers: string[]) => [
      { op: "rename_across_files", params: { file: "pkg/util.py", name: "helper", new_name: "double", importers } },
    ];
    const all = await verifyPlan(step(["pkg/main.py", "pkg/extra.py"]), files, graph);
    expect(all.errors).toEqual([]);
    expect(all.warnings).toEqual([]);
    const some = await verifyPlan(step(["pkg/main.py"]), files, graph);
    expect(some.errors).toEqual([]);
    expect(some.warnings).toEqual([
      expect.stringMatching(
        /'helper' \(renamed to 'double'\) is imported by files not in this plan: \['pkg\/extra\.py'\]/,
      ),
    ]);
  });
});

describe("rename_across_files on Go in verification", () => {
  it("names a file of the package the plan leaves out of importers: the verification sees the whole workspace", async () => {
    const files = new Map([
      ["go.mod", "module example.com/shop\n"],
      ["money/money.go", "package money\n\nfunc Sum(a, b int) int {\n\treturn a + b\n}\n"],
      ["money/round.go", "package money\n\nfunc Total() int {\n\treturn 0\n}\n"],
      ["main.go", 'package main\n\nimport "example.com/shop/money"\n\nfunc main() {\n\t_ = money.Sum(1, 2)\n}\n'],
    ]);
    const graph = await buildGraph(
      [...files].filter(([p]) => p.endsWith(".go")).map(([path, source]) => ({ path, source })),
    );
    const step = (importers: string[]) => [
      { op: "rename_across_files", params: { file: "money/money.go", name: "Sum", new_name: "Total", importers } },
    ];
    const left = await verifyPlan(step(["main.go"]), files, graph);
    expect(left.errors).toEqual([expect.stringMatching(/the package's files money\/round.go are not in "importers"/)]);
    const all = await verifyPlan(step(["main.go", "money/round.go"]), files, graph);
    expect(all.errors).toEqual([expect.stringMatching(/Total is already declared at package level/)]);
  });
});

describe("a plan that touches a file twice, around a created file", () => {
  // The shape of a real commit that moved a module's constants into a new module: the whole module
  // replaced (its new import names the module a later step creates), the new file, another file replaced.
  const files = new Map([
    ["pkg/__init__.py", '"""The package."""\n\n__version__ = "1.0"\n__author__ = "someone"\n\nfrom .core import run\n'],
    ["pkg/core.py", "def run():\n    return 1\n"],
    [
      "setup.py",
      'import re\n\nwith open("pkg/__init__.py") as fd:\n    version = re.search(r"__version__ = \\"(.*)\\"", fd.read()).group(1)\n\nsetup(version=version)\n',
    ],
  ]);
  const plan = [
    {
      op: "replace_node",
      params: {
        locator: { file: "pkg/__init__.py" },
        replacement: '"""The package."""\n\nfrom .__version__ import *\n\nfrom . import core\nfrom .core import run\n',
      },
    },
    {
      op: "create_file",
      params: { path: "pkg/__version__.py", content: '__version__ = "1.0"\n__author__ = "someone"\n' },
    },
    {
      op: "replace_node",
      params: {
        locator: { file: "setup.py" },
        replacement:
          'about = {}\nwith open("pkg/__version__.py") as f:\n    exec(f.read(), about)\n\nsetup(version=about["__version__"])\n',
      },
    },
  ];

  it("verifies it (it used to throw 'stale change' when a check after the first step read the module it replaced)", async () => {
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const result = await verifyPlan(plan, files, graph);
    expect(result.errors).toEqual([]);
    expect(result.places?.map((p) => p.file)).toEqual(["pkg/__init__.py", "pkg/__version__.py", "setup.py"]);
  });

  it("reports a step it cannot simulate as an error naming the step, and does not throw", async () => {
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    // A graph the checks cannot read: whatever a check meets that it cannot handle must come back as an issue.
    const broken = new Proxy(graph, {
      get(target, key) {
        if (key === "symbols" || key === "imports") throw new Error("the graph is unreadable");
        return Reflect.get(target, key);
      },
    });
    const result = await verifyPlan(plan, files, broken);
    expect(result.passed).toBe(false);
    expect(result.issues.filter((i) => i.severity === "error")).toEqual([
      expect.objectContaining({
        step: 0,
        op: "replace_node",
        message: expect.stringMatching(
          /could not simulate this step \(the graph is unreadable\).*the 2 later steps were not checked/,
        ),
      }),
    ]);
  });
});

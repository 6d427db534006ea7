/**
 * set_key, delete_key and append_item on files the tests write, each result read by the format's
 * own reader (Python's json, tomllib, PyYAML): the intended data, and every byte outside the edit kept.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataGrammars } from "@graphplan/graph";
import { KeyNotFound } from "@graphplan/locators";
import { applyEdits } from "@graphplan/primitives";
import { pythonDataLoad } from "@graphplan/testkit";
import { dataStepEdits, type DataOp } from "./edit.js";
import { DataFileUnparsable, NotADataFile, ValueNotWritable } from "./errors.js";

beforeAll(() => loadDataGrammars());

const PYPROJECT = `# Project metadata
[build-system]
requires = ["setuptools>=61"]  # pinned low on purpose
build-backend = 'setuptools.build_meta'

[project]
name = 'shop'
dependencies = [
    'click>=8',  # the CLI
    'rich',
]

[tool.pytest.ini_options]
addopts = '-ra'
testpaths = ['tests']

[tool."setuptools.packages".find]
where = ['src']

[[tool.mypy.overrides]]
module = 'a.*'
ignore_missing_imports = true
`;

const WORKFLOW = `# CI
name: test
on:
  push:
    branches: [main, 'release/*']
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4  # pinned
      - name: Run
        run: |
          pytest -q
    env:
      CI: 'true'
`;

const PACKAGE = `{
  "name": "shop",
  "version": "1.0.0",
  "scripts": {
    "test": "vitest run",
    "build": "tsc"
  },
  "files": ["dist", "src"],
  "devDependencies": {
    "@types/node": "20.0.0"
  }
}
`;

type Format = "json" | "yaml" | "toml";
const FILES: Record<Format, [string, string]> = {
  toml: ["pyproject.toml", PYPROJECT],
  yaml: [".github/workflows/ci.yml", WORKFLOW],
  json: ["package.json", PACKAGE],
};

function run(format: Format, op: DataOp, path: string, value?: unknown, source = FILES[format][1]): string {
  return applyEdits(source, dataStepEdits(op, FILES[format][0], source, path, value));
}

/** The data Python reads from `text`. */
function load(format: Format, text: string): unknown {
  const [result] = pythonDataLoad(format, [text]);
  if (!result!.ok) throw new Error(`${format} oracle refused the result: ${result!.error}\n${text}`);
  return result!.data;
}

/** A copy of `data` with `change` applied. */
function changed(data: unknown, change: (d: any) => void): unknown {
  const copy = structuredClone(data);
  change(copy);
  return copy;
}

describe("set_key writes a value in the file's own style", () => {
  it("replaces a TOML value in place, in the file's single quotes, keeping the comments", () => {
    const after = run("toml", "set_key", "tool.pytest.ini_options.addopts", "-ra --strict-markers");
    expect(after).toBe(PYPROJECT.replace("addopts = '-ra'", "addopts = '-ra --strict-markers'"));
    expect(load("toml", after)).toEqual(
      changed(load("toml", PYPROJECT), (d) => (d.tool.pytest.ini_options.addopts = "-ra --strict-markers")),
    );
  });

  it("keeps a TOML array over several lines as it was written: one item a line, the trailing comma", () => {
    const after = run("toml", "set_key", "project.dependencies", ["click>=8.1", "rich", "httpx"]);
    expect(after).toContain("dependencies = [\n    'click>=8.1',\n    'rich',\n    'httpx',\n]\n");
    expect(load("toml", after)).toEqual(
      changed(load("toml", PYPROJECT), (d) => (d.project.dependencies = ["click>=8.1", "rich", "httpx"])),
    );
  });

  it("adds a TOML key to its section, and a missing table as a new [section]", () => {
    const inSection = run("toml", "set_key", "tool.pytest.ini_options.xfail_strict", true);
    expect(inSection).toBe(
      PYPROJECT.replace("testpaths = ['tests']\n", "testpaths = ['tests']\nxfail_strict = true\n"),
    );
    const newTable = run("toml", "set_key", "tool.coverage.run.branch", true);
    expect(newTable.startsWith(PYPROJECT)).toBe(true);
    expect(newTable.slice(PYPROJECT.length)).toBe("\n[tool.coverage.run]\nbranch = true\n");
    expect(load("toml", newTable)).toEqual(
      changed(load("toml", PYPROJECT), (d) => (d.tool.coverage = { run: { branch: true } })),
    );
  });

  it("reaches quoted keys that hold dots and items of arrays of tables", () => {
    const after = run("toml", "set_key", 'tool."setuptools.packages".find.where', ["lib"]);
    expect(load("toml", after)).toEqual(
      changed(load("toml", PYPROJECT), (d) => (d.tool["setuptools.packages"].find.where = ["lib"])),
    );
    const item = run("toml", "set_key", "tool.mypy.overrides[0].module", "b.*");
    expect(item).toBe(PYPROJECT.replace("module = 'a.*'", "module = 'b.*'"));
  });

  it("sets a TOML table to an object key by key: what stays keeps its comments and order", () => {
    const after = run("toml", "set_key", "build-system", {
      requires: ["setuptools>=61"],
      "build-backend": "hatchling.build",
    });
    expect(after).toBe(PYPROJECT.replace("'setuptools.build_meta'", "'hatchling.build'"));
  });

  it("replaces a YAML scalar, a flow list and a block list item in their own styles", () => {
    const branches = run("yaml", "set_key", "on.push.branches", ["main", "dev"]);
    expect(branches).toBe(WORKFLOW.replace("[main, 'release/*']", "[main, dev]"));
    // PyYAML reads YAML 1.1, where the key \`on\` is the boolean true.
    expect(load("yaml", branches)).toEqual(
      changed(load("yaml", WORKFLOW), (d) => (d.true.push.branches = ["main", "dev"])),
    );
    const step = run("yaml", "set_key", "jobs.test.steps[1]", { name: "Test", run: "pytest -x" });
    expect(load("yaml", step)).toEqual(
      changed(load("yaml", WORKFLOW), (d) => (d.jobs.test.steps[1] = { name: "Test", run: "pytest -x" })),
    );
    expect(step).toContain(
      "      - uses: actions/checkout@v4  # pinned\n      - name: Test\n        run: pytest -x\n    env:",
    );
  });

  it("gives a YAML key with no value (a comment at most) its value after the colon, keeping the comment", () => {
    const source = "on:\n  workflow_dispatch:  # by hand\n  push:\n";
    expect(run("yaml", "set_key", "on.workflow_dispatch", { inputs: {} }, source)).toBe(
      "on:\n  workflow_dispatch:\n    inputs: {}  # by hand\n  push:\n",
    );
    expect(run("yaml", "set_key", "on.workflow_dispatch.inputs.name", "x", source)).toBe(
      "on:\n  workflow_dispatch:\n    inputs:\n      name: x  # by hand\n  push:\n",
    );
  });

  it("writes YAML 1.1's booleans-by-another-name quoted, so PyYAML reads strings", () => {
    const after = run("yaml", "set_key", "jobs.test.env.DEBUG", "on");
    expect(after).toContain("      DEBUG: 'on'\n");
    expect((load("yaml", after) as any).jobs.test.env.DEBUG).toBe("on");
  });

  it("adds a YAML key at its mapping's indentation, with missing mappings as blocks", () => {
    const after = run("yaml", "set_key", "jobs.test.strategy.matrix.python", ["3.11", "3.12"]);
    expect(load("yaml", after)).toEqual(
      changed(load("yaml", WORKFLOW), (d) => (d.jobs.test.strategy = { matrix: { python: ["3.11", "3.12"] } })),
    );
    expect(after).toBe(
      WORKFLOW + "    strategy:\n      matrix:\n        python:\n          - '3.11'\n          - '3.12'\n",
    );
  });

  it("replaces and adds JSON values at the file's indentation, inline where the container is inline", () => {
    const version = run("json", "set_key", "version", "1.1.0");
    expect(version).toBe(PACKAGE.replace('"1.0.0"', '"1.1.0"'));
    const script = run("json", "set_key", "scripts.lint", "eslint .");
    expect(script).toBe(PACKAGE.replace('"build": "tsc"\n', '"build": "tsc",\n    "lint": "eslint ."\n'));
    const files = run("json", "set_key", "files", ["dist"]);
    expect(files).toBe(PACKAGE.replace('["dist", "src"]', '["dist"]'));
    const nested = run("json", "set_key", "engines", { node: ">=20" });
    expect(load("json", nested)).toEqual(changed(load("json", PACKAGE), (d) => (d.engines = { node: ">=20" })));
    expect(nested).toContain('  },\n  "engines": {\n    "node": ">=20"\n  }\n}');
  });
});

describe("delete_key removes the key and nothing else", () => {
  it("removes a TOML pair's line with its comment, and a whole section", () => {
    const pair = run("toml", "delete_key", "build-system.requires");
    expect(pair).toBe(PYPROJECT.replace('requires = ["setuptools>=61"]  # pinned low on purpose\n', ""));
    const table = run("toml", "delete_key", "tool.pytest");
    expect(table).toBe(PYPROJECT.replace("[tool.pytest.ini_options]\naddopts = '-ra'\ntestpaths = ['tests']\n\n", ""));
    expect(load("toml", table)).toEqual(changed(load("toml", PYPROJECT), (d) => delete d.tool.pytest));
  });

  it("removes TOML array items, the last one leaving the comma rule of the file", () => {
    const first = run("toml", "delete_key", "project.dependencies[0]");
    expect(first).toBe(PYPROJECT.replace("    'click>=8',  # the CLI\n", ""));
    const last = run("toml", "delete_key", "project.dependencies[-1]");
    expect(load("toml", last)).toEqual(changed(load("toml", PYPROJECT), (d) => d.project.dependencies.pop()));
  });

  it("removes JSON pairs and items with their commas", () => {
    for (const path of [
      "name",
      "scripts.build",
      "scripts.test",
      "files[0]",
      "files[1]",
      "devDependencies.@types/node",
    ]) {
      const after = run("json", "delete_key", path);
      expect(JSON.parse(after), path).toEqual(
        changed(JSON.parse(PACKAGE), (d) => {
          const segments = path.replace(/\[(\d+)\]/, ".$1").split(".");
          const parent = segments.slice(0, -1).reduce((o, k) => o[k], d);
          if (Array.isArray(parent)) parent.splice(Number(segments.at(-1)), 1);
          else delete parent[segments.at(-1)!];
        }),
      );
    }
    expect(run("json", "delete_key", "scripts.build")).toBe(PACKAGE.replace(',\n    "build": "tsc"', ""));
  });

  it("removes YAML entries and list items by their lines; an emptied mapping becomes {}", () => {
    const step = run("yaml", "delete_key", "jobs.test.steps[0]");
    expect(step).toBe(WORKFLOW.replace("      - uses: actions/checkout@v4  # pinned\n", ""));
    const env = run("yaml", "delete_key", "jobs.test.env.CI");
    expect(env).toBe(WORKFLOW.replace("    env:\n      CI: 'true'\n", "    env: {}\n"));
    const name = run("yaml", "delete_key", "jobs.test.steps[1].name");
    expect(load("yaml", name)).toEqual(changed(load("yaml", WORKFLOW), (d) => delete d.jobs.test.steps[1].name));
    expect(name).toContain("      - run: |\n          pytest -q\n");
  });

  it("takes a TOML table that only the deleted section made with it, as tomllib reads the result", () => {
    const after = run("toml", "delete_key", 'tool."setuptools.packages".find');
    expect(after).toBe(PYPROJECT.replace("[tool.\"setuptools.packages\".find]\nwhere = ['src']\n\n", ""));
    expect(load("toml", after)).toEqual(changed(load("toml", PYPROJECT), (d) => delete d.tool["setuptools.packages"]));
    const overrides = run("toml", "delete_key", "tool.mypy.overrides[0]");
    expect(load("toml", overrides)).toEqual(changed(load("toml", PYPROJECT), (d) => delete d.tool.mypy));
  });

  it("names the nearest keys when the key is not there", () => {
    expect(() => run("toml", "delete_key", "tool.pytest.ini_options.adopts")).toThrow(KeyNotFound);
    expect(() => run("toml", "delete_key", "tool.pytest.ini_options.adopts")).toThrow(
      /Nearest keys under tool.pytest.ini_options: addopts, testpaths/,
    );
    expect(() => run("json", "delete_key", "script.test")).toThrow(/Nearest keys at the top level: scripts/);
  });
});

describe("append_item adds to a list in its own form", () => {
  it("appends to block and flow lists of each format", () => {
    expect(run("toml", "append_item", "project.dependencies", "httpx")).toBe(
      PYPROJECT.replace("    'rich',\n", "    'rich',\n    'httpx',\n"),
    );
    expect(run("yaml", "append_item", "on.push.branches", "dev")).toBe(
      WORKFLOW.replace("'release/*']", "'release/*', dev]"),
    );
    const yamlStep = run("yaml", "append_item", "jobs.test.steps", { run: "ruff check" });
    expect(yamlStep).toBe(WORKFLOW.replace("          pytest -q\n", "          pytest -q\n      - run: ruff check\n"));
    expect(run("json", "append_item", "files", "README.md")).toBe(PACKAGE.replace('"src"]', '"src", "README.md"]'));
  });

  it("appends a table to a TOML array of tables as a new [[section]]", () => {
    const after = run("toml", "append_item", "tool.mypy.overrides", { module: "b.*", strict: true });
    expect(after).toBe(PYPROJECT + "\n[[tool.mypy.overrides]]\nmodule = 'b.*'\nstrict = true\n");
    expect(load("toml", after)).toEqual(
      changed(load("toml", PYPROJECT), (d) => d.tool.mypy.overrides.push({ module: "b.*", strict: true })),
    );
  });
});

describe("bad input fails the step and writes nothing", () => {
  it("refuses a value the format cannot hold", () => {
    expect(() => run("toml", "set_key", "project.name", null)).toThrow(ValueNotWritable);
    expect(() => run("toml", "set_key", "project.name", null)).toThrow(/TOML has no null/);
    expect(() => run("toml", "append_item", "project.name", "x")).toThrow(/not a list/);
  });

  it("refuses a file that does not parse before the step, and a file that is not data", () => {
    expect(() => run("toml", "set_key", "a", 1, "[a\nb = 1\n")).toThrow(DataFileUnparsable);
    expect(() => run("json", "set_key", "a", 1, '{"a": 1,, }')).toThrow(/not valid JSON before this step \(line 1/);
    expect(() => dataStepEdits("set_key", "README.md", "# x\n", "a", 1)).toThrow(NotADataFile);
  });

  it("refuses to make list items with set_key", () => {
    expect(() => run("json", "set_key", "files[5]", "x")).toThrow(
      /set_key does not make list items: add one with append_item/,
    );
  });
});

import { beforeAll, describe, expect, it } from "vitest";
import { dataFormatOf, dataValue, loadDataGrammars, parseData } from "./data.js";

beforeAll(() => loadDataGrammars());

describe("dataFormatOf", () => {
  it("reads JSON, YAML and TOML by extension and nothing else", () => {
    expect(
      ["a.json", "b/.pre-commit-config.yaml", "c.YML", "pyproject.toml", "x.py", "README.md", "json", "a.json/b"].map(
        dataFormatOf,
      ),
    ).toEqual(["json", "yaml", "yaml", "toml", undefined, undefined, undefined, undefined]);
  });
});

describe("parseData", () => {
  it("reads a TOML file's sections, dotted keys, quoted keys, inline tables and arrays of tables into one nested value", () => {
    const source = [
      "# top",
      'name = "x"  # c',
      "num = 0x1F_00",
      "[tool.pytest.ini_options]",
      "addopts = ['-ra', \"q\\tz\"]",
      '"a.b" = 1',
      "b.c.d = true",
      "[tool.black]",
      "line-length = 1_000",
      "[[items]]",
      "x = {a = 1, b.c = 2}",
      "[[items]]",
      'y = """',
      'two"""',
      "",
    ].join("\n");
    const doc = parseData(source, "toml");
    expect(doc.errors).toEqual([]);
    expect(dataValue(doc.root)).toEqual({
      name: "x",
      num: 0x1f00,
      tool: {
        pytest: { ini_options: { addopts: ["-ra", "q\tz"], "a.b": 1, b: { c: { d: true } } } },
        black: { "line-length": 1000 },
      },
      items: [{ x: { a: 1, b: { c: 2 } } }, { y: "two" }],
    });
  });

  it("reports a TOML key defined twice, as tomllib would refuse it", () => {
    const doc = parseData("[a]\nx = 1\n[a]\ny = 2\n", "toml");
    expect(doc.errors.map((e) => [e.line, e.message])).toEqual([[3, "the table a is already defined"]]);
    expect(parseData("a.b = 1\na.b = 2\n", "toml").errors).toHaveLength(1);
  });

  it("reads JSON and YAML with each pair's key and value ranges", () => {
    const json = '{\n  "a": {"b": [1, 2]},\n  "c": "d"\n}\n';
    const doc = parseData(json, "json");
    expect(dataValue(doc.root)).toEqual({ a: { b: [1, 2] }, c: "d" });
    const root = doc.root!;
    expect(root.type === "mapping" && root.style).toBe("block");
    const a = root.type === "mapping" ? root.entries[0]! : undefined;
    expect(json.slice(a!.spans[0]!.start, a!.spans[0]!.end)).toBe('"a": {"b": [1, 2]}');
    expect(a!.value.type === "mapping" && a!.value.style).toBe("flow");

    const yaml =
      "# c\non:\n  push:\n    branches: [main, 'x']\njobs:\n  test:\n    steps:\n      - uses: a@v4  # pin\n      - run: |\n          pytest\n";
    const ydoc = parseData(yaml, "yaml");
    expect(ydoc.errors).toEqual([]);
    expect(dataValue(ydoc.root)).toEqual({
      on: { push: { branches: ["main", "x"] } },
      jobs: { test: { steps: [{ uses: "a@v4" }, { run: "pytest\n" }] } },
    });
  });

  it("gives syntax errors of a file that does not read as its format, with their lines", () => {
    expect(parseData('{"a": 1,, }', "json").errors.length).toBeGreaterThan(0);
    expect(parseData("a: [1, 2\nb: 3\n", "yaml").errors.length).toBeGreaterThan(0);
    expect(parseData("[a\nx = 1\n", "toml").errors[0]!.line).toBe(1);
  });
});

describe("TOML sub-tables", () => {
  it("reads [a.b] under a section [a] and [[a.c]] under it, as pyproject files write them", () => {
    const doc = parseData(
      "[project]\nname = 'p'\n[project.urls]\nHome = 'h'\n[tool.mypy]\nstrict = true\n[[tool.mypy.overrides]]\nmodule = 'x'\n",
      "toml",
    );
    expect(doc.errors).toEqual([]);
    expect(dataValue(doc.root)).toEqual({
      project: { name: "p", urls: { Home: "h" } },
      tool: { mypy: { strict: true, overrides: [{ module: "x" }] } },
    });
    expect(parseData("a = {b = 1}\n[a.c]\nd = 2\n", "toml").errors).toHaveLength(1);
  });
});

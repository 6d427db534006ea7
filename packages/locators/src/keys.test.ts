import { beforeAll, describe, expect, it } from "vitest";
import { dataValue, loadDataGrammars, parseData } from "@graphplan/graph";
import { formatKeyPath, KeyNotFound, KeyPathInvalid, parseKeyPath, resolveKeyPath } from "./keys.js";

beforeAll(() => loadDataGrammars());

describe("parseKeyPath", () => {
  it("reads dotted keys, quoted keys holding dots and list indices", () => {
    expect(parseKeyPath("tool.pytest.ini_options.addopts")).toEqual([
      { key: "tool" },
      { key: "pytest" },
      { key: "ini_options" },
      { key: "addopts" },
    ]);
    expect(parseKeyPath('tool."setuptools.packages".find')).toEqual([
      { key: "tool" },
      { key: "setuptools.packages" },
      { key: "find" },
    ]);
    expect(parseKeyPath("jobs.test.steps[2].with['a.b']".replace("['a.b']", ".'a.b'"))).toEqual([
      { key: "jobs" },
      { key: "test" },
      { key: "steps" },
      { index: 2 },
      { key: "with" },
      { key: "a.b" },
    ]);
    expect(parseKeyPath("[0].name")).toEqual([{ index: 0 }, { key: "name" }]);
    expect(parseKeyPath("m[-1][0]")).toEqual([{ key: "m" }, { index: -1 }, { index: 0 }]);
    expect(parseKeyPath('devDependencies.@types/node."a\\"b"')).toEqual([
      { key: "devDependencies" },
      { key: "@types/node" },
      { key: 'a"b' },
    ]);
  });

  it("writes a path back the way it reads", () => {
    for (const path of ["a.b[2].c", 'tool."setuptools.packages"', "[1].x", 'x."[y]"'])
      expect(formatKeyPath(parseKeyPath(path))).toBe(path);
  });

  it("refuses what is not a key path, saying how to write one", () => {
    for (const bad of ["", "a..b", "a.", 'a."b', "a[x]", "a[1", "a]b"]) {
      expect(() => parseKeyPath(bad), bad).toThrow(KeyPathInvalid);
    }
    expect(() => parseKeyPath("a[x]")).toThrow(/steps\[2\]/);
  });
});

describe("resolveKeyPath", () => {
  const toml = '[project]\nname = "p"\n[tool.pytest.ini_options]\naddopts = "-ra"\ntestpaths = ["tests"]\n';

  it("finds a value of each format by its path", () => {
    const doc = parseData(toml, "toml");
    const found = resolveKeyPath(doc.root, "pyproject.toml", "tool.pytest.ini_options.testpaths[0]");
    expect(toml.slice(found.node.start, found.node.end)).toBe('"tests"');
    const yaml = parseData("jobs:\n  test:\n    steps:\n      - uses: a\n      - run: b\n", "yaml");
    expect(dataValue(resolveKeyPath(yaml.root, "ci.yml", "jobs.test.steps[-1]").node)).toEqual({ run: "b" });
    const json = parseData('[{"name": "a"}, {"name": "b"}]', "json");
    expect(dataValue(resolveKeyPath(json.root, "x.json", "[1].name").node)).toBe("b");
  });

  it("names the nearest keys where the path stopped", () => {
    const doc = parseData(toml, "toml");
    const error = (() => {
      try {
        resolveKeyPath(doc.root, "pyproject.toml", "tool.pytest.ini_options.adopts");
      } catch (e) {
        return e;
      }
    })() as KeyNotFound;
    expect(error).toBeInstanceOf(KeyNotFound);
    expect(error.found).toBe("tool.pytest.ini_options");
    expect(error.nearest[0]).toBe("addopts");
    expect(error.message).toContain(
      'there is no key "adopts" under tool.pytest.ini_options. Nearest keys under tool.pytest.ini_options: addopts, testpaths.',
    );
    expect(() => resolveKeyPath(doc.root, "pyproject.toml", "tool.pytest.ini_options.testpaths[3]")).toThrow(
      /index 3 is out of range \(the list has 1 item\)/,
    );
    expect(() => resolveKeyPath(doc.root, "pyproject.toml", "project.name.first")).toThrow(
      /the string "p" has no keys/,
    );
  });
});

/** The verifier on data steps: a key one letter off an existing key is said, a new key is not. */
import { buildGraph, loadDataGrammars } from "@graphplan/graph";
import { beforeAll, describe, expect, it } from "vitest";
import { verifyPlan } from "./index.js";

beforeAll(() => loadDataGrammars());

const PYPROJECT = '[project]\nname = "demo"\n\n[tool.pytest.ini_options]\naddopts = "-ra"\ntestpaths = ["tests"]\n';
const PACKAGE =
  '{\n  "name": "demo",\n  "scripts": {\n    "test": "vitest",\n    "test-ci": "vitest --coverage",\n    "test-cov": "c8 vitest",\n    "test-tap": "vitest --reporter tap"\n  }\n}\n';
const FILES = new Map([
  ["pyproject.toml", PYPROJECT],
  ["package.json", PACKAGE],
]);

async function warnings(plan: unknown) {
  const graph = await buildGraph(
    [...FILES].map(([path, source]) => ({ path, source })),
    { documents: true },
  );
  const result = await verifyPlan(plan, FILES, graph);
  expect(result.errors).toEqual([]);
  return result.issues.filter((i) => i.severity === "warning" && i.check === "locator");
}

const setKey = (file: string, name: string, value: unknown) => ({
  op: "set_key",
  params: { locator: { kind: "key", name, file }, value },
});

describe("set_key and append_item on a key that is not there", () => {
  it("warns when the new key is one letter off a key of the same mapping, naming the key meant", async () => {
    const [issue, ...rest] = await warnings([setKey("pyproject.toml", "tool.pytest.ini_options.addopt", "-ra -q")]);
    expect(rest).toEqual([]);
    expect(issue?.message).toMatch(/set_key makes a new key "addopt" in pyproject\.toml, next to the key "addopts"/);
    expect(issue?.fix).toContain('"tool.pytest.ini_options.addopts"');
    const [json] = await warnings([
      {
        op: "append_item",
        params: { locator: { kind: "key", name: "script.lint", file: "package.json" }, value: "biome" },
      },
    ]);
    expect(json?.message).toMatch(/append_item makes a new key "script" in package\.json, next to the key "scripts"/);
    expect(json?.fix).toContain('"scripts.lint"'); // the rest of the path kept
    const [typo] = await warnings([setKey("package.json", "scripts.tests", "vitest run")]);
    expect(typo?.fix).toContain('"scripts.test"');
  });

  it("names the key one letter off even when another key is nearer by other measures (test-c: test-ci, not test or test-cov)", async () => {
    const [issue, ...rest] = await warnings([setKey("package.json", "scripts.test-c", "nyc npm test")]);
    expect(rest).toEqual([]);
    expect(issue?.message).toMatch(/next to the key "test-ci"/);
  });

  it("says nothing when the key exists or the new key is unlike every key there", async () => {
    expect(await warnings([setKey("pyproject.toml", "tool.pytest.ini_options.addopts", "-ra -q")])).toEqual([]);
    expect(await warnings([setKey("pyproject.toml", "tool.pytest.ini_options.minversion", "8.0")])).toEqual([]);
    expect(await warnings([setKey("package.json", "scripts.lint", "biome check")])).toEqual([]);
  });
});

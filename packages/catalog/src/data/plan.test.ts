/** The data steps through the plan's front door (`parsePlan`) and the one plan run (`runFormalPlan`). */
import { beforeAll, describe, expect, it } from "vitest";
import { loadDataGrammars } from "@graphplan/graph";
import type { Step } from "@graphplan/primitives";
import { parsePlan, planIntegrity, planJsonSchema, loadPlanGrammars, runFormalPlan } from "../index.js";
import { executeStep } from "../execute.js";
import { parsePlanOrThrow } from "../testing.js";
import { Ajv2020 } from "ajv/dist/2020.js";

const TOML = "[project]\nname = 'shop'\n\n[tool.pytest.ini_options]\naddopts = '-ra'\n";
const plan = [
  {
    op: "set_key",
    params: {
      locator: { kind: "key", name: "tool.pytest.ini_options.addopts", file: "pyproject.toml" },
      value: "-ra -q",
    },
  },
  {
    op: "append_item",
    params: {
      locator: { kind: "key", name: "tool.pytest.ini_options.testpaths", file: "pyproject.toml" },
      value: "tests",
    },
  },
  { op: "delete_key", params: { locator: { kind: "key", name: "project.name", file: "pyproject.toml" } } },
];

beforeAll(async () => {
  await loadDataGrammars();
  await loadPlanGrammars(plan);
});

describe("data steps in a plan", () => {
  it("are read by parsePlan and described by the plan's JSON Schema", () => {
    expect(planIntegrity(plan)).toEqual([]);
    const parsed = parsePlan(plan);
    expect(parsed.ok).toBe(true);
    const validate = new Ajv2020({ strict: false }).compile(planJsonSchema());
    expect(validate(plan)).toBe(true);
    expect(
      validate([{ op: "set_key", params: { locator: { kind: "function", name: "f", file: "a.toml" }, value: 1 } }]),
    ).toBe(false);
  });

  it("are refused by parsePlan with the param at fault: a file that is not data, a key path that does not read", () => {
    const parsed = parsePlan([
      { op: "set_key", params: { locator: { kind: "key", name: "a", file: "app.py" }, value: 1 } },
      { op: "delete_key", params: { locator: { kind: "key", name: "a..b", file: "x.json" } } },
      { op: "set_key", params: { locator: { kind: "key", name: "a", file: "x.json" } } },
    ]);
    expect(parsed.ok).toBe(false);
    const issues = parsed.ok ? [] : parsed.issues.map((i) => `${i.step} ${i.message}`);
    expect(issues.some((i) => i.startsWith("0 ") && /app\.py is none of them/.test(i))).toBe(true);
    expect(issues.some((i) => i.startsWith("1 ") && /ends with a dot|key is missing/.test(i))).toBe(true);
    expect(issues.some((i) => i.startsWith("2 ") && /value/.test(i))).toBe(true);
  });

  it("run one at a time through executeStep, the catalog's standalone executor", () => {
    const parsed = parsePlan(plan);
    if (!parsed.ok) throw new Error("plan refused");
    let files = new Map([["pyproject.toml", TOML]]);
    for (const step of parsed.plan as Step[]) {
      const outcome = executeStep(step, files);
      expect(outcome.tier).toBe(1);
      files = outcome.files;
    }
    expect(files.get("pyproject.toml")).toBe(
      "[project]\n\n[tool.pytest.ini_options]\naddopts = '-ra -q'\ntestpaths = ['tests']\n",
    );
    expect(() =>
      executeStep(
        {
          op: "delete_key",
          params: { locator: { kind: "key", name: "tool.pytest.ini_options.adopts", file: "pyproject.toml" } },
        } as Step,
        files,
      ),
    ).toThrow(/Nearest keys under tool.pytest.ini_options: addopts, testpaths/);
  });

  it("run all or nothing through runFormalPlan, beside the text tier's files", () => {
    const parsed = parsePlan(plan);
    if (!parsed.ok) throw new Error("plan refused");
    const result = runFormalPlan(parsed.plan, { "pyproject.toml": TOML });
    if (!result.ok) throw result.error;
    expect(result.files.get("pyproject.toml")).toBe(
      "[project]\n\n[tool.pytest.ini_options]\naddopts = '-ra -q'\ntestpaths = ['tests']\n",
    );
    const failing = runFormalPlan(
      parsePlanOrThrow([
        ...plan,
        { op: "delete_key", params: { locator: { kind: "key", name: "project.version", file: "pyproject.toml" } } },
      ]),
      { "pyproject.toml": TOML },
    );
    expect(failing.ok).toBe(false);
    if (!failing.ok) {
      expect(failing.failedStep).toBe(3);
      expect(failing.files.get("pyproject.toml")).toBe(TOML);
    }
  });
});

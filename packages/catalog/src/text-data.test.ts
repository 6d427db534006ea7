/** Text steps on data files: the result must still load as JSON, YAML or TOML, or the step fails and nothing changes. */
import { loadDataGrammars, loadGrammars } from "@graphplan/graph";
import { StepFailed } from "@graphplan/primitives";
import { beforeAll, describe, expect, it } from "vitest";
import { runFormalPlan } from "./execute.js";
import { parsePlanOrThrow } from "./testing.js";

beforeAll(async () => {
  await loadGrammars(["python"]);
  await loadDataGrammars();
});

const FILES = new Map([
  ["package.json", '{\n  "name": "demo",\n  "version": "1.0.0"\n}\n'],
  ["pyproject.toml", '[project]\nname = "demo"\nversion = "1.0.0"\n'],
  [".pre-commit-config.yaml", "repos:\n  - repo: local\n    hooks: []\n"],
  ["broken.json", '{"a": 1,\n'],
]);

function causeOf(file: string, find: string, replace: string): string | undefined {
  const result = runFormalPlan(parsePlanOrThrow([{ op: "replace_text", params: { file, find, replace } }]), FILES);
  if (result.ok) return undefined;
  expect(result.files).toEqual(FILES);
  return result.error instanceof StepFailed ? result.error.cause.message : result.error.message;
}

describe("text steps on data files", () => {
  it("refuses a result that is not valid JSON, TOML or YAML, naming the line", () => {
    expect(causeOf("package.json", '"1.0.0"', '"1.0.1",')).toMatch(
      /package\.json: the result is not valid JSON \(line 3:\d+: .*\); keep the file's syntax, or change its keys with set_key and delete_key/,
    );
    expect(causeOf("pyproject.toml", 'version = "1.0.0"', 'version = "1.0.1')).toMatch(
      /the result is not valid TOML \(line 3:/,
    );
    expect(causeOf(".pre-commit-config.yaml", "    hooks: []", "    hooks: [")).toMatch(/the result is not valid YAML/);
  });

  it("takes a valid change, and does not judge a file that did not load before", () => {
    expect(causeOf("package.json", '"1.0.0"', '"1.0.1"')).toBeUndefined();
    expect(causeOf("pyproject.toml", 'version = "1.0.0"', 'version = "1.0.1"')).toBeUndefined();
    expect(causeOf("broken.json", '"a": 1,', '"a": 2,')).toBeUndefined();
  });
});

import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { executeStep, validateStep } from "./execute.js";
import { ParamsInvalid } from "./params.js";
import { TEMPLATES } from "./templates/index.js";
import { SURGERY } from "./surgery/operators.js";
import { isRequired as isRequiredForTest } from "./params.js";

beforeAll(() => loadGrammars(["python", "javascript", "typescript"]));

const issuesOf = (step: unknown) => validateStep(step).map((i) => `${i.code}@${i.path}`);

describe("template parameter validation", () => {
  test.each(TEMPLATES.map((t) => [t.name, t] as const))("%s: its example is valid", (name, t) => {
    expect(validateStep({ template: name, params: t.example })).toEqual([]);
  });

  test.each(TEMPLATES.map((t) => [t.name, t] as const))(
    "%s: each missing required parameter is reported by name",
    (name, t) => {
      const required = Object.entries(t.params.shape)
        .filter(([, s]) => isRequiredForTest(s))
        .map(([k]) => k);
      expect(required.length).toBeGreaterThan(0);
      for (const param of required) {
        const { [param]: _, ...rest } = t.example;
        // A missing target also removes the file the language comes from; the issue is still the missing param.
        expect(issuesOf({ template: name, params: rest })).toContain(`missing@params.${param}`);
      }
      // All at once: every required parameter, one issue each.
      expect(issuesOf({ template: name, params: {} })).toEqual(required.map((p) => `missing@params.${p}`));
    },
  );

  test("an expression that does not parse is an error naming the parameter", () => {
    const [issue, ...rest] = validateStep({
      template: "guard_clause",
      params: { target: { kind: "function", name: "f", file: "a.py" }, condition: "x ==", body: "return None" },
    });
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ path: "params.condition", code: "syntax" });
    expect(issue!.message).toContain('"x =="');
  });

  test("ill-typed code params are each reported: identifier, type, statements, expression, decorator", () => {
    expect(
      issuesOf({
        template: "add_parameter",
        params: {
          target: { kind: "function", name: "f", file: "a.py" },
          name: "not a name",
          type: "List[",
          default: "1 +",
        },
      }),
    ).toEqual(["syntax@params.name", "syntax@params.default", "syntax@params.type"]);
    expect(
      issuesOf({
        template: "replace_function_body",
        params: { target: { kind: "function", name: "f", file: "a.py" }, body: "if x:\nreturn 1" },
      }),
    ).toEqual(["syntax@params.body"]);
    expect(
      issuesOf({
        template: "add_method",
        params: { target: { kind: "class", name: "A", file: "a.py" }, code: "x = 1" },
      }),
    ).toEqual(["syntax@params.code"]);
    expect(
      issuesOf({
        template: "add_import_and_use",
        params: { target: { kind: "call", file: "a.py" }, import: "print('x')", expression: "x = 1" },
      }),
    ).toEqual(["syntax@params.import", "syntax@params.expression"]);
    expect(
      issuesOf({
        template: "add_decorator",
        params: { target: { kind: "function", name: "f", file: "a.py" }, decorator: "a b" },
      }),
    ).toEqual(["syntax@params.decorator"]);
  });

  test("JSON types, unknown params, bad locators, bad choices", () => {
    expect(
      issuesOf({
        template: "guard_clause",
        params: { target: "f", condition: 3, body: "return", conditon: "x" },
      }).sort(),
    ).toEqual(["type@params.target", "type@params.condition", "unknown@params.conditon"].sort());
    const unknown = validateStep({
      template: "guard_clause",
      params: { target: { kind: "function", name: "f", file: "a.py" }, condition: "x", body: "return", conditon: "y" },
    });
    expect(unknown[0]!.message).toContain("did you mean condition?");
    expect(
      issuesOf({
        template: "add_decorator",
        params: {
          target: { kind: "function", name: "f", file: "a.py", color: "red" },
          decorator: "d",
          position: "middle",
        },
      }),
    ).toEqual(["type@params.target", "type@params.position"]);
    expect(
      issuesOf({
        template: "change_return_value",
        params: { target: { kind: "return", file: "a.py" }, value: "1", all: "yes" },
      }),
    ).toEqual(["type@params.all"]);
  });

  test("code is checked in the target file's language", () => {
    // Valid TypeScript, not valid Python, and the other way round.
    expect(
      issuesOf({
        template: "guard_clause",
        params: { target: { kind: "function", name: "f", file: "a.ts" }, condition: "x === null", body: "return;" },
      }),
    ).toEqual([]);
    expect(
      issuesOf({
        template: "guard_clause",
        params: { target: { kind: "function", name: "f", file: "a.py" }, condition: "x === null", body: "return" },
      }),
    ).toEqual(["syntax@params.condition"]);
    expect(
      issuesOf({
        template: "add_parameter",
        params: { target: { kind: "function", name: "f", file: "a.js" }, name: "x", type: "number" },
      }),
    ).toEqual(["syntax@params.type"]);
  });

  test("Python-only templates refuse other languages", () => {
    expect(
      issuesOf({
        template: "wrap_context_manager",
        params: { target: { kind: "function", name: "f", file: "a.ts" }, context: "lock" },
      }),
    ).toEqual(["language@params.file"]);
    expect(
      issuesOf({ template: "inline_variable", params: { target: { kind: "assignment", name: "x", file: "a.rb" } } }),
    ).toEqual(["language@params.file"]);
    expect(
      issuesOf({ template: "inline_variable", params: { target: { kind: "assignment", name: "x", file: "a.js" } } }),
    ).toEqual([]);
  });

  test("unknown templates get a suggestion; templates written as ops are pointed to the template form", () => {
    const [issue] = validateStep({ template: "guard_clouse", params: {} });
    expect(issue).toMatchObject({ path: "template", code: "unknown" });
    expect(issue!.message).toContain("did you mean guard_clause?");
    const [asOp] = validateStep({ op: "guard_clause", params: {} });
    expect(asOp!.message).toContain('{"template": "guard_clause"');
  });

  test("surgery params are validated the same way", () => {
    for (const s of SURGERY) expect(validateStep({ op: s.name, params: s.example }), s.name).toEqual([]);
    expect(issuesOf({ op: "rename_identifier", params: { file: "a.py", name: "x", new_name: "class" } })).toEqual([
      "syntax@params.new_name",
    ]);
    expect(
      issuesOf({ op: "reorder_children", params: { parent: { kind: "class", name: "A", file: "a.py" }, order: [1] } }),
    ).toEqual(["type@params.order"]);
    expect(issuesOf({ op: "delete_node", params: {} })).toEqual(["missing@params.locator"]);
  });

  test("execution refuses invalid params with one tagged error listing them all", () => {
    try {
      executeStep(
        {
          template: "add_parameter",
          params: { target: { kind: "function", name: "f", file: "a.py" }, name: "1x", default: "=" },
        },
        { "a.py": "def f():\n    pass\n" },
      );
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ParamsInvalid);
      expect((error as ParamsInvalid).issues.map((i) => i.param)).toEqual(["name", "default"]);
    }
  });
});

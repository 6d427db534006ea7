import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { FragmentInvalid, validateFragment } from "./index.js";
import { assertFragment } from "./validate.js";

beforeAll(() => loadGrammars(["python"]));

const paths = (fragment: unknown): string[] => validateFragment(fragment).map((i) => `${i.code}@${i.path}`);

describe("validateFragment", () => {
  test("a valid nested fragment has no issues", () => {
    expect(
      validateFragment({
        kind: "if_statement",
        properties: { condition: "x is None" },
        children: [
          { kind: "return_statement", properties: { value: "None" } },
          { kind: "else_clause", children: [{ kind: "pass_statement" }] },
        ],
      }),
    ).toEqual([]);
  });

  test("missing required properties, one issue each", () => {
    expect(paths({ kind: "for_statement", properties: {} })).toEqual([
      "missing_property@properties.target",
      "missing_property@properties.iterable",
    ]);
    expect(paths({ kind: "function_definition" })).toEqual(["missing_property@properties.name"]);
    expect(paths({ kind: "assignment", properties: { target: "x" } })).toEqual(["missing_property@properties.value"]);
  });

  test("leaves cannot have children", () => {
    const issues = validateFragment({
      kind: "return_statement",
      properties: { value: "1" },
      children: [{ kind: "pass_statement" }],
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ code: "child_kind", path: "children" });
    expect(issues[0]!.message).toContain("leaf");
  });

  test("clauses only under their statement", () => {
    expect(
      paths({
        kind: "while_statement",
        properties: { condition: "x" },
        children: [{ kind: "elif_clause", properties: { condition: "y" } }],
      }),
    ).toEqual(["child_kind@children[0].kind"]);
    expect(
      paths({ kind: "if_statement", properties: { condition: "x" }, children: [{ kind: "except_clause" }] }),
    ).toEqual(["child_kind@children[0].kind"]);
    expect(
      paths({ kind: "function_definition", properties: { name: "f" }, children: [{ kind: "finally_clause" }] }),
    ).toEqual(["child_kind@children[0].kind"]);
  });

  test("clause order: statements, then clauses in their order", () => {
    expect(
      paths({
        kind: "if_statement",
        properties: { condition: "x" },
        children: [{ kind: "else_clause" }, { kind: "elif_clause", properties: { condition: "y" } }],
      }),
    ).toEqual(["child_order@children[1].kind"]);
    expect(
      paths({
        kind: "if_statement",
        properties: { condition: "x" },
        children: [{ kind: "else_clause" }, { kind: "pass_statement" }],
      }),
    ).toEqual(["child_order@children[1].kind"]);
    expect(
      paths({
        kind: "if_statement",
        properties: { condition: "x" },
        children: [{ kind: "else_clause" }, { kind: "else_clause" }],
      }),
    ).toEqual(["child_order@children[1].kind"]);
  });

  test("try needs an except or a finally; try/else needs an except", () => {
    expect(paths({ kind: "try_statement", children: [{ kind: "pass_statement" }] })).toEqual(["structure@children"]);
    expect(
      paths({
        kind: "try_statement",
        children: [{ kind: "pass_statement" }, { kind: "else_clause" }, { kind: "finally_clause" }],
      }),
    ).toEqual(["structure@children"]);
  });

  test("an expression property that does not parse is an error naming the property", () => {
    const issues = validateFragment({
      kind: "if_statement",
      properties: { condition: "x ==" },
      children: [{ kind: "return_statement", properties: { value: "a b" } }],
    });
    expect(issues.map((i) => [i.code, i.path])).toEqual([
      ["syntax", "properties.condition"],
      ["syntax", "children[0].properties.value"],
    ]);
    expect(issues[0]!.message).toContain('"x =="');
  });

  test("statements are not expressions; comments are refused", () => {
    expect(paths({ kind: "return_statement", properties: { value: "x = 1" } })).toEqual(["syntax@properties.value"]);
    expect(paths({ kind: "expression_statement", properties: { expression: "f()  # call" } })).toEqual([
      "syntax@properties.expression",
    ]);
    expect(paths({ kind: "expression_statement", properties: { expression: "f()\nimport os" } })).toEqual([
      "syntax@properties.expression",
    ]);
  });

  test("identifiers: keywords and non-names are refused", () => {
    expect(paths({ kind: "function_definition", properties: { name: "class" } })).toEqual(["syntax@properties.name"]);
    expect(paths({ kind: "class_definition", properties: { name: "My Class" } })).toEqual(["syntax@properties.name"]);
    expect(paths({ kind: "except_clause", properties: { exception: "E", alias: "2x" } })).toEqual([
      "syntax@properties.alias",
    ]);
  });

  test("typed properties: parameters, types, with-items, decorators", () => {
    expect(
      paths({ kind: "function_definition", properties: { name: "f", parameters: "self, x=", return_type: "List[" } }),
    ).toEqual(["syntax@properties.parameters", "syntax@properties.return_type"]);
    expect(paths({ kind: "with_statement", properties: { items: "open(p) as" } })).toEqual(["syntax@properties.items"]);
    expect(paths({ kind: "function_definition", properties: { name: "f", decorators: ["ok", "not valid("] } })).toEqual(
      ["syntax@properties.decorators[1]"],
    );
  });

  test("JSON types: wrong type, unknown property with a hint, unknown field", () => {
    const issues = validateFragment({
      kind: "function_definition",
      properties: { name: 3, is_async: "yes", paramters: "x" },
      body: [],
    });
    expect(issues.map((i) => `${i.code}@${i.path}`).sort()).toEqual(
      [
        "property_type@properties.is_async",
        "property_type@properties.name",
        "shape@body",
        "unknown_property@properties.paramters",
      ].sort(),
    );
    expect(issues.find((i) => i.path === "properties.paramters")!.message).toContain("did you mean parameters?");
    expect(issues.find((i) => i.path === "body")!.message).toContain("children");
  });

  test("unknown kinds get a suggestion", () => {
    const [issue] = validateFragment({ kind: "if", properties: { condition: "x" } });
    expect(issue).toMatchObject({ code: "kind", path: "kind" });
    expect(issue!.message).toContain("did you mean if_statement?");
    expect(validateFragment({ kind: "retrun_statement" })[0]!.message).toContain("return_statement");
    expect(validateFragment("return x")[0]!.code).toBe("shape");
  });

  test("cross-property rules", () => {
    expect(paths({ kind: "except_clause", properties: { alias: "e" } })).toEqual(["structure@properties.alias"]);
    expect(paths({ kind: "raise_statement", properties: { cause: "e" } })).toEqual(["structure@properties.cause"]);
    expect(paths({ kind: "assignment", properties: { target: "x", operator: "+=", type: "int", value: "1" } })).toEqual(
      ["structure@properties.type"],
    );
    expect(paths({ kind: "assignment", properties: { target: "x", operator: "==", value: "1" } })).toEqual([
      "property_type@properties.operator",
    ]);
  });

  test("assertFragment throws a tagged error listing every issue", () => {
    try {
      assertFragment({
        kind: "for_statement",
        properties: { target: "i" },
        children: [{ kind: "return_statement", children: [{ kind: "pass_statement" }] }],
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(FragmentInvalid);
      const e = error as FragmentInvalid;
      expect(e._tag).toBe("FragmentInvalid");
      expect(e.issues.map((i) => i.path)).toEqual(["properties.iterable", "children[0].children"]);
      expect(e.message).toContain("properties.iterable");
    }
  });
});

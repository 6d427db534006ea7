import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { runPlan, type StepHandler } from "./run.js";
import { applyEdits, EditOutOfRange, mapOffset, OverlappingEdits } from "./edits.js";
import { applyPrimitive, locate, locateRegion, primitiveEdits } from "./api.js";
import { OPERATORS, operatorJsonSchema } from "./registry.js";
import { planFiles } from "./plan.js";
import type { StepFailed } from "./errors.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["python", "javascript"]));

const A = "def a():\n    return 1\n";
const B = "def b():\n    return 2\n";
const files = () =>
  new Map([
    ["a.py", A],
    ["b.py", B],
  ]);

describe("applyEdits", () => {
  test("applies edits given in any order against the original offsets", () => {
    expect(
      applyEdits("abcdef", [
        { start: 4, end: 5, text: "E" },
        { start: 0, end: 1, text: "AA" },
        { start: 3, end: 3, text: "-" },
      ]),
    ).toBe("AAbc-dEf");
  });
  test("insertions at one offset keep their order", () => {
    expect(
      applyEdits("ab", [
        { start: 1, end: 1, text: "1" },
        { start: 1, end: 1, text: "2" },
      ]),
    ).toBe("a12b");
  });
  test("rejects overlapping and out-of-range edits with tagged errors", () => {
    expect(() =>
      applyEdits("abcdef", [
        { start: 0, end: 3, text: "" },
        { start: 2, end: 4, text: "" },
      ]),
    ).toThrow(OverlappingEdits);
    expect(() => applyEdits("abc", [{ start: 2, end: 9, text: "" }])).toThrow(EditOutOfRange);
  });
  test("mapOffset follows text through edits", () => {
    const edits = [{ start: 2, end: 4, text: "XYZ" }];
    expect(mapOffset(edits, 1)).toBe(1);
    expect(mapOffset(edits, 3)).toBeUndefined();
    expect(mapOffset(edits, 5)).toBe(6);
  });
});

describe("runPlan", () => {
  const replaceA = {
    op: "replace_node",
    params: { locator: { kind: "function", name: "a", file: "a.py" }, replacement: "def a():\n    return 10" },
  };

  test("steps run in order and see earlier edits; results are per step", () => {
    const r = runPlan(
      planOf([
        replaceA,
        { op: "locate", params: { locator: { kind: "return", file: "a.py" } } },
        { op: "add_import", params: { file: "b.py", import_statement: "import os" } },
      ]),
      files(),
    );
    if (!r.ok) throw r.error;
    expect(r.results.map((s) => s.ok && s.changed)).toEqual([["a.py"], [], ["b.py"]]);
    expect(r.results[1]).toMatchObject({ output: { count: 1, nodes: [{ text_preview: "return 10", start_line: 2 }] } });
    expect(r.changed).toEqual(["a.py", "b.py"]);
  });

  test("a failed step returns every file byte-identical (all-or-nothing) with a tagged StepFailed", () => {
    const input = files();
    const r = runPlan(
      planOf([
        replaceA,
        { op: "add_import", params: { file: "b.py", import_statement: "import os" } },
        { op: "delete_node", params: { locator: { kind: "function", name: "zzz", file: "b.py" } } },
      ]),
      input,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.failedStep).toBe(2);
    expect(r.files.get("a.py")).toBe(A);
    expect(r.files.get("b.py")).toBe(B);
    expect(input.get("a.py")).toBe(A);
    const error = r.error as StepFailed;
    expect(error).toMatchObject({
      _tag: "StepFailed",
      step: 2,
      op: "delete_node",
      locator: { kind: "function", name: "zzz", file: "b.py" },
      cause: { _tag: "LocatorNotFound" },
    });
    expect(error.message).toMatch(/^Step 3 \(delete_node\)/); // the third step: messages count from 1
    expect(r.results.map((s) => s.ok)).toEqual([true, true, false]);
  });

  test("unknown operator lists valid ones, closest first", () => {
    const r = runPlan(planOf([{ op: "replace_nodes", params: {} }]), files());
    expect(!r.ok && r.error.cause).toMatchObject({ _tag: "UnknownOperator" });
    expect(!r.ok && (r.error.cause as unknown as { validOps: string[] }).validOps[0]).toBe("replace_node");
  });

  test("missing file, unsupported language and bad params are tagged", () => {
    const missing = runPlan(
      planOf([{ op: "delete_node", params: { locator: { kind: "function", name: "a", file: "nope.py" } } }]),
      files(),
    );
    expect(!missing.ok && missing.error.cause).toMatchObject({ _tag: "FileNotInPlan", file: "nope.py" });
    const text = runPlan(
      planOf([{ op: "delete_node", params: { locator: { kind: "function", file: "notes.txt" } } }]),
      new Map([["notes.txt", "hi"]]),
    );
    expect(!text.ok && text.error.cause).toMatchObject({ _tag: "UnsupportedLanguage" });
    const params = runPlan(
      planOf([{ op: "replace_node", params: { locator: { kind: "function", name: "a", file: "a.py" } } }]),
      files(),
    );
    expect(!params.ok && params.error.cause).toMatchObject({ _tag: "InvalidParams" });
    expect(!params.ok && params.error.message).toContain("replacement");
    const sexp = runPlan(planOf([{ op: "delete_node", params: { locator: { type: "sexp", file: "a.py" } } }]), files());
    expect(!sexp.ok && sexp.error.message).toContain("locator.query: Invalid input: expected string");
  });

  test("a file with an old syntax error can still be edited elsewhere, but not made worse", () => {
    const broken = "def a():\n    return 1\n\ndef b(:\n    pass\n";
    const ok = runPlan(
      planOf([
        {
          op: "replace_node",
          params: { locator: { kind: "return", file: "x.py", index: 0 }, replacement: "return 5" },
        },
      ]),
      new Map([["x.py", broken]]),
    );
    if (!ok.ok) throw ok.error;
    expect(ok.files.get("x.py")).toBe(broken.replace("return 1", "return 5"));
    const worse = runPlan(
      planOf([
        {
          op: "replace_node",
          params: { locator: { kind: "return", file: "x.py", index: 0 }, replacement: "return (" },
        },
      ]),
      new Map([["x.py", broken]]),
    );
    expect(!worse.ok && worse.error.cause).toMatchObject({ _tag: "PostconditionFailed" });
  });

  test("replace_all_matching fails when the replacement matches again", () => {
    const r = runPlan(
      planOf([
        {
          op: "replace_all_matching",
          params: { locator: { kind: "call", name: "print", file: "p.py" }, replacement: "print(1)" },
        },
      ]),
      new Map([["p.py", "print(0)\nprint(2)\n"]]),
    );
    expect(!r.ok && r.error.cause).toMatchObject({ _tag: "PostconditionFailed" });
    expect(!r.ok && r.error.message).toContain("still match");
  });

  test("handlers extend runPlan with edits or DSL steps, checked like primitives", () => {
    const handlers: Record<string, StepHandler> = {
      uppercase_return: (_step, ctx) => {
        const doc = ctx.parsed("a.py");
        const at = doc.source.indexOf("return 1");
        return { edits: { "a.py": [{ start: at, end: at + 8, text: "return 100" }] }, output: { at } };
      },
      template: (step, ctx) => ({
        steps: [{ primitive: "add_import", params: { file: "$file", import_statement: "import sys" } }],
        vars: { file: ("params" in step ? (step.params as { file: string }).file : "") || ctx.files[0] },
      }),
      broken: () => ({ edits: { "a.py": [{ start: 0, end: 3, text: "de" }] } }),
    };
    const r = runPlan(
      planOf([
        { op: "uppercase_return", params: {} },
        { template: "add_sys", params: { file: "b.py" } },
      ]),
      files(),
      { handlers },
    );
    if (!r.ok) throw r.error;
    expect(r.files.get("a.py")).toBe("def a():\n    return 100\n");
    expect(r.files.get("b.py")).toBe("import sys\n\ndef b():\n    return 2\n");
    const bad = runPlan(planOf([{ op: "broken", params: {} }]), files(), { handlers });
    expect(!bad.ok && bad.error.cause).toMatchObject({ _tag: "PostconditionFailed" });
  });

  test("planFiles lists every file the plan names", () => {
    expect(planFiles([replaceA, { op: "add_import", params: { file: "b.py", import_statement: "x" } }])).toEqual([
      "a.py",
      "b.py",
    ]);
  });
});

describe("single-primitive API", () => {
  const doc = { path: "a.py", source: A, language: "python" as const };

  test("primitiveEdits returns checked edits; applyPrimitive applies them", () => {
    const edits = primitiveEdits("insert_after_node", doc, {
      locator: { kind: "function", name: "a", file: "a.py" },
      code: "x = 1",
      separator: "\n\n\n",
    });
    expect(Array.isArray(edits) && applyEdits(A, edits)).toBe("def a():\n    return 1\n\n\nx = 1\n");
    expect(applyPrimitive("delete_node", doc, { locator: { kind: "return", file: "a.py" } })).toMatchObject({
      source: "def a():\n    pass\n",
    });
  });

  test("errors are returned as tagged values", () => {
    expect(primitiveEdits("delete_node", doc, { locator: { kind: "class", file: "a.py" } })).toMatchObject({
      _tag: "LocatorNotFound",
    });
    expect(primitiveEdits("remove_node", doc, {})).toMatchObject({ _tag: "UnknownOperator" });
    expect(
      primitiveEdits("replace_node", doc, { locator: { kind: "return", file: "a.py" }, replacement: "return )" }),
    ).toMatchObject({ _tag: "PostconditionFailed" });
  });

  test("locate and locate_region", () => {
    expect(locate(doc, { locator: { kind: "function", file: "a.py" } })).toMatchObject({
      found: true,
      count: 1,
      nodes: [{ name: "a", kind: "function", start_line: 1, end_line: 2 }],
    });
    const region = locateRegion(
      { path: "u.py", source: "s = 'é'\ndef f():\n    pass\n", language: "python" },
      { locator: { kind: "function", file: "u.py" } },
    );
    expect(region).toMatchObject({ start: 8, start_byte: 9, start_line: 2, end_line: 3, text: "def f():\n    pass" });
  });
});

test("the operator registry covers every operator with a JSON Schema", () => {
  expect(OPERATORS.map((o) => o.name).sort()).toEqual(
    [
      "replace_node",
      "insert_before_node",
      "insert_after_node",
      "delete_node",
      "wrap_node",
      "replace_all_matching",
      "locate",
      "locate_region",
      "add_method",
      "add_import",
      "add_class_attribute",
      "create_file",
      "delete_file",
      "rename_file",
      "write_file",
      "set_file_mode",
      "replace_text",
      "insert_text",
      "append_text",
      "replace_code",
      "insert_code",
      "delete_lines",
      "modify_function_signature",
      "rename_symbol",
      "wrap_block",
      "replace_function_body",
    ].sort(),
  );
  expect(JSON.stringify(operatorJsonSchema("replace_node"))).toContain('"replacement"');
  expect(JSON.stringify(operatorJsonSchema("rename_file"))).toContain('"to"');
});

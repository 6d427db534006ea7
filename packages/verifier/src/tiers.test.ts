/** Tier 1–3 steps (surgery, templates, fragments) are verified like tier 0 ones. */
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { runFormalPlan } from "@graphplan/catalog";
import { verifyPlan, type VerifyResult } from "./index.js";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";

const PARSER = `def parse(text):
    tmp = text.strip()
    return tmp.split(",")


def main():
    return parse("a,b")
`;
const FILES = new Map([["app/parser.py", PARSER]]);

async function verify(plan: unknown): Promise<VerifyResult> {
  const graph = await buildGraph([...FILES].map(([path, source]) => ({ path, source })));
  return verifyPlan(plan, FILES, graph);
}

const parse = { kind: "function", name: "parse", file: "app/parser.py" };

describe("tiers 1-3", () => {
  it("passes a mixed plan of a template, a fragment and a surgery op, each on the state the last left", async () => {
    const result = await verify([
      { template: "guard_clause", params: { target: parse, condition: "text is None", body: "return []" } },
      {
        fragment: {
          kind: "if_statement",
          properties: { condition: "not tmp" },
          children: [{ kind: "return_statement", properties: { value: "[]" } }],
        },
        action: "insert_before",
        locator: { kind: "return", file: "app/parser.py", parent: parse, index: -1 },
      },
      { op: "rename_identifier", params: { file: "app/parser.py", name: "tmp", new_name: "cleaned", scope: parse } },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.passed).toBe(true);
  });

  it("reports invalid template params and an invalid fragment as `operator` errors", async () => {
    const result = await verify([
      { template: "guard_clause", params: { target: parse, condition: "text is (", body: "return []" } },
      {
        fragment: { kind: "if_statement", properties: {} },
        action: "insert_before",
        locator: { kind: "return", file: "app/parser.py", index: 0 },
      },
      { template: "gaurd_clause", params: {} },
    ]);
    expect(result.issues.filter((i) => i.severity === "error").map((i) => [i.step, i.check])).toEqual([
      [0, "operator"],
      [1, "operator"],
      [2, "operator"],
    ]);
    expect(result.errors[0]).toMatch(/^Step 1 \(guard_clause\): params.condition/);
    expect(result.errors[2]).toMatch(/Unknown template 'gaurd_clause' — fix: did you mean 'guard_clause'\?/);
  });

  it("reports a scope-aware rename onto a name already bound there as a `rename` error", async () => {
    const result = await verify([
      { op: "rename_identifier", params: { file: "app/parser.py", name: "tmp", new_name: "text", scope: parse } },
    ]);
    expect(result.issues.filter((i) => i.severity === "error").map((i) => [i.step, i.check])).toEqual([[0, "rename"]]);
  });

  it("applies the hierarchy to template output (L3 on a template's new code)", async () => {
    const result = await verify([
      { template: "change_return_value", params: { target: parse, value: "tmp.split(sep)" } },
    ]);
    expect(result.issues.filter((i) => i.check === "references").map((i) => i.message)).toEqual([
      expect.stringMatching(/^'sep' \(line 3 of app\/parser.py\) is not defined/),
    ]);
  });

  it("verifies fragments on a TypeScript file as TypeScript: a guard and a method pass and run; a Python-only form and an unbound name are said", async () => {
    const store =
      "export class Store {\n  private items = new Map<string, number>();\n\n  get(key: string): number | undefined {\n    return this.items.get(key);\n  }\n}\n";
    const files = new Map([["src/store.ts", store]]);
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const get = { kind: "method", name: "get", file: "src/store.ts" };
    const plan = [
      {
        fragment: {
          kind: "if_statement",
          properties: { condition: 'key === ""' },
          children: [{ kind: "raise_statement", properties: { exception: 'new RangeError("empty key")' } }],
        },
        action: "insert_before",
        locator: { kind: "statement", file: "src/store.ts", parent: get, index: 0 },
      },
      {
        fragment: {
          kind: "function_definition",
          properties: { name: "size", return_type: "number" },
          children: [{ kind: "return_statement", properties: { value: "this.items.size" } }],
        },
        action: "insert_after",
        locator: get,
      },
    ];
    const result = await verifyPlan(plan, files, graph);
    expect(result.errors).toEqual([]);
    const run = runFormalPlan(parsePlanOrThrow(plan), files);
    expect(run.ok && run.files.get("src/store.ts")).toBe(
      store
        .replace(
          "  get(key: string): number | undefined {\n",
          '  get(key: string): number | undefined {\n    if (key === "") {\n      throw new RangeError("empty key");\n    }\n',
        )
        .replace(
          "    return this.items.get(key);\n  }\n",
          "    return this.items.get(key);\n  }\n\n  size(): number {\n    return this.items.size;\n  }\n",
        ),
    );
    const bad = await verifyPlan(
      [
        {
          fragment: { kind: "with_statement", properties: { items: "lock" } },
          action: "insert_before",
          locator: { kind: "statement", file: "src/store.ts", parent: get, index: 0 },
        },
        {
          fragment: { kind: "expression_statement", properties: { expression: "audit(key)" } },
          action: "insert_before",
          locator: { kind: "statement", file: "src/store.ts", parent: get, index: 0 },
        },
      ],
      files,
      graph,
    );
    expect(bad.errors).toEqual([
      expect.stringMatching(/^Step 1 \(fragment\): fragment\.kind: JavaScript has no with statement/),
    ]);
    expect(bad.warnings).toContainEqual(
      expect.stringMatching(/^Step 2 \(fragment\): \[references\] 'audit' .*is not defined/),
    );
  });

  it("verifies and runs fragments on a Java file as Java: a method after a method, a guard in a method; a function outside a class is refused", async () => {
    const cart = "class Cart {\n    private int count;\n\n    void add(Object item) {\n        count += 1;\n    }\n}\n";
    const files = new Map([["src/Cart.java", cart]]);
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const add = { kind: "method", name: "add", file: "src/Cart.java" };
    const plan = [
      {
        fragment: {
          kind: "function_definition",
          properties: { name: "size", return_type: "int", modifiers: "public" },
          children: [{ kind: "return_statement", properties: { value: "count" } }],
        },
        action: "insert_after",
        locator: add,
      },
      {
        fragment: {
          kind: "if_statement",
          properties: { condition: "item == null" },
          children: [{ kind: "raise_statement", properties: { exception: "new NullPointerException()" } }],
        },
        action: "insert_before",
        locator: { kind: "statement", file: "src/Cart.java", parent: add, index: 0 },
      },
    ];
    const result = await verifyPlan(plan, files, graph);
    expect(result.errors).toEqual([]);
    const run = runFormalPlan(parsePlanOrThrow(plan), files);
    expect(run.ok && run.files.get("src/Cart.java")).toBe(
      "class Cart {\n    private int count;\n\n    void add(Object item) {\n        if (item == null) {\n            throw new NullPointerException();\n        }\n        count += 1;\n    }\n\n    public int size() {\n        return count;\n    }\n}\n",
    );
    const bad = await verifyPlan(
      [
        {
          fragment: { kind: "function_definition", properties: { name: "helper" } },
          action: "insert_after",
          locator: { kind: "statement", file: "src/Cart.java", parent: add, index: 0 },
        },
      ],
      files,
      graph,
    );
    expect(bad.errors).toEqual([
      expect.stringMatching(
        /^Step 1 \(fragment\): The fragment is invalid:\n- kind: Java has no function outside a class/,
      ),
    ]);
  });

  it("verifies and runs fragments on a Go file as Go: a method after a method, a guard in it", async () => {
    const cart =
      "package shop\n\ntype Cart struct {\n\titems []int\n}\n\nfunc (c *Cart) Add(item int) {\n\tc.items = append(c.items, item)\n}\n";
    const files = new Map([["shop/cart.go", cart]]);
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const add = { kind: "method", name: "Add", file: "shop/cart.go" };
    const plan = [
      {
        fragment: {
          kind: "function_definition",
          properties: { name: "Size", receiver: "c *Cart", return_type: "int" },
          children: [{ kind: "return_statement", properties: { value: "len(c.items)" } }],
        },
        action: "insert_after",
        locator: add,
      },
      {
        fragment: {
          kind: "if_statement",
          properties: { condition: "item < 0" },
          children: [{ kind: "return_statement" }],
        },
        action: "insert_before",
        locator: { kind: "statement", file: "shop/cart.go", parent: add, index: 0 },
      },
    ];
    const result = await verifyPlan(plan, files, graph);
    expect(result.errors).toEqual([]);
    const run = runFormalPlan(parsePlanOrThrow(plan), files);
    expect(run.ok && run.files.get("shop/cart.go")).toBe(
      "package shop\n\ntype Cart struct {\n\titems []int\n}\n\nfunc (c *Cart) Add(item int) {\n\tif item < 0 {\n\t\treturn\n\t}\n\tc.items = append(c.items, item)\n}\n\nfunc (c *Cart) Size() int {\n\treturn len(c.items)\n}\n",
    );
    const bad = await verifyPlan(
      [
        {
          fragment: { kind: "try_statement", children: [{ kind: "break_statement" }] },
          action: "insert_before",
          locator: { kind: "statement", file: "shop/cart.go", parent: add, index: 0 },
        },
      ],
      files,
      graph,
    );
    expect(bad.errors).toEqual([expect.stringMatching(/^Step 1 \(fragment\): fragment\.kind: Go has no exceptions/)]);
  });

  it("verifies and runs templates on Java and Go: a guard, a parameter and a return value pass; a condition that is not one is said", async () => {
    const files = new Map([
      ["Cart.java", "class Cart {\n    int total(int d) {\n        int s = 0;\n        return s * 2;\n    }\n}\n"],
      ["shop.go", "package shop\n\nfunc Total(d int) int {\n\ts := 0\n\treturn s * 2\n}\n"],
    ]);
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const total = { kind: "method", name: "total", file: "Cart.java" };
    const Total = { kind: "function", name: "Total", file: "shop.go" };
    const plan = [
      { template: "guard_clause", params: { target: total, condition: "d < 0", body: "return 0;" } },
      { template: "add_parameter", params: { target: total, name: "rate", type: "double" } },
      { template: "change_return_value", params: { target: Total, value: "s * 3" } },
      { template: "guard_clause", params: { target: Total, condition: "d < 0", body: "return 0" } },
    ];
    const result = await verifyPlan(plan, files, graph);
    expect(result.issues).toEqual([]);
    const run = runFormalPlan(parsePlanOrThrow(plan), files);
    expect(run.ok && run.files.get("Cart.java")).toBe(
      "class Cart {\n    int total(int d, double rate) {\n        if (d < 0) {\n            return 0;\n        }\n        int s = 0;\n        return s * 2;\n    }\n}\n",
    );
    expect(run.ok && run.files.get("shop.go")).toBe(
      "package shop\n\nfunc Total(d int) int {\n\tif d < 0 {\n\t\treturn 0\n\t}\n\ts := 0\n\treturn s * 3\n}\n",
    );
    const bad = await verifyPlan(
      [{ template: "modify_condition", params: { target: { kind: "if", file: "shop.go" }, condition: "x := 1" } }],
      files,
      graph,
    );
    expect(bad.issues.map((i) => [i.check, i.op])).toEqual([["operator", "modify_condition"]]);
  });

  it("verifies a Go rename by Go's scoping: a local renamed passes and runs; a name the function declares is a rename error", async () => {
    const files = new Map([
      [
        "shop.go",
        "package shop\n\nfunc Total(d int) int {\n\ts := 0\n\tif d > 0 {\n\t\ts = d\n\t}\n\treturn s * 2\n}\n",
      ],
    ]);
    const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
    const step = (newName: string) => ({
      op: "rename_identifier",
      params: {
        file: "shop.go",
        name: "s",
        new_name: newName,
        scope: { kind: "function", name: "Total", file: "shop.go" },
      },
    });
    expect((await verifyPlan([step("sum")], files, graph)).issues).toEqual([]);
    const run = runFormalPlan(parsePlanOrThrow([step("sum")]), files);
    expect(run.ok && run.files.get("shop.go")).toBe(
      "package shop\n\nfunc Total(d int) int {\n\tsum := 0\n\tif d > 0 {\n\t\tsum = d\n\t}\n\treturn sum * 2\n}\n",
    );
    const bad = await verifyPlan([step("d")], files, graph);
    expect(bad.errors).toEqual([
      expect.stringMatching(
        /^Step 1 \(rename_identifier\): Cannot rename s to d in shop\.go: d is already declared in function Total \(line 3\)\. Choose another name\./,
      ),
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import type { Step, WrittenPlan } from "@graphplan/primitives";
import { ROOT, variantsOf, type Variant } from "./mutate.js";

await loadGrammars(["python"]);

const SOURCE =
  'class Cart:\n    def total(self, items):\n        count = len(items)\n        """doc\n\tkept"""\n        return sum(items)\n';
const locator = { kind: "expression_statement", index: 0, file: "cart.py", parent: { kind: "method", name: "total" } };
const step: Step = { op: "replace_node", params: { locator, replacement: "if items:\n    count = len(items)" } };
const plan: WrittenPlan = [step];
const variants = variantsOf(plan, [{ step, sources: new Map([["cart.py", SOURCE]]) }]);
const of = (mistake: string): Variant[] => variants.filter((v) => v.mistake === mistake);
const params = (v: Variant): Record<string, unknown> => (v.plan as { params: Record<string, unknown> }[])[0]!.params;

describe("one mistake per variant, as models make them", () => {
  it("writes the code's lines after the first with the target's absolute indentation", () => {
    expect(params(of("indent-absolute-first-line")[0]!).replacement).toBe("if items:\n            count = len(items)");
  });

  it("makes no absolute-first-line variant of code already written that way (a node inside a line)", () => {
    // `len(items)` starts mid-line; its code's second line is at its column in the file, deeper than the line's indentation.
    const inLine: Step = {
      op: "replace_node",
      params: {
        locator: { kind: "call", name: "len", file: "cart.py" },
        replacement: "len(\n                    items)",
      },
    };
    const made = variantsOf([inLine], [{ step: inLine, sources: new Map([["cart.py", SOURCE]]) }]);
    expect(made.filter((v) => v.mistake === "indent-absolute-first-line")).toEqual([]);
    expect(made.filter((v) => v.mistake === "trailing-spaces")).toHaveLength(1);
  });

  it("indents with tabs and adds trailing spaces, outside strings", () => {
    expect(params(of("tabs-in-spaces-file")[0]!).replacement).toBe("if items:\n\tcount = len(items)");
    expect(params(of("trailing-spaces")[0]!).replacement).toBe("if items:  \n    count = len(items)  ");
  });

  it("turns replace_node into replace_code whose pattern is one token off, with the exact form as the baseline", () => {
    const [lines, node] = of("replace-code-token-off");
    expect(params(lines!)).toMatchObject({ file: "cart.py", pattern: "        count = len(item)" });
    expect((lines!.baseline as { params: { pattern: string } }[])[0]!.params.pattern).toBe(
      "        count = len(items)",
    );
    expect(params(node!).pattern).toBe("count = len(item)");
    expect(lines!.fixWords).toEqual(["line 3"]);
  });

  it("gives absolute paths under the root, an operator as a template, a synonym", () => {
    expect((params(of("absolute-path")[0]!).locator as { file: string }).file).toBe(`${ROOT}/cart.py`);
    expect((of("operator-as-template")[0]!.plan as unknown[])[0]).toEqual({
      template: "replace_node",
      params: step.params,
    });
    expect((of("operator-synonym")[0]!.plan as { op: string }[])[0]!.op).toBe("replace");
    expect(of("operator-synonym")[0]!.fixWords[0]).toBeInstanceOf(RegExp);
  });

  it("moves an index by one and drops the parent of an indexed locator, both marked as possibly valid", () => {
    expect(params(of("index-off-by-one")[0]!).locator).toMatchObject({ index: 1 });
    expect(params(of("parent-dropped")[0]!).locator).not.toHaveProperty("parent");
    expect(of("parent-dropped")[0]!.mayBeValid).toBe(true);
  });
});

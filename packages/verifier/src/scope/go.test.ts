/** The Go scope model behind `references` (L3) and `imports` (L4): Go's package block spans the files of a directory; other packages are reached through imports, and only their exported names. */
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { verifyPlan, type VerifyResult } from "../index.js";

const FILES = new Map([
  ["go.mod", "module example.com/shop\n\ngo 1.21\n"],
  [
    "cart/cart.go",
    'package cart\n\nimport (\n\t"fmt"\n\n\t"example.com/shop/money"\n)\n\ntype Cart struct{ items []Item }\n\nfunc (c *Cart) Total() money.Amount {\n\ttotal := money.Amount(0)\n\tfor _, it := range c.items {\n\t\ttotal += it.Price\n\t}\n\tfmt.Println(total)\n\treturn total\n}\n',
  ],
  [
    "cart/item.go",
    'package cart\n\nimport "example.com/shop/money"\n\ntype Item struct{ Price money.Amount }\n\nfunc newItem(p money.Amount) Item { return Item{Price: p} }\n',
  ],
  ["cart/cart_test.go", "package cart\n\nfunc sampleCart() *Cart { return &Cart{} }\n"],
  [
    "money/money.go",
    "package money\n\ntype Amount int\n\nfunc Sum(all ...Amount) Amount {\n\ts := Amount(0)\n\tfor _, a := range all {\n\t\ts += a\n\t}\n\treturn round(s)\n}\n\nfunc round(a Amount) Amount { return a }\n",
  ],
]);

async function verify(plan: unknown): Promise<VerifyResult> {
  const graph = await buildGraph(
    [...FILES].filter(([path]) => path.endsWith(".go")).map(([path, source]) => ({ path, source })),
  );
  return verifyPlan(plan, FILES, graph);
}
const total = { kind: "method", name: "Total", file: "cart/cart.go" };
const replaceTotal = (body: string) => ({
  op: "replace_node",
  params: { locator: total, replacement: `func (c *Cart) Total() money.Amount {\n${body}\n}` },
});
const findings = (result: VerifyResult) =>
  result.issues
    .filter((i) => i.check === "references" || i.check === "imports")
    .map((i) => `${i.check}: ${i.message} | ${i.fix}`);

describe("Go references and imports", () => {
  it("is quiet when names come from the function, another file of the package, an import or the universe", async () => {
    const result = await verify([
      replaceTotal(
        "\tall := make([]money.Amount, 0, len(c.items))\n\tfor _, it := range append(c.items, newItem(1)) {\n\t\tall = append(all, it.Price)\n\t}\n\tfmt.Println(Cart{}, nil)\n\treturn money.Sum(all...)",
      ),
    ]);
    expect(findings(result)).toEqual([]);
  });

  it("reports a misspelt local with the name it probably meant", async () => {
    const result = await verify([replaceTotal("\ttotal := money.Amount(0)\n\treturn totl")]);
    expect(findings(result)).toEqual([
      "references: 'totl' (line 13 of cart/cart.go) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported | did you mean 'total'? Otherwise define or import 'totl'",
    ]);
  });

  it("does not let a package's own files see its tests' names", async () => {
    const result = await verify([replaceTotal("\treturn sampleCart().Total()")]);
    expect(findings(result)).toEqual([
      expect.stringMatching(
        /^imports: 'sampleCart' \(line 12\) is defined in cart\/cart_test.go but not imported in cart\/cart.go \| 'sampleCart' is declared in a test file/,
      ),
    ]);
  });

  it("names the import and the qualified name for a name of another package of the module", async () => {
    const result = await verify([replaceTotal("\treturn Sum(1, 2)")]);
    expect(findings(result)).toEqual([
      "imports: 'Sum' (line 12) is defined in money/money.go but not imported in cart/cart.go | add an add_import step for `import \"example.com/shop/money\"` before this step and write `money.Sum`",
    ]);
  });

  it("reports pkg.Name when the package does not declare Name, or does not export it", async () => {
    const result = await verify([replaceTotal("\treturn money.Summ(money.round(1))")]);
    expect(findings(result)).toEqual([
      "imports: `money.Summ` (line 12): package money (money) does not declare 'Summ' | did you mean 'money.Sum'?",
      "imports: `money.round` (line 12): 'round' is not exported by package money (money); only names that start with an upper-case letter are visible in other packages | rename 'round' to 'Round' in its package first (rename_identifier), or use an exported name",
    ]);
  });

  it("reports a new import of a module path that names no package", async () => {
    const result = await verify([
      { op: "add_import", params: { file: "cart/item.go", import_statement: 'import "example.com/shop/billing"' } },
    ]);
    expect(findings(result)).toEqual([
      expect.stringMatching(
        /^imports: the new import "example.com\/shop\/billing" names no package of the module: billing has no .go files/,
      ),
    ]);
  });
});

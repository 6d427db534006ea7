/** The Java scope model behind `references` (L3) and `imports` (L4): locals, the members of the enclosing classes and their workspace supertypes, imports, the package's types and java.lang. */
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { verifyPlan, type VerifyResult } from "../index.js";

const FILES = new Map([
  [
    "src/main/java/shop/cart/Cart.java",
    [
      "package shop.cart;",
      "",
      "import java.util.ArrayList;",
      "import java.util.List;",
      "import shop.money.Money;",
      "",
      "public class Cart extends Base {",
      "  private final List<Item> items = new ArrayList<>();",
      "",
      "  public int total() {",
      "    int sum = 0;",
      "    for (Item it : items) sum += it.price();",
      "    return sum;",
      "  }",
      "}",
      "",
    ].join("\n"),
  ],
  [
    "src/main/java/shop/cart/Base.java",
    "package shop.cart;\n\nabstract class Base {\n  protected int discount;\n\n  protected int capped(int v) {\n    return Math.min(v, 100);\n  }\n}\n",
  ],
  ["src/main/java/shop/cart/Item.java", "package shop.cart;\n\npublic record Item(String name, int price) {}\n"],
  [
    "src/main/java/shop/cart/Listener.java",
    "package shop.cart;\n\nimport java.util.EventListener;\nimport org.example.events.Handler;\n\npublic class Listener extends Handler implements EventListener {\n  void on() {\n    handle();\n  }\n}\n",
  ],
  [
    "src/main/java/shop/cart/Plain.java",
    "package shop.cart;\n\nimport java.util.EventListener;\n\npublic class Plain implements EventListener {\n  void on() {}\n}\n",
  ],
  [
    "src/main/java/shop/money/Money.java",
    "package shop.money;\n\npublic final class Money {\n  public static int sum(int... all) {\n    int s = 0;\n    for (int a : all) s += a;\n    return s;\n  }\n}\n",
  ],
  [
    "src/main/java/shop/money/Rates.java",
    "package shop.money;\n\npublic final class Rates {\n  public static final int VAT = 20;\n}\n",
  ],
]);

async function verify(plan: unknown): Promise<VerifyResult> {
  const graph = await buildGraph([...FILES].map(([path, source]) => ({ path, source })));
  return verifyPlan(plan, FILES, graph);
}
const CART = "src/main/java/shop/cart/Cart.java";
const replaceTotal = (body: string) => ({
  op: "replace_node",
  params: { locator: { kind: "method", name: "total", file: CART }, replacement: `public int total() {\n${body}\n  }` },
});
const findings = (result: VerifyResult) =>
  result.issues
    .filter((i) => i.check === "references" || i.check === "imports")
    .map((i) => `${i.check}: ${i.message} | ${i.fix}`);

describe("Java references and imports", () => {
  it("is quiet when names are locals, fields, inherited members, imported or same-package types, or java.lang", async () => {
    const result = await verify([
      replaceTotal(
        "    int sum = discount;\n    for (Item it : items) sum += capped(it.price());\n    String label = String.valueOf(sum);\n    Item extra = new Item(label, Money.sum(sum, 1));\n    return Math.max(sum, extra.price()) + hashCode();",
      ),
    ]);
    expect(findings(result)).toEqual([]);
  });

  it("reports a misspelt local, field or method with the name it probably meant", async () => {
    const result = await verify([
      replaceTotal("    int sum = 0;\n    for (Item it : itms) sum += it.price();\n    return cappd(summ);"),
    ]);
    expect(findings(result)).toEqual([
      "references: 'itms' (line 12 of src/main/java/shop/cart/Cart.java) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported | did you mean 'items'? Otherwise define or import 'itms'",
      "references: 'cappd' (line 13 of src/main/java/shop/cart/Cart.java) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported | define 'cappd' in the new code, or import it, or correct the name",
      "references: 'summ' (line 13 of src/main/java/shop/cart/Cart.java) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported | did you mean 'sum'? Otherwise define or import 'summ'",
    ]);
  });

  it("names the import for a type of another package", async () => {
    const result = await verify([replaceTotal("    return Rates.VAT;")]);
    expect(findings(result)).toEqual([
      "imports: 'Rates' (line 11) is defined in src/main/java/shop/money/Rates.java but not imported in src/main/java/shop/cart/Cart.java | add an add_import step for `import shop.money.Rates;` before this step",
    ]);
  });

  it("reports Type.method(…) when the workspace type has no such method, and an import of a type the package lacks", async () => {
    const result = await verify([
      { op: "add_import", params: { file: CART, import_statement: "import shop.money.Rate;" } },
      replaceTotal("    return Money.summ(1, 2);"),
    ]);
    expect(findings(result)).toEqual([
      "imports: the new import `shop.money.Rate` names no type of package shop.money (src/main/java/shop/money) | did you mean `shop.money.Rates`?",
      "imports: `Money.summ(…)` (line 12): Money (src/main/java/shop/money/Money.java) declares no method 'summ' | did you mean 'Money.sum'?",
    ]);
  });

  it("takes a name as resolved when a supertype outside the workspace may declare it", async () => {
    const result = await verify([
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "on", file: "src/main/java/shop/cart/Listener.java" },
          replacement: "void on() {\n    handle(inheritedField);\n  }",
        },
      },
    ]);
    expect(findings(result)).toEqual([]);
  });

  it("knows that a JDK supertype like EventListener gives no field and no method", async () => {
    const result = await verify([
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "on", file: "src/main/java/shop/cart/Plain.java" },
          replacement: "void on() {\n    handle(inheritedField);\n  }",
        },
      },
    ]);
    expect(findings(result).map((f) => f.split(" (")[0])).toEqual([
      "references: 'handle'",
      "references: 'inheritedField'",
    ]);
  });

  it("does not offer to import a method of another class: it suggests the name the class has", async () => {
    const result = await verify([replaceTotal("    return capped(sum());")]);
    expect(findings(result)).toEqual([
      "references: 'sum' (line 11 of src/main/java/shop/cart/Cart.java) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported | define 'sum' in the new code, or import it, or correct the name",
    ]);
  });
});

/**
 * rename_identifier on JavaScript and TypeScript, by ECMAScript's scoping. Exact results, refusals,
 * and an oracle: a real program run by node before and after renaming every name it declares
 * prints the same, and renaming back gives the original bytes.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, withTree, type Node } from "@graphplan/graph";
import { analyzeJavaScript } from "@graphplan/scope";
import ts from "typescript";
import { executeStep } from "./execute.js";

beforeAll(() => loadGrammars(["javascript", "typescript", "tsx"]));

type ScopeRef = string | { kind: string; name: string };
const rename = (source: string, name: string, newName: string, scope?: ScopeRef, file = "m.js"): string =>
  executeStep(
    {
      op: "rename_identifier",
      params: {
        file,
        name,
        new_name: newName,
        ...(scope
          ? { scope: typeof scope === "string" ? { kind: "function", name: scope, file } : { ...scope, file } }
          : {}),
      },
    },
    { [file]: source },
  ).files.get(file)!;

const PROGRAM = `const { join } = require("node:path");

function total(items, { rate = 1 } = {}) {
  let sum = 0;
  for (const item of items) {
    sum += item.price * rate;
  }
  if (sum > 10) {
    const sum = 10;
    return { sum };
  }
  var label = join("a", "b");
  return { sum, label, count: items.length };
}

const counter = (() => {
  let count = 0;
  return function next() {
    count += 1;
    return count;
  };
})();

class Cart {
  constructor(items) {
    this.items = items;
  }
  get size() {
    return this.items.length;
  }
}

try {
  counter();
  const cart = new Cart([{ price: 2 }, { price: 3 }]);
  console.log(JSON.stringify(total(cart.items)), cart.size, counter());
  throw new Error("done");
} catch (err) {
  console.log(err.message);
}
`;

describe("rename_identifier on JavaScript", () => {
  test("a local: its uses, a shorthand property keeps its key, an inner declaration of the same name is left", () => {
    const out = rename(PROGRAM, "sum", "acc", "total");
    expect(out).toContain(
      "  let acc = 0;\n  for (const item of items) {\n    acc += item.price * rate;\n  }\n  if (acc > 10) {\n    const sum = 10;\n    return { sum };\n  }",
    );
    expect(out).toContain("return { sum: acc, label, count: items.length };");
  });

  test("a destructured parameter with a default keeps its key; a module-level class", () => {
    expect(rename(PROGRAM, "rate", "factor", "total")).toContain("function total(items, { rate: factor = 1 } = {}) {");
    expect(rename(PROGRAM, "Cart", "Basket")).toContain("class Basket {");
  });

  test("TypeScript: types are left, values renamed", () => {
    const ts = "function area(w: number, h: number): number {\n  const size: number = w * h;\n  return size;\n}\n";
    expect(rename(ts, "size", "result", "area", "m.ts")).toBe(ts.replaceAll("size", "result"));
  });

  test.each([
    ["a name declared in the same scope", "sum", "label", "total", /label is already declared in function total/],
    [
      "a use an inner declaration would capture",
      "items",
      "item",
      "total",
      /this use of items would name another item \(declared in an inner scope\) instead/,
    ],
    [
      "a global used in the scope",
      "sum",
      "join",
      "total",
      /the join used here \(another declaration\) would be shadowed/,
    ],
  ])("refuses %s", (_name, name, newName, scope, message) => {
    expect(() => rename(PROGRAM, name, newName, scope)).toThrow(message);
  });

  test("refuses an exported name", () => {
    expect(() => rename("export function f() {}\nf();\n", "f", "g")).toThrow(/f is exported/);
  });
});

describe("rename_identifier on JavaScript, judged by node", () => {
  const dir = mkdtempSync(join(tmpdir(), "rename-js-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const output = (source: string): string => {
    writeFileSync(join(dir, "m.cjs"), source);
    return execFileSync(process.execPath, [join(dir, "m.cjs")], { encoding: "utf8" });
  };

  test("every declared name renamed gives the same output, and renaming back the same bytes", () => {
    const before = output(PROGRAM);
    expect(before).toBe('{"sum":5,"label":"a/b","count":2} 2 2\ndone\n');
    const names = withTree(PROGRAM, "javascript", (tree) =>
      analyzeJavaScript(tree).scopes.flatMap((s) =>
        [...s.bindings.values()].map((b) => ({
          name: b.name,
          fn: enclosingFunction(b.node, b.scope.kind === "program"),
        })),
      ),
    );
    expect(names.length).toBeGreaterThan(12);
    for (const { name, fn } of names) {
      const renamed = rename(PROGRAM, name, `${name}Renamed`, fn);
      expect(output(renamed), `${name} in ${JSON.stringify(fn ?? "the module")}`).toBe(before);
      // Renaming a function expression's own name renames the function the scope locator names.
      const back = fn && typeof fn !== "string" && fn.name === name ? { ...fn, name: `${name}Renamed` } : fn;
      expect(rename(renamed, `${name}Renamed`, name, back)).toBe(PROGRAM);
    }
  }, 60_000);
});

/** The named function whose scope a binding is in, as a locator's kind and name. */
function enclosingFunction(node: Node, moduleLevel: boolean): ScopeRef | undefined {
  if (moduleLevel) return undefined;
  const KINDS: Record<string, string> = {
    function_declaration: "function",
    method_definition: "method",
    function_expression: "lambda",
  };
  for (let n: Node | null = node.parent; n; n = n.parent) {
    const name = KINDS[n.type] ? n.childForFieldName("name")?.text : undefined;
    if (name) return { kind: KINDS[n.type]!, name };
  }
  return undefined;
}

const TSX = `/** @jsx h */
const h = (tag: any, props: any, ...children: any[]): string =>
  typeof tag === "function" ? tag({ ...props, children }) : \`<\${tag}>\${children.flat().join("")}</\${tag}>\`;

const defaults = { unit: "€" };

function Row({ label, price }: { label: string; price: number }) {
  const shown: typeof defaults = defaults;
  return <li>{label}: {price}{shown.unit}</li>;
}

function List({ items }: { items: { label: string; price: number }[] }) {
  const Item = Row;
  return <ul>{items.map((item) => <Item label={item.label} price={item.price} />)}</ul>;
}

console.log(<List items={[{ label: "a", price: 2 }, { label: "b", price: 3 }]} />);
`;

describe("rename_identifier on TSX, judged by TypeScript's transpiler and node", () => {
  const dir = mkdtempSync(join(tmpdir(), "rename-tsx-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const output = (source: string): string => {
    const js = ts.transpileModule(source, {
      compilerOptions: { jsx: ts.JsxEmit.React, module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 },
    }).outputText;
    writeFileSync(join(dir, "m.cjs"), js);
    return execFileSync(process.execPath, [join(dir, "m.cjs")], { encoding: "utf8" });
  };

  test("a component used as a tag, and a value named by typeof in a type, are renamed; <li> is not a name", () => {
    const row = rename(TSX, "Row", "PriceRow", undefined, "m.tsx");
    expect(row).toContain("function PriceRow({ label, price }");
    expect(row).toContain("const Item = PriceRow;");
    const item = rename(TSX, "Item", "Entry", "List", "m.tsx");
    expect(item).toContain("<Entry label={item.label} price={item.price} />");
    const defaults = rename(TSX, "defaults", "settings", undefined, "m.tsx");
    expect(defaults).toContain("const shown: typeof settings = settings;");
    expect(() => rename(TSX, "label", "li", "Row", "m.tsx")).not.toThrow();
    const react = 'import React from "react";\n\nexport const App = () => <div />;\n';
    expect(() => rename(react, "React", "R", undefined, "app.tsx")).toThrow(
      /compiles to calls of React \(React.createElement, under the classic runtime\)/,
    );
  });

  test("every declared name renamed gives the same output, and renaming back the same bytes", () => {
    const before = output(TSX);
    expect(before).toBe("<ul><li>a: 2€</li><li>b: 3€</li></ul>\n");
    const names = withTree(TSX, "tsx", (tree) =>
      analyzeJavaScript(tree).scopes.flatMap((s) =>
        [...s.bindings.values()].map((b) => ({
          name: b.name,
          fn: enclosingFunction(b.node, b.scope.kind === "program"),
        })),
      ),
    );
    expect(names.map((n) => n.name)).toEqual(
      expect.arrayContaining(["h", "defaults", "Row", "List", "label", "price", "shown", "items", "Item", "item"]),
    );
    for (const { name, fn } of names) {
      // The @jsx pragma's factory: every element calls it, unnamed.
      if (name === "h") {
        expect(() => rename(TSX, name, `${name}Renamed`, fn, "m.tsx")).toThrow(
          /the file's JSX compiles to calls of h \(its @jsx pragma\)/,
        );
        continue;
      }
      const renamed = rename(TSX, name, `${name}Renamed`, fn, "m.tsx");
      expect(output(renamed), `${name} in ${JSON.stringify(fn ?? "the module")}`).toBe(before);
      expect(rename(renamed, `${name}Renamed`, name, fn, "m.tsx")).toBe(TSX);
    }
  }, 60_000);
});

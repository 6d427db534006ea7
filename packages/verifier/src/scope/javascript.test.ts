import { beforeAll, describe, expect, it } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { Sim } from "../sim.js";
import { scopeModel } from "./index.js";

beforeAll(() => loadGrammars(["javascript", "typescript"]));

function unresolved(source: string, path = "m.js"): string[] {
  const start = source.indexOf("«");
  const end = source.indexOf("»") - 1;
  const sim = new Sim(new Map([[path, source.replace("«", "").replace("»", "")]]));
  try {
    const doc = sim.doc(path)!;
    const found = scopeModel(doc.language)!.unresolved(doc, start, end);
    return found === "unknown" ? ["unknown"] : found.map((u) => u.name);
  } finally {
    sim.dispose();
  }
}

describe("javascript/typescript scope model (L3)", () => {
  it("resolves imports, declarations, destructuring, parameters, catch and loop variables, globals", () => {
    const src = `import D, { a as b } from "m";\nimport * as ns from "n";\nconst { x, y: z, ...rest } = obj;\nfunction f(u, { v }, w = 2, ...more) {\n«  let k = u + v + w + more.length + x + z + rest + D + b + ns.q;\n  for (const it of [k]) { try { console.log(it); } catch (e) { throw new Error(String(e)); } }\n  const g = (h) => h * 2;\n  return g(k) + arguments.length + Math.max(1, 2) + f.length;»\n}\nconst obj = {};\n`;
    expect(unresolved(src)).toEqual([]);
  });

  it("reports names declared nowhere, including shorthand properties, and not property names", () => {
    expect(unresolved(`function f(a) {\n«  return { a, missing, key: other.prop }.key;»\n}\n`)).toEqual([
      "missing",
      "other",
    ]);
  });

  it("does not leak a function's locals or parameters to its siblings", () => {
    expect(unresolved(`function f(p) { const local = p; return local; }\n«g(p, local);»\nfunction g() {}\n`)).toEqual([
      "p",
      "local",
    ]);
  });

  it("checks TypeScript values, not types", () => {
    expect(
      unresolved(
        `enum Color { Red }\n«function paint(c: Color, n: Missing): void { use(Color.Red, c, n); }»\n`,
        "m.ts",
      ),
    ).toEqual(["use"]);
  });

  it("knows block scoping: a let of another block is not visible, a var of the function is", () => {
    expect(
      unresolved(`function f(a) {\n  if (a) { let inner = 1; var hoisted = 2; }\n«  return inner + hoisted;»\n}\n`),
    ).toEqual(["inner"]);
  });
});

/**
 * Plans enter only through `parsePlan` of @graphplan/catalog (docs/design.md, "The plan language"). The brand on
 * primitives' `Plan` type keeps JSON and hand-built plans away from `runPlan` and `applyPlan`; this keeps a cast
 * from making one anywhere else: no `as Plan`, no `<Plan>`, no literal declared `: Plan`, and no other use of the
 * brand's name (a zod schema's `.brand<…>()` would make one), in the source and the tests of every workspace. The
 * two places that make the brand are the parse itself and primitives' test fixture (primitives sits below the
 * catalog, so its tests read plans with the plan's schema instead); `Plan` itself names it in primitives' plan.ts.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT, sourceFiles } from "./front-doors.js";

const MINTS = new Set(["packages/catalog/src/parse.ts", "packages/primitives/src/fixtures/plan.ts"]);
/** The brand's name (written in two parts here so that this file does not name it). */
const BRAND = ["GraphPlan", "parsePlan"].join(".");
const BRANDED_IN = "packages/primitives/src/plan.ts";

const isPlan = (type: ts.TypeNode | undefined): boolean =>
  !!type && ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName) && type.typeName.text === "Plan";

/** Where `text` makes a `Plan` by assertion, by declaring a literal one or by the brand's name: `line: code`. */
export function planCasts(fileName: string, text: string): string[] {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind);
  const found: string[] = [];
  const report = (node: ts.Node) =>
    found.push(`${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${node.getText().slice(0, 80)}`);
  const visit = (node: ts.Node): void => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && isPlan(node.type)) report(node);
    if (ts.isStringLiteral(node) && node.text === BRAND) report(node);
    if (
      ts.isVariableDeclaration(node) &&
      isPlan(node.type) &&
      node.initializer &&
      (ts.isArrayLiteralExpression(node.initializer) || ts.isObjectLiteralExpression(node.initializer))
    )
      report(node);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe("a Plan comes from parsePlan", () => {
  it("finds the casts it forbids, and not the names that only look alike", () => {
    const text = [
      "const a = json as Plan;",
      "const b = (json as never) as Plan;",
      "const c: Plan = [{ op: 'x', params: {} }];",
      "const d = <Plan>json;",
      `const e = z.array(z.unknown()).brand<"${BRAND}">().parse(json);`,
      "const ok1 = json as PlanIssue;",
      "const ok2: Plan = parsed.plan;",
      "// a comment: json as Plan",
    ].join("\n");
    expect(planCasts("x.ts", text).map((s) => s.split(":")[0])).toEqual(["1", "2", "3", "4", "5"]);
  });

  it("is made nowhere but by the parse (and primitives' test fixture)", () => {
    const casts: string[] = [];
    for (const group of ["packages", "apps", "benchmarks"])
      for (const path of sourceFiles(join(ROOT, group))) {
        const name = relative(ROOT, path);
        if (!/\.tsx?$/.test(name)) continue;
        for (const cast of planCasts(name, readFileSync(path, "utf8"))) {
          const brandOnly = cast.includes(BRAND);
          if (brandOnly ? name !== BRANDED_IN : !MINTS.has(name)) casts.push(`${name}:${cast}`);
        }
      }
    expect(casts, "read the plan with parsePlan (tests: parsePlanOrThrow of @graphplan/catalog/testing)").toEqual([]);
  });
});

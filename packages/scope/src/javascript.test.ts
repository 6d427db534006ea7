import { beforeAll, expect, test } from "vitest";
import { loadGrammars, withTree } from "@graphplan/graph";
import { analyzeJavaScript } from "./javascript.js";

beforeAll(() => loadGrammars(["javascript", "typescript", "tsx"]));

/** Each occurrence as `name@line->line of its binding` (`-`: a global or undeclared). */
const resolved = (source: string): string[] =>
  withTree(source, "javascript", (tree) =>
    analyzeJavaScript(tree).occurrences.map(
      (o) => `${o.name}@${o.node.startPosition.row + 1}->${o.binding ? o.binding.node.startPosition.row + 1 : "-"}`,
    ),
  );

test("var is the function's, let and const the block's, function declarations hoisted; properties are not names, shorthands are", () => {
  const source = [
    "function f(a) {", //               1
    "  if (a) {", //                    2
    "    var v = g(a);", //             3
    "    let w = { v, k: a.x };", //    4
    "  }", //                           5
    "  return v + w;", //               6
    "  function g(x) { return x; }", // 7
    "}", //                             8
  ].join("\n");
  expect(resolved(source)).toEqual([
    "f@1->1",
    "a@1->1",
    "a@2->1",
    "v@3->3",
    "g@3->7",
    "a@3->1",
    "w@4->4",
    "v@4->3",
    "a@4->1",
    "v@6->3",
    "w@6->-",
    "g@7->7",
    "x@7->7",
    "x@7->7",
  ]);
});

test("a for-of's const is in scope while its right side runs; a catch parameter in its handler; exports are listed", () => {
  const source = "export const items = [];\nfor (const item of items) use(item);\ntry {} catch (e) { log(e); }\n";
  expect(resolved(source)).toEqual([
    "items@1->1",
    "item@2->2",
    "items@2->1",
    "use@2->-",
    "item@2->2",
    "e@3->3",
    "log@3->-",
    "e@3->3",
  ]);
  expect(withTree(source, "javascript", (tree) => [...analyzeJavaScript(tree).exported])).toEqual(["items"]);
});

test("TypeScript: `typeof x` in a type names the value x, in any type; other type names are not values", () => {
  const source =
    "const config = { a: 1 };\nfunction f(c: typeof config, d: typeof config.a): Array<typeof c> {\n  const local: Missing = c;\n  return [local];\n}\ntype T = typeof config;\n";
  const got = withTree(source, "typescript", (tree) =>
    analyzeJavaScript(tree).occurrences.map(
      (o) => `${o.name}@${o.node.startPosition.row + 1}->${o.binding ? o.binding.node.startPosition.row + 1 : "-"}`,
    ),
  );
  expect(got).toEqual([
    "config@1->1",
    "f@2->2",
    "c@2->2",
    "config@2->1",
    "d@2->2",
    "config@2->1",
    "c@2->2",
    "local@3->3",
    "c@3->2",
    "local@4->3",
    "config@6->1",
  ]);
});

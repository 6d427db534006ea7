import { beforeAll, expect, test } from "vitest";
import { loadGrammars, withTree } from "@graphplan/graph";
import { analyzeJava } from "./java.js";

beforeAll(() => loadGrammars(["java"]));

/** Each occurrence as `name@line->line of its local` (`-`: not a local — a field, a member, another class's name). */
const resolved = (source: string): string[] =>
  withTree(source, "java", (tree) =>
    analyzeJava(tree).occurrences.map(
      (o) => `${o.name}@${o.node.startPosition.row + 1}->${o.binding ? o.binding.node.startPosition.row + 1 : "-"}`,
    ),
  );

test("locals by block, parameters in the body, lambdas capturing them; fields, methods and labels are not locals", () => {
  const source = [
    "class A {", //                                  1
    "  int n;", //                                   2
    "  int f(int a) {", //                           3
    "    int b = a + n;", //                         4
    "    { int c = b; b = c; }", //                  5
    "    java.util.function.IntUnaryOperator g = x -> x + a;", // 6
    "    out: for (int i = 0; i < b; i++) { this.n = i; break out; }", // 7
    "    return g.applyAsInt(b);", //                8
    "  }", //                                        9
    "}", //                                          10
  ].join("\n");
  expect(resolved(source)).toEqual([
    "a@3->3",
    "b@4->4",
    "a@4->3",
    "n@4->-",
    "c@5->5",
    "b@5->4",
    "b@5->4",
    "c@5->5",
    "g@6->6",
    "x@6->6",
    "x@6->6",
    "a@6->3",
    "i@7->7",
    "i@7->7",
    "b@7->4",
    "i@7->7",
    "i@7->7",
    "g@8->6",
    "b@8->4",
  ]);
});

test("a pattern variable, a catch parameter and a resource are locals of their statement", () => {
  const source =
    "class A {\n  void f(Object o) {\n    if (o instanceof String s) { use(s); }\n    try (var r = open()) { r.run(); } catch (Exception e) { log(e); }\n  }\n}\n";
  expect(resolved(source)).toEqual(["o@2->2", "o@3->2", "s@3->3", "s@3->3", "r@4->4", "r@4->4", "e@4->4", "e@4->4"]);
});

test("found on the JDK's sources: else-if chains redeclaring a pattern variable, negated tests, switch patterns, annotation elements", () => {
  const source = [
    "class A {", //                                                                  1
    "  static int of(Object v) {", //                                                2
    "    if (v instanceof String s) { return s.length(); }", //                      3
    "    else if (v instanceof Short s) { return s; }", //                           4
    "    if (!(v instanceof Integer n)) return 0;", //                               5
    "    return switch (v) { case Long i -> i.intValue(); case P(int x, int y) -> x + y; default -> n; };", // 6
    "  }", //                                                                        7
    "  @interface N { int value(); }", //                                            8
    "}", //                                                                          9
  ].join("\n");
  expect(resolved(source)).toEqual([
    "v@2->2",
    "v@3->2",
    "s@3->3",
    "s@3->3",
    "v@4->2",
    "s@4->4",
    "s@4->4",
    "v@5->2",
    "n@5->5",
    "v@6->2",
    "i@6->6",
    "i@6->6",
    "P@6->-",
    "x@6->6",
    "y@6->6",
    "x@6->6",
    "y@6->6",
    "n@6->5",
  ]);
});

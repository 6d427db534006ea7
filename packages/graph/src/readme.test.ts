/** The example that opens README.md, verbatim, so it cannot rot. */
import { expect, it, vi } from "vitest";

it("runs the README example", async () => {
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  // --- README example ---
  const { buildGraph, graphView } = await import("@graphplan/graph");

  const graph = await buildGraph([
    {
      path: "shop/cart.py",
      source:
        "from .models import Item\n\n\nclass Cart:\n    def add(self, item):\n        if item:\n            return 1\n",
    },
    { path: "shop/util.ts", source: 'import { z } from "zod";\nexport const id = (x: string) => x;\n' },
  ]);
  console.log(graphView(graph));
  console.log(graph.line_kinds["shop/cart.py"]); // { '6': 'if_statement', '7': 'return_statement' }
  // --- end ---
  expect(log.mock.calls).toEqual([
    [
      [
        "FILE: shop/cart.py",
        "  IMPORT: from .models import Item [line 1]",
        "  CLASS: Cart (lines 4-7)",
        "  FUNCTION: add (lines 5-7)",
        "FILE: shop/util.ts",
        "  IMPORT: from zod import z [line 1]",
        "  FUNCTION: id (lines 2-2)",
      ].join("\n"),
    ],
    [{ "6": "if_statement", "7": "return_statement" }],
  ]);
  log.mockRestore();
});

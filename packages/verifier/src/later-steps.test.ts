/**
 * `references` and `imports` judged on the state the plan leaves: a finding that a later step of
 * the same plan answers (it defines the name an earlier step imports, imports the name an earlier
 * step uses) is dropped; one the plan leaves unanswered stays, with its step.
 */
import { buildGraph } from "@graphplan/graph";
import { describe, expect, it } from "vitest";
import { verifyPlan, type VerifyResult } from "./index.js";

async function verify(
  files: ReadonlyMap<string, string>,
  plan: unknown,
  graphed = (path: string) => path !== "go.mod",
): Promise<VerifyResult> {
  const graph = await buildGraph(
    [...files].filter(([path]) => graphed(path)).map(([path, source]) => ({ path, source })),
  );
  return verifyPlan(plan, files, graph);
}
const names = (result: VerifyResult) =>
  result.issues
    .filter((i) => i.check === "references" || i.check === "imports")
    .map((i) => `step ${i.step! + 1} ${i.check}: ${i.message}`);

describe("Python: names a later step answers", () => {
  const files = new Map([
    ["app/helpers.py", "def first(items):\n    return items[0]\n"],
    [
      "app/ctx.py",
      "from .helpers import first\n\n\ndef teardown(callbacks):\n    for cb in callbacks:\n        cb()\n",
    ],
  ]);
  // Step 1 imports and uses a class that step 2 defines (the shape of a real flask commit).
  const useIt = {
    op: "replace_node",
    params: {
      locator: { kind: "import", file: "app/ctx.py" },
      replacement: "from .helpers import _CollectErrors, first",
    },
  };
  const callIt = {
    op: "replace_node",
    params: {
      locator: { kind: "function", name: "teardown", file: "app/ctx.py" },
      replacement:
        "def teardown(callbacks):\n    collect = _CollectErrors()\n    for cb in callbacks:\n        with collect:\n            cb()\n    collect.raise_any()",
    },
  };
  const defineIt = {
    op: "insert_after_node",
    params: {
      locator: { kind: "function", name: "first", file: "app/helpers.py" },
      code: "class _CollectErrors:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n        return True\n\n    def raise_any(self):\n        pass",
    },
  };

  it("does not warn that helpers.py lacks a name a later step defines", async () => {
    const result = await verify(files, [useIt, callIt, defineIt]);
    expect(result.errors).toEqual([]);
    expect(names(result)).toEqual([]);
  });

  it("still warns when no step defines it", async () => {
    const result = await verify(files, [useIt, callIt]);
    expect(names(result)).toEqual([
      "step 1 imports: the new import `from .helpers import _CollectErrors, first` names '_CollectErrors', which app/helpers.py does not define",
    ]);
  });

  it("does not warn about a name used in one step and imported by a later one, and keeps a misspelling no step answers", async () => {
    const use = {
      op: "replace_node",
      params: {
        locator: { kind: "function", name: "teardown", file: "app/ctx.py" },
        replacement:
          "def teardown(callbacks):\n    for cb in callbacks:\n        log(cb)\n        cb()\n    return lenght(callbacks)",
      },
    };
    const importLog = { op: "add_import", params: { file: "app/ctx.py", import_statement: "from logging import log" } };
    expect(names(await verify(files, [use]))).toEqual([
      "step 1 references: 'log' (line 6 of app/ctx.py) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported",
      "step 1 references: 'lenght' (line 8 of app/ctx.py) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported",
    ]);
    expect(names(await verify(files, [use, importLog]))).toEqual([
      "step 1 references: 'lenght' (line 8 of app/ctx.py) is not defined: not in scope at the edit point, not defined in the new code, not a builtin and not imported",
    ]);
  });
});

describe("Go: names a later step answers", () => {
  const files = new Map([
    ["go.mod", "module example.com/shop\n\ngo 1.21\n"],
    ["money/money.go", "package money\n\ntype Amount int\n\nfunc Sum(a, b Amount) Amount {\n\treturn a + b\n}\n"],
    [
      "cart/cart.go",
      'package cart\n\nimport "example.com/shop/money"\n\nfunc Total(a, b money.Amount) money.Amount {\n\treturn money.Sum(a, b)\n}\n',
    ],
  ]);
  const useRound = {
    op: "replace_node",
    params: {
      locator: { kind: "function", name: "Total", file: "cart/cart.go" },
      replacement: "func Total(a, b money.Amount) money.Amount {\n\treturn money.Round(money.Sum(a, b))\n}",
    },
  };
  const defineRound = {
    op: "insert_after_node",
    params: {
      locator: { kind: "function", name: "Sum", file: "money/money.go" },
      code: "func Round(a Amount) Amount {\n\treturn a\n}",
    },
  };

  it("does not warn that package money lacks a function a later step adds to it", async () => {
    expect(names(await verify(files, [useRound]))).toEqual([
      "step 1 imports: `money.Round` (line 6): package money (money) does not declare 'Round'",
    ]);
    const result = await verify(files, [useRound, defineRound]);
    expect(result.errors).toEqual([]);
    expect(names(result)).toEqual([]);
  });
});

/** EXECUTE on a real git repository: applyPlan is all or nothing. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";
import { Workspace } from "@graphplan/runtime";
import { executePhase } from "./execute.js";
import { SHOP, read, shopRepo, status } from "./fixtures/repo.js";

const run = (repo: string, plan: unknown) =>
  Effect.runPromise(executePhase(parsePlanOrThrow(plan)).pipe(Effect.provide(Workspace.layer(repo))));
const bytes = (repo: string) =>
  ["shop/cart.py", "shop/pricing.py", "shop/__init__.py"].map((f) => readFileSync(join(repo, f)).toString("hex"));

describe("EXECUTE", () => {
  it("a failing step leaves every file byte-identical and `git status --porcelain` empty", async () => {
    const repo = shopRepo();
    const before = bytes(repo);
    const record = await run(repo, [
      // Succeeds in memory: the discount check is removed...
      {
        op: "delete_node",
        params: {
          locator: { kind: "if", file: "shop/pricing.py", parent: { kind: "function", name: "apply_discount" } },
        },
      },
      // ...and the cart is edited...
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "total", file: "shop/cart.py" },
          replacement: "def total(self):\n    return 0",
        },
      },
      // ...but this step matches nothing, so nothing is written.
      { op: "delete_node", params: { locator: { kind: "function", name: "no_such_function", file: "shop/cart.py" } } },
    ]);
    expect(record).toMatchObject({
      ok: false,
      step: 3,
      op: "delete_node",
      error: expect.stringContaining("no_such_function"),
    });
    expect(bytes(repo)).toEqual(before);
    expect(status(repo)).toBe("");
  });

  it("a successful plan writes the changed files and says which", async () => {
    const repo = shopRepo();
    const record = await run(repo, [
      {
        op: "replace_node",
        params: {
          locator: { kind: "method", name: "total", file: "shop/cart.py" },
          replacement: "def total(self):\n    return 0",
        },
      },
    ]);
    expect(record).toEqual({ ok: true, written: ["shop/cart.py"], created: [], deleted: [] });
    expect(read(repo, "shop/cart.py")).toBe(
      read(SHOP, "shop/cart.py").replace("return sum(price for _name, price, _quantity in self.items)", "return 0"),
    );
    expect(status(repo)).toBe(" M shop/cart.py\n");
  });

  it("a plan that adds a test file and renames a module records what it created and deleted, and git sees it", async () => {
    const repo = shopRepo();
    const record = await run(repo, [
      {
        op: "create_file",
        params: {
          path: "tests/test_cart.py",
          content: "from shop.cart import Cart\n\n\ndef test_empty():\n    assert Cart().total() == 0\n",
        },
      },
      { op: "rename_file", params: { from: "shop/cart.py", to: "shop/basket.py" } },
    ]);
    expect(record).toEqual({
      ok: true,
      written: ["tests/test_cart.py", "shop/basket.py"],
      created: ["tests/test_cart.py", "shop/basket.py"],
      deleted: ["shop/cart.py"],
    });
    expect(status(repo)).toBe(" D shop/cart.py\n?? shop/basket.py\n?? tests/test_cart.py\n");
  });

  it("an apply error (a path outside the repository) is a failed record, not a crash", async () => {
    const repo = shopRepo();
    const record = await run(repo, [
      { op: "delete_node", params: { locator: { kind: "function", name: "f", file: "../outside.py" } } },
    ]);
    expect(record).toMatchObject({
      ok: false,
      step: null,
      op: null,
      error: expect.stringContaining('path "../outside.py" is not inside the workspace'),
    });
    expect(status(repo)).toBe("");
  });
});

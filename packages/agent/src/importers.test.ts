/**
 * VERIFY gives the verifier the repository's files that import the plan's files, so its layer 6
 * names them: real files (the shop fixture in a temporary directory) through `Workspace.layer`,
 * real tree-sitter parses.
 */
import { appendFileSync, cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { Workspace } from "@graphplan/runtime";
import { SHOP, configWith, tempDir } from "./fixtures/repo.js";
import { Session } from "./session.js";
import { verifyPhase } from "./verify.js";

/** The shop project in a temporary directory, plus `extra` files. */
function shopDir(extra: Record<string, string> = {}): string {
  const dir = tempDir("graphplan-importers-");
  cpSync(SHOP, dir, { recursive: true });
  for (const [path, text] of Object.entries(extra)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function verifier(dir: string, config: unknown = {}) {
  const session = new Session(await configWith(config));
  const verify = (plan: unknown[], files: string[]) =>
    Effect.runPromise(verifyPhase(session, plan as never, files).pipe(Effect.provide(Workspace.layer(dir))));
  return { session, verify };
}

const DISCOUNT = { kind: "function", name: "apply_discount", file: "shop/pricing.py" };
const DELETE_DISCOUNT = [{ op: "delete_node", params: { locator: DISCOUNT } }];
const RENAME_DISCOUNT = [
  {
    op: "replace_node",
    params: {
      locator: DISCOUNT,
      replacement: "def discount(amount, percent):\n    return amount - amount * percent / 100",
    },
  },
];
const layer6 = (warnings: readonly string[]) =>
  warnings.filter((w) => w.includes("is imported by files not in this plan"));

describe("VERIFY and the files that import the plan's files", () => {
  it("warns (layer 6) that a deleted function is imported by a file EXPLORE did not name", async () => {
    // Not walked: node_modules (a file there imports shop.pricing too).
    const dir = shopDir({ "node_modules/lib/uses.py": "from shop.pricing import apply_discount\n" });
    const { verify } = await verifier(dir);
    const { result, importers } = await verify(DELETE_DISCOUNT, ["shop/pricing.py"]);
    expect(importers).toMatchObject({ added: ["shop/cart.py"] });
    expect(importers.skipped).toBeUndefined();
    expect(layer6(result.warnings)).toEqual([
      expect.stringContaining("'apply_discount' (removed) is imported by files not in this plan: ['shop/cart.py']"),
    ]);
  });

  it("warns that a renamed function is imported, through a relative import too", async () => {
    const dir = shopDir({
      "shop/checkout.py":
        "from .pricing import apply_discount\n\n\ndef pay(amount):\n    return apply_discount(amount, 10)\n",
      "shop/unrelated.py": "from .cart import Cart\nimport os\n",
    });
    const { verify } = await verifier(dir);
    const { result, importers } = await verify(RENAME_DISCOUNT, ["shop/pricing.py"]);
    // shop/__init__.py (imports shop.cart), check.py (imports shop) and shop/unrelated.py do not import shop/pricing.py.
    expect(importers.added).toEqual(["shop/cart.py", "shop/checkout.py"]);
    expect(layer6(result.warnings)).toEqual([
      expect.stringContaining(
        "'apply_discount' (renamed to 'discount') is imported by files not in this plan: ['shop/cart.py', 'shop/checkout.py']",
      ),
    ]);
  });

  it("does not search a repository with more than limits.max_repo_files source files, and says why", async () => {
    const { verify } = await verifier(shopDir(), { limits: { max_repo_files: 3 } });
    const { result, importers } = await verify(DELETE_DISCOUNT, ["shop/pricing.py"]);
    expect(importers).toEqual({
      added: [],
      parsed: [],
      skipped: "the repository has more than limits.max_repo_files (3) source files",
    });
    expect(layer6(result.warnings)).toEqual([]);
  });

  it("keeps the repository's graphs across verifications: only changed files are parsed again", async () => {
    const dir = shopDir({ "shop/checkout.py": "from shop.cart import Cart\n" });
    const { verify } = await verifier(dir);
    const first = await verify(DELETE_DISCOUNT, ["shop/pricing.py"]);
    expect(first.importers.parsed).toEqual(["check.py", "shop/__init__.py", "shop/cart.py", "shop/checkout.py"]);
    expect(first.importers.added).toEqual(["shop/cart.py"]);

    // checkout.py now imports pricing too; nothing else changed.
    appendFileSync(join(dir, "shop/checkout.py"), "from shop.pricing import apply_discount\n");
    const second = await verify(RENAME_DISCOUNT, ["shop/pricing.py"]);
    expect(second.importers.parsed).toEqual(["shop/checkout.py"]);
    expect(second.importers.added).toEqual(["shop/cart.py", "shop/checkout.py"]);
    expect(layer6(second.result.warnings)).toEqual([expect.stringContaining("['shop/cart.py', 'shop/checkout.py']")]);
  });

  it("finds TypeScript and TSX files importing a TypeScript file by a relative specifier", async () => {
    const dir = tempDir("graphplan-importers-ts-");
    const files: Record<string, string> = {
      "src/math.ts": "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
      "src/app.ts": 'import { add } from "./math.js";\n\nexport const three = add(1, 2);\n',
      "src/view/panel.tsx": 'import { add } from "../math";\n\nexport const Panel = () => <b>{add(1, 1)}</b>;\n',
      "src/other.ts": 'import { add } from "mathlib";\n\nexport const four = add(2, 2);\n',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const { verify } = await verifier(dir);
    const plan = [
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "add", file: "src/math.ts" },
          replacement: "export function sum(a: number, b: number): number {\n  return a + b;\n}",
        },
      },
    ];
    const { result, importers } = await verify(plan, ["src/math.ts"]);
    expect(importers.added).toEqual(["src/app.ts", "src/view/panel.tsx"]);
    expect(layer6(result.warnings)).toEqual([expect.stringContaining("['src/app.ts', 'src/view/panel.tsx']")]);
  });
});

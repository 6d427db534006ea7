/**
 * rename_across_files: a module-level Python name renamed in its module and its importers, judged by
 * CPython — the package imports and computes the same before and after, and `symtable` binds the
 * new name exactly where the old one was.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadGrammars } from "@graphplan/graph";
import { cpythonScopes, tempDir } from "@graphplan/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { runFormalPlan } from "./index.js";
import { parsePlanOrThrow } from "./testing.js";

beforeAll(() => loadGrammars(["python"]));

const FILES = new Map([
  ["pkg/__init__.py", ""],
  [
    "pkg/pricing.py",
    `__all__ = ["total", "TAX"]

TAX = 0.2


def total(items):
    return sum(items) * (1 + TAX)


def report(items):
    # a local that shadows the module's name: not renamed
    total = len(items)
    return f"{total} items"


def twice(items):
    return total(items) * 2
`,
  ],
  [
    "pkg/cart.py",
    `from pkg.pricing import TAX, total


def checkout(items):
    return round(total(items), 2)


def label(total):
    return "total: %s" % total
`,
  ],
  [
    "pkg/receipt.py",
    `from .pricing import total as pricing_total\n\n\ndef receipt(items):\n    return "%.2f" % pricing_total(items)\n`,
  ],
  [
    "pkg/api.py",
    `from pkg.pricing import total as total\n\n__all__ = ["total"]\n\n\ndef api_total(items):\n    return total(items)\n`,
  ],
  [
    "pkg/audit.py",
    `import pkg.pricing\nimport pkg.pricing as p\n\n\ndef audit(items):\n    return (pkg.pricing.total(items), p.total(items), p.twice(items), lazy(items))\n\n\ndef lazy(items):\n    from .pricing import total\n\n    return total(items)\n`,
  ],
]);

const IMPORTERS = ["pkg/cart.py", "pkg/receipt.py", "pkg/audit.py", "pkg/api.py"];

function rename(files: ReadonlyMap<string, string>, name: string, newName: string, importers = IMPORTERS) {
  return runFormalPlan(
    parsePlanOrThrow([
      { op: "rename_across_files", params: { file: "pkg/pricing.py", name, new_name: newName, importers } },
    ]),
    files,
  );
}

/** What the package computes, by CPython: each module imported and called. */
function behaviour(files: ReadonlyMap<string, string>): string {
  const root = tempDir();
  for (const [path, text] of files) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const script =
    "from pkg.cart import checkout, label; from pkg.receipt import receipt; from pkg.audit import audit; from pkg import pricing; print(checkout([1, 2]), label(3), receipt([1]), audit([1]), pricing.report([1, 2]), sorted(pricing.__all__))";
  return execFileSync("python3", ["-c", script], { cwd: root, encoding: "utf8" }).trim();
}

describe("rename_across_files", () => {
  it("renames the definition, its module's uses and __all__, and every importer's import and uses; CPython computes the same", () => {
    const result = rename(FILES, "total", "grand_total");
    expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
    if (!result.ok) return;
    const out = result.files;
    expect(out.get("pkg/pricing.py")).toContain('__all__ = ["grand_total", "TAX"]');
    expect(out.get("pkg/pricing.py")).toContain("def grand_total(items):");
    expect(out.get("pkg/pricing.py")).toContain('    total = len(items)\n    return f"{total} items"');
    expect(out.get("pkg/pricing.py")).toContain("    return grand_total(items) * 2");
    expect(out.get("pkg/cart.py")).toBe(
      FILES.get("pkg/cart.py")!
        .replace("import TAX, total", "import TAX, grand_total")
        .replace("round(total(items)", "round(grand_total(items)"),
    );
    expect(out.get("pkg/receipt.py")).toContain("from .pricing import grand_total as pricing_total\n");
    // An explicit re-export (`name as name`) renames both sides and the file's uses.
    expect(out.get("pkg/api.py")).toBe(
      'from pkg.pricing import grand_total as grand_total\n\n__all__ = ["grand_total"]\n\n\ndef api_total(items):\n    return grand_total(items)\n',
    );
    expect(out.get("pkg/audit.py")).toContain(
      "return (pkg.pricing.grand_total(items), p.grand_total(items), p.twice(items), lazy(items))",
    );
    // A function-local import is renamed in its function.
    expect(out.get("pkg/audit.py")).toContain(
      "def lazy(items):\n    from .pricing import grand_total\n\n    return grand_total(items)\n",
    );
    expect(behaviour(out)).toBe(behaviour(FILES).replace("'total'", "'grand_total'"));
    // symtable: the module and the importer bind the new name, not the old; label's parameter is still `total`.
    const [pricing, cart] = cpythonScopes([out.get("pkg/pricing.py")!, out.get("pkg/cart.py")!]);
    expect(pricing!.module).toContain("grand_total");
    expect(pricing!.module).not.toContain("total");
    expect(cart!.module).toEqual(["TAX", "checkout", "grand_total", "label"]);
    expect(cart!.scopes.find((s) => s.scope.startsWith("function label"))!.names).toEqual({ total: "local" });
  });

  it("gives the original bytes back when renamed back", () => {
    const there = rename(FILES, "total", "grand_total");
    if (!there.ok) throw there.error;
    const back = rename(there.files, "grand_total", "total");
    if (!back.ok) throw back.error;
    expect(Object.fromEntries(back.files)).toEqual(Object.fromEntries(FILES));
  });

  it("refuses a new name taken in the module or in an importer, and an importer that does not import it; nothing changes", () => {
    const inModule = rename(FILES, "total", "twice");
    expect(inModule.ok).toBe(false);
    if (!inModule.ok)
      expect(inModule.error.message).toMatch(
        /Cannot rename total to twice in pkg\/pricing\.py: twice is already bound/,
      );
    const inImporter = rename(FILES, "total", "checkout");
    expect(inImporter.ok).toBe(false);
    if (!inImporter.ok) expect(inImporter.error.message).toMatch(/Cannot rename total to checkout in pkg\/cart\.py/);
    const stranger = rename(new Map([...FILES, ["pkg/other.py", "import os\n"]]), "total", "grand_total", [
      ...IMPORTERS,
      "pkg/other.py",
    ]);
    expect(stranger.ok).toBe(false);
    if (!stranger.ok)
      expect(stranger.error.message).toMatch(/pkg\/other\.py: the file neither imports total from pkg\/pricing\.py/);
    for (const r of [inModule, inImporter, stranger])
      expect(r.files.get("pkg/pricing.py")).toBe(FILES.get("pkg/pricing.py"));
  });
});

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bareClone, git, makeRepo } from "@graphplan/testkit";
import { ReportSchema } from "./report.js";
import { readRepoMap } from "../options.js";
import { runReplay } from "./batch.js";

const root = mkdtempSync(join(tmpdir(), "graphplan-bench-replay-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// Two repositories: one under --repos as owner__name (bare), one found through --repo-map (work tree).
const shop = makeRepo(root, "shop-src");
const shopBase = shop.commit({
  "shop/cart.py": [
    "import os",
    "",
    "",
    "class Cart:",
    "    def __init__(self):",
    "        self.items = []",
    "",
    "    def total(self):",
    "        return sum(i.price for i in self.items)",
    "",
  ].join("\n"),
});
const shopFix = shop.commit({
  "shop/cart.py": [
    "import os",
    "import decimal",
    "",
    "",
    "class Cart:",
    "    def __init__(self):",
    "        self.items = []",
    "",
    "    def total(self):",
    "        if not self.items:",
    "            return decimal.Decimal(0)",
    "        return sum(i.price * i.count for i in self.items)",
    "",
    "    def clear(self):",
    "        self.items.clear()",
    "",
  ].join("\n"),
});
const reposDir = join(root, "repos");
bareClone(shop, join(reposDir, "acme__shop"));

const tools = makeRepo(root, "tools");
const toolsBase = tools.commit({ "tools/fmt.py": 'def fmt(x):\n    return "%s" % x\n\n\ndef unused():\n    pass\n' });
const toolsFix = tools.commit({ "tools/fmt.py": 'def fmt(x, width=0):\n    return "%s" % x\n' });
const repoMapFile = join(root, "repo-map.json");
writeFileSync(repoMapFile, JSON.stringify({ "acme/tools": tools.dir }));

const line = (o: Record<string, unknown>) => JSON.stringify(o);
const dataset = join(root, "dataset.jsonl");
writeFileSync(
  dataset,
  [
    line({
      repo: "acme/shop",
      instance_id: "acme__shop-1",
      base_commit: shopBase,
      patch: shop.diff(shopBase, shopFix),
      problem_statement: "totals",
    }),
    line({
      repo: "acme/tools",
      instance_id: "acme__tools-2",
      base_commit: toolsBase,
      patch: tools.diff(toolsBase, toolsFix),
    }),
    "{this is not json",
    line({
      repo: "ghost/none",
      instance_id: "ghost__none-4",
      base_commit: shopBase,
      patch: shop.diff(shopBase, shopFix),
    }),
    line({
      repo: "acme/shop",
      instance_id: "acme__shop-5",
      base_commit: "f".repeat(40),
      patch: shop.diff(shopBase, shopFix),
    }),
    line({ repo: "acme/shop", instance_id: "acme__shop-6", base_commit: shopFix, patch: shop.diff(shopBase, shopFix) }),
  ].join("\n"),
);

describe("bench replay", () => {
  it("replays every line, reports the bad ones, and reproduces the gold patches exactly", async () => {
    const out = join(root, "out");
    const result = await runReplay({
      dataset,
      reposDir,
      repoMap: await readRepoMap(repoMapFile),
      workers: 1,
      outDir: out,
      gitCheck: true,
    });
    const report = ReportSchema.parse(JSON.parse(readFileSync(result.reportPath, "utf8")));
    const status = Object.fromEntries(
      report.instances.map((e) => [e.instance_id, `${e.status}${e.cause ? `:${e.cause}` : ""}`]),
    );
    expect(status).toEqual({
      "acme__shop-1": "exact",
      "acme__tools-2": "exact",
      "line-3": "input_error:unreadable_line",
      "ghost__none-4": "input_error:unknown_repo",
      "acme__shop-5": "input_error:missing_commit",
      "acme__shop-6": "input_error:patch_does_not_apply",
    });

    // Per instance: the plan an LLM would write, the patch it produced, the verifier's warnings.
    const dir = join(out, "acme__shop-1");
    const plan = JSON.parse(readFileSync(join(dir, "plan.json"), "utf8")) as unknown[];
    expect(plan.length).toBeGreaterThan(1);
    expect(JSON.stringify(plan)).not.toMatch(/"(start_line|end_line|anchor_line|line)"/);
    expect(existsSync(join(dir, "warnings.json"))).toBe(true);
    const patch = readFileSync(join(dir, "model.patch"), "utf8");
    expect(patch.startsWith("diff --git a/shop/cart.py b/shop/cart.py\n")).toBe(true);
    // model.patch applies to the base commit and gives the gold post-image.
    git(shop.dir, "checkout", "-q", shopBase);
    execFileSync("git", ["-C", shop.dir, "apply", join(dir, "model.patch")]);
    expect(git(shop.dir, "diff", shopFix, "--stat")).toBe("");
    git(shop.dir, "checkout", "-q", "--", ".");
    git(shop.dir, "checkout", "-q", "main");

    const shop1 = report.instances.find((e) => e.instance_id === "acme__shop-1")!;
    expect(shop1.git_apply).toBe("ok");
    expect(shop1.steps).toBe(plan.length);
    expect(shop1.legacy_steps).toBe(0);
    expect(shop1.amplification).toBeGreaterThan(0);
    expect(Object.values(shop1.tiers).reduce((a, b) => a + b, 0)).toBe(shop1.steps);
    expect(Object.keys(shop1.locator_kinds).length).toBeGreaterThan(0);
    expect(result.summary.exact).toBe(2);
    expect(result.table).toMatch(/exact\s+2\/6/);
    expect(result.table).toMatch(/input_error: unknown_repo\s+1\s+ghost__none-4/);
  });

  it("replays a commit that renames, creates and deletes files, and its model.patch gives the commit's tree", async () => {
    const pkg = makeRepo(root, "pkg");
    const util = Array.from({ length: 8 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join("\n\n");
    const base = pkg.commit({
      "pkg/util.py": util,
      "pkg/main.py": "from pkg.util import f1\n\n\ndef main():\n    return f1(1)\n",
      "pkg/old.py": "OLD = 1\n",
    });
    git(pkg.dir, "mv", "pkg/util.py", "pkg/helpers.py");
    git(pkg.dir, "rm", "-q", "pkg/old.py");
    const fix = pkg.commit({
      "pkg/helpers.py": util.replace("x + 7", "x + 70"),
      "pkg/main.py": "from pkg.helpers import f1\n\n\ndef main():\n    return f1(1)\n",
      "tests/test_main.py": "from pkg.main import main\n\n\ndef test_main():\n    assert main() == 2\n",
    });
    const patch = git(pkg.dir, "diff", "-M", base, fix);
    expect(patch).toContain("rename from pkg/util.py");
    const files = join(root, "files.jsonl");
    writeFileSync(files, line({ repo: "acme/pkg", instance_id: "acme__pkg-7", base_commit: base, patch }));
    bareClone(pkg, join(reposDir, "acme__pkg"));
    const out = join(root, "out-files");
    const result = await runReplay({ dataset: files, reposDir, repoMap: {}, workers: 1, outDir: out, gitCheck: true });
    expect(
      result.entries.map((e) => [e.instance_id, e.status, e.cause]),
      result.entries[0]?.error,
    ).toEqual([["acme__pkg-7", "exact", undefined]]);
    expect(Object.keys(result.entries[0]!.ops)).toEqual(
      expect.arrayContaining(["rename_file", "create_file", "delete_file"]),
    );
    expect(result.entries[0]!.git_apply).toBe("ok");
    git(pkg.dir, "checkout", "-q", base);
    execFileSync("git", ["-C", pkg.dir, "apply", join(out, "acme__pkg-7", "model.patch")]);
    git(pkg.dir, "add", "-A");
    expect(git(pkg.dir, "diff", "--cached", fix, "--stat")).toBe("");
  });

  it("gives the same report with two worker threads", async () => {
    const out = join(root, "out-workers");
    const result = await runReplay({
      dataset,
      reposDir,
      repoMap: await readRepoMap(repoMapFile),
      workers: 2,
      outDir: out,
      gitCheck: false,
      instances: ["acme__shop-1", "acme__tools-2", "ghost__none-4"],
    });
    expect(result.entries.map((e) => [e.instance_id, e.status])).toEqual([
      ["acme__shop-1", "exact"],
      ["acme__tools-2", "exact"],
      ["ghost__none-4", "input_error"],
    ]);
    expect(result.entries[0]!.git_apply).toBe("skipped");
  });

  it("runs from the command line", () => {
    const out = join(root, "out-cli");
    const stdout = execFileSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--conditions=source",
        join(import.meta.dirname, "..", "cli.ts"),
        "replay",
        "--dataset",
        dataset,
        "--repos",
        reposDir,
        "--repo-map",
        repoMapFile,
        "--instances",
        "acme__shop-1,acme__tools-2",
        "--out",
        out,
        "-q",
      ],
      { encoding: "utf8" },
    );
    expect(stdout).toMatch(/exact\s+2\/2 \(100\.0%\)/);
    expect(stdout).toMatch(/plans free of legacy ops\s+2\/2/);
    expect(existsSync(join(out, "report.json"))).toBe(true);
  });
});

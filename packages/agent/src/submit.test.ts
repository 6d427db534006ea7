/** SUBMIT on real git repositories: the patch of the work tree and the design's (docs/design.md, Origins) checks. */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { describe, expect, it } from "vitest";
import { Sandbox } from "@graphplan/runtime";
import { TestSandbox, testSandboxLayer } from "@graphplan/runtime/testing";
import { git, shopRepo, status, tempDir } from "./fixtures/repo.js";
import { applyCheckCommand, patchCommandOutput, patchFormat, patchOfWorkTree, patchProblems } from "./submit.js";

const patchOf = (repo: string) =>
  Effect.runPromise(patchOfWorkTree(30_000).pipe(Effect.provide(Sandbox.layerLocal({ cwd: repo }))));

/** The patch and the temporary base path (`p='...'`) its commands used, read from what was run. */
const patchAndBase = (repo: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const local = yield* Sandbox;
      const commands: string[] = [];
      const recording = Layer.succeed(Sandbox, {
        description: local.description,
        exec: (command, options) => (commands.push(command), local.exec(command, options)),
      });
      const result = yield* patchOfWorkTree(30_000).pipe(Effect.provide(recording));
      const base = /^p='([^']+)'$/m.exec(commands[0] ?? "")?.[1];
      return { result, base };
    }).pipe(Effect.provide(Sandbox.layerLocal({ cwd: repo }))),
  );

describe("the patch of the work tree", () => {
  it("includes changed and new files, passes every check, and leaves the repository's index alone", async () => {
    const repo = shopRepo();
    writeFileSync(
      join(repo, "shop/pricing.py"),
      readFileSync(join(repo, "shop/pricing.py"), "utf8") + "\n\nTAX = 0.2\n",
    );
    writeFileSync(join(repo, "shop/tax.py"), "RATE = 0.2\n");
    git(repo, "add", "shop/pricing.py"); // the user's own staging must survive as it is
    const before = status(repo);

    const { result, base } = await patchAndBase(repo);
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({
      ok: true,
      checks: { diffHeader: true, fileMarkers: true, hunks: true, additions: true, applies: true },
    });
    expect(result.patch).toContain("diff --git a/shop/pricing.py b/shop/pricing.py");
    expect(result.patch).toContain("+TAX = 0.2");
    expect(result.patch).toContain("diff --git a/shop/tax.py b/shop/tax.py\nnew file mode 100644");
    expect(status(repo)).toBe(before);
    expect(before).toBe("M  shop/pricing.py\n?? shop/tax.py\n");
    // No temporary file of this submission is left: its base path is known from the commands it ran
    // (a scan of /tmp would race with other test processes' submissions).
    expect(base).toMatch(/^\/tmp\/graphplan-patch-[0-9a-f]{16}$/);
    expect(readdirSync(dirname(base!)).filter((f) => f.startsWith(basename(base!)))).toEqual([]);

    // It applies to a clean clone of HEAD and reproduces the work tree.
    const clone = tempDir("graphplan-clone-");
    git(clone, "clone", "-q", repo, ".");
    writeFileSync(join(clone, "p.diff"), result.patch);
    git(clone, "apply", "p.diff");
    expect(readFileSync(join(clone, "shop/tax.py"), "utf8")).toBe("RATE = 0.2\n");
  });

  it("quotes no non-ASCII path (core.quotepath=false) and leaves ignored files out", async () => {
    const repo = shopRepo();
    writeFileSync(join(repo, ".gitignore"), "*.log\n");
    writeFileSync(join(repo, "debug.log"), "noise\n");
    writeFileSync(join(repo, "café.py"), "x = 1\n");
    const result = await patchOf(repo);
    expect(result.patch).toContain("diff --git a/café.py b/café.py");
    expect(result.patch).not.toContain("debug.log");
    expect(result.ok).toBe(true);
  });

  it("an empty diff is a failure", async () => {
    const result = await patchOf(shopRepo());
    expect(result).toMatchObject({ ok: false, patch: "" });
    expect(result.problems).toEqual(["the diff is empty: no file of the work tree differs from the last commit"]);
  });

  it("a patch that only deletes lines is usable (a fix may only remove code), though it adds no line", async () => {
    const repo = shopRepo();
    writeFileSync(join(repo, "README.md"), "# shop\n");
    const result = await patchOf(repo);
    expect(result.checks).toMatchObject({
      diffHeader: true,
      hunks: true,
      additions: false,
      deletions: true,
      applies: true,
    });
    expect(result).toMatchObject({ ok: true, problems: [] });
  });

  it("outside a git repository, git's error is reported", async () => {
    const dir = tempDir();
    const result = await patchOf(dir);
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatch(
      /^git could not produce the patch of the work tree \(exit \d+: .*not a git repository/i,
    );
  });

  it("a binary change is in the patch in a form git applies", async () => {
    const repo = shopRepo();
    writeFileSync(join(repo, "logo.bin"), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(repo, "README.md"), "# shop\n\nNow with a logo.\n");
    const result = await patchOf(repo);
    expect(result.patch).toContain("GIT binary patch");
    expect(result).toMatchObject({ ok: true, checks: { applies: true } });
  });

  it("a patch git refuses is not submitted, whatever its text looks like", async () => {
    const text = "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n";
    // What the command prints when git refuses: the patch, the marker line with the check's status, git's error.
    const sandbox = new TestSandbox((command) =>
      patchCommandOutput(command, text, { applies: false, output: "error: x.py: does not exist in index\n" }),
    );
    const result = await Effect.runPromise(patchOfWorkTree(1000).pipe(Effect.provide(testSandboxLayer(sandbox))));
    expect(result).toMatchObject({
      ok: false,
      patch: text,
      checks: { diffHeader: true, fileMarkers: true, hunks: true, additions: true, applies: false },
    });
    expect(result.problems).toEqual([
      "`git apply --check` refuses the patch on a clean checkout of HEAD: error: x.py: does not exist in index",
    ]);
    // One command: the check runs on the file the diff wrote (one round trip in a container).
    expect(sandbox.commands).toHaveLength(1);
    expect(new Set(sandbox.commands[0]!.match(/^p='[^']+'$/gm))).toHaveLength(1);
  });

  it("the patch is git's diff byte for byte: the check's status line after it is cut off exactly", async () => {
    const repo = shopRepo();
    writeFileSync(join(repo, "README.md"), "# shop\n\nchanged\n");
    const result = await patchOf(repo);
    expect(result).toMatchObject({ ok: true, checks: { applies: true } });
    expect(result.patch).toBe(
      git(repo, "-c", "core.quotepath=false", "diff", "--binary", "--no-color", "--no-ext-diff", "HEAD"),
    );
  });
});

describe("git apply --check against HEAD", () => {
  it("refuses a patch whose context is not in HEAD, even when the work tree matches it", async () => {
    const repo = shopRepo();
    const base = join(tempDir(), "p");
    // Context lines that exist nowhere in HEAD's cart.py.
    writeFileSync(
      `${base}.diff`,
      "diff --git a/shop/cart.py b/shop/cart.py\n--- a/shop/cart.py\n+++ b/shop/cart.py\n@@ -1,2 +1,2 @@\n-nothing like this\n+x\n context\n",
    );
    const check = await Effect.runPromise(
      Effect.flatMap(Sandbox, (sandbox) => sandbox.exec(applyCheckCommand(base))).pipe(
        Effect.provide(Sandbox.layerLocal({ cwd: repo })),
      ),
    );
    expect(check.exitCode).not.toBe(0);
    expect(check.output).toContain("patch does not apply");
    expect(() => readFileSync(`${base}.diff`)).toThrow(); // removed
    // And the text checks alone would have passed it: git decides.
    const text = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    expect(patchFormat(text)).toEqual({
      diffHeader: true,
      fileMarkers: true,
      hunks: true,
      additions: true,
      deletions: true,
    });
    expect(
      patchProblems(text, { ...patchFormat(text), applies: false }, "error: x: does not exist in index\n"),
    ).toEqual(["`git apply --check` refuses the patch on a clean checkout of HEAD: error: x: does not exist in index"]);
  });
});

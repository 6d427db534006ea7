/** The replay model on a patch that adds a file: EXPLORE names the existing files, the plan creates the new one. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadGrammars } from "@graphplan/graph";
import * as Result from "effect/Result";
import { describe, expect, it } from "vitest";
import { git, read, runOn, shopRepo, tempDir } from "./fixtures/repo.js";
import { patchFiles, replayModelOf } from "./replay.js";

describe("the replay model", () => {
  it("replays a patch that adds a module and imports it: the run submits the same diff", async () => {
    await loadGrammars(["python"]);
    const repo = shopRepo();
    writeFileSync(join(repo, "shop/tax.py"), "RATE = 0.2\n\n\ndef with_tax(amount):\n    return amount * (1 + RATE)\n");
    writeFileSync(
      join(repo, "shop/pricing.py"),
      read(repo, "shop/pricing.py").replace(
        '"""Prices and discounts."""\n',
        '"""Prices and discounts."""\nfrom shop.tax import with_tax\n',
      ),
    );
    git(repo, "add", "-A");
    const patch = git(repo, "diff", "--cached");
    git(repo, "reset", "-q", "--hard");
    const pre = Result.getOrThrow(patchFiles(patch, "test"));
    expect(pre).toEqual(["shop/pricing.py"]);
    const model = Result.getOrThrow(replayModelOf(new Map(pre.map((p) => [p, read(repo, p)])), patch, "test"));
    const { trajectory } = await runOn(repo, "add tax", [], { model: () => model });
    expect(trajectory.exitStatus, trajectory.exitReason).toBe("Submitted");
    expect(trajectory.files).toEqual(["shop/pricing.py"]);
    expect(JSON.stringify(trajectory.plans.at(-1)?.plan)).toContain('"create_file"');
    expect(trajectory.patch).toContain("new file mode 100644");
    // Applied to a clean checkout, the submitted patch gives the same tree as the reference patch.
    git(repo, "reset", "-q", "--hard");
    git(repo, "clean", "-fdq");
    const submitted = join(tempDir("graphplan-replay-"), "submitted.diff");
    writeFileSync(submitted, trajectory.patch);
    git(repo, "apply", submitted);
    git(repo, "add", "-A");
    expect(git(repo, "diff", "--cached")).toBe(patch);
  });
});

/**
 * The benchmark itself, short: `src/main.ts` on a tiny Python project this test writes, as a bare clone
 * (`--repos`) and as a plain directory (`--tree`). CI runs it so that the benchmark cannot rot; the
 * README's figures come from real repositories.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bareClone, makeRepo } from "@graphplan/testkit/git";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "graphplan-references-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");

const bench = (args: string[]) =>
  spawnSync(TSX, ["--conditions=source", join(import.meta.dirname, "main.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
  });

describe("the references benchmark, short", () => {
  it("checks a bare clone and a plain tree: no false report, every seeded misspelling found", () => {
    const repo = makeRepo(root, "work");
    repo.commit({
      "calc/ops.py": "import math\n\n\ndef area(r):\n    scale = 2\n    return math.pi * r * r * scale\n",
      "calc/main.py": "from calc.ops import area\n\n\ndef run(values):\n    return [area(v) for v in values]\n",
    });
    mkdirSync(join(root, "repos"));
    bareClone(repo, join(root, "repos", "acme__calc"));
    const run = bench(["--repos", "repos", "--tree", "work", "--languages", "python", "--mutations", "2"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    // --tree is named by its path, taken from the caller's folder.
    expect(run.stdout).toContain(`| ${join(root, "work")} | python | 2 | 0 | 0 (0) | 4/4 (100.0 %) | 100.0 % |`);
    expect(run.stdout).toContain("| acme/calc | python | 2 | 0 | 0 (0) | 4/4 (100.0 %) | 100.0 % |");
  });

  it("prints its usage and exits 2 on bad input", () => {
    for (const args of [[], ["--repos", "nowhere"], ["--tree", root, "--languages", "cobol"]]) {
      const run = bench(args);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toContain("Usage: bench [options]");
    }
  });
});

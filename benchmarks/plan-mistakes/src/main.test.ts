/**
 * The benchmark itself, short, so that CI keeps it running: `src/main.ts` on a one-instance dataset over a
 * tiny Python project this test writes (a plain clone under `--repos`), and its usage errors. The
 * README's figures come from SWE-bench Lite's 300 gold plans.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git, makeRepo } from "@graphplan/testkit/git";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "graphplan-plan-mistakes-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
const bench = (args: string[]) =>
  spawnSync(TSX, ["--conditions=source", join(import.meta.dirname, "main.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 170_000,
  });

const OPS =
  "class Calc:\n    def add(self, a, b):\n        if a is None:\n            return b\n        return a - b\n\n    def neg(self, a):\n        return -a\n";

describe("the plan-mistakes benchmark, short", () => {
  it("mutates the gold plan of a one-instance dataset and classifies every variant", () => {
    const repo = makeRepo(root, "work");
    const base = repo.commit({ "calc/__init__.py": "", "calc/ops.py": OPS }, "base");
    const fixed = repo.commit({ "calc/ops.py": OPS.replace("return a - b", "return a + b") }, "fix");
    mkdirSync(join(root, "repos"));
    git(root, "clone", "-q", repo.dir, join(root, "repos", "acme__calc"));
    writeFileSync(
      join(root, "lite.jsonl"),
      `${JSON.stringify({ repo: "acme/calc", instance_id: "acme__calc-1", base_commit: base, patch: repo.diff(base, fixed) })}\n`,
    );
    const run = bench(["--repos", "repos", "--dataset", "lite.jsonl", "--samples", "0"]);
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^1 instances \(0 skipped: no exact gold plan; 0 without a clone\)/);
    expect(run.stdout).toMatch(/the Python indentation check flags 0 of the 1 pre-image files CPython compiles/);
    const all =
      /^\| \*\*all\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \| \*\*(\d+)\*\* \|/m.exec(
        run.stdout,
      );
    expect(all).not.toBeNull();
    const [variants, corrected, says, vague, silent, broken] = all!.slice(1).map(Number) as [
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    expect(variants).toBeGreaterThan(0);
    // Every variant lands in exactly one class; none is written wrong, none leaves code that does not compile.
    expect(corrected + says + vague + silent).toBe(variants);
    expect([silent, broken]).toEqual([0, 0]);
  });

  it("prints its usage and exits 2 on bad input", () => {
    for (const args of [
      ["--repos", "nowhere", "--dataset", "lite.jsonl"],
      ["--repos", root, "--dataset", join(root, "lite.jsonl"), "--mistakes", "typo"],
    ]) {
      const run = bench(args);
      expect(run.status, args.join(" ")).toBe(2);
      expect(run.stderr).toContain(
        "usage: pnpm --filter @graphplan/bench-plan-mistakes bench -- --repos DIR --dataset FILE",
      );
    }
  });
});

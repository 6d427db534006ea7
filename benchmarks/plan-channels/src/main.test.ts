/**
 * The benchmark itself, short, so that CI keeps it running: `src/main.ts` on a one-instance dataset over a
 * tiny Python project this test writes (a bare clone under `--repos`), two modes (the baseline and a
 * tool call) and the baseline again with the full prompt; and its usage error. The README's figures come
 * from SWE-bench Lite instances.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bareClone, makeRepo } from "@graphplan/testkit/git";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "graphplan-plan-channels-test-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
/** The repository's tsx (a root dev dependency). */
const TSX = join(import.meta.dirname, "..", "..", "..", "node_modules", ".bin", "tsx");
const bench = (args: string[]) =>
  spawnSync(TSX, ["--conditions=source", join(import.meta.dirname, "main.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 280_000,
  });

const OPS = "def add(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n";

describe("the plan-channels benchmark, short", () => {
  it("runs the agent against the stand-in model in two modes, and the baseline with the full prompt", () => {
    const repo = makeRepo(root, "work");
    const base = repo.commit({ "calc/__init__.py": "", "calc/ops.py": OPS }, "base");
    const fixed = repo.commit({ "calc/ops.py": OPS.replace("return a - b", "return a + b") }, "fix");
    mkdirSync(join(root, "repos"));
    bareClone(repo, join(root, "repos", "acme__calc"));
    const instance = {
      repo: "acme/calc",
      instance_id: "acme__calc-1",
      base_commit: base,
      patch: repo.diff(base, fixed),
      problem_statement: "add() subtracts: calc.ops.add(2, 3) gives -1, it must give 5.",
    };
    writeFileSync(join(root, "lite.jsonl"), `${JSON.stringify(instance)}\n`);
    const run = bench([
      "--repos",
      "repos",
      "--dataset",
      "lite.jsonl",
      "--filter",
      "^acme__",
      "--modes",
      "json-block,tool-call",
      "--out",
      "out",
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`1 instances (acme__calc-1), 1 worker(s); output in ${join(root, "out")}`);
    // Each mode's row: a valid plan at the first reply, applied and submitted, the baseline's diff.
    for (const mode of ["json-block", "tool-call", "json-block (full prompt)"]) {
      expect(run.stdout).toMatch(
        new RegExp(
          `^\\| ${mode.replace(/[()]/g, "\\$&")} \\| 1/1 \\(100%\\) \\| 1/1 \\(100%\\) \\| 1/1 \\(100%\\) \\| 1/1 \\(100%\\) \\| 1/1 \\(100%\\) \\| 1\\.00 \\| 0 \\|`,
          "m",
        ),
      );
    }
    // The PLAN prompt: the full one (whole catalog and JSON Schema) is the larger.
    const kB = (mode: string) =>
      Number(
        new RegExp(`^\\| ${mode.replace(/[()]/g, "\\$&")} \\|.*\\| ([\\d.]+) kB \\| [\\d.]+ kB \\|$`, "m").exec(
          run.stdout,
        )?.[1],
      );
    expect(kB("json-block (full prompt)")).toBeGreaterThan(kB("json-block"));
  });

  it("prints its usage and exits 2 on bad input", () => {
    const run = bench(["--repos", "nowhere", "--dataset", "lite.jsonl"]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("usage: pnpm -s bench --repos DIR --dataset FILE");
  });
});

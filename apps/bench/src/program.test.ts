/** Every `bench` command answers bad input the same way: one line on stderr, exit code 2, nothing written. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@graphplan/testkit";
import { describe, expect, it } from "vitest";

const app = join(import.meta.dirname, "..");
const tsx = join(app, "node_modules/.bin/tsx");
const bench = (args: readonly string[]) =>
  spawnSync(tsx, ["--conditions=source", "src/cli.ts", ...args], { cwd: app, encoding: "utf8" });

describe("bench (command line)", () => {
  it("exits 2 with one line for an unknown command or option, and for missing inputs of replay, in any command", () => {
    const out = join(tempDir(), "out");
    const cases: Array<[string[], RegExp]> = [
      [["bogus"], /^error: unknown command 'bogus'$/],
      [["replay", "--dataset", "x", "--repos", ".", "--out", "o", "--bogus"], /^error: unknown option '--bogus'$/],
      [
        ["replay", "--dataset", join(out, "none.jsonl"), "--repos", out, "--out", out],
        /^error: --repos .*: no such directory/,
      ],
      [
        ["replay", "--dataset", join(out, "none.jsonl"), "--repos", app, "--out", out],
        /^error: --dataset .*none\.jsonl: no such file; give a SWE-bench JSONL/,
      ],
      [["eval", "--preds", "x"], /^error: required option '--dataset <file>' not specified$/],
      [
        ["run", "--dataset", "x", "--out", out, "--sandbox", "docker"],
        /^error: bench run works in each instance's image: leave out --sandbox and --image$/,
      ],
    ];
    for (const [args, line] of cases) {
      const result = bench(args);
      expect.soft(result.status, args.join(" ")).toBe(2);
      expect.soft(result.stderr.trim(), args.join(" ")).toMatch(line);
      expect.soft(result.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
    }
    expect(existsSync(out)).toBe(false);
  });
});

/**
 * `bench compare`'s bad input through the CLI, as a user meets it: one line on stderr naming what is
 * wrong and how to fix it, exit 2, and nothing written or changed — checked before any engine is asked.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@graphplan/testkit";
import { CompareReportSchema, type CompareReport } from "@graphplan/viewer";
import { describe, expect, it } from "vitest";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules/.bin/tsx");
const cli = (args: readonly string[]) =>
  spawnSync(tsx, ["--conditions=source", "src/cli.ts", "compare", ...args], { cwd: app, encoding: "utf8" });

/** Every file under `dir` with its content: what "nothing lost" compares. */
const contents = (dir: string): Record<string, string> => {
  const files: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[path] = readFileSync(path, "utf8");
    }
  };
  walk(dir);
  return files;
};

describe("bench compare: bad input", () => {
  it("an unknown arm, the same arm twice, not two arms, a missing config, --strategy, and an --out holding another comparison's model: one line, exit 2, nothing written or changed", () => {
    const dir = tempDir();
    const dataset = join(dir, "lite.jsonl");
    writeFileSync(dataset, "{}\n");
    // An earlier comparison, with another model, and an arm's output.
    const earlier = join(dir, "earlier");
    mkdirSync(join(earlier, "graphplan"), { recursive: true });
    const report: CompareReport = {
      format: "graphplan-bench-compare/1",
      created: "2026-11-27T12:00:00.000Z",
      spec: {
        arms: [
          { label: "graphplan", strategy: "graphplan", config: null },
          { label: "baseline", strategy: "baseline", config: null },
        ],
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        dataset,
      },
      results: null,
    };
    writeFileSync(join(earlier, "compare.json"), JSON.stringify(CompareReportSchema.parse(report)));
    writeFileSync(
      join(earlier, "graphplan", "preds.jsonl"),
      '{"instance_id": "a__b-1", "model_name_or_path": "graphplan/anthropic:claude-sonnet-4-5", "model_patch": ""}\n',
    );
    const before = contents(earlier);
    const fresh = join(dir, "never");
    const cases: Array<[string[], RegExp]> = [
      [
        ["--arms", "graphplan,magic", "--out", fresh],
        /^error: --arms: unknown arm "magic": an arm is a strategy \(graphplan, baseline, rfsn\) or label:strategy, e\.g\. short:graphplan$/,
      ],
      [
        ["--arms", "graphplan,graphplan", "--out", fresh],
        /^error: --arms graphplan,graphplan: the same arm twice; compare two different arms, or name them apart \(e\.g\. --arms a:graphplan,b:graphplan with --arms-config a\.yaml,b\.yaml\)$/,
      ],
      [
        ["--arms", "graphplan", "--out", fresh],
        /^error: --arms graphplan: name two arms, comma-separated, e\.g\. --arms graphplan,baseline$/,
      ],
      [
        ["--arms", "graphplan,baseline", "--arms-config", "missing.yaml,-", "--out", fresh],
        /^error: --arms-config: no such file missing\.yaml; give a YAML config per arm \(- for the default\)$/,
      ],
      [
        ["--arms", "graphplan,baseline", "--strategy", "baseline", "--out", fresh],
        /^error: bench compare sets --strategy per arm: use --arms instead$/,
      ],
      [
        ["--arms", "graphplan,baseline", "--out", earlier],
        /^error: --out .*earlier holds another comparison \(graphplan:graphplan vs baseline:baseline with anthropic:claude-sonnet-4-5\), not graphplan:graphplan vs baseline:baseline with replay; use another --out$/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = cli([...args, "--dataset", dataset, "--provider", "replay", "-q"]);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr.trim()).toMatch(message);
    }
    expect(() => statSync(fresh)).toThrow();
    expect(contents(earlier)).toEqual(before);
  }, 300_000);
});

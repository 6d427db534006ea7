/** `bench images` as a user runs it: the CLI spawned with tsx (exit codes, output). */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@graphplan/testkit";
import { describe, expect, it } from "vitest";
import type { BuildEntry, BuildReport } from "./build.js";
import { buildSummary } from "./command.js";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules/.bin/tsx");
const bench = (args: readonly string[]) =>
  spawnSync(tsx, ["--conditions=source", "src/cli.ts", "images", ...args], { cwd: app, encoding: "utf8" });

function dataset(): string {
  const path = join(tempDir(), "dataset.jsonl");
  const line = (repo: string, id: string, version: string) =>
    JSON.stringify({ repo, instance_id: id, base_commit: "a".repeat(40), version, patch: "", test_patch: "" });
  writeFileSync(
    path,
    [
      line("django/django", "django__django-1", "3.0"),
      line("astropy/astropy", "astropy__astropy-2", "2.0"),
      line("sympy/sympy", "sympy__sympy-3", "1.10"),
    ].join("\n") + "\n",
  );
  return path;
}

describe("bench images (command line)", () => {
  it("list: each instance's environment in the shipped recipe, or that there is none", () => {
    const result = bench(["list", "--dataset", dataset()]);
    expect(result.status).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(
      /^django__django-1 +3\.0 +django-3\.0-3\.2 +swebench\/sweb\.eval\.x86_64\.django_1776_django-1:latest$/,
    );
    expect(lines[1]).toMatch(/^astropy__astropy-2 +2\.0 +no environment in the recipe +-$/);
    expect(lines[2]).toMatch(/^sympy__sympy-3 +1\.10 +sympy +swebench\/sweb\.eval\.x86_64\.sympy_1776_sympy-3:latest$/);
    expect(lines.at(-1)).toBe("2 of 3 instances have an environment in the recipe");
  });

  it("list --namespace none gives the local image names", () => {
    const result = bench(["list", "--dataset", dataset(), "--namespace", "none", "--instances", "django__django-1"]);
    expect(result.stdout.split("\n")[0]).toMatch(/ sweb\.eval\.x86_64\.django__django-1:latest$/);
  });

  it("exits 2 with one line on stderr for bad input", () => {
    const data = dataset();
    const badRecipe = join(tempDir(), "recipe.yaml");
    writeFileSync(badRecipe, "base: {image: x}\nenvironments:\n  - {name: a, repo: a/b, versions: [1.0]}\n");
    const cases: Array<[string[], string]> = [
      [["build", "--dataset", data], "error: give --repos DIR and/or --repo-map FILE"],
      [["build", "--repos", "/nonexistent"], "error: required option '--dataset <file>' not specified"],
      [
        ["build", "--dataset", data, "--repos", "/nonexistent"],
        "error: --repos /nonexistent does not exist; give the directory holding <owner>__<name> clones",
      ],
      [
        ["build", "--dataset", data, "--repos", "/tmp", "--instances", "nope-1"],
        `error: --instances: nope-1 not in ${data}; give ids of its instance_id field`,
      ],
      [
        ["list", "--dataset", data, "--recipe", badRecipe],
        `error: the recipe ${badRecipe} is invalid: environments[0].versions (environment a): write a list of quoted versions`,
      ],
      [
        ["list", "--dataset", "/nonexistent.jsonl"],
        "error: --dataset /nonexistent.jsonl cannot be read (ENOENT); give a SWE-bench JSONL file",
      ],
      [
        ["build", "--dataset", data, "--repos", "/tmp", "--compiler-cache", badRecipe],
        `error: --compiler-cache ${badRecipe}: cannot be used as a directory (not a directory); give a directory this user can create or write`,
      ],
      [
        // a place where no directory can be made (node's recursive mkdir would loop forever here)
        ["build", "--dataset", data, "--repos", "/tmp", "--compiler-cache", "/proc/graphplan-none/cache"],
        "error: --compiler-cache /proc/graphplan-none/cache: cannot be used as a directory (ENOENT); give a directory this user can create or write",
      ],
      [
        // a bad selection is found before the cache directory is made
        [
          "build",
          "--dataset",
          data,
          "--repos",
          "/tmp",
          "--instances",
          "nope-1",
          "--compiler-cache",
          join(tempDir(), "cc"),
        ],
        `error: --instances: nope-1 not in ${data}; give ids of its instance_id field`,
      ],
      [
        ["build", "--dataset", data, "--repos", "/tmp", "--docker-host", "unix:///nonexistent.sock"],
        "error: the container engine at unix:///nonexistent.sock does not answer",
      ],
    ];
    for (const [args, line] of cases) {
      const result = bench(args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr.split("\n").filter(Boolean), args.join(" ")).toHaveLength(1);
      expect(result.stderr.startsWith(line), result.stderr).toBe(true);
      if (args.includes("--instances") && args.includes("--compiler-cache"))
        expect(existsSync(args[args.indexOf("--compiler-cache") + 1]!)).toBe(false);
    }
  }, 300_000);
});

describe("buildSummary: what the layers cost and how many were reused", () => {
  const entry = (id: string, status: BuildEntry["status"], env: string, ms: number): BuildEntry => ({
    instance_id: id,
    repo: "acme/calc",
    version: "1.0",
    status,
    environment: env,
    environmentImage: `graphplan-sweb.env.${env}:h`,
    ms,
  });

  it("a first build: base and root file system made, two environments made for three images, one failed", () => {
    const report: BuildReport = {
      entries: [
        entry("a-1", "built", "a", 4_000),
        entry("a-2", "built", "a", 6_000),
        entry("b-1", "built", "b", 11_000),
        { ...entry("c-1", "failed", "c", 0), error: "environment c: exited 1" },
      ],
      layers: [
        { kind: "rootfs", image: "graphplan-sweb.rootfs:r", status: "built", ms: 200_000 },
        { kind: "base", image: "graphplan-sweb.base:b", status: "built", ms: 10_000 },
        { kind: "environment", image: "graphplan-sweb.env.a:h", status: "built", ms: 30_000 },
        { kind: "environment", image: "graphplan-sweb.env.b:h", status: "built", ms: 50_000 },
        { kind: "environment", image: "graphplan-sweb.env.c", status: "failed", ms: 5_000 },
      ],
      baseImage: "graphplan-sweb.base:b",
    };
    const lines = buildSummary(report).split("\n");
    expect(lines).toContain("base layer       built in 210 s (root file system 200 s)");
    expect(lines).toContain("environments     2 built in 80 s, 0 reused, 1 failed");
    expect(lines).toContain("instance layers  3 built in 21 s (median 6.0 s)");
    // 9 layers under 3 images; made: the base, a, b and the three instance layers: 3 reused (a's for a-2, the base twice).
    expect(lines).toContain("layers reused    3 of the 9 the 3 images stand on (33%)");
  });

  it("a repeated build: every layer reused", () => {
    const report: BuildReport = {
      entries: [entry("a-1", "reused", "a", 30), entry("a-2", "reused", "a", 20)],
      layers: [
        { kind: "rootfs", image: "graphplan-sweb.rootfs:r", status: "reused", ms: 0 },
        { kind: "base", image: "graphplan-sweb.base:b", status: "reused", ms: 0 },
        { kind: "environment", image: "graphplan-sweb.env.a:h", status: "reused", ms: 0 },
      ],
    };
    const lines = buildSummary(report).split("\n");
    expect(lines).toContain("base layer       reused");
    expect(lines).toContain("environments     0 built in 0 s, 1 reused");
    expect(lines).toContain("instance layers  0 built in 0 s");
    expect(lines).toContain("layers reused    6 of the 6 the 2 images stand on (100%)");
  });
});

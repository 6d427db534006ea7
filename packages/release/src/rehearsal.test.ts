/**
 * The release, rehearsed against a real registry (Verdaccio on loopback) and used as a new user would:
 * npm outside the workspace, the README examples, the command-line tools through npx. See rehearsal.ts.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { README_PACKAGES, rehearse, type Rehearsal } from "./rehearsal.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");

/** What a user of each package needs from it, beside dist/. */
const NEEDED = [
  "@graphplan/graph",
  "@graphplan/locators",
  "@graphplan/scope",
  "@graphplan/primitives",
  "@graphplan/fragments",
  "@graphplan/catalog",
  "@graphplan/verifier",
  "@graphplan/compiler",
  "@graphplan/rfsn-planner",
  "@graphplan/runtime",
  "@graphplan/agent",
  "@graphplan/mcp",
  "@graphplan/viewer",
  "@graphplan/cli",
  "@graphplan/bench",
];

let r: Rehearsal;
beforeAll(async () => {
  r = await rehearse({ root: ROOT, log: (line) => console.log(`[rehearsal] ${line}`) });
});

describe("the packed packages", () => {
  it("are every package a user needs, and not the test kit", () => {
    expect(r.packed.map((p) => p.name).sort()).toEqual([...NEEDED].sort());
  });

  it("pass publint and arethetypeswrong", () => {
    expect(Object.fromEntries(r.packed.map((p) => [p.name, p.problems]))).toEqual(
      Object.fromEntries(NEEDED.map((n) => [n, []])),
    );
  });

  it("carry the license, repository, engines and public access, and exports without the workspace's source condition", () => {
    for (const p of r.packed) {
      const { files, manifest } = p;
      expect(manifest.license, p.name).toBe("MIT");
      expect(files.get("LICENSE")?.toString("utf8"), p.name).toMatch(/^MIT License/);
      expect(manifest.repository, p.name).toMatchObject({ type: "git", directory: expect.any(String) });
      expect(manifest.engines, p.name).toEqual({ node: ">=20.11" });
      expect(manifest.publishConfig, p.name).toMatchObject({ access: "public" });
      expect(JSON.stringify(manifest.exports), p.name).not.toContain("source");
      expect(JSON.stringify(manifest.dependencies ?? {}), p.name).not.toContain("workspace:");
    }
  });

  it("ship no tests, fixtures, source maps or TypeScript sources (but the viewer's page sources, bundled at run time)", () => {
    for (const p of r.packed) {
      const shipped = [...p.files.keys()];
      const unwanted = shipped.filter(
        (f) =>
          /\.test\.|[\\/]fixtures[\\/]|\.map$|\.bench\./.test(f) ||
          (/\.tsx?$/.test(f) && !f.endsWith(".d.ts") && !f.startsWith("src/client/") && !f.startsWith("examples/")),
      );
      expect(unwanted, p.name).toEqual([]);
    }
  });

  it("ship the files the code reads at run time: the agent's config, the demo's example, the bench recipe, the page sources", () => {
    const files = (name: string) => r.packed.find((p) => p.name === name)!.files;
    expect(files("@graphplan/agent").has("config/default.yaml")).toBe(true);
    expect([...files("@graphplan/cli").keys()].filter((f) => f.startsWith("examples/textstats/")).sort()).toEqual([
      "examples/textstats/example.json",
      "examples/textstats/fix.patch",
      "examples/textstats/project/.gitignore",
      "examples/textstats/project/tests/__init__.py",
      "examples/textstats/project/tests/test_words.py",
      "examples/textstats/project/textstats/__init__.py",
      "examples/textstats/project/textstats/words.py",
      "examples/textstats/task.md",
    ]);
    expect(files("@graphplan/bench").has("recipes/debian-bookworm.yaml")).toBe(true);
    expect(files("@graphplan/viewer").has("src/client/main.tsx")).toBe(true);
  });

  it("give the command-line tools compiled JS run by node", () => {
    for (const [name, bin] of [
      ["@graphplan/cli", "graphplan"],
      ["@graphplan/bench", "bench"],
    ] as const) {
      const p = r.packed.find((q) => q.name === name)!;
      expect(p.manifest.bin).toEqual({ [bin]: "./dist/cli.js" });
      expect(p.files.get("dist/cli.js")?.toString("utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
    }
  });
});

describe("the release against a registry", () => {
  it("publishes every public package at its version, the test kit not", () => {
    for (const p of r.packed) expect(r.published[p.name], p.name).toEqual([p.version]);
    expect(Object.keys(r.published)).not.toContain("@graphplan/testkit");
  });

  it("publishes each package after the @graphplan packages it depends on", () => {
    expect(r.publishedBeforeDependencies).toEqual([]);
  });
});

describe("a new user, with npm outside the workspace", () => {
  it("runs the first example of the graph, catalog and compiler READMEs, and it does what they say", () => {
    expect(r.examples.map((e) => e.name)).toEqual([...README_PACKAGES]);
    for (const e of r.examples) {
      expect({ name: e.name, code: e.code, stderr: e.stderr }).toEqual({
        name: e.name,
        code: 0,
        stderr: expect.stringMatching(/^README example: \d+ claim\(s\) hold\n$/),
      });
      expect(e.claims, `${e.name}: the README's example claims nothing checkable`).toBeGreaterThan(0);
      if (e.prints !== undefined) expect(e.stdout.startsWith(e.prints), `${e.name} printed:\n${e.stdout}`).toBe(true);
    }
    expect(r.examples[0]!.prints).toContain("FILE: shop/cart.py");
  });

  it("runs `npx @graphplan/cli demo`: the test fails, the agent fixes the bug, the test passes", () => {
    const out = r.demo.stdout;
    expect(r.demo.code, r.demo.stderr).toBe(0);
    const failing = out.indexOf("fails (exit 1)");
    const submitted = out.indexOf("Submitted:");
    const passing = out.lastIndexOf("passes");
    expect(failing).toBeGreaterThanOrEqual(0);
    expect(submitted).toBeGreaterThan(failing);
    expect(passing).toBeGreaterThan(submitted);
    expect(out).toContain("diff --git a/textstats/words.py b/textstats/words.py");
  });

  it("runs `npx @graphplan/cli graph FILE`", () => {
    expect(r.graph.code, r.graph.stderr).toBe(0);
    expect(r.graph.stdout).toContain(`FILE: ${r.graphFile}`);
    expect(r.graph.stdout).toMatch(/CLASS: Greeter \(lines 1-3\)/);
    expect(r.graph.stdout).toMatch(/FUNCTION: main \(lines 6-7\)/);
  });

  it("exits 2 with one line for a bad command or a missing path", () => {
    for (const [result, names] of [
      [r.badCommand, "frobnicate"],
      [r.badPath, "no-such-file.py"],
    ] as const) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trimEnd().split("\n"), result.stderr).toHaveLength(1);
      expect(result.stderr).toContain(names);
    }
  });

  it("runs the bench CLI, which reads the recipe shipped in its package", () => {
    expect(r.bench.code, r.bench.stderr).toBe(0);
    const lines = r.bench.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^django__django-1 +3\.0 +django-3\.0-3\.2 +/);
    expect(lines.at(-1)).toBe("1 of 2 instances have an environment in the recipe");
  });

  it("installs no TypeScript runner, compiler, test runner or test kit with the command-line tools", () => {
    expect(r.userInstall).toContain("@graphplan/cli");
    expect(
      r.userInstall.filter((n) => ["tsx", "typescript", "vitest", "@graphplan/testkit", "playwright-core"].includes(n)),
    ).toEqual([]);
  });
});

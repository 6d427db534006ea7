import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { lintTarball } from "./lint.js";

/** A package written here and packed by npm: `exports` as given, dist/index.js and dist/index.d.ts. */
function tarball(exports: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "lint-"));
  mkdirSync(join(dir, "dist"));
  writeFileSync(join(dir, "dist", "index.js"), "export const answer = 42;\n");
  writeFileSync(join(dir, "dist", "index.d.ts"), "export declare const answer: number;\n");
  const manifest = {
    name: "lint-fixture",
    version: "1.0.0",
    license: "MIT",
    type: "module",
    sideEffects: false,
    engines: { node: ">=20" },
    exports,
    files: ["dist"],
  };
  writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
  const packed = spawnSync("npm", ["pack", "--silent", "--pack-destination", dir], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, npm_config_loglevel: "error" },
  });
  expect(packed.status, packed.stderr).toBe(0);
  return join(dir, packed.stdout.trim().split("\n").at(-1)!);
}

describe("the linters of a packed package", () => {
  it("find nothing in an ESM package whose exports point at its JS and types", async () => {
    expect(await lintTarball(tarball({ ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } }))).toEqual([]);
  });

  it("report an export of a file the tarball lacks (publint) and an entry point without types (arethetypeswrong)", async () => {
    const problems = await lintTarball(
      tarball({ ".": { types: "./dist/index.d.ts", default: "./dist/index.js" }, "./extra": "./dist/extra.js" }),
    );
    expect(problems.some((p) => p.startsWith("publint error:") && p.includes("./dist/extra.js"))).toBe(true);
    expect(problems.some((p) => p.startsWith("arethetypeswrong:") && p.includes("./extra"))).toBe(true);
  });

  it("report types listed after the default condition", async () => {
    const problems = await lintTarball(tarball({ ".": { default: "./dist/index.js", types: "./dist/index.d.ts" } }));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.join("\n")).toMatch(/publint/);
  });
});

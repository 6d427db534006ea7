/**
 * The instance layer's shell lines (checkout of the base commit, the setup commit), run with real git on
 * a repository this test makes, as the layer runs them in /testbed: after a `--no-checkout` copy of the history.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, statSync, utimesSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@graphplan/testkit";
import { describe, expect, it } from "vitest";
import { checkoutCommands, SETUP_COMMIT } from "./build.js";

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};
const git = (cwd: string, ...args: string[]) => {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", env: GIT_ENV });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  return result.stdout.trim();
};
const sh = (cwd: string, script: string) => spawnSync("bash", ["-c", script], { cwd, encoding: "utf8", env: GIT_ENV });

/** A repository of many small files in one commit, everything packed, as an environment's /testbed before an instance's checkout. */
function packedRepository() {
  const dir = tempDir();
  git(dir, "init", "-q", "-b", "main");
  for (let i = 0; i < 40; i++) {
    mkdirSync(join(dir, "pkg", `m${i % 4}`), { recursive: true });
    writeFileSync(join(dir, "pkg", `m${i % 4}`, `f${i}.py`), `x = ${i}\n`);
  }
  git(dir, "add", ".");
  git(dir, "commit", "-q", "-m", "base");
  const commit = git(dir, "rev-parse", "HEAD");
  git(dir, "gc", "-q");
  // As after `git clone --no-checkout`: the history, no index, no files.
  rmSync(join(dir, ".git", "index"));
  rmSync(join(dir, "pkg"), { recursive: true });
  return { dir, commit };
}

describe("the instance layer's commands", () => {
  it("the setup commit right after the checkout leaves the environment's pack untouched (an overlay would copy it into the instance layer)", () => {
    const { dir, commit } = packedRepository();
    const packDir = join(dir, ".git", "objects", "pack");
    const packs = readdirSync(packDir).filter((f) => f.endsWith(".pack"));
    expect(packs).toHaveLength(1);
    const pack = join(packDir, packs[0]!);
    const old = new Date("2001-01-01T00:00:00Z");
    utimesSync(pack, old, old);
    const run = sh(dir, ["set -e", ...checkoutCommands(commit), SETUP_COMMIT].join("\n"));
    expect(run.status, run.stderr).toBe(0);
    expect(git(dir, "log", "--format=%s", "-2")).toBe("SWE-bench\nbase");
    expect(git(dir, "status", "--porcelain")).toBe("");
    // git "freshens" a pack (sets its time) when it writes an object the pack already has.
    expect(statSync(pack).mtime.toISOString()).toBe(old.toISOString());
  });

  it("a checkout that cannot read an object of the base commit's files fails naming it, and nothing after it runs", () => {
    const dir = tempDir();
    git(dir, "init", "-q", "-b", "main");
    writeFileSync(join(dir, "kept.py"), "kept = 1\n");
    writeFileSync(join(dir, "lost.svg"), "<svg>an old blob the mirror never had</svg>\n");
    git(dir, "add", ".");
    git(dir, "commit", "-q", "-m", "old");
    const old = git(dir, "rev-parse", "HEAD");
    const lost = git(dir, "rev-parse", "HEAD:lost.svg");
    git(dir, "rm", "-q", "lost.svg");
    git(dir, "commit", "-q", "-m", "new");
    // The blob is loose (nothing was packed): removing its file is what a partial mirror looks like.
    rmSync(join(dir, ".git", "objects", lost.slice(0, 2), lost.slice(2)));
    const run = sh(dir, ["set -e", ...checkoutCommands(old), "echo went-on"].join("\n"));
    expect(run.status).not.toBe(0);
    expect(run.stdout).not.toContain("went-on");
    expect(run.stderr).toContain(lost);
    expect(run.stderr).toContain(`the checkout of ${old} failed`);
  });

  it("a base commit the clone does not have stops the checkout with how to get it", () => {
    const { dir } = packedRepository();
    const absent = "0123456789abcdef0123456789abcdef01234567";
    const run = sh(dir, ["set -e", ...checkoutCommands(absent), "echo went-on"].join("\n"));
    expect(run.status).toBe(1);
    expect(run.stdout).not.toContain("went-on");
    expect(run.stderr).toContain(`the repository has no commit ${absent}: fetch it into the clone given with --repos`);
  });
});

/**
 * `buildImages` on the real podman engine (unix:///tmp/podman.sock, made by `bash .ci/podman-setup.sh`):
 * an instance image for a tiny git repository this test creates, from a recipe whose base is the
 * existing `graphplan-debian:test` image.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import { ContainerEngine } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceImageName } from "../eval/spec.js";
import {
  BASHRC,
  buildImages,
  CCACHE_MOUNT,
  ENVIRONMENT_FILE,
  LABEL_BUILD,
  type BuildInstance,
  type BuildOptions,
  type BuildReport,
} from "./build.js";
import { buildSummary } from "./command.js";
import { parseRecipe, type Recipe } from "./recipe.js";

const HOST = process.env.GRAPHPLAN_PODMAN_URL ?? "unix:///tmp/podman.sock";
const BASE_IMAGE = process.env.GRAPHPLAN_DEBIAN_IMAGE ?? "graphplan-debian:test";
const engineLayer = ContainerEngine.layer({ host: HOST });
const run = <A, E>(effect: Effect.Effect<A, E, ContainerEngine>) =>
  Effect.runPromise(Effect.provide(effect, engineLayer));
const runExit = <A, E>(effect: Effect.Effect<A, E, ContainerEngine>) =>
  Effect.runPromiseExit(Effect.provide(effect, engineLayer));

const withEngine = <A, E>(f: (engine: ContainerEngine["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    return yield* f(yield* ContainerEngine);
  });

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  }).trim();

/** A repository acme/calc with two commits (and a tag on the second), as a bare clone under reposDir. */
function calcRepository(root: string) {
  const work = join(root, "work");
  mkdirSync(work);
  git(work, "init", "-q", "-b", "main");
  mkdirSync(join(work, "calc"));
  writeFileSync(join(work, "calc", "__init__.py"), "from .ops import add\n");
  writeFileSync(join(work, "calc", "ops.py"), "def add(a, b):\n    return a + b\n");
  writeFileSync(join(work, "test_calc.py"), "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 3\n");
  git(work, "add", ".");
  git(work, "commit", "-q", "-m", "first");
  const first = git(work, "rev-parse", "HEAD");
  writeFileSync(
    join(work, "calc", "ops.py"),
    "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
  );
  git(work, "commit", "-q", "-am", "second: sub");
  git(work, "tag", "v2");
  const second = git(work, "rev-parse", "HEAD");
  const reposDir = join(root, "repos");
  execFileSync("git", ["clone", "-q", "--bare", work, join(reposDir, "acme__calc")]);
  return { reposDir, first, second };
}

/** Unique per test run, so runs on one engine do not share images. */
const RUN = randomUUID().slice(0, 8);

function calcRecipe(instanceSetup: string[] = ["git rev-parse HEAD > /opt/checked-out-at"]): Recipe {
  return parseRecipe(
    {
      base: { image: BASE_IMAGE, setup: [`echo ${RUN} > /opt/base-run`] },
      environments: [
        {
          name: `calc-${RUN}`,
          repo: "acme/calc",
          versions: ["1.0"],
          env: { CALC_MODE: "test" },
          setup: [
            "python3 -c 'print(1)' > /opt/env-setup-ran",
            "printf '/testbed\\n' > /usr/lib/python3/dist-packages/calc-testbed.pth",
          ],
          instance_setup: instanceSetup,
          install: ": nothing to install",
          activate: ["export CALC_ACTIVE=1"],
        },
      ],
    },
    "test recipe",
  );
}

// Builds take seconds on an idle machine, minutes on a loaded one (two cores shared with image builds).
describe("buildImages (podman at unix:///tmp/podman.sock)", { timeout: 300_000 }, () => {
  const made = new Set<string>();
  let repo: ReturnType<typeof calcRepository>;
  const root = mkdtempSync(join(tmpdir(), "graphplan-images-test-"));
  const tag = `t${RUN}`;
  const instance = (id: string, commit: string): BuildInstance => ({
    repo: "acme/calc",
    instance_id: id,
    base_commit: commit,
    version: "1.0",
  });
  const options = (recipe: Recipe, instances: BuildInstance[], progress?: string[]): BuildOptions => ({
    recipe,
    instances,
    repoDir: (name) => (name === "acme/calc" ? join(repo.reposDir, "acme__calc") : undefined),
    namespace: "graphplan-test",
    tag,
    onProgress: progress ? (line) => progress.push(line) : undefined,
  });
  /** Images (by name and by id, since a rebuild leaves the replaced one untagged) to remove at the end. */
  const remember = async (report: BuildReport) => {
    const names = [report.baseImage, ...report.entries.flatMap((e) => [e.image, e.environmentImage])].filter(
      (n): n is string => n !== undefined,
    );
    for (const name of names) {
      made.add(name);
      const info = await run(withEngine((engine) => engine.inspectImage(name)));
      if (info) made.add(info.id);
    }
    return report;
  };
  /** Runs a shell command in a fresh container of the image; returns its output. */
  const inImage = (image: string, command: string, env?: Record<string, string>) =>
    run(
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* ContainerEngine;
          const container = yield* engine.start({ image });
          const result = yield* container.exec(command, { env });
          return `${result.exitCode}:${result.output.trim()}`;
        }),
      ),
    );

  beforeAll(async () => {
    const ping = await runExit(withEngine((engine) => engine.ping));
    if (!Exit.isSuccess(ping))
      throw new Error(`no container engine answers on ${HOST}: run \`bash .ci/podman-setup.sh\` (as root) first`);
    const base = await run(withEngine((engine) => engine.inspectImage(BASE_IMAGE)));
    if (base === undefined)
      throw new Error(`the image ${BASE_IMAGE} is missing: run \`bash .ci/podman-setup.sh\` (as root) first`);
    repo = calcRepository(root);
  });

  afterAll(async () => {
    rmSync(root, { recursive: true, force: true });
    await run(withEngine((engine) => Effect.forEach([...made].reverse(), (image) => engine.removeImage(image))));
  });

  it("builds an instance image with /testbed at the base commit (history kept, later commits and tags gone), the environment file and .bashrc", async () => {
    const id = "acme__calc-1";
    const report = await remember(await run(buildImages(options(calcRecipe(), [instance(id, repo.first)]))));
    const image = instanceImageName(id, { namespace: "graphplan-test", tag });
    expect(image).toBe(`graphplan-test/sweb.eval.x86_64.acme_1776_calc-1:${tag}`);
    expect(report.entries).toEqual([
      expect.objectContaining({ instance_id: id, status: "built", image, environment: `calc-${RUN}` }),
    ]);
    // The harness's state: the base commit's tree, one SWE-bench setup commit on top, no origin.
    expect(
      await inImage(
        image,
        "cd /testbed && git rev-parse HEAD~1 && git log -1 --format=%s && git diff --stat HEAD~1 && git remote",
      ),
    ).toBe(`0:${repo.first}\nSWE-bench`);
    expect(await inImage(image, "cat /opt/checked-out-at")).toBe(`0:${repo.first}`);
    expect(await inImage(image, "cd /testbed && git log --all --format=%H | sort && git tag")).toBe(
      `0:${[repo.first, (await inImage(image, "cd /testbed && git rev-parse HEAD")).slice(2)].sort().join("\n")}`,
    );
    expect(
      await inImage(
        image,
        "cd /testbed && git status --porcelain && python3 -c 'import calc; print(calc.add(2, 2)); print(hasattr(calc.ops, \"sub\"))'",
      ),
    ).toBe("0:4\nFalse");
    // The environment: the file the eval runner reads, and .bashrc for BASH_ENV commands.
    const file = JSON.parse((await inImage(image, `cat ${ENVIRONMENT_FILE}`)).slice(2)) as unknown;
    expect(file).toEqual({
      activate: [
        "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "export CALC_MODE=test",
        "export CALC_ACTIVE=1",
      ],
      install: ": nothing to install",
    });
    expect(await inImage(image, `grep -c 'export CALC_ACTIVE=1' ${BASHRC}`)).toBe("0:1");
    expect(await inImage(image, "env -u CALC_MODE bash -c 'echo ${CALC_ACTIVE:-unset} ${CALC_MODE:-unset}'")).toBe(
      "0:unset unset",
    );
    expect(
      await inImage(
        image,
        "env -u CALC_MODE BASH_ENV=/root/.bashrc bash -c 'echo ${CALC_ACTIVE:-unset} ${CALC_MODE:-unset}'",
      ),
    ).toBe("0:1 test");
    expect(await inImage(image, "cat /opt/env-setup-ran /opt/base-run && pwd")).toBe(`0:1\n${RUN}\n/testbed`);
    // Containers of the image are not taken for build containers (a commit keeps the container's labels).
    const labels = await run(withEngine((engine) => engine.inspectImage(image)));
    expect(labels?.labels).toMatchObject({
      "graphplan.sweb.build": "",
      "graphplan.sweb.layer": "instance",
      "graphplan.sweb.instance": id,
    });
  });

  it("reuses the base and environment layers for a second instance, and the instance image itself when built again", async () => {
    const progress: string[] = [];
    const first = await remember(
      await run(
        buildImages(
          options(
            calcRecipe(),
            [instance("acme__calc-1", repo.first), instance("acme__calc-2", repo.second)],
            progress,
          ),
        ),
      ),
    );
    expect(first.entries.map((e) => [e.instance_id, e.status])).toEqual([
      ["acme__calc-1", "reused"],
      ["acme__calc-2", "built"],
    ]);
    expect(first.entries[0]?.environmentImage).toBe(first.entries[1]?.environmentImage);
    expect(progress.filter((line) => /^(base|environment)/.test(line))).toEqual([]);
    expect(first.layers.map((l) => [l.kind, l.status])).toEqual([
      ["base", "reused"],
      ["environment", "reused"],
    ]);
    // Of the six layers the two images stand on, only calc-2's own was made.
    expect(buildSummary(first)).toContain("layers reused    5 of the 6 the 2 images stand on (83%)");
    const image2 = instanceImageName("acme__calc-2", { namespace: "graphplan-test", tag });
    expect(await inImage(image2, "cd /testbed && git rev-parse HEAD~1 && git tag")).toBe(`0:${repo.second}\nv2`);
    // --force rebuilds the instance (and environment) images.
    const forced = await remember(
      await run(
        buildImages({ ...options(calcRecipe(), [instance("acme__calc-2", repo.second)], progress), force: true }),
      ),
    );
    expect(forced.entries.map((e) => e.status)).toEqual(["built"]);
    expect(forced.layers.map((l) => [l.kind, l.status])).toEqual([
      ["base", "reused"],
      ["environment", "built"],
    ]);
    expect(progress.some((line) => line.startsWith(`environment calc-${RUN}: building`))).toBe(true);
  });

  it("a failing setup command fails that instance with its output, leaves no image under its name and no build container", async () => {
    const id = "acme__calc-3";
    const image = instanceImageName(id, { namespace: "graphplan-test", tag });
    const report = await remember(
      await run(
        buildImages(options(calcRecipe(["echo about to fail", "echo broken >&2; exit 3"]), [instance(id, repo.first)])),
      ),
    );
    expect(report.entries).toEqual([expect.objectContaining({ instance_id: id, status: "failed" })]);
    expect(report.entries[0]?.error).toContain(
      `building ${image} failed at instance setup \`echo broken >&2; exit 3\`: exited 3: broken`,
    );
    const left = await run(
      Effect.gen(function* () {
        const engine = yield* ContainerEngine;
        return {
          image: yield* engine.inspectImage(image),
          containers: yield* engine.containersLabelled({ [LABEL_BUILD]: image }),
        };
      }),
    );
    expect(left).toEqual({ image: undefined, containers: [] });
  });

  it("an instance whose commit the clone lacks fails before anything is built, naming the commit and how to fetch it", async () => {
    const progress: string[] = [];
    const missing = "0123456789abcdef0123456789abcdef01234567";
    const report = await remember(
      await run(buildImages(options(calcRecipe(), [instance("acme__calc-4", missing)], progress))),
    );
    expect(report.entries[0]?.status).toBe("failed");
    expect(report.entries[0]?.error).toContain(
      `has no commit ${missing} (the base commit of acme__calc-4): fetch it, e.g. \`git -C `,
    );
    expect(report.entries[0]?.error).toContain(`fetch https://github.com/acme/calc ${missing}\``);
    expect(report.baseImage).toBeUndefined();
    expect(progress.filter((line) => /^(base|environment)/.test(line))).toEqual([]);
  });

  it("builds from a mirror whose refs name objects it lacks, bundling only branches, tags and the base commits (one only a pull-request ref reaches)", async () => {
    // A mirror as GitHub's look: a pull-request ref to a commit on no branch, and refs (a pull request's,
    // a branch's, a tag's) naming objects the mirror does not have, which `git bundle --all` cannot read.
    const mirror = join(root, "mirror");
    mkdirSync(mirror);
    const work = join(root, "work");
    git(work, "checkout", "-q", "-b", "feature", repo.first);
    writeFileSync(join(work, "calc", "ops.py"), "def add(a, b):\n    return b + a\n");
    git(work, "commit", "-q", "-am", "only in a pull request");
    const pullOnly = git(work, "rev-parse", "HEAD");
    git(work, "checkout", "-q", "main");
    const bare = join(mirror, "acme__calc");
    execFileSync("git", ["clone", "-q", "--bare", work, bare]);
    git(bare, "update-ref", "refs/pull/7/head", pullOnly);
    git(bare, "branch", "-D", "feature");
    const bogus = "f".repeat(40);
    writeFileSync(join(bare, "refs", "heads", "broken"), `${bogus}\n`);
    writeFileSync(join(bare, "refs", "tags", "broken"), `${bogus}\n`);
    mkdirSync(join(bare, "refs", "pull", "8"), { recursive: true });
    writeFileSync(join(bare, "refs", "pull", "8", "head"), `${bogus}\n`);
    expect(() =>
      execFileSync("git", ["--git-dir", bare, "bundle", "create", join(root, "all.bundle"), "--all"], {
        stdio: "pipe",
      }),
    ).toThrow(/unable to read|bad object|missing/);
    const refsBefore = git(bare, "for-each-ref", "--format=%(objectname) %(refname)");

    const progress: string[] = [];
    const id = "acme__calc-5";
    const report = await remember(
      await run(
        buildImages({
          ...options(calcRecipe(), [instance(id, pullOnly)], progress),
          repoDir: (name) => (name === "acme/calc" ? bare : undefined),
          force: true,
        }),
      ),
    );
    expect(report.entries).toEqual([expect.objectContaining({ instance_id: id, status: "built" })]);
    expect(progress.find((line) => line.startsWith(`environment calc-${RUN}: building`))).toContain(
      "(the history of 1 base commits, 1 tags and refs/heads/main of",
    );
    expect(progress.find((line) => line.startsWith(`environment calc-${RUN}: building`))).toContain(
      "1 refs left out, their objects are not in the clone",
    );
    const image = instanceImageName(id, { namespace: "graphplan-test", tag });
    // At the pull request's commit, on the mirror's branch name; nothing of the bundle's own refs is left.
    expect(
      await inImage(
        image,
        "cd /testbed && git rev-parse HEAD~1 && git branch --show-current && git for-each-ref --format='%(refname)'",
      ),
    ).toBe(`0:${pullOnly}\nmain\nrefs/heads/main`);
    expect(
      await inImage(
        image,
        "cd /testbed && python3 -c 'import calc.ops, inspect; print(inspect.getsource(calc.ops.add).split()[-1])'",
      ),
    ).toBe("0:a");
    // The mirror was only read.
    expect(git(bare, "for-each-ref", "--format=%(objectname) %(refname)")).toBe(refsBefore);
  });

  it("builds from a clone that lacks a blob of old history, leaving it out and counting it; an instance whose commit needs it fails naming it", async () => {
    // As the matplotlib clone SWE-bench Lite names: three 2013 blobs are not in it, and `git bundle --all` stops.
    const work = join(root, "partial-work");
    mkdirSync(join(work, "calc"), { recursive: true });
    git(work, "init", "-q", "-b", "main");
    writeFileSync(join(work, "calc", "__init__.py"), "");
    writeFileSync(join(work, "extent.svg"), "<svg>drawn in 2013</svg>\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "old");
    const old = git(work, "rev-parse", "HEAD");
    const lost = git(work, "rev-parse", "HEAD:extent.svg");
    git(work, "rm", "-q", "extent.svg");
    writeFileSync(join(work, "calc", "__init__.py"), "version = 2\n");
    git(work, "add", ".");
    git(work, "commit", "-q", "-m", "new");
    const latest = git(work, "rev-parse", "HEAD");
    const partial = join(root, "partial", "acme__calc");
    // A local clone shares the work tree's loose objects (hard links): removing the blob's file is what a
    // mirror that never had it holds.
    execFileSync("git", ["clone", "-q", "--bare", work, partial]);
    rmSync(join(partial, "objects", lost.slice(0, 2), lost.slice(2)));
    expect(() => git(partial, "cat-file", "-e", lost)).toThrow();
    expect(() =>
      execFileSync("git", ["--git-dir", partial, "bundle", "create", join(root, "partial.bundle"), "--all"], {
        stdio: "pipe",
      }),
    ).toThrow(/unable to read|bad object|missing/);

    const progress: string[] = [];
    const report = await remember(
      await run(
        buildImages({
          ...options(calcRecipe(), [instance("acme__calc-6", latest), instance("acme__calc-7", old)], progress),
          repoDir: (name) => (name === "acme/calc" ? partial : undefined),
          force: true,
        }),
      ),
    );
    expect(progress.join("\n")).toContain(
      `environment calc-${RUN}: 1 objects of that history are not in the clone and were left out`,
    );
    expect(report.entries.map((e) => [e.instance_id, e.status])).toEqual([
      ["acme__calc-6", "built"],
      ["acme__calc-7", "failed"],
    ]);
    expect(report.entries[1]?.error).toContain(lost);
    expect(report.entries[1]?.error).toContain(`the checkout of ${old} failed`);
    const image = instanceImageName("acme__calc-6", { namespace: "graphplan-test", tag });
    expect(
      await inImage(image, "cd /testbed && git log --format=%s && cat calc/__init__.py && git status --porcelain"),
    ).toBe("0:SWE-bench\nnew\nold\nversion = 2");
  });

  it("names every repository the environments need that is missing, in one error, before building anything", async () => {
    const recipe = parseRecipe(
      {
        base: { image: BASE_IMAGE },
        environments: [
          {
            name: `calc-x-${RUN}`,
            repo: "acme/calc",
            versions: ["1.0"],
            repositories: [{ repo: "acme/helper", path: "/opt/helper.git" }],
          },
          { name: `other-${RUN}`, repo: "acme/other", versions: ["1.0"] },
        ],
      },
      "test recipe",
    );
    const progress: string[] = [];
    const exit = await runExit(
      buildImages(
        options(
          recipe,
          [
            instance("acme__calc-6", repo.first),
            { repo: "acme/other", instance_id: "acme__other-2", base_commit: repo.first, version: "1.0" },
          ],
          progress,
        ),
      ),
    );
    expect(Exit.isFailure(exit)).toBe(true);
    const error = Exit.isFailure(exit) ? String(exit.cause) : "";
    expect(error).toContain(
      `missing repositories: acme/helper (for calc-x-${RUN}), acme/other (other-${RUN}); give --repos DIR holding acme__helper, acme__other, or --repo-map FILE`,
    );
    expect(progress).toEqual([]);
  });

  it("copies another repository the environment needs (a plain clone) in as a bare one with its branches and tags", async () => {
    const helperWork = join(root, "helper");
    mkdirSync(helperWork);
    git(helperWork, "init", "-q", "-b", "trunk");
    writeFileSync(join(helperWork, "helper.py"), "X = 1\n");
    git(helperWork, "add", ".");
    git(helperWork, "commit", "-q", "-m", "helper");
    git(helperWork, "tag", "h1");
    const recipe = parseRecipe(
      {
        base: { image: BASE_IMAGE },
        environments: [
          {
            name: `calc-h-${RUN}`,
            repo: "acme/calc",
            versions: ["1.0"],
            repositories: [{ repo: "acme/helper", path: "/opt/helper.git" }],
          },
        ],
      },
      "test recipe",
    );
    const id = "acme__calc-7";
    const report = await remember(
      await run(
        buildImages({
          ...options(recipe, [instance(id, repo.first)]),
          repoDir: (name) =>
            name === "acme/calc" ? join(repo.reposDir, "acme__calc") : name === "acme/helper" ? helperWork : undefined,
        }),
      ),
    );
    expect(report.entries).toEqual([expect.objectContaining({ instance_id: id, status: "built" })]);
    const image = instanceImageName(id, { namespace: "graphplan-test", tag });
    expect(
      await inImage(
        image,
        "git --git-dir /opt/helper.git for-each-ref --format='%(refname)' && git --git-dir /opt/helper.git show h1:helper.py",
      ),
    ).toBe("0:refs/heads/trunk\nrefs/tags/h1\nX = 1");
  });

  it("--compiler-cache: instance setup compiles through the environment's ccache into the host directory, which no image holds; an environment without ccache is named", async () => {
    // A stand-in ccache: its gcc wrapper logs to $CCACHE_DIR, `--print-stats` answers fixed counters.
    const fakeCcache = [
      "mkdir -p /usr/lib/ccache",
      `printf '#!/bin/sh\\ncase "$1" in -z) : > "$CCACHE_DIR/zeroed" ;; --print-stats) printf "direct_cache_hit\\\\t2\\\\npreprocessed_cache_hit\\\\t1\\\\ncache_miss\\\\t4\\\\n" ;; esac\\n' > /usr/bin/ccache`,
      `printf '#!/bin/sh\\necho "gcc $*" >> "$CCACHE_DIR/calls"\\n' > /usr/lib/ccache/gcc`,
      "chmod 755 /usr/bin/ccache /usr/lib/ccache/gcc",
    ];
    const recipe = parseRecipe(
      {
        base: { image: BASE_IMAGE },
        environments: [
          {
            name: `calc-cc-${RUN}`,
            repo: "acme/calc",
            versions: ["1.0"],
            setup: fakeCcache,
            instance_setup: ["gcc -c calc.c", 'echo "$PATH" > /opt/setup-path'],
          },
          {
            name: `calc-nocc-${RUN}`,
            repo: "acme/calc",
            versions: ["2.0"],
            instance_setup: ["true"],
          },
        ],
      },
      "test recipe",
    );
    const cacheDir = join(root, "ccache");
    mkdirSync(cacheDir);
    const progress: string[] = [];
    const id = "acme__calc-8";
    const other = { ...instance("acme__calc-9", repo.first), version: "2.0" };
    const report = await remember(
      await run(
        buildImages({
          ...options(recipe, [instance(id, repo.first), other], progress),
          compilerCache: cacheDir,
        }),
      ),
    );
    expect(report.entries.map((e) => e.status)).toEqual(["built", "built"]);
    expect(readFileSync(join(cacheDir, "calls"), "utf8")).toBe("gcc -c calc.c\n");
    expect(existsSync(join(cacheDir, "zeroed"))).toBe(true);
    expect(progress).toContain(`${id}: compiler cache 3 hits, 4 misses`);
    expect(progress).toContain(
      `acme__calc-9: environment calc-nocc-${RUN} has no ccache (/usr/lib/ccache): built without the compiler cache; add ccache to its packages`,
    );
    const image = instanceImageName(id, { namespace: "graphplan-test", tag });
    // ccache was first on the path while the setup ran; the image keeps neither the cache nor that path.
    expect(await inImage(image, "cut -d: -f1 /opt/setup-path")).toBe("0:/usr/lib/ccache");
    expect(await inImage(image, `ls -A ${CCACHE_MOUNT} 2>/dev/null | wc -l; echo "$PATH" | grep -c ccache`)).toBe(
      "1:0\n0",
    );
  });

  it("an instance with no environment in the recipe is reported, not built", async () => {
    const report = await remember(
      await run(
        buildImages(
          options(calcRecipe(), [
            { repo: "acme/other", instance_id: "acme__other-1", base_commit: repo.first, version: "1.0" },
          ]),
        ),
      ),
    );
    expect(report.entries).toEqual([
      expect.objectContaining({ instance_id: "acme__other-1", status: "no_environment" }),
    ]);
    expect(report.baseImage).toBeUndefined();
  });
});

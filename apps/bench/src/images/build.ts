/**
 * `buildImages`: SWE-bench instance images made here, without a registry, in three layers that are
 * reused when present:
 *
 * 1. base: the recipe's Debian root file system (mmdebstrap on the host, imported with
 *    `podman --url <engine> import`) or an existing image, plus pyenv interpreters copied in through
 *    the engine and the base's setup commands: `graphplan-sweb.base:<hash of that part>`;
 * 2. environment: base + the repository's history at /testbed (a pack of what its tags, HEAD's branch and
 *    the base commits they do not reach need, copied in through the engine; never refs whose objects the
 *    clone lacks, and without the old objects it lacks, counted) + other repositories + extra Debian packages
 *    (and pinned ones of other suites, unpacked: `apt.ts`) + setup commands + the environment file and /root/.bashrc: `graphplan-sweb.env.<name>:<hash>`;
 * 3. instance: `git checkout` of the base commit (the branch moved there, origin and later tags
 *    removed, reflog expired), per-instance setup, the harness's `SWE-bench` commit:
 *    `instanceImageName(id, {namespace, tag})` (`swebench/sweb.eval.x86_64.<id>:latest` by default).
 *
 * Every build container is removed when its scope closes (also on interruption); an image is
 * committed under its name only after every step succeeded.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ContainerEngine, type ContainerError, type ContainerShape } from "@graphplan/runtime";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import { instanceImageName } from "../eval/spec.js";
import { debianPackagesCommand, otherSuiteNames, otherSuitesCommand } from "./apt.js";
import { DEBIAN_MIRROR, recipeFor, type Recipe, type RecipeEnvironment } from "./recipe.js";

/** Where the eval runner reads how to enter the environment (instead of the harness's conda lines). */
export const ENVIRONMENT_FILE = "/etc/graphplan/eval-environment.json";
export const BASHRC = "/root/.bashrc";
export const TESTBED = "/testbed";
/** The PATH of the base image (Debian's default). */
export const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
/** Labels of the images this builder makes. */
export const LABEL_LAYER = "graphplan.sweb.layer";
export const LABEL_HASH = "graphplan.sweb.hash";
export const LABEL_ENVIRONMENT = "graphplan.sweb.environment";
export const LABEL_INSTANCE = "graphplan.sweb.instance";
/** Every build container carries this label (to find leftovers). */
export const LABEL_BUILD = "graphplan.sweb.build";
/**
 * A commit keeps the build container's labels, and containers started from the image would inherit
 * them: the image gets the build label emptied (a commit cannot remove a label).
 */
const NOT_A_BUILD = { [LABEL_BUILD]: "" } as const;

/** What the builder needs of a dataset row. */
export interface BuildInstance {
  readonly repo: string;
  readonly instance_id: string;
  readonly base_commit: string;
  readonly version: string;
}

export interface BuildOptions {
  readonly recipe: Recipe;
  readonly instances: readonly BuildInstance[];
  /**
   * Every instance of the dataset (default: `instances`): an environment image holds the history of the
   * base commits of all of them that it serves, so that building other instances later reuses it.
   */
  readonly datasetInstances?: readonly BuildInstance[];
  /** The git directory (bare or not) of a dataset repo, or undefined when there is none. */
  readonly repoDir: (repo: string) => string | undefined;
  /** Image namespace; null = the local form (no prefix, no `_1776_`). Default "swebench". */
  readonly namespace?: string | null;
  readonly tag?: string;
  /** Rebuild the instance and environment images (and the base with `forceBase`). */
  readonly force?: boolean;
  readonly forceBase?: boolean;
  /** The pyenv root interpreters are copied from when the recipe names none (default $PYENV_ROOT, else /root/.pyenv). */
  readonly pyenvRoot?: string;
  /**
   * A directory on the engine's host kept as ccache's cache across instance builds (`--compiler-cache`): mounted
   * into each instance's build container, never committed into an image. Environments with Debian's `ccache`
   * compile their instances' extensions through it; the images are the same as without it.
   */
  readonly compilerCache?: string;
  readonly onProgress?: (line: string) => void;
}

export type BuildStatus = "built" | "reused" | "failed" | "no_environment";

export interface BuildEntry {
  readonly instance_id: string;
  readonly repo: string;
  readonly version: string;
  readonly status: BuildStatus;
  readonly image?: string;
  readonly environment?: string;
  readonly environmentImage?: string;
  /** Time spent on this instance's image (its own layer only), ms. */
  readonly ms: number;
  readonly error?: string;
}

/** A shared layer (the root file system, the base, an environment) this build needed: made, or found present. */
export interface LayerRecord {
  readonly kind: "rootfs" | "base" | "environment";
  readonly image: string;
  readonly status: "built" | "reused" | "failed";
  /** Time spent making it, ms (0 when reused). */
  readonly ms: number;
}

export interface BuildReport {
  readonly entries: readonly BuildEntry[];
  /** The shared layers, in the order the build first needed them. */
  readonly layers: readonly LayerRecord[];
  readonly baseImage?: string;
}

/** A layer could not be built: which, at which step, and the end of what the step printed. */
export class ImageBuildFailed extends Data.TaggedError("ImageBuildFailed")<{
  readonly image: string;
  readonly step: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `building ${this.image} failed at ${this.step}: ${this.detail}`;
  }
}

/** Something on the host the build needs is missing (an interpreter, a repository, mmdebstrap). */
export class BuildInputMissing extends Data.TaggedError("BuildInputMissing")<{ readonly detail: string }> {
  override get message(): string {
    return this.detail;
  }
}

export type BuildError = ImageBuildFailed | BuildInputMissing | ContainerError;

// --- Hashes and names -------------------------------------------------------------------------------

const hashOf = (value: unknown): string =>
  createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);

/** Single-quoted for a POSIX shell. */
export const shellQuote = (value: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;

export const rootfsImageName = (recipe: Recipe): string | undefined =>
  recipe.base.debian === undefined
    ? undefined
    : `graphplan-sweb.rootfs:${hashOf({ debian: recipe.base.debian, format: 1 })}`;

const pythonBin = (recipe: Recipe, python: string) => `${recipe.base.interpreters.to}/versions/${python}/bin`;

/** The environment variables of an environment image: PATH with its interpreter first, and the recipe's. */
export function environmentVariables(recipe: Recipe, environment: RecipeEnvironment): Record<string, string> {
  return {
    PATH: environment.python === undefined ? DEFAULT_PATH : `${pythonBin(recipe, environment.python)}:${DEFAULT_PATH}`,
    ...environment.env,
  };
}

/** The activation lines: the variables exported, then the recipe's own lines. */
export function activationLines(recipe: Recipe, environment: RecipeEnvironment): string[] {
  return [
    ...Object.entries(environmentVariables(recipe, environment)).map(([k, v]) => `export ${k}=${shellQuote(v)}`),
    ...environment.activate,
  ];
}

/** `/etc/graphplan/eval-environment.json`'s content. */
export function environmentFile(recipe: Recipe, environment: RecipeEnvironment): string {
  return `${JSON.stringify({ activate: activationLines(recipe, environment), install: environment.install }, null, 2)}\n`;
}

/** `/root/.bashrc`: the same activation, so `BASH_ENV=/root/.bashrc bash -c CMD` runs in the environment. */
export function bashrc(recipe: Recipe, environment: RecipeEnvironment): string {
  return [
    `# SWE-bench environment ${environment.name} (${environment.repo}), written by \`bench images build\`; also in ${ENVIRONMENT_FILE}`,
    ...activationLines(recipe, environment),
    "",
  ].join("\n");
}

// --- Host processes -----------------------------------------------------------------------------------

interface HostResult {
  readonly code: number | null;
  readonly output: string;
}

const tail = (text: string, lines = 15): string => text.trimEnd().split("\n").slice(-lines).join("\n");

/** Runs a host command (killed when interrupted); `stdout` "pipe" hands the stream to `use`. */
function host(
  argv: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Effect.Effect<HostResult> {
  return Effect.callback<HostResult>((resume) => {
    const child = spawn(argv[0] ?? "", argv.slice(1), {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const add = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.length > 200_000) output = output.slice(-100_000);
    };
    child.stdout.on("data", add);
    child.stderr.on("data", add);
    child.on("error", (error) => resume(Effect.succeed({ code: null, output: `${output}${error.message}` })));
    child.on("close", (code) => resume(Effect.succeed({ code, output })));
    return Effect.sync(() => {
      child.kill("SIGTERM");
    });
  });
}

/**
 * A host process whose stdout is streamed into `use` (e.g. `tar -c` into `putArchive`); fails when either fails.
 * When `use` is done the stream has ended, but the process may not have exited yet: it is waited for, and
 * killed only when `use` failed or was interrupted (killing it on success made a finished `tar` "exit null").
 */
export function hostStream<E>(
  argv: readonly string[],
  image: string,
  step: string,
  use: (stdout: Readable) => Effect.Effect<void, E>,
): Effect.Effect<void, E | ImageBuildFailed> {
  return Effect.gen(function* () {
    const child = spawn(argv[0] ?? "", argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-20_000)));
    const closed = new Promise<number | null>((resolve) => {
      child.on("error", (error) => {
        stderr += error.message;
        resolve(null);
      });
      child.on("close", resolve);
    });
    yield* use(child.stdout).pipe(
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) ? Effect.void : Effect.sync(() => child.exitCode === null && child.kill("SIGTERM")),
      ),
    );
    const code = yield* Effect.promise(() => closed);
    if (code !== 0)
      return yield* Effect.fail(
        new ImageBuildFailed({ image, step, detail: `\`${argv.join(" ")}\` exited ${code}: ${tail(stderr)}` }),
      );
  });
}

/** A temporary host directory, removed when the scope closes. */
const tempHostDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true })),
  );

// --- Steps in a container --------------------------------------------------------------------------------

/** Runs one shell command; a non-zero exit fails the layer with the end of its output. */
function run(
  container: ContainerShape,
  image: string,
  step: string,
  command: string,
  options: { workdir?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Effect.Effect<string, ImageBuildFailed | ContainerError> {
  return Effect.gen(function* () {
    const result = yield* container.exec(command, {
      workdir: options.workdir,
      timeoutMs: options.timeoutMs ?? 1_800_000,
      user: "root",
      env: options.env,
    });
    if (result.timedOut)
      return yield* Effect.fail(
        new ImageBuildFailed({
          image,
          step,
          detail: `did not finish within ${Math.round((options.timeoutMs ?? 1_800_000) / 1000)} s: ${tail(result.output)}`,
        }),
      );
    if (result.exitCode !== 0)
      return yield* Effect.fail(
        new ImageBuildFailed({ image, step, detail: `exited ${result.exitCode}: ${tail(result.output)}` }),
      );
    return result.output;
  });
}

/** The git directory of a repository on the host (bare or not). */
function gitDirOf(dir: string): Effect.Effect<string, BuildInputMissing> {
  return Effect.gen(function* () {
    const result = yield* host(["git", "-C", dir, "rev-parse", "--absolute-git-dir"]);
    if (result.code !== 0)
      return yield* Effect.fail(
        new BuildInputMissing({
          detail: `${dir} is not a git repository (${tail(result.output, 2)}); give --repos DIR with DIR/<owner>__<name> clones, or --repo-map`,
        }),
      );
    return result.output.trim();
  });
}

/** Where a clone's history comes from: its git directory, and the refs (name → commit) the image's copy carries. */
interface HistorySource {
  readonly gitDir: string;
  readonly refs: ReadonlyMap<string, string>;
  /** HEAD's branch, when it is among `refs` (the clone in the image gets the same branch name). */
  readonly head?: string;
  /** Refs of the clone left out because they name objects it does not have (e.g. pull-request refs of a mirror). */
  readonly skipped: number;
}

/**
 * The ref a base commit is carried under in the image's copy (the clone maps it to origin's, which the instance layer
 * removes).
 */
const baseRef = (commit: string) => `refs/heads/graphplan-sweb-base/${commit}`;

/** Which of `names` (object names or revisions such as `sha^{commit}`) the repository has, by one `git cat-file --batch-check`. */
function existing(gitDir: string, names: readonly string[]): Effect.Effect<Set<string>> {
  if (names.length === 0) return Effect.succeed(new Set());
  return Effect.callback<Set<string>>((resume) => {
    const child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch-check=%(objectname)"], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.on("error", () => resume(Effect.succeed(new Set())));
    child.on("close", () => {
      // One answer line per input line, in order: "<sha>", or "<input> missing" / "<input> ambiguous".
      const answers = out.split("\n");
      resume(Effect.succeed(new Set(names.filter((_, i) => /^[0-9a-f]{40,64}$/.test(answers[i] ?? "")))));
    });
    child.stdin.end(`${names.join("\n")}\n`);
    return Effect.sync(() => {
      child.kill("SIGTERM");
    });
  });
}

/**
 * What of a clone goes into an image: the history of `baseCommits` (those the clone has), its tags and
 * HEAD's branch (`allBranches`: every branch, for a repository the environment uses as a whole) — never
 * refs whose objects the clone lacks, such as a mirror's pull-request refs. Returns the refs and the base
 * commits the clone does not have.
 */
function historySource(
  gitDir: string,
  baseCommits: readonly string[],
  allBranches: boolean,
): Effect.Effect<HistorySource & { readonly missing: readonly string[] }> {
  return Effect.gen(function* () {
    const head = (yield* host(["git", "--git-dir", gitDir, "symbolic-ref", "-q", "HEAD"])).output.trim();
    const listing = yield* host([
      "git",
      "--git-dir",
      gitDir,
      "for-each-ref",
      "--format=%(objectname) %(refname)",
      "refs/heads",
      "refs/tags",
    ]);
    const candidates = listing.output
      .split("\n")
      .map((line) => line.split(" ") as [string, string])
      .filter(([sha, name]) => sha && name && (allBranches || name.startsWith("refs/tags/") || name === head));
    const commits = [...new Set(baseCommits)];
    // A ref is kept when what it names, peeled to its commit or tree, is there.
    const have = yield* existing(gitDir, [
      ...candidates.map(([sha]) => `${sha}^{}`),
      ...commits.map((c) => `${c}^{commit}`),
    ]);
    const refs = new Map<string, string>();
    for (const [sha, name] of candidates) if (have.has(`${sha}^{}`)) refs.set(name, sha);
    // Base commits the branch and tags do not reach (e.g. only a pull-request ref does) get a ref of their own;
    // the others add nothing, and leaving them out keeps the image's hash the same whatever instances it serves.
    const present = commits.filter((c) => have.has(`${c}^{commit}`));
    if (present.length) {
      const unreached = refs.size
        ? yield* host(["git", "--git-dir", gitDir, "rev-list", ...present, "--not", ...new Set(refs.values())])
        : undefined;
      // host() keeps the end of a long output only: then every base commit gets its ref, which is never wrong.
      const known = unreached !== undefined && unreached.code === 0 && unreached.output.length < 100_000;
      const outside = new Set(unreached?.output.split("\n"));
      for (const commit of present) if (!known || outside.has(commit)) refs.set(baseRef(commit), commit);
    }
    return {
      gitDir,
      refs,
      ...(refs.has(head) ? { head } : {}),
      skipped: candidates.length - [...candidates].filter(([sha]) => have.has(`${sha}^{}`)).length,
      missing: commits.filter((c) => !have.has(`${c}^{commit}`)),
    };
  });
}

/**
 * The ref updates (`git update-ref --stdin`) that give the copy in the image the refs a `git clone` of
 * them would: a bare copy gets them as they are; a work tree HEAD's branch and the tags as they are, and
 * every other branch (the base commits' refs among them) as origin's, which the instance layer removes with origin.
 */
function imageRefUpdates(source: HistorySource, bare: boolean): string {
  const renamed = (name: string) =>
    bare || name === source.head || !name.startsWith("refs/heads/")
      ? name
      : `refs/remotes/origin/${name.slice("refs/heads/".length)}`;
  return [...source.refs].map(([name, sha]) => `create ${renamed(name)} ${sha}\n`).join("");
}

/** Where `copyRepository` puts the pack and the ref updates in the container (removed after unpacking). */
const COPY_DIR = "/tmp/graphplan-sweb";

/**
 * The shell lines that make `<path>` in the image from COPY_DIR's pack and ref updates:
 * as `git clone [--bare] --no-checkout` would (HEAD on the clone's branch; origin for a work tree).
 */
function unpackCommands(target: { readonly path: string; readonly bare: boolean }, head?: string): string[] {
  const path = shellQuote(target.path);
  return [
    "set -e",
    `git init -q ${target.bare ? "--bare " : ""}-b ${shellQuote(head?.replace(/^refs\/heads\//, "") ?? "main")} ${path}`,
    `git -C ${path} index-pack --stdin < ${COPY_DIR}/repo.pack > /dev/null`,
    `git -C ${path} update-ref --stdin < ${COPY_DIR}/refs.txt`,
    ...(target.bare
      ? []
      : [
          `git -C ${path} config remote.origin.url ${COPY_DIR}`,
          `git -C ${path} config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'`,
        ]),
    `rm -rf ${COPY_DIR}`,
  ];
}

/**
 * Copies a clone's history into the container as `<path>`: a pack of what `source.refs` reach, made in a
 * temporary repository that borrows the clone's objects (the clone itself is not written to), copied in
 * through the engine and unpacked there. Objects the clone lacks (old blobs a partial mirror never had)
 * are left out of the pack, in the same walk that lists the others; their number is returned. An
 * instance whose base commit needs one fails at its checkout, naming it.
 */
function copyRepository(
  container: ContainerShape,
  image: string,
  source: HistorySource,
  target: { readonly path: string; readonly bare: boolean },
): Effect.Effect<number, ImageBuildFailed | ContainerError> {
  return Effect.scoped(
    Effect.gen(function* () {
      const dir = yield* tempHostDir("graphplan-sweb-pack-");
      const borrowed = join(dir, "refs.git");
      const step = `git pack of ${source.gitDir}`;
      const init = yield* host(["git", "init", "-q", "--bare", borrowed]);
      if (init.code !== 0) return yield* Effect.fail(new ImageBuildFailed({ image, step, detail: tail(init.output) }));
      writeFileSync(join(borrowed, "objects", "info", "alternates"), `${join(source.gitDir, "objects")}\n`);
      writeFileSync(join(dir, "borrowed.txt"), imageRefUpdates(source, true));
      const copy = join(dir, "copy");
      mkdirSync(copy);
      writeFileSync(join(copy, "refs.txt"), imageRefUpdates(source, target.bare));
      // One walk: `rev-list --missing=print` lists every object the refs reach, those the clone lacks as
      // "?<sha>"; the others are packed, the lacking ones counted.
      const packed = yield* host([
        "sh",
        "-c",
        [
          'set -e; git --git-dir "$1" update-ref --stdin < "$2/borrowed.txt"',
          'git --git-dir "$1" rev-list --objects --missing=print --all > "$2/objects.txt"',
          'grep -c "^?" "$2/objects.txt" > "$2/missing.txt" || true',
          'grep -v "^?" "$2/objects.txt" | git --git-dir "$1" pack-objects -q --stdout > "$2/copy/repo.pack"',
        ].join("\n"),
        "sh",
        borrowed,
        dir,
      ]);
      if (packed.code !== 0)
        return yield* Effect.fail(new ImageBuildFailed({ image, step, detail: tail(packed.output) }));
      const missing = Number.parseInt(readFileSync(join(dir, "missing.txt"), "utf8").trim() || "0", 10);
      yield* run(container, image, "copy the repository", `mkdir -p ${COPY_DIR}`);
      yield* hostStream(["tar", "-C", copy, "-c", "repo.pack", "refs.txt"], image, `copy ${source.gitDir}`, (stream) =>
        container.putArchive(COPY_DIR, stream),
      );
      yield* run(container, image, `unpack into ${target.path}`, unpackCommands(target, source.head).join("\n"), {
        timeoutMs: 1_800_000,
      });
      return missing;
    }),
  );
}

// --- The layers -------------------------------------------------------------------------------------------

interface LayerContext {
  readonly engine: ContainerEngine["Service"];
  readonly options: BuildOptions;
  readonly say: (line: string) => void;
  /** What each shared layer cost this build (the report's `layers`). */
  readonly layers: LayerRecord[];
}

/** The mmdebstrap root file system, imported as an image (host side: mmdebstrap, then `podman import`). */
function rootfsLayer(ctx: LayerContext, name: string) {
  const { engine, options } = ctx;
  const debian = options.recipe.base.debian!;
  return Effect.scoped(
    Effect.gen(function* () {
      const present = yield* engine.inspectImage(name);
      if (present !== undefined && !options.forceBase) {
        ctx.layers.push({ kind: "rootfs", image: name, status: "reused", ms: 0 });
        return name;
      }
      const which = yield* host(["sh", "-c", "command -v mmdebstrap"]);
      if (which.code !== 0)
        return yield* Effect.fail(
          new BuildInputMissing({
            detail:
              "mmdebstrap is not installed on this host; install it (as root: apt-get install --no-install-recommends mmdebstrap) or give the recipe's base an existing `image:`",
          }),
        );
      const dir = yield* tempHostDir("graphplan-sweb-rootfs-");
      const archive = join(dir, "rootfs.tar");
      ctx.say(
        `base: mmdebstrap ${debian.suite} (${debian.variant}, ${debian.packages.length} packages) from ${debian.mirror}`,
      );
      const started = Date.now();
      const made = yield* host([
        "mmdebstrap",
        "--mode=root",
        `--variant=${debian.variant}`,
        ...(debian.packages.length ? [`--include=${debian.packages.join(",")}`] : []),
        '--aptopt=APT::Install-Recommends "false"',
        "--dpkgopt=path-exclude=/usr/share/man/*",
        "--dpkgopt=path-exclude=/usr/share/info/*",
        "--dpkgopt=path-exclude=/usr/share/doc/*",
        "--dpkgopt=path-include=/usr/share/doc/*/copyright",
        '--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb',
        debian.suite,
        archive,
        debian.mirror,
      ]);
      if (made.code !== 0)
        return yield* Effect.fail(new ImageBuildFailed({ image: name, step: "mmdebstrap", detail: tail(made.output) }));
      const imported = yield* host([
        ...podmanRemote(engine.endpoint),
        "import",
        "--change",
        `ENV PATH=${DEFAULT_PATH}`,
        "--change",
        "ENV LANG=C.UTF-8",
        "--change",
        'CMD ["/bin/bash"]',
        archive,
        name,
      ]);
      if (imported.code !== 0)
        return yield* Effect.fail(
          new ImageBuildFailed({ image: name, step: "podman import", detail: tail(imported.output) }),
        );
      ctx.say(
        `base: ${name} made in ${((Date.now() - started) / 1000).toFixed(0)} s (${(statSync(archive).size / 1e6).toFixed(0)} MB)`,
      );
      ctx.layers.push({ kind: "rootfs", image: name, status: "built", ms: Date.now() - started });
      return name;
    }),
  );
}

/** `podman --url <engine> ` for the engine's socket (the API has no import that the engine service wraps). */
function podmanRemote(endpoint: string): string[] {
  return ["podman", "--url", endpoint];
}

function baseLayer(ctx: LayerContext) {
  const { engine, options } = ctx;
  const base = options.recipe.base;
  return Effect.gen(function* () {
    let from: string;
    let fromId: string;
    if (base.image !== undefined) {
      const info = yield* engine.inspectImage(base.image);
      if (info === undefined)
        return yield* Effect.fail(
          new BuildInputMissing({
            detail: `the recipe's base image ${base.image} is not in the engine at ${engine.endpoint}; build it (the test image: \`bash .ci/podman-setup.sh\`) or name another`,
          }),
        );
      from = base.image;
      fromId = info.id;
    } else {
      from = yield* rootfsLayer(ctx, rootfsImageName(options.recipe)!);
      fromId = from;
    }
    const pyenvRoot = base.interpreters.from ?? options.pyenvRoot ?? process.env.PYENV_ROOT ?? "/root/.pyenv";
    for (const version of base.interpreters.versions) {
      if (!existsSync(join(pyenvRoot, "versions", version, "bin", "python"))) {
        const have = existsSync(join(pyenvRoot, "versions"))
          ? (yield* host(["ls", join(pyenvRoot, "versions")])).output.trim().split("\n").join(", ")
          : "none";
        return yield* Effect.fail(
          new BuildInputMissing({
            detail: `the recipe copies in Python ${version}, but ${join(pyenvRoot, "versions", version)} does not exist (pyenv has: ${have}); install it (\`pyenv install ${version}\`), set PYENV_ROOT or base.interpreters.from, or change base.interpreters.versions`,
          }),
        );
      }
    }
    const hash = hashOf({
      fromId,
      interpreters: { ...base.interpreters, from: undefined },
      setup: base.setup,
      format: 1,
    });
    const name = `graphplan-sweb.base:${hash}`;
    const present = yield* engine.inspectImage(name);
    if (present !== undefined && !options.forceBase) {
      ctx.layers.push({ kind: "base", image: name, status: "reused", ms: 0 });
      return { name, hash };
    }
    ctx.say(`base: building ${name} from ${from} (Python ${base.interpreters.versions.join(", ") || "none"})`);
    const started = Date.now();
    yield* Effect.scoped(
      Effect.gen(function* () {
        const container = yield* engine.start({ image: from, labels: { [LABEL_BUILD]: name } });
        const versionsDir = `${base.interpreters.to}/versions`;
        yield* run(container, name, "interpreters", `mkdir -p ${shellQuote(versionsDir)}`);
        for (const version of base.interpreters.versions) {
          const excludes = base.interpreters.exclude.map((pattern) => `--exclude=${version}/${pattern}`);
          yield* hostStream(
            ["tar", "-C", join(pyenvRoot, "versions"), ...excludes, "-c", version],
            name,
            `copy Python ${version}`,
            (stream) => container.putArchive(versionsDir, stream),
          );
          const [major, minor] = version.split(".");
          yield* run(
            container,
            name,
            `Python ${version}`,
            `mkdir -p ${shellQuote(`${versionsDir}/${version}/lib/python${major}.${minor}/site-packages`)} && ${shellQuote(`${versionsDir}/${version}/bin/python`)} -c 'import sys, ssl, sqlite3; print(sys.version)'`,
          );
        }
        for (const command of base.setup)
          yield* run(container, name, `base setup \`${command.split("\n")[0]}\``, command);
        yield* container.commit(name, {
          labels: { ...NOT_A_BUILD, [LABEL_LAYER]: "base", [LABEL_HASH]: hash },
          env: { PATH: DEFAULT_PATH },
          comment: "graphplan sweb base",
        });
      }),
    );
    ctx.say(`base: ${name} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    ctx.layers.push({ kind: "base", image: name, status: "built", ms: Date.now() - started });
    return { name, hash };
  });
}

/** The histories an environment image carries: its repository's and the other repositories' (bare). */
interface EnvironmentSources {
  readonly main: HistorySource;
  readonly extras: readonly { readonly repo: string; readonly path: string; readonly source: HistorySource }[];
}

function environmentLayer(
  ctx: LayerContext,
  base: { name: string; hash: string },
  environment: RecipeEnvironment,
  sources: EnvironmentSources,
) {
  const { engine, options } = ctx;
  const recipe = options.recipe;
  return Effect.gen(function* () {
    // The image depends on the refs it carries, not on the clone's others (a mirror's pull-request refs change with every fetch).
    const refsOf = (source: HistorySource) => [
      source.head ?? "",
      ...[...source.refs].map(([ref, sha]) => `${sha} ${ref}`).sort(),
    ];
    const hash = hashOf({
      base: base.hash,
      environment,
      refs: [refsOf(sources.main), ...sources.extras.map((e) => refsOf(e.source))],
      format: 2,
    });
    const name = `graphplan-sweb.env.${environment.name}:${hash}`;
    const present = yield* engine.inspectImage(name);
    if (present !== undefined && !options.force) {
      ctx.layers.push({ kind: "environment", image: name, status: "reused", ms: 0 });
      return { name, hash };
    }
    const tags = [...sources.main.refs.keys()].filter((ref) => ref.startsWith("refs/tags/")).length;
    const bases = [...sources.main.refs.keys()].filter((ref) => ref.startsWith(baseRef(""))).length;
    const left = sources.main.skipped
      ? `; ${sources.main.skipped} refs left out, their objects are not in the clone`
      : "";
    ctx.say(
      `environment ${environment.name}: building ${name} (the history of ${bases} base commits, ${tags} tags${sources.main.head ? ` and ${sources.main.head}` : ""} of ${sources.main.gitDir}${left})`,
    );
    const started = Date.now();
    const env = environmentVariables(recipe, environment);
    yield* Effect.scoped(
      Effect.gen(function* () {
        const container = yield* engine.start({ image: base.name, env, labels: { [LABEL_BUILD]: name } });
        // apt's retries and ceilings are not in the hash: they change how the layer is fetched, not what it holds.
        if (environment.packages.length)
          yield* run(container, name, "Debian packages", debianPackagesCommand(environment.packages));
        if (environment.other_suites !== undefined)
          yield* run(
            container,
            name,
            `packages of ${otherSuiteNames(environment.other_suites).join(", ")}`,
            otherSuitesCommand(recipe.base.debian?.mirror ?? DEBIAN_MIRROR, environment.other_suites),
            { timeoutMs: environment.timeout_seconds * 1000 },
          );
        const lacking = yield* copyRepository(container, name, sources.main, { path: TESTBED, bare: false });
        if (lacking)
          ctx.say(
            `environment ${environment.name}: ${lacking} objects of that history are not in the clone and were left out (an instance whose base commit needs one fails at its checkout, naming it)`,
          );
        for (const extra of sources.extras)
          yield* copyRepository(container, name, extra.source, { path: extra.path, bare: true });
        // The eval script runs these lines as they are: a stray quote or parenthesis would break it.
        for (const line of [...activationLines(recipe, environment), environment.install]) {
          yield* run(container, name, "check the activate and install lines", `bash -n -c ${shellQuote(line)}`);
        }
        yield* container.putFiles([
          { path: ENVIRONMENT_FILE, content: environmentFile(recipe, environment) },
          { path: BASHRC, content: bashrc(recipe, environment) },
        ]);
        for (const command of environment.setup) {
          yield* run(container, name, `setup \`${command.split("\n")[0]}\``, command, {
            workdir: TESTBED,
            timeoutMs: environment.timeout_seconds * 1000,
          });
        }
        yield* container.commit(name, {
          labels: {
            ...NOT_A_BUILD,
            [LABEL_LAYER]: "environment",
            [LABEL_HASH]: hash,
            [LABEL_ENVIRONMENT]: environment.name,
          },
          env,
          workdir: TESTBED,
          comment: `graphplan sweb environment ${environment.name}`,
        });
      }),
    );
    ctx.say(`environment ${environment.name}: ${name} built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    ctx.layers.push({ kind: "environment", image: name, status: "built", ms: Date.now() - started });
    return { name, hash };
  });
}

/** Where `--compiler-cache` is mounted in an instance's build container (not part of any image). */
export const CCACHE_MOUNT = "/root/.cache/graphplan-ccache";

const CCACHE_ENV = { CCACHE_DIR: CCACHE_MOUNT };

/**
 * Whether this instance's setup compiles through the compiler cache: asked for, with setup commands, and the
 * environment image has Debian's ccache (said when it has not). Its statistics are zeroed, to count this
 * instance's compiles.
 */
function compilerCacheStart(
  ctx: LayerContext,
  container: ContainerShape,
  image: string,
  instance: BuildInstance,
  environment: RecipeEnvironment,
) {
  if (ctx.options.compilerCache === undefined || environment.instance_setup.length === 0) return Effect.succeed(false);
  return run(
    container,
    image,
    "compiler cache",
    "if [ -x /usr/bin/ccache ] && [ -d /usr/lib/ccache ]; then ccache -z >/dev/null && echo yes; else echo no; fi",
    { env: CCACHE_ENV },
  ).pipe(
    Effect.map((output) => output.trim() === "yes"),
    Effect.tap((present) =>
      Effect.sync(() => {
        if (!present)
          ctx.say(
            `${instance.instance_id}: environment ${environment.name} has no ccache (/usr/lib/ccache): built without the compiler cache; add ccache to its packages`,
          );
      }),
    ),
  );
}

/** This instance's cache hits and misses (ccache's `--print-stats`, tab-separated counters). */
function compilerCacheStats(container: ContainerShape, image: string) {
  return run(container, image, "compiler cache statistics", "ccache --print-stats", { env: CCACHE_ENV }).pipe(
    Effect.map((output) => {
      const counter = (name: string) => Number(new RegExp(`^${name}\\t(\\d+)$`, "m").exec(output)?.[1] ?? 0);
      return {
        hits: counter("direct_cache_hit") + counter("preprocessed_cache_hit"),
        misses: counter("cache_miss"),
      };
    }),
  );
}

/** The commands that put /testbed at the base commit, as the harness's setup_repo does (without gc). */
export function checkoutCommands(baseCommit: string): string[] {
  const commit = shellQuote(baseCommit);
  return [
    `git cat-file -e ${commit}^{commit} || { echo "the repository has no commit ${baseCommit}: fetch it into the clone given with --repos" >&2; exit 1; }`,
    // One command a line: `set -e` does not stop inside an `&&` list, and a failed checkout left /testbed at the branch tip.
    `branch=$(git symbolic-ref --short HEAD 2>/dev/null || echo main)`,
    `git -c advice.detachedHead=false checkout -q -f -B "$branch" ${commit} || { echo "the checkout of ${baseCommit} failed (above): when it names an object it cannot read, the clone given with --repos lacks it; fetch the clone again" >&2; exit 1; }`,
    "git clean -fdxq",
    "if git remote | grep -qx origin; then git remote remove origin; fi",
    // Tags and branches the base commit does not contain would show the future (the fix) to an agent.
    `git for-each-ref --format='delete %(refname)' --no-merged ${commit} refs/tags refs/heads | git update-ref --stdin`,
    "git reflog expire --expire=now --all",
  ];
}

/**
 * The harness's commit after the setup (HEAD ≠ base commit; it carries per-instance edits such as tox.ini's).
 * The index is refreshed a second after the checkout first: files checked out in the index's own second are
 * "racily clean", `commit -a` would then write their trees again, and git, finding them in the environment's
 * pack, would touch the pack — which the overlay copies whole into the instance layer (sympy: 240 MB, 30.5 MB without).
 */
export const SETUP_COMMIT =
  "sleep 1 && git update-index -q --refresh; git -c user.name=SWE-bench -c user.email=setup@swebench.config commit --allow-empty -q -am SWE-bench";

function instanceLayer(
  ctx: LayerContext,
  environment: RecipeEnvironment,
  envImage: { name: string; hash: string },
  instance: BuildInstance,
  image: string,
) {
  const { engine, options } = ctx;
  return Effect.gen(function* () {
    const hash = hashOf({
      environment: envImage.hash,
      base_commit: instance.base_commit,
      instance_setup: environment.instance_setup,
      format: 1,
    });
    const present = yield* engine.inspectImage(image);
    if (present !== undefined && !options.force && present.labels[LABEL_HASH] === hash) return "reused" as const;
    const cache = options.compilerCache;
    yield* Effect.scoped(
      Effect.gen(function* () {
        const container = yield* engine.start({
          image: envImage.name,
          labels: { [LABEL_BUILD]: image },
          ...(cache === undefined ? {} : { binds: [`${cache}:${CCACHE_MOUNT}`] }),
        });
        yield* run(container, image, "checkout", ["set -e", ...checkoutCommands(instance.base_commit)].join("\n"), {
          workdir: TESTBED,
        });
        const withCache = yield* compilerCacheStart(ctx, container, image, instance, environment);
        for (const command of environment.instance_setup) {
          yield* run(
            container,
            image,
            `instance setup \`${command.split("\n")[0]}\``,
            withCache ? `export PATH=/usr/lib/ccache:$PATH\n${command}` : command,
            {
              workdir: TESTBED,
              timeoutMs: environment.timeout_seconds * 1000,
              env: withCache ? CCACHE_ENV : undefined,
            },
          );
        }
        if (withCache) {
          const stats = yield* compilerCacheStats(container, image);
          ctx.say(`${instance.instance_id}: compiler cache ${stats.hits} hits, ${stats.misses} misses`);
        }
        yield* run(container, image, "setup commit", SETUP_COMMIT, { workdir: TESTBED });
        yield* run(container, image, "check", `test -s ${ENVIRONMENT_FILE} && test -s ${BASHRC}`);
        yield* container.commit(image, {
          labels: {
            ...NOT_A_BUILD,
            [LABEL_LAYER]: "instance",
            [LABEL_HASH]: hash,
            [LABEL_ENVIRONMENT]: envImage.name,
            [LABEL_INSTANCE]: instance.instance_id,
          },
          env: environmentVariables(options.recipe, environment),
          workdir: TESTBED,
          comment: `graphplan sweb instance ${instance.instance_id}`,
        });
      }),
    );
    return "built" as const;
  });
}

// --- The build --------------------------------------------------------------------------------------------

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error));
/** A message on one progress line: its lines joined, the end kept (where the command's output says what failed). */
const oneLine = (text: string, max = 400): string => {
  const joined = text
    .trim()
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean)
    .join(" | ");
  return joined.length > max ? `…${joined.slice(-max)}` : joined;
};

/**
 * Builds (or reuses) the instance images of `options.instances`, one after the other. An instance
 * whose environment or image fails is reported `failed` and the others go on; a missing base (or
 * an engine that does not answer) fails the whole build.
 */
export function buildImages(options: BuildOptions): Effect.Effect<BuildReport, BuildError, ContainerEngine> {
  return Effect.gen(function* () {
    const engine = yield* ContainerEngine;
    yield* engine.ping;
    const say = options.onProgress ?? (() => undefined);
    const layers: LayerRecord[] = [];
    const ctx: LayerContext = { engine, options, say, layers };
    const wanted = options.instances.map((instance) => ({
      instance,
      environment: recipeFor(options.recipe, instance.repo, instance.version),
    }));
    const sources = yield* environmentSources(
      options,
      wanted.flatMap((w) => (w.environment ? [w.environment] : [])),
    );
    const entries: BuildEntry[] = [];
    let base: { name: string; hash: string } | undefined;
    const environments = new Map<string, { name: string; hash: string } | { error: string }>();
    const total = wanted.length;
    for (const [i, { instance, environment }] of wanted.entries()) {
      const prefix = `[${i + 1}/${total}] ${instance.instance_id}`;
      const common = { instance_id: instance.instance_id, repo: instance.repo, version: instance.version };
      if (environment === undefined) {
        entries.push({ ...common, status: "no_environment", ms: 0 });
        say(`${prefix} no environment in the recipe for ${instance.repo} ${instance.version}`);
        continue;
      }
      const source = sources.get(environment.name)!;
      const image = instanceImageName(instance.instance_id, {
        namespace: options.namespace === undefined ? "swebench" : options.namespace,
        tag: options.tag ?? "latest",
      });
      if (source.missing.includes(instance.base_commit)) {
        const error = `the clone ${source.main.gitDir} has no commit ${instance.base_commit} (the base commit of ${instance.instance_id}): fetch it, e.g. \`git -C ${source.main.gitDir} fetch https://github.com/${instance.repo} ${instance.base_commit}\` (or the pull-request ref refs/pull/N/head that holds it), then build again`;
        entries.push({ ...common, status: "failed", environment: environment.name, image, ms: 0, error });
        say(`${prefix} failed: ${error}`);
        continue;
      }
      base ??= yield* baseLayer(ctx);
      if (!environments.has(environment.name)) {
        const started = Date.now();
        const built = yield* Effect.result(environmentLayer(ctx, base, environment, source));
        if (built._tag === "Failure" && built.failure._tag === "EngineUnavailable")
          return yield* Effect.fail(built.failure);
        if (built._tag === "Failure")
          layers.push({
            kind: "environment",
            image: `graphplan-sweb.env.${environment.name}`,
            status: "failed",
            ms: Date.now() - started,
          });
        environments.set(
          environment.name,
          built._tag === "Success" ? built.success : { error: describe(built.failure) },
        );
      }
      const envImage = environments.get(environment.name)!;
      if ("error" in envImage) {
        entries.push({
          ...common,
          status: "failed",
          environment: environment.name,
          image,
          ms: 0,
          error: envImage.error,
        });
        say(`${prefix} failed: environment ${environment.name}: ${oneLine(envImage.error)}`);
        continue;
      }
      const started = Date.now();
      const result = yield* Effect.result(instanceLayer(ctx, environment, envImage, instance, image));
      const ms = Date.now() - started;
      if (result._tag === "Failure") {
        if (result.failure._tag === "EngineUnavailable") return yield* Effect.fail(result.failure);
        entries.push({
          ...common,
          status: "failed",
          environment: environment.name,
          environmentImage: envImage.name,
          image,
          ms,
          error: describe(result.failure),
        });
        say(`${prefix} failed (${(ms / 1000).toFixed(1)} s): ${oneLine(describe(result.failure))}`);
        continue;
      }
      entries.push({
        ...common,
        status: result.success,
        environment: environment.name,
        environmentImage: envImage.name,
        image,
        ms,
      });
      say(`${prefix} ${result.success} ${image} (${environment.name}) ${(ms / 1000).toFixed(1)} s`);
    }
    return { entries, layers, ...(base === undefined ? {} : { baseImage: base.name }) };
  });
}

/**
 * Before anything is built: every repository the environments need (their own and the others they
 * name), all missing ones named in one error; then what each environment image carries — the history
 * of the base commits of every dataset instance it serves — and which of those commits the clone lacks.
 */
function environmentSources(options: BuildOptions, environments: readonly RecipeEnvironment[]) {
  return Effect.gen(function* () {
    const unique = [...new Map(environments.map((e) => [e.name, e])).values()];
    const gitDirs = new Map<string, string>();
    const problems: string[] = [];
    for (const environment of unique) {
      for (const repo of [environment.repo, ...environment.repositories.map((r) => r.repo)]) {
        if (gitDirs.has(repo) || problems.some((p) => p.startsWith(`${repo} `))) continue;
        const dir = options.repoDir(repo);
        const found = dir === undefined ? undefined : yield* Effect.result(gitDirOf(dir));
        if (found?._tag === "Success") gitDirs.set(repo, found.success);
        else
          problems.push(
            `${repo} (${repo === environment.repo ? "" : "for "}${environment.name}${dir === undefined ? "" : `: ${dir} is not a git repository`})`,
          );
      }
    }
    if (problems.length) {
      const names = problems.map((p) => p.split(" ")[0]!.replace("/", "__")).join(", ");
      return yield* Effect.fail(
        new BuildInputMissing({
          detail: `missing repositories: ${problems.join(", ")}; give --repos DIR holding ${names}, or --repo-map FILE`,
        }),
      );
    }
    const dataset = options.datasetInstances ?? options.instances;
    const sources = new Map<string, EnvironmentSources & { readonly missing: readonly string[] }>();
    for (const environment of unique) {
      const commits = dataset
        .filter((i) => recipeFor(options.recipe, i.repo, i.version)?.name === environment.name)
        .map((i) => i.base_commit);
      // The instances being built are the dataset's; they are listed too in case a caller passes another list.
      const selected = options.instances
        .filter((i) => recipeFor(options.recipe, i.repo, i.version)?.name === environment.name)
        .map((i) => i.base_commit);
      const main = yield* historySource(gitDirs.get(environment.repo)!, [...commits, ...selected], false);
      const extras = yield* Effect.forEach(environment.repositories, (extra) =>
        historySource(gitDirs.get(extra.repo)!, [], true).pipe(
          Effect.map((source) => ({ repo: extra.repo, path: extra.path, source })),
        ),
      );
      sources.set(environment.name, { main, extras, missing: main.missing });
    }
    return sources;
  });
}

/** `<dir>/<owner>__<name>` of a repos directory, when it exists. */
export function repoInDir(reposDir: string, repo: string): string | undefined {
  const dir = join(reposDir, repo.replace("/", "__"));
  return existsSync(dir) ? dir : undefined;
}

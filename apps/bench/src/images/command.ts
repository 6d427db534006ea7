/**
 * `bench images build` / `bench images list`: SWE-bench instance images built here from a recipe
 * (see build.ts and recipe.ts). Bad input ends with one line on stderr and exit code 2; progress
 * lines go to stderr; Ctrl-C removes the build container and exits 130.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ContainerEngine } from "@graphplan/runtime";
import { type Command, InvalidArgumentError } from "commander";
import * as Effect from "effect/Effect";
import { z } from "zod";
import { parseJsonLines, repoDirName } from "../dataset.js";
import { instanceImageName } from "../eval/spec.js";
import { runInterruptible } from "../interruptible.js";
import { quantile } from "../figures.js";
import { buildImages, type BuildInstance, type BuildReport, type LayerRecord } from "./build.js";
import { DEFAULT_RECIPE, loadRecipe, type Recipe, recipeFor } from "./recipe.js";

const BuildInstanceSchema = z.looseObject({
  repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/, "repo is `owner/name`"),
  instance_id: z.string().min(1),
  base_commit: z.string().regex(/^[0-9a-f]{7,40}$/i, "base_commit is a hexadecimal commit id"),
  version: z.union([z.string().min(1), z.number().transform((n) => String(n))]),
});

const usage = (message: string) => new InvalidArgumentError(`error: ${message}`);

/** The dataset's instances (all, or the `--instances` ones in dataset order); bad lines or unknown ids are usage errors. */
export function readInstances(path: string, ids: readonly string[] | undefined): BuildInstance[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw usage(
      `--dataset ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); give a SWE-bench JSONL file`,
    );
  }
  const lines = parseJsonLines(text, BuildInstanceSchema, "dataset instance");
  const bad = lines.find(
    (l) => !l.ok && (ids === undefined || (l.instanceId !== undefined && ids.includes(l.instanceId))),
  );
  if (bad && !bad.ok) throw usage(`--dataset ${path}: ${bad.error}`);
  const instances = lines.flatMap((l) => (l.ok ? [l.value as BuildInstance] : []));
  if (ids === undefined) return instances;
  const known = new Set(instances.map((i) => i.instance_id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length)
    throw usage(
      `--instances: ${unknown.slice(0, 3).join(", ")}${unknown.length > 3 ? ` (and ${unknown.length - 3} more)` : ""} not in ${path}; give ids of its instance_id field`,
    );
  const wanted = new Set(ids);
  return instances.filter((i) => wanted.has(i.instance_id));
}

function readRepoMapSync(path: string | undefined): Record<string, string> {
  if (path === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw usage(
      `--repo-map ${path} cannot be read as JSON (${(error as Error).message.split("\n")[0]}); give {"owner/name": "/path/to/git/dir"}`,
    );
  }
  if (
    !value ||
    typeof value !== "object" ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => typeof v === "string")
  ) {
    throw usage(`--repo-map ${path}: a repo map is a JSON object of "owner/name": "path/to/git/dir"`);
  }
  return value as Record<string, string>;
}

function recipeFrom(path: string | undefined): Recipe {
  try {
    return loadRecipe(path ?? DEFAULT_RECIPE);
  } catch (error) {
    throw usage((error as Error).message);
  }
}

const namespaceOf = (value: string | undefined): string | null =>
  value === undefined ? "swebench" : value === "none" ? null : value;

/** The text of `bench images list`: instance → environment, or why there is none. */
export function listTable(
  recipe: Recipe,
  instances: readonly BuildInstance[],
  options: { namespace: string | null; tag: string },
): string {
  const rows = instances.map((instance) => {
    const environment = recipeFor(recipe, instance.repo, instance.version);
    return [
      instance.instance_id,
      instance.version,
      environment?.name ?? "no environment in the recipe",
      environment ? instanceImageName(instance.instance_id, options) : "-",
    ];
  });
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => (r[c] ?? "").length), 8));
  const lines = rows.map((r) => r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c] ?? 0) : cell)).join("  "));
  const covered = rows.filter((r) => r[3] !== "-").length;
  return [...lines, "", `${covered} of ${rows.length} instances have an environment in the recipe`].join("\n");
}

const seconds = (ms: number) => `${Math.round(ms / 1000)} s`;
const totalMs = (items: readonly { readonly ms: number }[]) => items.reduce((sum, item) => sum + item.ms, 0);

/**
 * What the layers cost: time spent on each kind, and how many of the layers the images stand on (a base, an
 * environment and their own: three each) were found present rather than made. README "bench images" explains.
 */
function layerLines(report: BuildReport): string[] {
  const layers = (kind: LayerRecord["kind"], status: LayerRecord["status"]) =>
    report.layers.filter((l) => l.kind === kind && l.status === status);
  const rootfsBuilt = layers("rootfs", "built");
  const baseBuilt = layers("base", "built");
  const envBuilt = layers("environment", "built");
  const envFailed = layers("environment", "failed").length;
  const instances = report.entries.filter((e) => e.status === "built");
  const images = report.entries.filter((e) => e.status === "built" || e.status === "reused");

  const baseMade = [...rootfsBuilt, ...baseBuilt];
  const baseLine = baseMade.length
    ? `built in ${seconds(totalMs(baseMade))}${rootfsBuilt.length ? ` (root file system ${seconds(totalMs(rootfsBuilt))})` : ""}`
    : report.layers.some((l) => l.kind === "base")
      ? "reused"
      : "not needed";
  const median = quantile(
    instances.map((e) => e.ms).sort((a, b) => a - b),
    0.5,
  );
  const lines = [
    `base layer       ${baseLine}`,
    `environments     ${envBuilt.length} built in ${seconds(totalMs(envBuilt))}, ${layers("environment", "reused").length} reused${envFailed ? `, ${envFailed} failed` : ""}`,
    `instance layers  ${instances.length} built in ${seconds(totalMs(instances))}${median === null ? "" : ` (median ${(median / 1000).toFixed(1)} s)`}`,
  ];
  // Made for these images: the base (when built), each built environment that one of them stands on, their own layers.
  const builtEnvironments = new Set(envBuilt.map((l) => l.image));
  const environmentsMade = new Set(
    images.flatMap((e) =>
      e.environmentImage && builtEnvironments.has(e.environmentImage) ? [e.environmentImage] : [],
    ),
  ).size;
  const made = (images.length && baseBuilt.length ? 1 : 0) + environmentsMade + instances.length;
  const uses = images.length * 3;
  if (uses)
    lines.push(
      `layers reused    ${uses - made} of the ${uses} the ${images.length} images stand on (${Math.round((100 * (uses - made)) / uses)}%)`,
    );
  return lines;
}

/** The summary of a build: one line per status, then what the layers cost and how many were reused. */
export function buildSummary(report: BuildReport): string {
  const count = (status: string) => report.entries.filter((e) => e.status === status).length;
  const failed = report.entries.filter((e) => e.status === "failed");
  return [
    `instances        ${report.entries.length}`,
    `  built          ${count("built")}`,
    `  reused         ${count("reused")}`,
    `  failed         ${count("failed")}`,
    `  no environment ${count("no_environment")}`,
    ...layerLines(report),
    ...(report.baseImage ? [`base image       ${report.baseImage}`] : []),
    ...failed.map((e) => `failed ${e.instance_id}: ${(e.error ?? "").trim().split("\n").slice(-3).join(" | ")}`),
  ].join("\n");
}

interface CommonOptions {
  dataset: string;
  instances?: string[];
  recipe?: string;
  namespace?: string;
  tag: string;
}

interface BuildCommandOptions extends CommonOptions {
  repos?: string;
  repoMap?: string;
  dockerHost?: string;
  force?: boolean;
  forceBase?: boolean;
  compilerCache?: string;
  quiet?: boolean;
}

/** `--compiler-cache DIR`, absolute, made when missing; a path that is not a writable directory is a usage error. */
function compilerCacheDir(dir: string): string {
  const absolute = resolve(dir);
  try {
    // Each missing directory made on its own: node 20's recursive mkdir loops forever where mkdir answers ENOENT
    // under an existing parent (/proc/x).
    const missing: string[] = [];
    for (let d = absolute; !existsSync(d); d = dirname(d)) missing.unshift(d);
    for (const d of missing) mkdirSync(d);
    if (!statSync(absolute).isDirectory()) throw new Error("not a directory");
  } catch (error) {
    throw usage(
      `--compiler-cache ${dir}: cannot be used as a directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a directory this user can create or write`,
    );
  }
  return absolute;
}

/** Usage errors become one thrown line (the CLI prints it and exits 2) instead of commander's own exit 1. */
function oneLineErrors(command: Command): Command {
  command.configureOutput({ outputError: () => undefined });
  return command.exitOverride((error) => {
    if (error.exitCode === 0) process.exit(0); // --help
    throw new InvalidArgumentError(error.message);
  });
}

const idList = (v: string) =>
  v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function imagesCommand(program: Command): void {
  const images = oneLineErrors(
    program.command("images").description("build SWE-bench instance images here (no registry needed), from a recipe"),
  );

  oneLineErrors(
    images
      .command("build")
      .description(
        "build (or reuse) the instance image of each selected instance: base → environment → instance layers, named as the harness names them",
      )
      .requiredOption("--dataset <file>", "SWE-bench JSONL (repo, instance_id, base_commit, version per line)")
      .option(
        "--repos <dir>",
        "directory holding one git repository per dataset repo, as <owner>__<name> (bare or not)",
      )
      .option("--repo-map <file>", 'JSON object mapping "owner/name" to a git directory')
      .option("--instances <ids>", "comma-separated instance ids (default: all)", idList)
      .option("--recipe <file>", "image recipe (YAML; default: the shipped recipes/debian-bookworm.yaml)")
      .option("--namespace <ns>", 'image namespace ("none": the local form sweb.eval.x86_64.<id>)', "swebench")
      .option("--tag <tag>", "image tag", "latest")
      .option("--docker-host <url>", "container engine (default DOCKER_HOST, else unix:///var/run/docker.sock)")
      .option("--force", "rebuild the instance and environment images even when present")
      .option("--force-base", "also rebuild the base image")
      .option(
        "--compiler-cache <dir>",
        "keep ccache's cache in DIR (on the engine's host) across instance builds: compiled extensions shared between instances of an environment with ccache; never part of an image",
      )
      .option("-q, --quiet", "no progress lines on stderr"),
  ).action(async (opts: BuildCommandOptions) => {
    if (!opts.repos && !opts.repoMap) throw usage("give --repos DIR and/or --repo-map FILE");
    if (opts.repos && !existsSync(opts.repos))
      throw usage(`--repos ${opts.repos} does not exist; give the directory holding <owner>__<name> clones`);
    const recipe = recipeFrom(opts.recipe);
    const instances = readInstances(opts.dataset, opts.instances);
    // Every instance of the dataset: an environment image carries the base commits of all it serves (unreadable lines of
    // instances not asked for are left out, as readInstances leaves them out of a selection).
    const datasetInstances =
      opts.instances === undefined
        ? instances
        : (() => {
            try {
              return readInstances(opts.dataset, undefined);
            } catch {
              return instances;
            }
          })();
    const repoMap = readRepoMapSync(opts.repoMap);
    const repoDir = (repo: string): string | undefined => {
      if (repoMap[repo] !== undefined) return repoMap[repo];
      if (opts.repos === undefined) return undefined;
      const dir = join(opts.repos, repoDirName(repo));
      return existsSync(dir) ? dir : undefined;
    };
    // made last, so that other bad input leaves no directory behind
    const compilerCache = opts.compilerCache === undefined ? undefined : compilerCacheDir(opts.compilerCache);
    await runInterruptible(
      buildImages({
        recipe,
        instances,
        datasetInstances,
        repoDir,
        namespace: namespaceOf(opts.namespace),
        tag: opts.tag,
        force: opts.force,
        forceBase: opts.forceBase,
        ...(compilerCache === undefined ? {} : { compilerCache }),
        onProgress: opts.quiet ? undefined : (line) => process.stderr.write(`${line}\n`),
      }).pipe(Effect.provide(ContainerEngine.layer({ host: opts.dockerHost }))),
      {
        name: "bench images build",
        onInterrupt: "removing the build container",
        interrupted: "interrupted; the build container was removed, no image was left half-built",
        inputErrors: ["BuildInputMissing", "EngineUnavailable"],
        onSuccess: (result) => {
          process.stdout.write(`${buildSummary(result)}\n`);
          if (result.entries.some((e) => e.status === "failed")) process.exitCode = 1;
        },
      },
    );
  });

  oneLineErrors(
    images
      .command("list")
      .description('what the recipe can build for a dataset: instance → environment, or "no environment in the recipe"')
      .requiredOption("--dataset <file>", "SWE-bench JSONL (repo, instance_id, base_commit, version per line)")
      .option("--instances <ids>", "comma-separated instance ids (default: all)", idList)
      .option("--recipe <file>", "image recipe (YAML; default: the shipped recipes/debian-bookworm.yaml)")
      .option("--namespace <ns>", 'image namespace ("none": the local form)', "swebench")
      .option("--tag <tag>", "image tag", "latest"),
  ).action((opts: CommonOptions) => {
    const recipe = recipeFrom(opts.recipe);
    const instances = readInstances(opts.dataset, opts.instances);
    process.stdout.write(
      `${listTable(recipe, instances, { namespace: namespaceOf(opts.namespace), tag: opts.tag })}\n`,
    );
  });
}

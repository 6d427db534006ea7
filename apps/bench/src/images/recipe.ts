/**
 * The image recipe: how `bench images build` makes SWE-bench instance images without a registry.
 * Data in YAML (comments say what was measured), checked by one zod schema, `RecipeSchema`:
 *
 * - `base`: the image every environment starts from: a Debian root file system made on the host by
 *   mmdebstrap (`debian: {suite, mirror, packages}`) or an existing image (`image:`), plus pyenv
 *   interpreters copied in (`interpreters: {from, versions}`) and `setup` commands run once.
 * - `environments`: per repository and set of versions, which interpreter, extra Debian packages,
 *   pinned packages of other Debian suites unpacked under a directory (`other_suites`), environment
 *   variables, `setup` (once per environment image), `instance_setup` (per instance, at
 *   /testbed after the checkout), the `install` line the eval script runs instead of
 *   `python -m pip install -e .`, and `activate` lines (the eval script's and `/root/.bashrc`'s).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse as parseYaml, YAMLParseError } from "yaml";
import * as Data from "effect/Data";
import { z } from "zod";

// --- The schema ------------------------------------------------------------------------------------

const DEBIAN_PACKAGE = /^[a-z0-9][a-z0-9+.-]+$/;
const PYTHON_VERSION = /^\d+\.\d+\.\d+$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENVIRONMENT_NAME = /^[a-z0-9][a-z0-9._-]*$/;
const VERSION = /^\d+(\.\d+)*$/;

const command = z.string().min(1, { error: "a command must not be empty; remove the line" });
const commands = z.array(command, { error: "write a list of shell command lines (`- cmd`)" });
const packages = z.array(
  z.string().regex(DEBIAN_PACKAGE, { error: "not a Debian package name; write one name such as python3-numpy" }),
  { error: "write a list of Debian package names (`- python3-numpy`)" },
);

/** Debian's own mirror: the base's default, and the other suites' source when the base is an existing image. */
export const DEBIAN_MIRROR = "http://deb.debian.org/debian";

const DebianSchema = z.strictObject({
  suite: z.string().min(1).default("bookworm").describe("Debian suite (bookworm)"),
  mirror: z.url({ error: "write the mirror's URL, e.g. http://deb.debian.org/debian" }).default(DEBIAN_MIRROR),
  variant: z.enum(["minbase", "essential", "apt", "required", "important", "standard"]).default("minbase"),
  packages: packages.default([]),
});

const InterpretersSchema = z.strictObject({
  from: z
    .string()
    .min(1)
    .optional()
    .describe(
      "pyenv root on the host (default $PYENV_ROOT, else /root/.pyenv); versions are read from <from>/versions/<version>",
    ),
  to: z
    .string()
    .regex(/^\/[^\s]*$/, { error: "write an absolute path inside the image, e.g. /root/.pyenv" })
    .default("/root/.pyenv"),
  versions: z
    .array(
      z
        .string()
        .regex(PYTHON_VERSION, { error: "write a full pyenv version such as 3.9.18 (`pyenv versions` lists them)" }),
    )
    .default([]),
  exclude: z
    .array(z.string().min(1))
    .default(["lib/python*/test", "lib/python*/site-packages/*"])
    .describe("tar --exclude patterns, relative to each version directory"),
});

const BaseSchema = z
  .strictObject({
    debian: DebianSchema.optional(),
    image: z.string().min(1).optional().describe("an existing image to start from instead of an mmdebstrap build"),
    interpreters: InterpretersSchema.default({
      to: "/root/.pyenv",
      versions: [],
      exclude: ["lib/python*/test", "lib/python*/site-packages/*"],
    }),
    setup: commands.default([]),
  })
  .superRefine((base, ctx) => {
    if ((base.debian === undefined) === (base.image === undefined)) {
      ctx.addIssue({
        code: "custom",
        message:
          "give exactly one of `debian:` (an mmdebstrap build: suite, mirror, packages) or `image:` (an existing image name)",
      });
    }
  });

/** `versions: ["3.0", "3.1"]`, or a range `{from: "3.0", to: "3.2"}` (both ends included, compared numerically). */
const VersionsSchema = z.union(
  [
    z
      .array(
        z.string().regex(VERSION, {
          error: 'write versions as quoted strings such as "3.0" (YAML reads 3.0 unquoted as the number 3)',
        }),
      )
      .min(1),
    z.strictObject({
      from: z.string().regex(VERSION, { error: 'write a quoted version such as "3.0"' }),
      to: z.string().regex(VERSION, { error: 'write a quoted version such as "3.2"' }),
    }),
  ],
  { error: 'write a list of quoted versions (["3.0", "3.1"]) or a range ({from: "3.0", to: "3.2"})' },
);

const PINNED_PACKAGE = /^[a-z0-9][a-z0-9+.-]+=[A-Za-z0-9.+~:-]+$/;

/** Pinned packages of another Debian suite, downloaded (checked against its signed index) and unpacked, not installed. */
const OtherSuiteSchema = z.strictObject({
  suite: z.string().regex(/^[a-z][a-z0-9-]*$/, { error: "write a Debian suite name such as bullseye" }),
  into: z.string().regex(/^\/[^\s]*$/, {
    error: "write the absolute directory inside the image they are unpacked under, e.g. /opt/sweb/bullseye",
  }),
  packages: z
    .array(
      z.string().regex(PINNED_PACKAGE, {
        error:
          "pin each package to a version of that suite, name=version (e.g. python3-numpy=1:1.19.5-1; `apt-cache policy NAME` lists them)",
      }),
      { error: "write a list of name=version pins (`- python3-numpy=1:1.19.5-1`)" },
    )
    .min(1, { error: "list at least one name=version pin, or remove the entry" }),
});

const RepositorySchema = z.strictObject({
  repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/, { error: "write owner/name, e.g. pylint-dev/astroid" }),
  path: z.string().regex(/^\/[^\s]*$/, { error: "write an absolute path inside the image, e.g. /opt/astroid.git" }),
});

const EnvironmentSchema = z.strictObject({
  name: z.string().regex(ENVIRONMENT_NAME, {
    error: "write a lower-case name of letters, digits, '.', '_' and '-' (it becomes part of an image name)",
  }),
  repo: z.string().regex(/^[^/\s]+\/[^/\s]+$/, { error: "write the dataset's repo as owner/name, e.g. django/django" }),
  versions: VersionsSchema,
  python: z
    .string()
    .regex(PYTHON_VERSION, { error: "write a full pyenv version such as 3.9.18, one of base.interpreters.versions" })
    .optional()
    .describe("the pyenv interpreter first on PATH (default: none, the base image's own python3)"),
  packages: packages.default([]),
  // Optional without a default: an environment without it keeps the hash (and so the image) it had before the field existed.
  other_suites: z
    .array(OtherSuiteSchema, { error: "write a list of {suite, into, packages} entries" })
    .min(1, { error: "list at least one {suite, into, packages} entry, or remove other_suites" })
    .optional()
    .describe("pinned packages of other Debian suites, unpacked (not installed) before the setup commands run"),
  env: z
    .record(
      z.string().regex(ENV_NAME, { error: "an environment variable name is letters, digits and '_'" }),
      z.string({ error: "write the value as a string" }),
    )
    .default({}),
  repositories: z
    .array(RepositorySchema)
    .default([])
    .describe("other repositories copied in as bare clones (e.g. astroid for pylint)"),
  setup: commands.default([]),
  instance_setup: commands.default([]),
  install: z.string().min(1).default(":"),
  activate: commands.default([]),
  timeout_seconds: z.number().int().positive().default(1800).describe("limit of each setup command"),
});

export const RecipeSchema = z
  .strictObject({
    base: BaseSchema,
    environments: z.array(EnvironmentSchema).default([]),
  })
  .superRefine((recipe, ctx) => {
    const names = new Set<string>();
    recipe.environments.forEach((environment, i) => {
      if (names.has(environment.name)) {
        ctx.addIssue({
          code: "custom",
          path: ["environments", i, "name"],
          message: `a second environment is named ${environment.name}; give each a different name`,
        });
      }
      names.add(environment.name);
      if (environment.python !== undefined && !recipe.base.interpreters.versions.includes(environment.python)) {
        ctx.addIssue({
          code: "custom",
          path: ["environments", i, "python"],
          message: `the base copies in no Python ${environment.python}; add it to base.interpreters.versions (now ${JSON.stringify(recipe.base.interpreters.versions)}) or name one of those`,
        });
      }
      if (
        !Array.isArray(environment.versions) &&
        compareVersions(environment.versions.from, environment.versions.to) > 0
      ) {
        ctx.addIssue({
          code: "custom",
          path: ["environments", i, "versions"],
          message: `the range ends (${environment.versions.to}) before it starts (${environment.versions.from}); swap from and to`,
        });
      }
    });
    // Two environments must not both claim one (repo, version).
    recipe.environments.forEach((a, i) =>
      recipe.environments.slice(0, i).forEach((b) => {
        if (a.repo !== b.repo) return;
        const overlap = claimedVersions(a).find((v) => covers(b, v));
        if (
          overlap !== undefined ||
          (!Array.isArray(a.versions) && !Array.isArray(b.versions) && rangesOverlap(a.versions, b.versions))
        ) {
          ctx.addIssue({
            code: "custom",
            path: ["environments", i, "versions"],
            message: `${a.repo} ${overlap ?? "versions"} is already claimed by the environment ${b.name}; give each version to one environment`,
          });
        }
      }),
    );
  });

export type Recipe = z.infer<typeof RecipeSchema>;
export type RecipeBase = Recipe["base"];
export type RecipeEnvironment = Recipe["environments"][number];

// --- Versions ---------------------------------------------------------------------------------------

/** Numeric comparison of dotted versions: 3.10 > 3.9, 1.13 > 1.2. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

const claimedVersions = (environment: RecipeEnvironment): string[] =>
  Array.isArray(environment.versions) ? environment.versions : [environment.versions.from, environment.versions.to];

const rangesOverlap = (a: { from: string; to: string }, b: { from: string; to: string }) =>
  compareVersions(a.from, b.to) <= 0 && compareVersions(b.from, a.to) <= 0;

/** Whether the environment is for this version. */
export function covers(environment: Pick<RecipeEnvironment, "versions">, version: string): boolean {
  const versions = environment.versions;
  if (Array.isArray(versions)) return versions.includes(version);
  return (
    VERSION.test(version) && compareVersions(versions.from, version) <= 0 && compareVersions(version, versions.to) <= 0
  );
}

/** The recipe's environment for (repo, version), or undefined. */
export function recipeFor(recipe: Recipe, repo: string, version: string): RecipeEnvironment | undefined {
  return recipe.environments.find((environment) => environment.repo === repo && covers(environment, version));
}

// --- Loading ----------------------------------------------------------------------------------------

/** A recipe that cannot be read or does not fit the schema; the message names file, field and fix. */
export class RecipeInvalid extends Data.TaggedError("RecipeInvalid")<{ readonly message: string }> {}

const fieldPath = (path: readonly PropertyKey[]): string =>
  path.length === 0
    ? "(top level)"
    : path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("");

/** The environment's name, when the path points into one, to make a message easier to place. */
function where(data: unknown, path: readonly PropertyKey[]): string {
  const field = fieldPath(path);
  if (path[0] === "environments" && typeof path[1] === "number") {
    const environments = (data as { environments?: unknown } | null)?.environments;
    const name = Array.isArray(environments)
      ? (environments[path[1]] as { name?: unknown } | undefined)?.name
      : undefined;
    if (typeof name === "string") return `${field} (environment ${name})`;
  }
  return field;
}

function issueText(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}; check the spelling (the README's "recipe format" lists the fields)`;
  }
  if (issue.code === "invalid_type" && issue.input === undefined)
    return `missing; write this field (${issue.expected})`;
  return issue.message;
}

/** Checks parsed YAML/JSON data; `source` names the file in messages. */
export function parseRecipe(data: unknown, source: string): Recipe {
  const result = RecipeSchema.safeParse(data);
  if (result.success) return result.data;
  const lines = result.error.issues.slice(0, 5).map((issue) => `${where(data, issue.path)}: ${issueText(issue)}`);
  const more = result.error.issues.length > 5 ? ` (and ${result.error.issues.length - 5} more)` : "";
  throw new RecipeInvalid({ message: `the recipe ${source} is invalid: ${lines.join("; ")}${more}` });
}

/** Reads and checks a YAML recipe. */
export function loadRecipe(path: string): Recipe {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new RecipeInvalid({
      message: `the recipe ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); give an existing YAML file with --recipe`,
    });
  }
  let data: unknown;
  try {
    data = parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const detail = error instanceof YAMLParseError ? `${error.message.split("\n")[0]}` : String(error);
    throw new RecipeInvalid({ message: `the recipe ${path} is not valid YAML: ${detail}` });
  }
  return parseRecipe(data, path);
}

/**
 * The recipe shipped with GraphPlan (`apps/bench/recipes/debian-bookworm.yaml`), two directories up
 * from this file both in the sources (`src/images/`) and in an installed package (`dist/images/`).
 */
export const DEFAULT_RECIPE = fileURLToPath(new URL("../../recipes/debian-bookworm.yaml", import.meta.url));

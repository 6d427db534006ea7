/**
 * The release rehearsal: what a release does and what a new user then does, against a real registry.
 *
 * 1. a Verdaccio on loopback is started and `pnpm -r publish` (the release command) publishes every
 *    public workspace package to it; the tarballs it received (publishConfig applied, `workspace:*`
 *    replaced) are linted (publint, arethetypeswrong);
 * 2. in a scratch directory outside the workspace (its own package.json, npm), `@graphplan/graph`,
 *    `@graphplan/catalog` and `@graphplan/compiler` are installed and each README's first example is
 *    run as a script, its output checked against the README;
 * 3. `@graphplan/cli` and `@graphplan/bench` are installed there: `npx @graphplan/cli demo`,
 *    `npx @graphplan/cli graph FILE`, two bad inputs, and the bench CLI (`bench images list`, which
 *    reads the shipped recipe) run from the install;
 * 4. with `figures`: `npx @graphplan/cli demo` in an empty directory from a cold npm cache, and each
 *    package installed alone (sizes, dependency counts).
 *
 * It needs the packages built (`pnpm build`; the test run builds them first) and the network to the
 * upstream registry (Verdaccio proxies every other package to it).
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gunzipSync } from "node:zlib";
import { lintTarball } from "./lint.js";
import { checkedScript, firstExample } from "./readme-example.js";
import {
  ensureReachable,
  installVerdaccio,
  npmEnv,
  runCommand,
  runTool,
  startVerdaccio,
  upstreamRegistry,
  type Registry,
  type ToolResult,
} from "./registry.js";

export interface PublicPackage {
  readonly name: string;
  readonly version: string;
  readonly dir: string;
  /** Its `@graphplan/*` runtime dependencies. */
  readonly internal: readonly string[];
}

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
}

/** The workspace packages a release publishes: every package under packages/ and apps/ that is not private. */
export function publicPackages(root: string): PublicPackage[] {
  return ["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group))
      .map((entry) => join(root, group, entry))
      .filter((dir) => existsSync(join(dir, "package.json")))
      .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest }))
      .filter(({ manifest }) => !manifest.private)
      .map(({ dir, manifest }) => ({
        name: manifest.name,
        version: manifest.version,
        dir,
        internal: Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith("@graphplan/")),
      })),
  );
}

/** The regular files of a .tgz (paths without npm's leading `package/`), read from its tar headers. */
export function tarballFiles(tarball: string): Map<string, Buffer> {
  const tar = gunzipSync(readFileSync(tarball));
  const files = new Map<string, Buffer>();
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) =>
      header
        .subarray(start, start + length)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1);
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join("/");
    if (type === "0" || type === "")
      files.set(name.replace(/^package\//, ""), tar.subarray(offset + 512, offset + 512 + size));
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** Bytes of every file under `dir` (apparent sizes, links not followed). */
export function directorySize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += directorySize(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

/** The packages npm installed under `nodeModules` (from npm's `.package-lock.json`). */
export function installedPackages(nodeModules: string): string[] {
  const lock = JSON.parse(readFileSync(join(nodeModules, ".package-lock.json"), "utf8")) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages)
    .filter((path) => path.startsWith("node_modules/"))
    .map((path) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
}

export interface PackedPackage extends PublicPackage {
  /** The published tarball's files (paths without `package/`). */
  readonly files: ReadonlyMap<string, Buffer>;
  /** Its package.json, as published. */
  readonly manifest: Readonly<Record<string, unknown>>;
  readonly tarballBytes: number;
  readonly unpackedBytes: number;
  /** publint's and arethetypeswrong's findings: none when clean. */
  readonly problems: readonly string[];
}

export interface ExampleRun extends ToolResult {
  readonly name: string;
  readonly claims: number;
  readonly prints: string | undefined;
}

export interface Install {
  /** Packages a fresh install pulls, the package itself included. */
  readonly packages: number;
  /** Bytes of node_modules after it. */
  readonly bytes: number;
  readonly names: readonly string[];
}

export interface Rehearsal {
  readonly registry: string;
  readonly packed: readonly PackedPackage[];
  /** For each published package, its `@graphplan/*` dependencies that the registry recorded as published after it. */
  readonly publishedBeforeDependencies: readonly string[];
  /** What the registry holds after the release: name → versions. */
  readonly published: Readonly<Record<string, readonly string[]>>;
  readonly examples: readonly ExampleRun[];
  /** `npx @graphplan/cli demo` where @graphplan/cli is installed. */
  readonly demo: ToolResult;
  readonly graph: ToolResult;
  readonly graphFile: string;
  readonly badCommand: ToolResult;
  readonly badPath: ToolResult;
  readonly bench: ToolResult;
  /** The packages `npm install @graphplan/cli @graphplan/bench` put in node_modules. */
  readonly userInstall: readonly string[];
  /** With `figures`: `npx @graphplan/cli demo` in an empty directory from a cold npm cache. */
  readonly coldDemo: ToolResult | undefined;
  /** With `figures`: the CLI as that npx installed it. */
  readonly cliInstall: Install | undefined;
  /** With `figures`: each public package installed alone. */
  readonly installs: Readonly<Record<string, Install>>;
}

export interface RehearsalOptions {
  /** The workspace root. */
  readonly root: string;
  /** Progress lines. */
  readonly log?: (line: string) => void;
  /** Also the figures: a cold-cache `npx @graphplan/cli demo` in an empty directory, and each package installed alone (minutes more). */
  readonly figures?: boolean;
  /** Keep the scratch directory (its path is logged). */
  readonly keep?: boolean;
}

/** The packages whose README's first example the rehearsal runs from an install. */
export const README_PACKAGES = ["@graphplan/graph", "@graphplan/catalog", "@graphplan/compiler"] as const;

const SAMPLE =
  "class Greeter:\n    def greet(self, name):\n        return f'hello {name}'\n\n\ndef main():\n    print(Greeter().greet('world'))\n";

/**
 * Runs the whole rehearsal in a new scratch directory under the system's temporary directory.
 * Long on purpose: one release rehearsal in the order a user meets it (pack, lint, publish, install, run),
 * with one registry and one scratch directory that its `finally` stops and removes.
 */
export async function rehearse(options: RehearsalOptions): Promise<Rehearsal> {
  const log = options.log ?? (() => {});
  const root = options.root;
  const scratch = mkdtempSync(join(tmpdir(), "graphplan-release-"));
  if (relative(root, scratch).split(/[\\/]/)[0] !== "..")
    throw new Error(`the scratch directory ${scratch} is inside the workspace ${root}`);
  let registry: Registry | undefined;
  const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const value = await run();
    log(`${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    return value;
  };
  try {
    const packages = publicPackages(root);
    for (const pkg of packages) {
      if (!existsSync(join(pkg.dir, "dist")))
        throw new Error(`${pkg.name} has no dist/ in ${pkg.dir}: run \`pnpm build\` first`);
    }

    // 1. a registry, the release command against it, and lint of what it received
    const upstream = upstreamRegistry();
    const entry = await step("Verdaccio installed (outside the workspace)", () =>
      installVerdaccio(undefined, upstream),
    );
    registry = await step("Verdaccio started", () => startVerdaccio(entry, join(scratch, "registry"), upstream));
    const reg = registry;
    log(`registry: ${reg.url} (uplink ${upstream})`);
    // @graphplan/* from the rehearsal's registry, every other package straight from upstream, as a user who
    // points the scope at a registry gets them (Verdaccio would proxy them too, but slower)
    const env = (cache: string) => npmEnv(upstream, join(scratch, cache), reg.userconfig, reg.url);
    const registries = [reg.url, upstream];
    await step("pnpm -r publish", () =>
      runTool("pnpm", ["-r", "publish", "--no-git-checks", "--registry", reg.url], {
        cwd: root,
        env: { ...npmEnv(reg.url, join(scratch, "pnpm-cache"), reg.userconfig), CI: "true" },
        registries: [reg.url],
      }),
    );
    const packed = await step(`linted the ${packages.length} published tarballs`, async () => {
      const out: PackedPackage[] = [];
      for (const pkg of packages) {
        const tarball = join(reg.storage, pkg.name, `${pkg.name.split("/")[1]}-${pkg.version}.tgz`);
        if (!existsSync(tarball))
          throw new Error(
            `${pkg.name}@${pkg.version} is not in the registry after \`pnpm -r publish\` (no ${tarball})`,
          );
        const files = tarballFiles(tarball);
        const manifest = JSON.parse(files.get("package.json")?.toString("utf8") ?? "{}") as Record<string, unknown>;
        const unpackedBytes = [...files.values()].reduce((sum, data) => sum + data.length, 0);
        out.push({
          ...pkg,
          files,
          manifest,
          tarballBytes: statSync(tarball).size,
          unpackedBytes,
          problems: await lintTarball(tarball),
        });
      }
      return out;
    });
    const times = new Map<string, Record<string, string>>();
    for (const pkg of packages) times.set(pkg.name, await reg.published(pkg.name));
    const published = Object.fromEntries(
      packages.map((p) => [p.name, Object.keys(times.get(p.name) ?? {}).filter((v) => /^\d/.test(v))]),
    );
    const publishedBeforeDependencies: string[] = [];
    for (const pkg of packages) {
      const at = times.get(pkg.name)?.[pkg.version];
      for (const dep of pkg.internal) {
        const depAt = times.get(dep)?.[packages.find((p) => p.name === dep)?.version ?? ""];
        if (at && depAt && Date.parse(depAt) > Date.parse(at))
          publishedBeforeDependencies.push(`${pkg.name} before ${dep}`);
      }
    }

    // 2. the libraries, installed with npm outside the workspace, and their README examples
    const libs = join(scratch, "libraries");
    mkdirSync(libs);
    writeFileSync(
      join(libs, "package.json"),
      JSON.stringify({ name: "graphplan-rehearsal", private: true, type: "module" }, null, 2),
    );
    await step(`npm install ${README_PACKAGES.join(" ")}`, () =>
      runTool("npm", ["install", ...README_PACKAGES], { cwd: libs, env: env("npm-cache"), registries }),
    );
    const examples: ExampleRun[] = [];
    for (const name of README_PACKAGES) {
      const readme = readFileSync(join(libs, "node_modules", name, "README.md"), "utf8");
      const example = firstExample(readme);
      if (!example) throw new Error(`${name}'s README.md has no ts/js example`);
      const { script, claims } = checkedScript(example.code);
      const file = join(libs, `${name.split("/")[1]}-readme.mjs`);
      writeFileSync(file, script);
      const result = await step(`${name}: README example`, () =>
        runCommand(process.execPath, [file], { cwd: libs, env: env("npm-cache") }),
      );
      examples.push({ ...result, name, claims, prints: example.prints });
    }

    // 3. the command-line tools, installed with npm and run through npx
    const work = join(scratch, "user");
    mkdirSync(work);
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "graphplan-user", private: true }, null, 2));
    await step("npm install @graphplan/cli @graphplan/bench", () =>
      runTool("npm", ["install", "@graphplan/cli", "@graphplan/bench"], {
        cwd: work,
        env: env("npm-cache"),
        registries,
      }),
    );
    const graphFile = "greeter.py";
    writeFileSync(join(work, graphFile), SAMPLE);
    const npx = (args: readonly string[], cwd = work, cache = "npm-cache") =>
      runCommand("npx", ["--yes", ...args], { cwd, env: env(cache), timeoutMs: 600_000 });
    const demo = await step("npx @graphplan/cli demo", () => npx(["@graphplan/cli", "demo"]));
    const graph = await step("npx @graphplan/cli graph", () => npx(["@graphplan/cli", "graph", graphFile]));
    const badCommand = await npx(["@graphplan/cli", "frobnicate"]);
    const badPath = await npx(["@graphplan/cli", "graph", "no-such-file.py"]);
    const dataset = join(work, "dataset.jsonl");
    const line = (repo: string, id: string, version: string) =>
      JSON.stringify({ repo, instance_id: id, base_commit: "a".repeat(40), version, patch: "", test_patch: "" });
    writeFileSync(
      dataset,
      `${line("django/django", "django__django-1", "3.0")}\n${line("astropy/astropy", "astropy__astropy-2", "2.0")}\n`,
    );
    const bench = await step("npx -p @graphplan/bench bench images list", () =>
      npx(["-p", "@graphplan/bench", "bench", "images", "list", "--dataset", dataset]),
    );
    const userInstall = installedPackages(join(work, "node_modules"));

    const measure = (nodeModules: string): Install => {
      const names = installedPackages(nodeModules);
      return { packages: names.length, bytes: directorySize(nodeModules), names };
    };
    const alone = async (name: string): Promise<Install> => {
      const dir = join(scratch, "alone", name.replace("/", "__"));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "graphplan-alone", private: true }, null, 2));
      await runTool("npm", ["install", name], { cwd: dir, env: env("npm-cache"), registries });
      return measure(join(dir, "node_modules"));
    };

    // 4. figures: `npx @graphplan/cli demo` in an empty directory from a cold npm cache, each package alone
    let coldDemo: ToolResult | undefined;
    let cliInstall: Install | undefined;
    const installs: Record<string, Install> = {};
    if (options.figures) {
      const empty = join(scratch, "empty");
      mkdirSync(empty);
      coldDemo = await step("npx @graphplan/cli demo in an empty directory, cold npm cache", () =>
        npx(["@graphplan/cli", "demo"], empty, "cold-cache"),
      );
      const npxRoot = join(scratch, "cold-cache", "_npx");
      const tree = existsSync(npxRoot)
        ? readdirSync(npxRoot)
            .map((d) => join(npxRoot, d, "node_modules"))
            .find((nm) => existsSync(join(nm, "@graphplan", "cli")))
        : undefined;
      if (tree) cliInstall = measure(tree);
      await step("each package installed alone", async () => {
        for (const pkg of packages) installs[pkg.name] = await alone(pkg.name);
      });
    }
    // npx installs first: when it failed, an unreachable registry is the error, in one line
    if (demo.code !== 0 || coldDemo?.code) for (const r of registries) await ensureReachable(r);
    return {
      registry: reg.url,
      packed,
      publishedBeforeDependencies,
      published,
      examples,
      demo,
      graph,
      graphFile,
      badCommand,
      badPath,
      bench,
      userInstall,
      coldDemo,
      cliInstall,
      installs,
    };
  } finally {
    await registry?.stop();
    if (options.keep) log(`kept ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
}

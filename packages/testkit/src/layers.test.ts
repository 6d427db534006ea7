/**
 * The layers of ARCHITECTURE.md, enforced: a package imports only packages below it, apps never
 * import apps, and every import is declared in package.json (test-only ones as devDependencies).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The order of ARCHITECTURE.md: a package may import only packages of a lower rank. */
const RANK: Readonly<Record<string, number>> = {
  "@graphplan/graph": 0,
  "@graphplan/locators": 1,
  "@graphplan/scope": 1,
  "@graphplan/primitives": 2,
  "@graphplan/fragments": 3,
  "@graphplan/rfsn-planner": 5,
  "@graphplan/catalog": 4,
  "@graphplan/verifier": 5,
  "@graphplan/compiler": 5,
  "@graphplan/runtime": 6,
  "@graphplan/agent": 7,
  "@graphplan/mcp": 7,
  "@graphplan/viewer": 8,
  "@graphplan/cli": 9,
  "@graphplan/bench": 9,
  // the release rehearsal: packs, publishes and installs every package (imports none of them)
  "@graphplan/release": 10,
};
const BENCHMARK_RANK = 10;
const TEST_ONLY = "@graphplan/testkit";

interface Pkg {
  readonly dir: string;
  readonly name: string;
  readonly dependencies: ReadonlySet<string>;
  readonly devDependencies: ReadonlySet<string>;
}

function workspacePackages(): Pkg[] {
  return ["packages", "apps", "benchmarks"].flatMap((group) =>
    readdirSync(join(ROOT, group))
      .map((entry) => join(ROOT, group, entry))
      .filter((dir) => statSync(join(dir, "package.json"), { throwIfNoEntry: false })?.isFile())
      .map((dir) => {
        const json = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
          name: string;
          dependencies?: Record<string, string>;
          devDependencies?: Record<string, string>;
        };
        return {
          dir,
          name: json.name,
          dependencies: new Set(Object.keys(json.dependencies ?? {})),
          devDependencies: new Set(Object.keys(json.devDependencies ?? {})),
        };
      }),
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === "node_modules" || entry.name === "dist" || entry.name === "fixtures"
        ? []
        : sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** `@graphplan/x` for every import or re-export of `@graphplan/x` or `@graphplan/x/sub`. */
function graphplanImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](@graphplan\/[a-z0-9-]+)(?:\/[^"']*)?["']/g)].map((m) => m[1]!);
}

const isTestFile = (file: string): boolean =>
  /\.(test|e2e\.test|bench)\.ts$/.test(file) || /[\\/]testing(\.ts|[\\/])/.test(file);
const rankOf = (pkg: Pkg): number =>
  RANK[pkg.name] ?? (relative(ROOT, pkg.dir).startsWith("benchmarks") ? BENCHMARK_RANK : Number.NaN);

describe("the layers of ARCHITECTURE.md", () => {
  const packages = workspacePackages();

  it("gives every workspace package a place in the order", () => {
    const unplaced = packages.filter((p) => p.name !== TEST_ONLY && Number.isNaN(rankOf(p))).map((p) => p.name);
    expect(unplaced, "add the new package to RANK here and to the layer diagram of ARCHITECTURE.md").toEqual([]);
  });

  it("has every package import only packages below it, and apps no app", () => {
    const upward: string[] = [];
    for (const pkg of packages) {
      if (pkg.name === TEST_ONLY) continue;
      for (const file of sourceFiles(join(pkg.dir, "src"))) {
        for (const target of graphplanImports(file)) {
          if (target === pkg.name || target === TEST_ONLY) continue;
          const rank = RANK[target];
          if (rank === undefined || rank >= rankOf(pkg)) upward.push(`${relative(ROOT, file)} imports ${target}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it("declares every import in package.json, and the test kit only for tests", () => {
    const undeclared: string[] = [];
    for (const pkg of packages) {
      for (const file of sourceFiles(join(pkg.dir, "src"))) {
        const test = isTestFile(file);
        for (const target of graphplanImports(file)) {
          if (target === pkg.name) continue;
          if (target === TEST_ONLY && !test && pkg.name !== TEST_ONLY)
            undeclared.push(`${relative(ROOT, file)}: ${TEST_ONLY} outside a test`);
          else if (!pkg.dependencies.has(target) && !(test && pkg.devDependencies.has(target)))
            undeclared.push(
              `${relative(ROOT, file)}: ${target} is not in ${pkg.name}'s ${test ? "devDependencies" : "dependencies"}`,
            );
        }
      }
    }
    expect(undeclared).toEqual([]);
  });
});

/**
 * Each package's `src/index.ts` exports what another package or a user needs, and nothing more:
 * every value it exports is imported by another workspace package or documented in its README
 * (types ride along with the values whose signatures name them).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "dist" ? [] : sources(path);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The value names an index exports (`export { a, b as c }`, `export * as N`, `export const/function/class`), not its types. */
export function exportedValues(index: string): string[] {
  const names: string[] = [];
  for (const m of index.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
    if (m[1]) continue;
    for (const part of m[2]!.split(",")) {
      const spec = part.trim();
      if (!spec || spec.startsWith("type ")) continue;
      names.push(spec.split(/\s+as\s+/).pop()!.trim());
    }
  }
  for (const m of index.matchAll(/export\s+\*\s+as\s+(\w+)/g)) names.push(m[1]!);
  for (const m of index.matchAll(/export\s+(?:const|function|class|let)\s+(\w+)/g)) names.push(m[1]!);
  return names;
}

/** The code of a README: its fenced blocks and inline code spans (a name in prose does not document it). */
function codeOf(markdown: string): string {
  const fenced = [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]);
  const inline = [...markdown.replace(/^```[\s\S]*?^```/gm, "").matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  return [...fenced, ...inline].join("\n");
}

const packages = readdirSync(join(ROOT, "packages"))
  .map((name) => join(ROOT, "packages", name))
  .filter((dir) => existsSync(join(dir, "src", "index.ts")) && !dir.endsWith("testkit"))
  .map((dir) => ({ dir, name: (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name: string }).name }));

const everySource = ["packages", "apps", "benchmarks"].flatMap((group) =>
  readdirSync(join(ROOT, group)).flatMap((name) => sources(join(ROOT, group, name, "src")).concat(sources(join(ROOT, group, name, "bench")))),
);

describe("front doors", () => {
  it("reads value exports, not type exports", () => {
    expect(exportedValues('export { a, type T, b as c } from "./x.js";\nexport type { U } from "./y.js";\nexport * as N from "./n.js";\nexport const k = 1;')).toEqual(["a", "c", "N", "k"]);
  });

  for (const pkg of packages) {
    it(`${pkg.name} exports only values another package imports or its README documents`, () => {
      const readme = existsSync(join(pkg.dir, "README.md")) ? codeOf(readFileSync(join(pkg.dir, "README.md"), "utf8")) : "";
      const importers = everySource
        .filter((file) => !file.startsWith(pkg.dir + "/"))
        .map((file) => readFileSync(file, "utf8"))
        .filter((text) => text.includes(`"${pkg.name}"`) || text.includes(`"${pkg.name}/`));
      const surplus = exportedValues(readFileSync(join(pkg.dir, "src", "index.ts"), "utf8")).filter((name) => {
        const word = new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`);
        return !importers.some((text) => word.test(text)) && !word.test(readme);
      });
      expect(surplus, `${relative(ROOT, pkg.dir)}/src/index.ts: drop these exports or document them in the README`).toEqual([]);
    });
  }

  /** The pure packages: every package left of the runtime, whose errors are not Effect's. */
  const PURE = ["graph", "locators", "scope", "primitives", "fragments", "catalog", "verifier", "compiler", "rfsn-planner"];
  it("every error class of the pure packages extends the one tagged-error base (TaggedError of @graphplan/graph)", () => {
    const direct = PURE.flatMap((name) =>
      sources(join(ROOT, "packages", name, "src"))
        .filter((file) => !/\.test\.tsx?$/.test(file) && !file.includes("/fixtures/"))
        .flatMap((file) => [...readFileSync(file, "utf8").matchAll(/class (\w+) extends (?:Error|TypeError|RangeError)\b/g)].map((m) => `${relative(ROOT, file)}: ${m[1]}`)),
    );
    expect(direct, "declare these as `class X extends TaggedError(\"X\")`").toEqual([]);
  });

  /** The runtime and everything above it, apps included: their errors are Effect's. */
  const EFFECTFUL = readdirSync(join(ROOT, "packages"))
    .filter((name) => !PURE.includes(name) && name !== "testkit")
    .map((name) => join(ROOT, "packages", name))
    .concat(readdirSync(join(ROOT, "apps")).map((name) => join(ROOT, "apps", name)));
  it("every error class of the runtime, the packages above it and the apps extends Effect's Data.TaggedError, and none is told by a cast", () => {
    const offences = EFFECTFUL.flatMap((dir) =>
      sources(join(dir, "src"))
        .filter((file) => !/\.test\.tsx?$/.test(file) && !file.includes("/fixtures/"))
        .flatMap((file) => {
          const text = readFileSync(file, "utf8");
          const where = relative(ROOT, file);
          return [
            ...[...text.matchAll(/class (\w+) extends (?:Error|TypeError|RangeError|TaggedError\()/g)].map((m) => `${where}: ${m[1]} (declare it as \`class ${m[1]} extends Data.TaggedError("${m[1]}")<{...}>\`)`),
            ...[...text.matchAll(/as \{ _tag\??: \w+ \}/g)].map((m) => `${where}: \`${m[0]}\` (read the typed failure with Cause.findErrorOption, or use the error's guard)`),
          ];
        }),
    );
    expect(offences).toEqual([]);
  });
});

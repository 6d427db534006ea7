/**
 * Each package's `src/index.ts` exports what others use, and nothing more: every name it exports (values and
 * types) is imported by another workspace — package, app or benchmark — or by a README example CI runs, as read
 * from their import statements (see front-doors.ts). A name in a README's prose or code span is not a use.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  exportedNames,
  frontDoors,
  importedNames,
  ROOT,
  sourceFiles as sources,
  staleExampleImports,
} from "./front-doors.js";

/** Sample package names, spelled so that no import scanner (the layers test) reads them as real imports. */
const X = ["@graphplan", "x"].join("/");
const Y = ["@graphplan", "y"].join("/");

/**
 * Types no file imports that a front door still exports: the declarations TypeScript emits for other packages
 * name them (without them, `tsc` fails with TS2742, "cannot be named without a reference to ..."). Only a
 * recursive type belongs here: TypeScript spells any other type out.
 */
const NAMED_BY_DECLARATIONS: Record<string, readonly string[]> = {
  "@graphplan/primitives": ["DslStep"],
};

const doors = frontDoors();

describe("front doors", () => {
  it("reads every name an index exports, values and types", () => {
    expect(
      exportedNames(
        'export { a, type T, b as c } from "./x.js";\nexport type { U } from "./y.js";\nexport * as N from "./n.js";\nexport const k = 1;\nexport interface I {}',
      ),
    ).toEqual(["a", "T", "c", "U", "N", "k", "I"]);
  });

  it("reads the names a file imports from a package's main entry, not from its subpaths or its mentions", () => {
    const text = [
      `import { a, b as local, type T } from "${X}";`,
      `import type { U } from "${X}";`,
      `import { hidden } from "${X}/testing";`,
      `import * as X from "${Y}";`,
      `export { r } from "${X}";`,
      "X.used(); type V = X.Shape;",
      `const { d } = await import("${X}");`,
      `let n: import("${X}").Node;`,
      `// mentioned in a comment: import { c } from "${X}"`,
      `const s = "import { e } from \\"${X}\\"";`,
    ].join("\n");
    const names = importedNames(text);
    expect([...names.get(X)!].sort()).toEqual(["Node", "T", "U", "a", "b", "d", "r"]);
    expect([...names.get("@graphplan/y")!].sort()).toEqual(["Shape", "used"]);
  });

  for (const door of doors) {
    it(`${door.name} exports only names another workspace or a CI-run README example imports`, () => {
      const allowed = NAMED_BY_DECLARATIONS[door.name] ?? [];
      const unused = door.exported.filter((name) => !door.used.includes(name) && !allowed.includes(name));
      expect(
        unused,
        `${door.dir}/src/index.ts: drop these exports (import them from their module inside the package)`,
      ).toEqual([]);
    });
  }

  it("the declaration-named types are still exported (else the list above is stale)", () => {
    for (const [name, types] of Object.entries(NAMED_BY_DECLARATIONS)) {
      expect(doors.find((d) => d.name === name)?.exported).toEqual(expect.arrayContaining([...types]));
    }
  });

  it("every README and docs example imports names the package exports", () => {
    expect(staleExampleImports(ROOT, doors), "export the name, or change the example").toEqual([]);
  });

  /** The pure packages: every package left of the runtime, whose errors are not Effect's. */
  const PURE = [
    "graph",
    "locators",
    "scope",
    "primitives",
    "fragments",
    "catalog",
    "verifier",
    "compiler",
    "rfsn-planner",
  ];
  it("every error class of the pure packages extends the one tagged-error base (TaggedError of @graphplan/graph)", () => {
    const direct = PURE.flatMap((name) =>
      sources(join(ROOT, "packages", name, "src"))
        .filter((file) => !/\.test\.tsx?$/.test(file) && !file.includes("/fixtures/"))
        .flatMap((file) =>
          [...readFileSync(file, "utf8").matchAll(/class (\w+) extends (?:Error|TypeError|RangeError)\b/g)].map(
            (m) => `${relative(ROOT, file)}: ${m[1]}`,
          ),
        ),
    );
    expect(direct, 'declare these as `class X extends TaggedError("X")`').toEqual([]);
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
            ...[...text.matchAll(/class (\w+) extends (?:Error|TypeError|RangeError|TaggedError\()/g)].map(
              (m) => `${where}: ${m[1]} (declare it as \`class ${m[1]} extends Data.TaggedError("${m[1]}")<{...}>\`)`,
            ),
            ...[...text.matchAll(/as \{ _tag\??: \w+ \}/g)].map(
              (m) =>
                `${where}: \`${m[0]}\` (read the typed failure with Cause.findErrorOption, or use the error's guard)`,
            ),
          ];
        }),
    );
    expect(offences).toEqual([]);
  });
});

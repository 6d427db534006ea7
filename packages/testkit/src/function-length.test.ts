/**
 * No function over 120 lines without a reason written above it (the rule was "~80 lines" when lines ran
 * to 200 characters; formatted at width 120 by Biome, the same code takes about half as many lines again). A named function — declaration, method, or function/arrow assigned to a name —
 * longer than that carries "Long on purpose: <why>" in the comment above it; an anonymous callback
 * inside it is counted in it.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const LIMIT = 120;

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ["node_modules", "dist", "fixtures"].includes(entry.name) ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !/\.(test|d)\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Named functions over `limit` lines whose comment above gives no reason. */
export function unexplainedLongFunctions(fileName: string, text: string, limit = LIMIT): string[] {
  const file = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: string[] = [];
  const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line + 1;
  const reasoned = (holder: ts.Node) =>
    (ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? []).some((c) =>
      /Long on purpose:/.test(text.slice(c.pos, c.end).replace(/\s*\n\s*\*?\s*/g, " ")),
    );
  const visit = (node: ts.Node): void => {
    let name: string | undefined;
    let holder: ts.Node | undefined;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.body && node.name) {
      name = node.name.getText(file);
      holder = node;
    } else if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent)) {
      name = node.parent.name.getText(file);
      holder = node.parent.parent.parent; // the variable statement, which carries the comment
    }
    if (name && holder) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart(file)) + 1;
      if (lines > limit && !reasoned(holder)) out.push(`${name} (line ${lineOf(node.getStart(file))}, ${lines} lines)`);
      return; // anonymous callbacks inside count in this function
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

describe("function length", () => {
  it("finds a long function without a reason, and accepts one with", () => {
    const body = Array.from({ length: 130 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    expect(unexplainedLongFunctions("a.ts", `function long() {\n${body}\n}\nconst short = () => 1;\n`)).toEqual([
      "long (line 1, 132 lines)",
    ]);
    expect(
      unexplainedLongFunctions("a.ts", `/** Long on purpose: a table. */\nexport const long = () => {\n${body}\n};\n`),
    ).toEqual([]);
    expect(
      unexplainedLongFunctions("a.ts", `class K {\n  /** Does a lot. */\n  run(): void {\n${body}\n  }\n}\n`),
    ).toEqual(["run (line 3, 132 lines)"]);
  });

  const files = ["packages", "apps"].flatMap((group) =>
    readdirSync(join(ROOT, group)).flatMap((name) => sources(join(ROOT, group, name, "src"))),
  );
  it(`no function in packages/*/src or apps/*/src is over ${LIMIT} lines without "Long on purpose: <why>" above it`, () => {
    const found = files.flatMap((path) =>
      unexplainedLongFunctions(path, readFileSync(path, "utf8")).map((f) => `${relative(ROOT, path)}: ${f}`),
    );
    expect(found, "split these, or say above each why it is long").toEqual([]);
  });
});

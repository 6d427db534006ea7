/** A verified plan says where each step changed the code: the lines before the step and after it. */
import { buildGraph } from "@graphplan/graph";
import { describe, expect, it } from "vitest";
import { verifyPlan } from "./index.js";
import { PLACE_LINES } from "./issues.js";

const PARSER = `import os


def parse(text):
    tmp = text.strip()
    return tmp.split(",")


def main():
    return parse("a,b")
`;
const FILES = new Map([["app/parser.py", PARSER]]);

async function verify(plan: unknown, files: ReadonlyMap<string, string> = FILES) {
  const graph = await buildGraph([...files].map(([path, source]) => ({ path, source })));
  return verifyPlan(plan, files, graph);
}

describe("step places", () => {
  it("gives each step the lines its locator led to, before and after, on the state the earlier steps left", async () => {
    const result = await verify([
      {
        op: "replace_node",
        params: {
          locator: { kind: "return", file: "app/parser.py", parent: { kind: "function", name: "parse" } },
          replacement: 'return [part.strip() for part in tmp.split(",")]',
        },
      },
      {
        op: "insert_before_node",
        params: {
          locator: { kind: "function", name: "main", file: "app/parser.py" },
          code: "def helper():\n    return 1\n\n\n",
        },
      },
    ]);
    expect(result.errors).toEqual([]);
    expect(result.places).toEqual([
      {
        step: 0,
        file: "app/parser.py",
        line: 6,
        afterLine: 6,
        before: '    return tmp.split(",")',
        after: '    return [part.strip() for part in tmp.split(",")]',
      },
      {
        step: 1,
        file: "app/parser.py",
        line: 9,
        afterLine: 9,
        before: "def main():",
        after: "def helper():\n    return 1\n\n\ndef main():",
      },
    ]);
  });

  it("gives no place to a step that failed, and cuts a long change at PLACE_LINES lines", async () => {
    const long = Array.from({ length: PLACE_LINES + 10 }, (_, i) => `    x${i} = ${i}`).join("\n");
    const result = await verify([
      {
        op: "replace_node",
        params: { locator: { kind: "function", name: "nowhere", file: "app/parser.py" }, replacement: "pass" },
      },
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "main", file: "app/parser.py" },
          replacement: `def main():\n${long}\n    return parse("a,b")`,
        },
      },
    ]);
    expect(result.places?.map((p) => p.step)).toEqual([1]);
    const after = result.places?.[0]?.after.split("\n") ?? [];
    expect(after).toHaveLength(PLACE_LINES + 1);
    expect(after.at(-1)).toBe("… 12 more lines");
  });
});

describe("step places of text steps", () => {
  it("gives a text step on a file with no grammar its lines before and after, as for code", async () => {
    const changes = "Changes\n=======\n\nUnreleased\n\n-   Drop Python 3.9.\n";
    const files = new Map([...FILES, ["CHANGES.rst", changes]]);
    const result = await verify(
      [
        {
          op: "insert_text",
          params: { file: "CHANGES.rst", anchor: "Unreleased\n\n", position: "after", text: "-   Lower-case.\n" },
        },
      ],
      files,
    );
    expect(result.errors).toEqual([]);
    expect(result.places).toHaveLength(1);
    expect(result.places![0]).toMatchObject({ step: 0, file: "CHANGES.rst" });
    expect(result.places![0]!.before).not.toContain("Lower-case.");
    expect(result.places![0]!.after).toContain("-   Lower-case.\n-   Drop Python 3.9.");
  });
});

import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkedScript, firstExample } from "./readme-example.js";

const README = [
  "# pkg",
  "",
  "```sh",
  "npm install pkg",
  "```",
  "",
  "```ts",
  "const xs = [3, 1, 2].sort();",
  "console.log(xs.join(','));",
  "xs.length; // 3",
  "const first = xs[0]; // first === 1",
  "const m = new Map([['a', 1]]); // { a: 1 }",
  'const plan = xs.map(String); // ["1", ...]',
  "```",
  "",
  "prints",
  "",
  "```",
  "1,2,3",
  "```",
  "",
  "```ts",
  "later();",
  "```",
].join("\n");

function run(script: string) {
  const file = join(mkdtempSync(join(tmpdir(), "readme-example-")), "example.mjs");
  writeFileSync(file, script);
  return spawnSync(process.execPath, [file], { encoding: "utf8" });
}

describe("a README's first example as a checked script", () => {
  it("takes the first ts/js block and the prints block after it", () => {
    const example = firstExample(README);
    expect(example?.code.split("\n")[0]).toBe("const xs = [3, 1, 2].sort();");
    expect(example?.prints).toBe("1,2,3\n");
  });

  it("has no prints block when prose stands between", () => {
    expect(firstExample("```js\nf();\n```\n\nThen it prints\n\n```\nx\n```\n")?.prints).toBeUndefined();
  });

  it("checks the value, comparison and declared-value claims, skipping comments that are not expressions", () => {
    const { script, claims } = checkedScript(firstExample(README)!.code);
    expect(claims).toBe(3);
    const result = run(script);
    expect(result.stderr).toBe("README example: 3 claim(s) hold\n");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("1,2,3\n");
  });

  it("fails, naming the line, when a claim does not hold", () => {
    const { script } = checkedScript("const xs = [1, 2];\nxs.length; // 3\n");
    const result = run(script);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("README claim at line 2 does not hold: xs.length; // 3; got 2");
  });

  it("fails when a comparison claim is false", () => {
    const result = run(checkedScript('const s = "a" + "b"; // s === "ba"\n').script);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('README claim at line 1 does not hold: const s = "a" + "b"; // s === "ba"');
  });
});

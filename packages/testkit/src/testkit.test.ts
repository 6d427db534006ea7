import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cpythonParse, cpythonScopes, sample, SAMPLE_FILES, tempDir } from "./index.js";

describe("the samples", () => {
  it("hold one file per language the graph supports, each with a class or struct", () => {
    expect(SAMPLE_FILES).toEqual([
      "Sample.java",
      "sample.c",
      "sample.cpp",
      "sample.go",
      "sample.js",
      "sample.php",
      "sample.py",
      "sample.rb",
      "sample.rs",
      "sample.ts",
      "sample.tsx",
    ]);
    for (const file of SAMPLE_FILES) expect(sample(file), file).toMatch(/\b(class|struct)\b/);
  });
});

describe("CPython as an oracle", () => {
  it("says which snippets CPython's ast accepts, with the SyntaxError of the others", () => {
    const [ok, bad] = cpythonParse(["def f():\n    return 1\n", "def f(:\n"]);
    expect(ok).toBeNull();
    expect(bad).toMatch(/line 1/);
  });

  it("reads the scopes of a module with symtable", () => {
    const scopes = cpythonScopes(["x = 1\ndef f(y):\n    return x + y\n"]);
    expect(JSON.stringify(scopes[0])).toContain('"y":"local"');
  });
});

describe("tempDir", () => {
  let made = "";
  it("makes a fresh directory with the prefix", () => {
    made = tempDir("graphplan-testkit-");
    expect(existsSync(made)).toBe(true);
    expect(made).toMatch(/graphplan-testkit-[^/]+$/);
  });

  it("removes it after the test that made it", () => {
    expect(made).not.toBe("");
    expect(existsSync(made)).toBe(false);
  });
});

/**
 * `repoPaths`: when the verifier is given only some of a repository's files (the plan's and their
 * importers'), a name or import that a file it was not given may define is unknown, not missing.
 */
import { describe, expect, it } from "vitest";
import { buildGraph } from "@graphplan/graph";
import { verifyPlan, type VerifyResult } from "../index.js";

async function verify(files: Map<string, string>, plan: unknown, repoPaths?: string[]): Promise<VerifyResult> {
  const graph = await buildGraph(
    [...files].filter(([p]) => !p.endsWith(".mod")).map(([path, source]) => ({ path, source })),
  );
  return verifyPlan(plan, files, graph, repoPaths ? { repoPaths } : {});
}
const findings = (result: VerifyResult) =>
  result.issues.filter((i) => i.check === "references" || i.check === "imports").map((i) => i.message);

describe("names defined in files the verifier was not given", () => {
  it("Go: a name of the package's other files is not reported when the listing says the package has files not given", async () => {
    const files = new Map([
      ["go.mod", "module example.com/web\n\ngo 1.21\n"],
      ["context_test.go", "package gin\n\nfunc TestA(t int) {\n\tc := 1\n\t_ = c\n}\n"],
    ]);
    const plan = [
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "TestA", file: "context_test.go" },
          replacement: "func TestA(t int) {\n\tc, _ := CreateTestContext(nil)\n\t_ = c\n}",
        },
      },
    ];
    // Given alone, the package is taken as whole: CreateTestContext is undefined.
    expect(findings(await verify(files, plan))).toEqual([
      expect.stringMatching(/'CreateTestContext' .* is not defined/),
    ]);
    // The listing has the package's other files: what they declare is unknown.
    expect(findings(await verify(files, plan, ["go.mod", "context_test.go", "test_helpers.go", "context.go"]))).toEqual(
      [],
    );
    // A listing with no other .go file in the directory changes nothing.
    expect(findings(await verify(files, plan, ["go.mod", "context_test.go", "sub/other.go", "README.md"]))).toEqual([
      expect.stringMatching(/'CreateTestContext'/),
    ]);
  });

  it("Java: an import of a type whose file was not given is not reported", async () => {
    const files = new Map([
      ["src/main/java/com/google/gson/Gson.java", "package com.google.gson;\n\npublic final class Gson {\n}\n"],
      ["src/main/java/com/google/gson/internal/Util.java", "package com.google.gson.internal;\n\nclass Util {\n}\n"],
    ]);
    const plan = [
      {
        op: "insert_before_node",
        params: {
          locator: { kind: "class", name: "Util", file: "src/main/java/com/google/gson/internal/Util.java" },
          code: "import com.google.gson.TypeAdapter;",
        },
      },
    ];
    expect(findings(await verify(files, plan))).toEqual([
      expect.stringMatching(/names no type of package com\.google\.gson/),
    ]);
    expect(
      findings(await verify(files, plan, [...files.keys(), "src/main/java/com/google/gson/TypeAdapter.java"])),
    ).toEqual([]);
  });

  it("Python: `from . import sub` of a submodule whose file was not given is not reported", async () => {
    const files = new Map([
      ["src/flask/__init__.py", "from .app import Flask\n"],
      ["src/flask/app.py", "class Flask:\n    pass\n"],
    ]);
    const plan = [
      {
        op: "insert_before_node",
        params: { locator: { kind: "class", name: "Flask", file: "src/flask/app.py" }, code: "from . import cli\n\n" },
      },
    ];
    expect(findings(await verify(files, plan))).toEqual([
      expect.stringMatching(/names 'cli', which src\/flask\/__init__\.py does not define/),
    ]);
    expect(findings(await verify(files, plan, [...files.keys(), "src/flask/cli.py"]))).toEqual([]);
    // A listed file elsewhere is no submodule of this package.
    expect(findings(await verify(files, plan, [...files.keys(), "src/other/cli.py"]))).toEqual([
      expect.stringMatching(/names 'cli'/),
    ]);
  });
});

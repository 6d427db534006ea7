/** create_file / delete_file / rename_file applied to a real directory: in the same journaled, all-or-nothing commit as edits. */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { WorkspaceIOError } from "./errors.js";
import { describe, expect, it } from "vitest";
import { applyPlan, recover, type ApplyOptions } from "./apply.js";
import { snapshot, tempDir } from "./fixtures/tmp.js";
import { Workspace } from "./workspace.js";

const UTIL = "def helper(x):\n    return x * 2\n";
const MAIN = "from pkg.util import helper\n\n\ndef main():\n    return helper(1)\n";

function project(): string {
  const root = tempDir();
  mkdirSync(join(root, "pkg"));
  writeFileSync(join(root, "pkg/util.py"), UTIL);
  writeFileSync(join(root, "pkg/main.py"), MAIN);
  writeFileSync(join(root, "pkg/old.py"), "OLD = 1\n");
  return root;
}
const apply = (root: string, steps: unknown, options: ApplyOptions = {}) =>
  Effect.runPromise(applyPlan(parsePlanOrThrow(steps), options).pipe(Effect.provide(Workspace.layer(root))));

const STEPS = [
  { op: "rename_file", params: { from: "pkg/util.py", to: "pkg/helpers.py" } },
  {
    op: "replace_node",
    params: { locator: { kind: "import", file: "pkg/main.py" }, replacement: "from pkg.helpers import helper" },
  },
  {
    op: "create_file",
    params: {
      path: "tests/test_helpers.py",
      content: "from pkg.helpers import helper\n\n\ndef test_helper():\n    assert helper(2) == 4\n",
    },
  },
  { op: "delete_file", params: { path: "pkg/old.py" } },
];

describe("file operations on disk", () => {
  it("renames, creates (with its directory) and deletes files with the edits, and says which", async () => {
    const root = project();
    const result = await apply(root, STEPS);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(
      Object.keys(snapshot(root))
        .filter((k) => !k.endsWith("/"))
        .sort(),
    ).toEqual(["pkg/helpers.py", "pkg/main.py", "tests/test_helpers.py"]);
    expect(readFileSync(join(root, "pkg/helpers.py"), "utf8")).toBe(UTIL);
    expect(readFileSync(join(root, "pkg/main.py"), "utf8")).toMatch(/^from pkg\.helpers import helper\n/);
    expect([...result.created].sort()).toEqual(["pkg/helpers.py", "tests/test_helpers.py"]);
    expect([...result.deleted].sort()).toEqual(["pkg/old.py", "pkg/util.py"]);
    expect(existsSync(join(root, ".graphplan"))).toBe(false);
  });

  it("changes nothing when a later step fails, and a create onto an existing file fails", async () => {
    const root = project();
    const before = snapshot(root);
    const result = await apply(root, [
      ...STEPS,
      { op: "create_file", params: { path: "pkg/main.py", content: "x = 1\n" } },
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure).toMatchObject({ step: 5, op: "create_file" });
    expect(result.failure.message).toMatch(/"pkg\/main\.py" already exists/);
    expect(snapshot(root)).toEqual(before);
  });

  it("after a crash in the middle of the commit, recover brings back the deleted and renamed files and removes the created ones", async () => {
    const root = project();
    const before = snapshot(root);
    // Writes (and deletions) happen one by one: crash before the last one.
    const crash: ApplyOptions["onBeforeWrite"] = ({ index, total }) =>
      index === total - 1 ? Effect.die("simulated crash") : Effect.void;
    await expect(apply(root, STEPS, { onBeforeWrite: crash })).rejects.toThrow("simulated crash");
    expect(snapshot(root)).not.toEqual(before);
    const recovered = await Effect.runPromise(recover().pipe(Effect.provide(Workspace.layer(root))));
    expect(recovered.interrupted).toBe(true);
    expect(snapshot(root)).toEqual(before);
  });
});

describe("text steps and file modes on disk", () => {
  const mode = (root: string, path: string) => statSync(join(root, path)).mode & 0o777;

  it("writes a changelog entry beside the code and makes a script executable, in one commit", async () => {
    const root = project();
    writeFileSync(join(root, "CHANGES.rst"), "Unreleased\r\n\r\n-   First.\r\n");
    writeFileSync(join(root, "release.sh"), "#!/bin/sh\necho release\n", { mode: 0o644 });
    const result = await apply(root, [
      {
        op: "insert_text",
        params: { file: "CHANGES.rst", anchor: "-   First.\r\n", position: "after", text: "-   Second.\r\n" },
      },
      { op: "set_file_mode", params: { path: "release.sh", mode: "100755" } },
      { op: "create_file", params: { path: "tools/check.sh", content: "#!/bin/sh\ntrue\n" } },
      { op: "set_file_mode", params: { path: "tools/check.sh", mode: "100755" } },
    ]);
    expect(result.ok && result.modes).toEqual([
      { path: "release.sh", mode: "100755" },
      { path: "tools/check.sh", mode: "100755" },
    ]);
    expect(readFileSync(join(root, "CHANGES.rst"), "utf8")).toBe("Unreleased\r\n\r\n-   First.\r\n-   Second.\r\n");
    expect(mode(root, "release.sh")).toBe(0o755);
    expect(mode(root, "tools/check.sh") & 0o111).toBe(0o111);
    expect(readFileSync(join(root, "release.sh"), "utf8")).toBe("#!/bin/sh\necho release\n");
  });

  it("puts a mode back when a later write fails, and recover puts it back after a crash", async () => {
    const steps = [
      { op: "set_file_mode", params: { path: "release.sh", mode: "100755" } },
      { op: "append_text", params: { file: "release.sh", text: "echo done\n" } },
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "helper", file: "pkg/util.py" },
          replacement: "def helper(x):\n    return x * 3",
        },
      },
    ];
    const withScript = () => {
      const root = project();
      writeFileSync(join(root, "release.sh"), "#!/bin/sh\n", { mode: 0o644 });
      return root;
    };
    const root = withScript();
    const failingUtil = Layer.effect(
      Workspace,
      Effect.map(Workspace, (ws) => ({
        ...ws,
        write: (path: string, text: string) =>
          path === "pkg/util.py"
            ? Effect.fail(new WorkspaceIOError({ operation: "write", path, detail: "disk full" }))
            : ws.write(path, text),
      })),
    ).pipe(Layer.provide(Workspace.layer(root)));
    const failed = await Effect.runPromise(
      Effect.result(applyPlan(parsePlanOrThrow(steps)).pipe(Effect.provide(failingUtil))),
    );
    expect(failed._tag).toBe("Failure");
    expect(readFileSync(join(root, "release.sh"), "utf8")).toBe("#!/bin/sh\n");
    expect(mode(root, "release.sh")).toBe(0o644);

    const crashed = withScript();
    const crash: ApplyOptions["onBeforeWrite"] = ({ index }) =>
      index === 1 ? Effect.die("simulated crash") : Effect.void;
    await expect(apply(crashed, steps, { onBeforeWrite: crash })).rejects.toThrow();
    expect(mode(crashed, "release.sh")).toBe(0o755); // the crash left a half-applied plan
    const report = await Effect.runPromise(recover().pipe(Effect.provide(Workspace.layer(crashed))));
    expect(report.restored).toContain("release.sh");
    expect(mode(crashed, "release.sh")).toBe(0o644);
    expect(readFileSync(join(crashed, "release.sh"), "utf8")).toBe("#!/bin/sh\n");
  });

  it("refuses a mode on a missing file and a text step on a binary file, writing nothing", async () => {
    const root = project();
    writeFileSync(join(root, "logo.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]));
    // A binary file that happens to be valid UTF-8 (NUL bytes) is refused by the step itself.
    writeFileSync(join(root, "data.bin"), "abc\u0000def");
    const before = snapshot(root);
    const missing = await apply(root, [{ op: "set_file_mode", params: { path: "nope.sh", mode: "100755" } }]);
    expect(!missing.ok && missing.failure.message).toMatch(/nope\.sh/);
    const binary = await Effect.runPromise(
      Effect.result(
        applyPlan(parsePlanOrThrow([{ op: "append_text", params: { file: "logo.png", text: "x" } }])).pipe(
          Effect.provide(Workspace.layer(root)),
        ),
      ),
    );
    expect(binary._tag === "Failure" && binary.failure.message).toMatch(
      /"logo\.png" is binary .*GraphPlan edits text files only/,
    );
    const nul = await apply(root, [{ op: "replace_text", params: { file: "data.bin", find: "abc", replace: "xyz" } }]);
    expect(!nul.ok && nul.failure.message).toMatch(/data\.bin is a binary file/);
    expect(snapshot(root)).toEqual(before);
  });
});

describe("grammars", () => {
  it("loads the grammar of a file the plan creates in a language no existing file has", async () => {
    const root = project();
    const result = await apply(root, [
      {
        op: "create_file",
        params: { path: "src/Main.java", content: "class Main {\n    public static void main(String[] args) {}\n}\n" },
      },
      {
        op: "replace_node",
        params: {
          locator: { kind: "class", name: "Main", file: "src/Main.java" },
          replacement: "class Main {\n    static int x = 1;\n}",
        },
      },
    ]);
    expect(result.ok, result.ok ? "" : result.failure.message).toBe(true);
    expect(readFileSync(join(root, "src/Main.java"), "utf8")).toBe("class Main {\n    static int x = 1;\n}\n");
  });
});

/** create_file, delete_file and rename_file: whole files in the same all-or-nothing run as edits. */
import { loadGrammars } from "@graphplan/graph";
import { beforeAll, describe, expect, it } from "vitest";
import { FileNotInPlan, PostconditionFailed, planFiles, runPlan, StepFailed } from "./index.js";
import { FileDeleted, FileExists, InvalidParams, BinaryFile } from "./errors.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(async () => {
  await loadGrammars(["python"]);
});

const FILES = new Map([
  ["pkg/util.py", "def helper(x):\n    return x * 2\n"],
  ["pkg/main.py", "from pkg.util import helper\n\n\ndef main():\n    return helper(1)\n"],
]);

const causeOf = (result: ReturnType<typeof runPlan>): Error | undefined =>
  result.ok ? undefined : result.error instanceof StepFailed ? result.error.cause : result.error;

describe("file operations", () => {
  it("creates a file that later steps edit, deletes one and renames one, all in one run", () => {
    const result = runPlan(
      planOf([
        { op: "create_file", params: { path: "pkg/strings.py", content: "def shout(s):\n    return s.upper()\n" } },
        {
          op: "insert_after_node",
          params: {
            locator: { kind: "function", name: "shout", file: "pkg/strings.py" },
            code: "def whisper(s):\n    return s.lower()",
          },
        },
        { op: "rename_file", params: { from: "pkg/util.py", to: "pkg/helpers.py" } },
        {
          op: "replace_node",
          params: { locator: { kind: "import", file: "pkg/main.py" }, replacement: "from pkg.helpers import helper" },
        },
        { op: "delete_file", params: { path: "pkg/strings.py" } },
        { op: "create_file", params: { path: "pkg/strings.py", content: "X = 1\n" } },
      ]),
      FILES,
    );
    expect(result.ok, result.ok ? "" : result.error.message).toBe(true);
    if (!result.ok) return;
    expect([...result.files.keys()].sort()).toEqual(["pkg/helpers.py", "pkg/main.py", "pkg/strings.py"]);
    expect(result.files.get("pkg/helpers.py")).toBe(FILES.get("pkg/util.py"));
    expect(result.files.get("pkg/strings.py")).toBe("X = 1\n");
    expect(result.files.get("pkg/main.py")).toMatch(/^from pkg\.helpers import helper\n/);
    expect(result.deleted).toEqual(["pkg/util.py"]);
    expect(result.changed).toEqual(
      expect.arrayContaining(["pkg/strings.py", "pkg/util.py", "pkg/helpers.py", "pkg/main.py"]),
    );
  });

  it("refuses to create a file that exists, a code file that does not parse, and a binary file; the run changes nothing", () => {
    const exists = runPlan(planOf([{ op: "create_file", params: { path: "pkg/util.py", content: "x = 1\n" } }]), FILES);
    expect(causeOf(exists)).toBeInstanceOf(FileExists);
    expect(causeOf(exists)?.message).toMatch(
      /already exists; change it with the node operators .* or delete_file it first/,
    );
    const broken = runPlan(
      planOf([{ op: "create_file", params: { path: "pkg/new.py", content: "def f(:\n" } }]),
      FILES,
    );
    expect(causeOf(broken)).toBeInstanceOf(PostconditionFailed);
    expect(causeOf(broken)?.message).toMatch(/does not parse \(line 1:/);
    const unknown = runPlan(
      planOf([{ op: "create_file", params: { path: "logo.bin", content: "PNG\u0000\u0001" } }]),
      FILES,
    );
    expect(causeOf(unknown)).toBeInstanceOf(BinaryFile);
    for (const r of [exists, broken, unknown]) expect(r.files).toBe(FILES);
  });

  it("says a later step's file was deleted by which step, and a missing file is not in the plan", () => {
    const later = runPlan(
      planOf([
        { op: "delete_file", params: { path: "pkg/util.py" } },
        {
          op: "replace_node",
          params: {
            locator: { kind: "function", name: "helper", file: "pkg/util.py" },
            replacement: "def helper(x):\n    return x",
          },
        },
      ]),
      FILES,
    );
    expect(later.ok).toBe(false);
    expect(causeOf(later)).toBeInstanceOf(FileDeleted);
    expect(causeOf(later)?.message).toMatch(/"pkg\/util\.py" was deleted by step 1/);
    expect(causeOf(runPlan(planOf([{ op: "delete_file", params: { path: "pkg/nope.py" } }]), FILES))).toBeInstanceOf(
      FileNotInPlan,
    );
    expect(
      causeOf(runPlan(planOf([{ op: "rename_file", params: { from: "pkg/util.py", to: "pkg/main.py" } }]), FILES)),
    ).toBeInstanceOf(FileExists);
  });

  it("takes only relative paths inside the root", () => {
    for (const path of ["/etc/x.py", "../x.py", "pkg//x.py", "pkg/../x.py", ""]) {
      const result = runPlan(planOf([{ op: "create_file", params: { path, content: "x = 1\n" } }]), FILES);
      expect(causeOf(result), path).toBeInstanceOf(InvalidParams);
    }
  });

  it("names the files of file operations among the plan's files", () => {
    const plan = [
      { op: "create_file", params: { path: "a.py", content: "" } },
      { op: "rename_file", params: { from: "b.py", to: "c.py" } },
      { op: "delete_file", params: { path: "d.py" } },
    ];
    expect(planFiles(plan)).toEqual(["a.py", "b.py", "c.py", "d.py"]);
  });
});

import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";
import { runFormalPlan } from "@graphplan/catalog";
import { loadGrammars } from "@graphplan/graph";
import * as Effect from "effect/Effect";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { applyPlan, recover, writeFiles } from "./apply.js";
import type { ApplyOptions, PlanRunner } from "./apply.js";
import { snapshot, tempDir } from "./fixtures/tmp.js";
import { JournalSchema } from "./journal.js";
import { WorkspaceIOError } from "./errors.js";
import { Workspace } from "./workspace.js";

const plan = parsePlanOrThrow;
const hex = (text: string) => Buffer.from(text).toString("hex");

function project(files: Record<string, string | Buffer>): string {
  const root = tempDir();
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/** The runner `applyPlan` uses by default (primitives' `runPlan` with the catalog's handlers), counting its calls. */
const calls = { count: 0 };
const realRunner: PlanRunner = (p, files) => {
  calls.count++;
  return runFormalPlan(p, files);
};

const apply = (root: string, steps: unknown, options: ApplyOptions = {}) =>
  Effect.runPromise(
    applyPlan(plan(steps), { runPlan: realRunner, ...options }).pipe(Effect.provide(Workspace.layer(root))),
  );
const applyError = (root: string, steps: unknown, options: ApplyOptions = {}) =>
  Effect.runPromise(
    Effect.flip(applyPlan(plan(steps), { runPlan: realRunner, ...options })).pipe(
      Effect.provide(Workspace.layer(root)),
    ),
  );
const recoverIn = (root: string, journalDir?: string) =>
  Effect.runPromise(recover(journalDir ? { journalDir } : {}).pipe(Effect.provide(Workspace.layer(root))));

/** The steps the tests use: a file's whole text, text added at its end, a new file. */
const set = (path: string, content: string) => ({ op: "write_file", params: { path, content } });
const append = (file: string, text: string) => ({ op: "append_text", params: { file, text } });
const create = (path: string, content: string) => ({ op: "create_file", params: { path, content } });

// The runner is called directly here (applyPlan loads the grammars only for its default runner).
beforeAll(() => loadGrammars(["python"]));
beforeEach(() => {
  calls.count = 0;
});

describe("applyPlan", () => {
  it("writes every changed file, reports each step ok and leaves no journal", async () => {
    const root = project({ "a.py": "a = 1\n", "src/b.py": "b = 1\n", "c.py": "c = 1\n" });
    const result = await apply(root, [set("a.py", "a = 2\n"), append("src/b.py", "b2 = 2\n"), set("c.py", "c = 1\n")]);
    expect(result.ok).toBe(true);
    expect(result.steps).toEqual([
      { step: 1, op: "write_file", status: "ok" },
      { step: 2, op: "append_text", status: "ok" },
      { step: 3, op: "write_file", status: "ok" },
    ]);
    expect(result.ok && result.written).toEqual(["a.py", "src/b.py"]); // c.py did not change
    expect(snapshot(root)).toEqual({
      "a.py": hex("a = 2\n"),
      "c.py": hex("c = 1\n"),
      "src/": "dir",
      "src/b.py": hex("b = 1\nb2 = 2\n"),
    });
  });

  it("changes nothing when a step fails, and reports ok / failed / skipped with the step, op, locator and what to fix", async () => {
    const root = project({ "a.py": "a = 1\n", "b.py": "def main():\n    return 1\n" });
    const before = snapshot(root);
    const locator = { file: "b.py", kind: "function", name: "mian" };
    const result = await apply(root, [
      set("a.py", "a = 2\n"),
      { op: "delete_node", params: { locator } },
      set("b.py", "b = 2\n"),
    ]);
    expect(snapshot(root)).toEqual(before);
    expect(result.ok).toBe(false);
    expect(result.steps.map((s) => [s.step, s.op, s.status])).toEqual([
      [1, "write_file", "ok"],
      [2, "delete_node", "failed"],
      [3, "write_file", "skipped"],
    ]);
    if (result.ok) return;
    expect(result.failure).toMatchObject({ _tag: "StepFailed", step: 2, op: "delete_node", locator });
    expect(result.failure.message).toBe(
      'No node in b.py matches the locator {"kind":"function","name":"mian","file":"b.py"}. Did you mean: function "main" (line 1)?',
    );
    expect(result.steps[1]?.error).toBe(result.failure);
  });

  it("unwraps the primitives' step error: the primitive's message, and the step's locator", async () => {
    const root = project({ "a.py": "class J:\n    pass\n" });
    const result = await apply(root, [
      { op: "add_method", params: { file: "a.py", class_name: "K", method_code: "def m(self):\n    return 1" } },
    ]);
    expect(!result.ok && result.failure).toMatchObject({
      step: 1,
      op: "add_method",
      locator: { file: "a.py", class_name: "K" },
    });
    // The primitive's own words (what to fix), not StepFailed's "Step 1 (add_method) at …" around them.
    expect(!result.ok && result.failure.message).toBe(
      'No node in a.py matches the locator {"kind":"class","name":"K","field":"body","nth_child":-1,"file":"a.py"}. Did you mean: class "J" (line 1)?',
    );
  });

  it("fails with PlanRejected when the runner refuses the plan as a whole", async () => {
    const root = project({ "a.py": "a\n" });
    // A custom operator named like one of the runner's handlers (parsePlan was not told of it): runPlan refuses
    // the plan before any step runs.
    const shout = {
      define: "shout",
      params_schema: { file: "string" },
      steps: [{ primitive: "append_text", params: { file: "$file", text: "!\n" } }],
    };
    const withShout: PlanRunner = (p, files) => {
      calls.count++;
      return runFormalPlan(p, files, { handlers: { shout: () => ({}) } });
    };
    const error = await applyError(
      root,
      { define_operators: [shout], plan: [set("a.py", "b\n"), { op: "shout", params: { file: "a.py" } }] },
      { runPlan: withShout },
    );
    expect(error._tag).toBe("PlanRejected");
    expect(error.message).toBe(
      'define_operators: "shout" is already an operator (or defined twice); give the custom operator another name.',
    );
    expect(calls.count).toBe(1);
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe("a\n");
  });

  it("reports a step that needs a missing file as failed, as the workspace's FileNotFound (the file is not read)", async () => {
    const root = project({ "a.py": "a\n" });
    const result = await apply(root, [append("missing.py", "x")]);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.failure.cause).toMatchObject({ _tag: "FileNotFound", path: "missing.py" });
    expect(!result.ok && result.failure.message).toBe(
      `file "missing.py" does not exist in the workspace ${root}; check the path (it is relative to the workspace root)`,
    );
    expect(!result.ok && result.failure.locator).toEqual({ file: "missing.py" });
  });

  it("creates new files and directories, listing them as created", async () => {
    const root = project({ "a.py": "a\n" });
    const result = await apply(root, [create("new/dir/n.py", "n\n")]);
    expect(result.ok && result.created).toEqual(["new/dir/n.py"]);
    expect(readFileSync(join(root, "new/dir/n.py"), "utf8")).toBe("n\n");
    expect(existsSync(join(root, ".graphplan"))).toBe(false);
  });

  it.each([
    ["an absolute path", "/etc/hosts", "PathOutsideWorkspace"],
    ["a '..' path", "../outside.py", "PathOutsideWorkspace"],
    ["the journal directory", ".graphplan/journal.json", "ReservedPath"],
  ])("rejects %s before running or reading anything", async (_what, file, tag) => {
    const root = project({ "a.py": "a\n" });
    const before = snapshot(root);
    const error = await applyError(root, [
      set("a.py", "b\n"),
      append(file, "x"), // append_text's file is any string; write_file's path would not parse
    ]);
    expect(error._tag).toBe(tag);
    expect(error.message).toContain(file);
    expect(calls.count).toBe(0);
    expect(snapshot(root)).toEqual(before);
  });

  it("rejects a path through a symlink leading outside the root before reading it", async () => {
    const outside = tempDir("graphplan-outside-");
    writeFileSync(join(outside, "x.py"), "secret\n");
    const root = project({ "a.py": "a\n" });
    symlinkSync(outside, join(root, "vendor"));
    const error = await applyError(root, [set("vendor/x.py", "y\n")]);
    expect(error._tag).toBe("PathOutsideWorkspace");
    expect(calls.count).toBe(0);
    expect(readFileSync(join(outside, "x.py"), "utf8")).toBe("secret\n");
  });

  it("rejects a plan spelling one file two ways", async () => {
    const root = project({ "a.py": "a\n" });
    const error = await applyError(root, [set("a.py", "1"), set("./a.py", "2")]);
    expect(error._tag).toBe("AmbiguousPath");
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe("a\n");
  });

  it("rejects a file that is not UTF-8 text", async () => {
    const root = project({ "a.py": Buffer.from([0x61, 0xff, 0x0a]) });
    const error = await applyError(root, [set("a.py", "x")]);
    expect(error._tag).toBe("NotUtf8Text");
    expect(calls.count).toBe(0);
  });

  it("refuses to start while an earlier journal is present", async () => {
    const root = project({ "a.py": "a\n", ".graphplan/journal.json": "{}" });
    const before = snapshot(root);
    const error = await applyError(root, [set("a.py", "b\n")]);
    expect(error._tag).toBe("JournalPresent");
    expect(error.message).toContain("run recover first");
    expect(snapshot(root)).toEqual(before);
  });

  it("journals the original bytes of every file before the first write", async () => {
    const root = project({ "a.py": "a\n", "b.py": Buffer.from([0xef, 0xbb, 0xbf, 0x62, 0x0d, 0x0a]) });
    const seen: unknown[] = [];
    await apply(root, [set("a.py", "A\n"), set("b.py", "\uFEFFB\r\n"), create("pkg/c.py", "c\n")], {
      onBeforeWrite: ({ index }) =>
        Effect.sync(() => {
          if (index === 0) seen.push(JSON.parse(readFileSync(join(root, ".graphplan/journal.json"), "utf8")));
        }),
    });
    const journal = JournalSchema.parse(seen[0]);
    expect(journal).toEqual({
      version: 1,
      files: [
        { path: "a.py", original: Buffer.from("a\n").toString("base64") },
        { path: "b.py", original: Buffer.from([0xef, 0xbb, 0xbf, 0x62, 0x0d, 0x0a]).toString("base64") },
        { path: "pkg/c.py", created: true },
      ],
      dirs: ["pkg"],
    });
    expect(readFileSync(join(root, "b.py")).toString("hex")).toBe("efbbbf420d0a");
    expect(existsSync(join(root, ".graphplan"))).toBe(false);
  });

  it("keeps an existing journal directory, removing only the journal, and honours journalDir", async () => {
    const root = project({ "a.py": "a\n", ".graphplan/notes.txt": "mine", "state/keep.txt": "k" });
    await apply(root, [set("a.py", "b\n")]);
    expect(readFileSync(join(root, ".graphplan/notes.txt"), "utf8")).toBe("mine");
    let journalSeen = false;
    await apply(root, [set("a.py", "c\n")], {
      journalDir: "state",
      onBeforeWrite: () => Effect.sync(() => void (journalSeen = existsSync(join(root, "state/journal.json")))),
    });
    expect(journalSeen).toBe(true);
    expect(snapshot(root)).toMatchObject({ "a.py": hex("c\n"), "state/keep.txt": hex("k") });
    expect(existsSync(join(root, "state/journal.json"))).toBe(false);
  });

  it("rolls back the files already written when a write fails, and removes the journal", async () => {
    const root = project({ "a.py": "a\n", "b.py": "b\n", "c.py": "c\n" });
    chmodSync(join(root, "a.py"), 0o640);
    const error = await applyError(root, [set("a.py", "A\n"), set("b.py", "B\n"), set("c.py", "C\n")], {
      // Before b.py is written, turn it into a non-empty directory: the rename onto it fails.
      onBeforeWrite: ({ path }) =>
        Effect.sync(() => {
          if (path !== "b.py") return;
          rmSync(join(root, "b.py"));
          mkdirSync(join(root, "b.py"));
          writeFileSync(join(root, "b.py", "x"), "");
        }),
    });
    expect(error._tag).toBe("CommitFailed");
    expect(error).toMatchObject({ path: "b.py", rolledBack: true });
    expect(error.message).toContain("nothing changed");
    expect(snapshot(root)).toEqual({ "a.py": hex("a\n"), "b.py/": "dir", "b.py/x": "", "c.py": hex("c\n") });
    expect(statSync(join(root, "a.py")).mode & 0o777).toBe(0o640);
  });

  it("journals the original bytes of an existing file the runner writes without the plan naming it", async () => {
    const root = project({ "a.py": "a\n", "other.py": "other\n" });
    const before = snapshot(root);
    const sneaky: ApplyOptions["runPlan"] = (p, files) => {
      const out = realRunner(p, files);
      return out.ok ? { ...out, files: new Map([...out.files, ["other.py", "rewritten\n"]]) } : out;
    };
    const crash: ApplyOptions["onBeforeWrite"] = ({ index }) =>
      index === 1 ? Effect.die("simulated crash") : Effect.void;
    await expect(apply(root, [set("a.py", "A\n")], { runPlan: sneaky, onBeforeWrite: crash })).rejects.toThrow();
    const report = await recoverIn(root);
    expect(report).toMatchObject({ restored: ["a.py"], removed: [] });
    expect(snapshot(root)).toEqual(before);
    const result = await apply(root, [set("a.py", "A\n")], { runPlan: sneaky });
    expect(result.ok && [result.written, result.created]).toEqual([["a.py", "other.py"], []]);
  });

  it("writes no journal to an ephemeral workspace (its files die with the process), and still rolls back a failed write", async () => {
    const run = (steps: unknown, failOn?: string) =>
      Effect.runPromise(
        Effect.gen(function* () {
          const memory = yield* Workspace;
          const writes: string[] = [];
          const ephemeral = {
            ...memory,
            ephemeral: true,
            write: (path: string, text: string) => {
              writes.push(path);
              return path === failOn
                ? Effect.fail(new WorkspaceIOError({ operation: "write", path, detail: "no space left on device" }))
                : memory.write(path, text);
            },
          };
          const result = yield* Effect.result(
            applyPlan(plan(steps), { runPlan: realRunner }).pipe(Effect.provideService(Workspace, ephemeral)),
          );
          return {
            result,
            writes,
            a: yield* memory.read("a.py"),
            b: yield* memory.read("b.py"),
            journal: yield* memory.exists(".graphplan"),
          };
        }).pipe(Effect.provide(Workspace.layerMemory({ "a.py": "a\n", "b.py": "b\n" }))),
      );
    const ok = await run([set("a.py", "A\n"), set("b.py", "B\n")]);
    expect(ok.writes).toEqual(["a.py", "b.py"]); // no journal.json among them
    expect(ok).toMatchObject({ a: "A\n", b: "B\n", journal: false });
    const failed = await run([set("a.py", "A\n"), set("b.py", "B\n")], "b.py");
    expect(failed.result._tag).toBe("Failure");
    expect(failed.writes).toEqual(["a.py", "b.py"]);
    expect(failed).toMatchObject({ a: "a\n", b: "b\n", journal: false }); // a.py written back
  });

  it("works over the in-memory workspace too", async () => {
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const result = yield* applyPlan(plan([append("a.py", "b\n")]), {
          runPlan: realRunner,
        });
        const ws = yield* Workspace;
        return { result, text: yield* ws.read("a.py"), journal: yield* ws.exists(".graphplan") };
      }).pipe(Effect.provide(Workspace.layerMemory({ "a.py": "a\n" }))),
    );
    expect(result).toMatchObject({ result: { ok: true, written: ["a.py"] }, text: "a\nb\n", journal: false });
  });
});

describe("recover", () => {
  /** Crash the commit (a defect, like a killed process) just before write number `at`. */
  const crashAt = (at: number): ApplyOptions => ({
    onBeforeWrite: ({ index }) => (index === at ? Effect.die("simulated crash") : Effect.void),
  });
  const steps = [set("a.py", "A\n"), set("b.py", "B\n"), create("new/n.py", "N\n")];

  it("answers that nothing was interrupted when there is no journal", async () => {
    const root = project({ "a.py": "a\n" });
    expect(await recoverIn(root)).toEqual({ interrupted: false, restored: [], removed: [], tempFiles: [] });
    expect(snapshot(root)).toEqual({ "a.py": hex("a\n") });
  });

  it("restores the original bytes of files written before a crash and deletes the files it created", async () => {
    const root = project({ "a.py": "a\n", "b.py": "b\n" });
    const before = snapshot(root);
    await expect(apply(root, steps, crashAt(2))).rejects.toThrow("simulated crash");
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe("A\n"); // the crash left a half-applied plan
    expect(existsSync(join(root, ".graphplan/journal.json"))).toBe(true);
    expect(await recoverIn(root)).toEqual({
      interrupted: true,
      restored: ["a.py", "b.py"],
      removed: [],
      tempFiles: [],
    });
    expect(snapshot(root)).toEqual(before);
  });

  it("deletes created files and the directories made for them when the crash came after them", async () => {
    const root = project({ "a.py": "a\n", "b.py": "b\n" });
    const before = snapshot(root);
    await expect(apply(root, [...steps, create("z.py", "z")], crashAt(3))).rejects.toThrow("simulated crash");
    expect(existsSync(join(root, "new/n.py"))).toBe(true);
    expect(await recoverIn(root)).toMatchObject({ restored: ["a.py", "b.py"], removed: ["new/n.py"] });
    expect(snapshot(root)).toEqual(before);
  });

  it("removes leftover temporary files of interrupted atomic writes", async () => {
    const root = project({ "a.py": "a\n", "b.py": "b\n" });
    const before = snapshot(root);
    await expect(apply(root, steps, crashAt(1))).rejects.toThrow("simulated crash");
    writeFileSync(join(root, "b.py.graphplan-tmp-123-abc"), "half");
    writeFileSync(join(root, ".graphplan/journal.json.graphplan-tmp-9-f"), "{");
    writeFileSync(join(root, "other.graphplan-tmp-1-1"), "not ours: its file is not journaled");
    const report = await recoverIn(root);
    expect([...report.tempFiles].sort()).toEqual([
      ".graphplan/journal.json.graphplan-tmp-9-f",
      "b.py.graphplan-tmp-123-abc",
    ]);
    expect(snapshot(root)).toEqual({
      ...before,
      "other.graphplan-tmp-1-1": hex("not ours: its file is not journaled"),
    });
  });

  it("removes an interrupted journal write's temporary file even when no journal was committed", async () => {
    const root = project({ "a.py": "a\n", ".graphplan/journal.json.graphplan-tmp-1-2": '{"vers' });
    expect(await recoverIn(root)).toEqual({
      interrupted: false,
      restored: [],
      removed: [],
      tempFiles: [".graphplan/journal.json.graphplan-tmp-1-2"],
    });
    expect(snapshot(root)).toEqual({ "a.py": hex("a\n") }); // the emptied journal directory is gone too
  });

  it("can be run again after being interrupted itself, and only reports files that differed", async () => {
    const root = project({ "a.py": "a\n", "b.py": "b\n" });
    const before = snapshot(root);
    await expect(apply(root, steps, crashAt(1))).rejects.toThrow("simulated crash");
    // A recover killed after restoring a.py: the journal is still there.
    writeFileSync(join(root, "a.py"), "a\n");
    expect(await recoverIn(root)).toMatchObject({ interrupted: true, restored: [] });
    expect(snapshot(root)).toEqual(before);
    expect(await recoverIn(root)).toMatchObject({ interrupted: false });
  });

  it("refuses a corrupt journal without touching any file", async () => {
    for (const content of [
      "{not json",
      JSON.stringify({ version: 2, files: [] }),
      JSON.stringify({ version: 1, files: [{ path: "a.py", original: "%%%" }], dirs: [] }),
    ]) {
      const root = project({ "a.py": "A\n", ".graphplan/journal.json": content });
      const before = snapshot(root);
      const error = await Effect.runPromise(Effect.flip(recover()).pipe(Effect.provide(Workspace.layer(root))));
      expect(error._tag).toBe("JournalCorrupt");
      expect(error.message).toContain(".graphplan/journal.json");
      expect(snapshot(root)).toEqual(before);
    }
  });

  it("refuses a journal naming a path outside the root", async () => {
    const journal = { version: 1, files: [{ path: "../x.py", original: "" }], dirs: [] };
    const root = project({ ".graphplan/journal.json": JSON.stringify(journal) });
    const error = await Effect.runPromise(Effect.flip(recover()).pipe(Effect.provide(Workspace.layer(root))));
    expect(error._tag).toBe("PathOutsideWorkspace");
  });

  it("restores an empty original file", async () => {
    const root = project({ "empty.py": "", "b.py": "b\n" });
    const before = snapshot(root);
    const twoFiles = [set("empty.py", "x\n"), set("b.py", "B\n")];
    await expect(apply(root, twoFiles, crashAt(1))).rejects.toThrow("simulated crash");
    expect(readFileSync(join(root, "empty.py"), "utf8")).toBe("x\n");
    expect(await recoverIn(root)).toMatchObject({ restored: ["empty.py"] });
    expect(snapshot(root)).toEqual(before);
  });
});

describe("writeFiles", () => {
  const writeIn = (
    root: string,
    writes: Parameters<typeof writeFiles>[0],
    options: Parameters<typeof writeFiles>[1] = {},
  ) => Effect.runPromise(writeFiles(writes, options).pipe(Effect.provide(Workspace.layer(root))));

  it("puts back what an apply changed and created, byte for byte, from the originals the apply returned", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf, 0x62, 0x0d, 0x0a]);
    const root = project({ "a.py": "a\n", "b.py": bom });
    const before = snapshot(root);
    const result = await apply(root, [set("a.py", "A\n"), set("b.py", "\uFEFFB\r\n"), create("pkg/c.py", "c\n")]);
    if (!result.ok) throw new Error("the apply failed");
    expect([...result.originals.keys()].sort()).toEqual(["a.py", "b.py"]);
    const touched = [...result.written, ...result.deleted];
    const restored = await writeIn(
      root,
      touched.map((path) => ({ path, bytes: result.originals.get(path) ?? null })),
    );
    expect([...restored].sort()).toEqual(["a.py", "b.py", "pkg/c.py"]);
    const after = snapshot(root);
    delete after["pkg/"]; // the directory the apply made stays; its file is gone
    expect(after).toEqual(before);
  });

  it("journals the current bytes first, so a crash between writes is undone by recover", async () => {
    const root = project({ "a.py": "a\n", "b.py": "b\n" });
    const before = snapshot(root);
    const crash: ApplyOptions["onBeforeWrite"] = ({ index }) =>
      index === 1 ? Effect.die("simulated crash") : Effect.void;
    await expect(
      writeIn(
        root,
        [
          { path: "a.py", bytes: new TextEncoder().encode("A\n") },
          { path: "b.py", bytes: null },
        ],
        { onBeforeWrite: crash },
      ),
    ).rejects.toThrow();
    expect(readFileSync(join(root, "a.py"), "utf8")).toBe("A\n");
    const report = await recoverIn(root);
    expect(report).toMatchObject({ interrupted: true, restored: ["a.py"] });
    expect(snapshot(root)).toEqual(before);
  });

  it("refuses a path outside the root before writing anything", async () => {
    const root = project({ "a.py": "a\n" });
    const before = snapshot(root);
    const error = await Effect.runPromise(
      Effect.flip(
        writeFiles([
          { path: "a.py", bytes: new Uint8Array([0x41]) },
          { path: "../x.py", bytes: new Uint8Array([0x41]) },
        ]),
      ).pipe(Effect.provide(Workspace.layer(root))),
    );
    expect(error._tag).toBe("PathOutsideWorkspace");
    expect(snapshot(root)).toEqual(before);
  });
});

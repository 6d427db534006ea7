/**
 * The container session (workspace + sandbox in one container, no bind mount) against a REAL engine:
 * podman on /tmp/podman.sock with graphplan-debian:test (`bash .ci/podman-setup.sh`).
 */
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { describe, expect, it } from "vitest";
import { ContainerEngine, type ContainerShape } from "./engine.js";
import { containerSession, type ContainerSession } from "./workspace.js";

const HOST = "unix:///tmp/podman.sock";

const inSession = <A, E>(
  program: (session: ContainerSession) => Effect.Effect<A, E, Scope.Scope>,
  options: { ephemeral?: boolean } = {},
) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* ContainerEngine;
        const container = yield* engine.start({ image: "graphplan-debian:test" });
        yield* container.exec(
          "mkdir -p /testbed/pkg /testbed/.git /outside && cd /testbed && printf 'a = 1\\n' > pkg/mod.py && printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 755 run.sh && echo secret > /outside/key && ln -s /outside escape && ln -s pkg inside && echo x > .git/HEAD",
        );
        return yield* program(
          containerSession(container, { root: "/testbed", env: { GREETING: "hello" }, ...options }),
        );
      }),
    ).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
  );

/** The container with every round trip to the engine recorded (`readFiles` with the paths it reads). */
function counting(container: ContainerShape): { counted: ContainerShape; calls: string[] } {
  const calls: string[] = [];
  const counted: ContainerShape = {
    ...container,
    exec: (...a) => (calls.push("exec"), container.exec(...a)),
    execArgv: (...a) => (calls.push("execArgv"), container.execArgv(...a)),
    readFiles: (...a) => (calls.push(`readFiles ${a[1].join(",")}`), container.readFiles(...a)),
    readStdout: (...a) => (calls.push("readStdout"), container.readStdout(...a)),
    putFiles: (...a) => (calls.push("putFiles"), container.putFiles(...a)),
  };
  return { counted, calls };
}

describe("the container session (podman)", () => {
  it("reads, lists and writes the work tree through the engine, atomically and keeping file modes", async () => {
    const seen = await inSession(({ workspace, sandbox }) =>
      Effect.gen(function* () {
        const before = yield* workspace.read("pkg/mod.py");
        const root = (yield* workspace.list(".")).map((e) => `${e.name}:${e.kind}`);
        yield* workspace.write("run.sh", "#!/bin/sh\necho changed\n");
        yield* workspace.write("new/dir/file.py", "b = 2\n");
        const after = yield* sandbox.exec(
          "stat -c '%a' run.sh && ./run.sh && cat new/dir/file.py && ls -a new/dir && echo $GREETING",
        );
        const listed = (yield* workspace.list("new/dir")).map((e) => e.name);
        return { before, root, after, listed };
      }),
    );
    expect(seen.before).toBe("a = 1\n");
    expect(seen.root).toEqual(["escape:symlink", "inside:symlink", "pkg:directory", "run.sh:file"]); // .git left out
    expect(seen.after.output).toBe("755\nchanged\nb = 2\n.\n..\nfile.py\nhello\n");
    expect(seen.listed).toEqual(["file.py"]);
  });

  it("an ephemeral session writes each file in one copy, keeping its mode (also one a command changed), and says it is ephemeral", async () => {
    const seen = await inSession(
      ({ workspace, sandbox }) =>
        Effect.gen(function* () {
          yield* workspace.write("run.sh", "#!/bin/sh\necho changed\n");
          yield* workspace.write("run.sh", "#!/bin/sh\necho twice\n"); // the mode is still known before a new listing
          yield* sandbox.exec("chmod 600 pkg/mod.py");
          yield* workspace.write("pkg/mod.py", "a = 2\n");
          yield* workspace.write("new/file.py", "b = 2\n");
          const after = yield* sandbox.exec(
            "stat -c '%n %a' run.sh pkg/mod.py new/file.py && ./run.sh && cat pkg/mod.py new/file.py && ls -A pkg new",
          );
          return { after: after.output, ephemeral: workspace.ephemeral, read: yield* workspace.read("pkg/mod.py") };
        }),
      { ephemeral: true },
    );
    expect(seen.ephemeral).toBe(true);
    expect(seen.read).toBe("a = 2\n");
    // No temporary file left beside any target (the writes went straight to it).
    expect(seen.after).toBe(
      "run.sh 755\npkg/mod.py 600\nnew/file.py 644\ntwice\na = 2\nb = 2\nnew:\nfile.py\n\npkg:\nmod.py\n",
    );
  });

  it("takes the first snapshot in one round trip to the engine, names with spaces and non-ASCII letters included", async () => {
    const seen = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* ContainerEngine;
          const container = yield* engine.start({ image: "graphplan-debian:test" });
          yield* container.exec(
            "mkdir -p '/testbed/a dir' && cd /testbed && printf 'x\\n' > 'a dir/my file.py' && printf 'y\\n' > café.py && mkdir .git && echo ref > .git/HEAD",
          );
          const { counted, calls } = counting(container);
          const { workspace } = containerSession(counted, { root: "/testbed" });
          const spaced = yield* workspace.read("a dir/my file.py");
          const accented = yield* workspace.read("café.py");
          const root = (yield* workspace.list(".")).map((e) => e.name);
          const leftovers = (yield* container.exec("ls /tmp | grep -c graphplan-listing; true")).output.trim();
          return { spaced, accented, root, calls, leftovers };
        }),
      ).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
    );
    expect(seen).toMatchObject({ spaced: "x\n", accented: "y\n", root: ["a dir", "café.py"], leftovers: "0" });
    expect(seen.calls).toEqual(["readStdout"]);
  });

  it("with prefetch, snapshots read only the files with those endings; any other is read on first use, and again after a command changed it", async () => {
    const seen = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const engine = yield* ContainerEngine;
          const container = yield* engine.start({ image: "graphplan-debian:test" });
          yield* container.exec(
            "mkdir -p /testbed/pkg && cd /testbed && printf 'a = 1\\n' > pkg/mod.py && printf 'B = 2\\n' > pkg/UPPER.PY && printf 'notes\\n' > notes.txt",
          );
          const { counted, calls } = counting(container);
          const { workspace, sandbox } = containerSession(counted, { root: "/testbed", prefetch: [".py"] });
          const mod = yield* workspace.read("pkg/mod.py");
          const upper = yield* workspace.read("pkg/UPPER.PY");
          const exists = yield* workspace.exists("notes.txt");
          const afterFirst = [...calls];
          const notes = yield* workspace.read("notes.txt");
          const notesAgain = yield* workspace.read("notes.txt");
          const afterNotes = [...calls];
          yield* sandbox.exec("printf 'changed\\n' > notes.txt && printf 'a = 3\\n' > pkg/mod.py");
          const modChanged = yield* workspace.read("pkg/mod.py");
          const afterCommand = [...calls];
          const notesChanged = yield* workspace.read("notes.txt");
          return {
            mod,
            upper,
            exists,
            notes,
            notesAgain,
            modChanged,
            notesChanged,
            afterFirst,
            afterNotes,
            afterCommand,
            calls,
          };
        }),
      ).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
    );
    expect(seen).toMatchObject({
      mod: "a = 1\n",
      upper: "B = 2\n",
      exists: true,
      notes: "notes\n",
      notesAgain: "notes\n",
      modChanged: "a = 3\n",
      notesChanged: "changed\n",
    });
    expect(seen.afterFirst).toEqual(["readStdout"]); // .py and .PY in the first snapshot; notes.txt only listed
    expect(seen.afterNotes).toEqual(["readStdout", "readFiles notes.txt"]); // read once, then kept
    expect(seen.afterCommand).toEqual([
      "readStdout",
      "readFiles notes.txt",
      "exec",
      "execArgv",
      "readFiles pkg/mod.py",
    ]); // the command, a listing, the changed .py re-read at once
    expect(seen.calls).toEqual([...seen.afterCommand, "readFiles notes.txt"]); // the changed .txt on its use
  });

  it("sees what the model's commands changed, and forgets what they removed", async () => {
    const seen = await inSession(({ workspace, sandbox }) =>
      Effect.gen(function* () {
        yield* workspace.read("pkg/mod.py");
        yield* sandbox.exec("echo 'a = 3' > pkg/mod.py && rm run.sh && touch made.py");
        return {
          mod: yield* workspace.read("pkg/mod.py"),
          runExists: yield* workspace.exists("run.sh"),
          madeExists: yield* workspace.exists("made.py"),
          missing: yield* Effect.flip(workspace.read("run.sh")),
          removed: yield* workspace.remove("made.py"),
          again: yield* workspace.remove("made.py"),
          check: (yield* sandbox.exec("ls made.py 2>&1; true")).output,
        };
      }),
    );
    expect(seen).toMatchObject({ mod: "a = 3\n", runExists: false, madeExists: true, removed: true, again: false });
    expect(seen.missing._tag).toBe("FileNotFound");
    expect(seen.check).toContain("No such file");
  });

  it("refuses paths outside the root, lexically and through symlinks, and follows symlinks that stay inside", async () => {
    const seen = await inSession(({ workspace }) =>
      Effect.gen(function* () {
        return {
          absolute: yield* Effect.flip(workspace.read("/outside/key")),
          dotdot: yield* Effect.flip(workspace.read("../outside/key")),
          link: yield* Effect.flip(workspace.read("escape/key")),
          linkWrite: yield* Effect.flip(workspace.write("escape/new", "x")),
          inside: yield* workspace.read("inside/mod.py"),
        };
      }),
    );
    for (const refused of [seen.absolute, seen.dotdot, seen.link, seen.linkWrite])
      expect(refused._tag).toBe("PathOutsideWorkspace");
    expect(seen.link.message).toContain("escape is a symlink leading outside the workspace");
    expect(seen.inside).toBe("a = 1\n");
  });
});

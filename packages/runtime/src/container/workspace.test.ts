/**
 * The container session (workspace + sandbox in one container, no bind mount) against a REAL engine:
 * podman on /tmp/podman.sock with graphplan-debian:test (`bash .ci/podman-setup.sh`).
 */
import * as Effect from "effect/Effect";
import type * as Scope from "effect/Scope";
import { describe, expect, it } from "vitest";
import { ContainerEngine } from "./engine.js";
import { containerSession, type ContainerSession } from "./workspace.js";

const HOST = "unix:///tmp/podman.sock";

const inSession = <A, E>(program: (session: ContainerSession) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* ContainerEngine;
        const container = yield* engine.start({ image: "graphplan-debian:test" });
        yield* container.exec(
          "mkdir -p /testbed/pkg /testbed/.git /outside && cd /testbed && printf 'a = 1\\n' > pkg/mod.py && printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod 755 run.sh && echo secret > /outside/key && ln -s /outside escape && ln -s pkg inside && echo x > .git/HEAD",
        );
        return yield* program(containerSession(container, { root: "/testbed", env: { GREETING: "hello" } }));
      }),
    ).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
  );

describe("the container session (podman)", () => {
  it("reads, lists and writes the work tree through the engine, atomically and keeping file modes", async () => {
    const seen = await inSession(({ workspace, sandbox }) =>
      Effect.gen(function* () {
        const before = yield* workspace.read("pkg/mod.py");
        const root = (yield* workspace.list(".")).map((e) => `${e.name}:${e.kind}`);
        yield* workspace.write("run.sh", "#!/bin/sh\necho changed\n");
        yield* workspace.write("new/dir/file.py", "b = 2\n");
        const after = yield* sandbox.exec("stat -c '%a' run.sh && ./run.sh && cat new/dir/file.py && ls -a new/dir && echo $GREETING");
        const listed = (yield* workspace.list("new/dir")).map((e) => e.name);
        return { before, root, after, listed };
      }),
    );
    expect(seen.before).toBe("a = 1\n");
    expect(seen.root).toEqual(["escape:symlink", "inside:symlink", "pkg:directory", "run.sh:file"]); // .git left out
    expect(seen.after.output).toBe("755\nchanged\nb = 2\n.\n..\nfile.py\nhello\n");
    expect(seen.listed).toEqual(["file.py"]);
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
    for (const refused of [seen.absolute, seen.dotdot, seen.link, seen.linkWrite]) expect(refused._tag).toBe("PathOutsideWorkspace");
    expect(seen.link.message).toContain("escape is a symlink leading outside the workspace");
    expect(seen.inside).toBe("a = 1\n");
  });
});

/**
 * The live ContainerEngine against a REAL engine: podman serving the Docker API on /tmp/podman.sock,
 * with the local images graphplan-busybox:test and graphplan-debian:test, both from
 * `bash .ci/podman-setup.sh` (as root). Without them these tests fail, saying so.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import * as Effect from "effect/Effect";
import { describe, expect, it as vitestIt } from "vitest";
import { dockerOptionsFor } from "./docker.js";
import { ContainerEngine, type ContainerEngineShape } from "./engine.js";

const HOST = "unix:///tmp/podman.sock";
const BUSYBOX = "graphplan-busybox:test";
const DEBIAN = "graphplan-debian:test";

const withEngine = <A, E>(
  program: (engine: ContainerEngineShape) => Effect.Effect<A, E, import("effect/Scope").Scope>,
) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* ContainerEngine;
        yield* engine.ping.pipe(Effect.mapError((e) => new Error(`${e.message}`)));
        return yield* program(engine);
      }),
    ).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
  );

const it = (name: string, body: () => Promise<void>) => vitestIt(name, body, 120_000);

describe("the container engine (podman on /tmp/podman.sock)", () => {
  it("copies files in, runs argv without a shell and commands with one, and reads a file back", async () => {
    const result = await withEngine((engine) =>
      Effect.gen(function* () {
        const container = yield* engine.start({ image: BUSYBOX, workdir: "/work" });
        yield* container.putFiles([
          { path: "/tmp/patch.diff", content: "a b  c\n" },
          { path: "/opt/deep/dir/run.sh", content: '#!/bin/sh\necho ran "$@"\n', mode: 0o755 },
        ]);
        const argv = yield* container.execArgv(["/opt/deep/dir/run.sh", "one arg", "$HOME"]);
        const shell = yield* container.exec("cat /tmp/patch.diff; echo to-stderr >&2; pwd; exit 3", {
          env: { X: "1" },
        });
        const back = yield* container.readFile("/tmp/patch.diff");
        return { argv, shell, back: new TextDecoder().decode(back) };
      }),
    );
    expect(result.argv).toEqual({ exitCode: 0, output: "ran one arg $HOME\n", timedOut: false });
    expect(result.shell).toEqual({ exitCode: 3, output: "a b  c\nto-stderr\n/work\n", timedOut: false });
    expect(result.back).toBe("a b  c\n");
  });

  it("commits a container as an image carrying labels, env and workdir, which a new container starts from", async () => {
    const image = `graphplan-commit-test:${randomUUID().slice(0, 8)}`;
    try {
      const seen = await withEngine((engine) =>
        Effect.gen(function* () {
          yield* Effect.scoped(
            Effect.gen(function* () {
              const container = yield* engine.start({ image: DEBIAN });
              yield* container.exec("mkdir -p /testbed && echo hello > /testbed/file");
              yield* container.commit(image, {
                labels: { "org.graphplan.test": "a b" },
                env: { GREETING: "hi there" },
                workdir: "/testbed",
              });
            }),
          );
          const info = yield* engine.inspectImage(image);
          const output = yield* Effect.scoped(
            Effect.gen(function* () {
              const next = yield* engine.start({ image });
              return (yield* next.exec('pwd; cat file; echo "$GREETING"')).output;
            }),
          );
          return { info, output };
        }),
      );
      expect(seen.info?.labels["org.graphplan.test"]).toBe("a b");
      expect(seen.info?.workdir).toBe("/testbed");
      expect(seen.output).toBe("/testbed\nhello\nhi there\n");
    } finally {
      await withEngine((engine) => engine.removeImage(image));
    }
  });

  it("removes its containers when the scope closes, and finds them by label before that", async () => {
    const run = randomUUID();
    const during = await withEngine((engine) =>
      Effect.gen(function* () {
        const container = yield* engine.start({ image: BUSYBOX, labels: { "graphplan.test.run": run } });
        const anyValue = yield* engine.containersLabelled({ "graphplan.test.run": "" });
        expect(anyValue).toContain(container.id);
        return yield* engine.containersLabelled({ "graphplan.test.run": run });
      }),
    );
    const after = await withEngine((engine) => engine.containersLabelled({ "graphplan.test.run": run }));
    expect(during).toHaveLength(1);
    expect(after).toEqual([]);
  });

  it("removes a container whose owner was killed (SIGKILL, no scope closed) within seconds, on its own", async () => {
    const run = randomUUID();
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const owner = spawn(
      process.execPath,
      [
        "--import",
        tsx,
        "--conditions=source",
        fileURLToPath(new URL("../fixtures/container-owner.ts", import.meta.url)),
        HOST,
        BUSYBOX,
        run,
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    owner.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const id = await new Promise<string>((resolve, reject) => {
      owner.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        const started = /^started (\w+)$/m.exec(output);
        if (started) resolve(started[1]!);
      });
      owner.on("close", () => reject(new Error(`the owner ended before its container started: ${output}`)));
    });
    // The owner is alive: its container keeps running, however long that is.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await withEngine((engine) => engine.containersLabelled({ "graphplan.test.run": run }))).toEqual([id]);

    owner.kill("SIGKILL");
    const waitedMs = await withEngine((engine) =>
      Effect.gen(function* () {
        const began = Date.now();
        while ((yield* engine.containersLabelled({ "graphplan.test.run": run })).length > 0) {
          if (Date.now() - began > 30_000) return Infinity;
          yield* Effect.sleep("250 millis");
        }
        return Date.now() - began;
      }),
    );
    expect(waitedMs).toBeLessThan(30_000);
  });

  it("says which image is missing, and that a pull from an unreachable registry failed", async () => {
    const missing = await withEngine((engine) => engine.inspectImage("graphplan-no-such-image:missing"));
    expect(missing).toBeUndefined();
    const error = await withEngine((engine) =>
      Effect.flip(engine.pullImage("127.0.0.1:9/graphplan/no-such-image:latest")),
    );
    expect(error._tag).toBe("ImageUnavailable");
    expect(error.message).toContain("127.0.0.1:9/graphplan/no-such-image:latest");
    expect(error.message).toContain("bench images build");
  });

  it("reports an engine that does not answer, naming its address", async () => {
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.gen(function* () {
          yield* (yield* ContainerEngine).ping;
        }).pipe(Effect.provide(ContainerEngine.layer({ host: "unix:///tmp/graphplan-no-engine.sock" }))),
      ),
    );
    expect(error._tag).toBe("EngineUnavailable");
    expect(error.message).toContain("unix:///tmp/graphplan-no-engine.sock");
  });
});

describe("Docker host URLs", () => {
  vitestIt("reads unix sockets, bare paths, tcp and ssh the way Docker's clients do", () => {
    expect(dockerOptionsFor("unix:///run/podman.sock").options).toEqual({ socketPath: "/run/podman.sock" });
    expect(dockerOptionsFor("/tmp/x.sock")).toEqual({
      label: "unix:///tmp/x.sock",
      options: { socketPath: "/tmp/x.sock" },
    });
    expect(dockerOptionsFor("tcp://10.1.2.3:2375").options).toEqual({
      protocol: "http",
      host: "10.1.2.3",
      port: "2375",
    });
    expect(dockerOptionsFor("tcp://builder:2376").options).toMatchObject({ protocol: "https", port: "2376" });
    expect(dockerOptionsFor("ssh://ci@fleet-7").options).toMatchObject({
      protocol: "ssh",
      host: "fleet-7",
      port: 22,
      username: "ci",
    });
    expect(() => dockerOptionsFor("npipe:////./pipe/docker")).toThrow(/unix:\/\/, tcp:\/\/ or ssh:\/\//);
  });
});

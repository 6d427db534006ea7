/**
 * The docker sandbox against a REAL engine: podman serving the Docker API on /tmp/podman.sock, with
 * the local image graphplan-busybox:test. Both come from `bash .ci/podman-setup.sh` (as root); without
 * them these tests fail (they are never skipped) with a message saying so.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import { describe, expect, it as vitestIt } from "vitest";
import { SANDBOX_LABEL, type DockerSandboxOptions } from "./docker.js";
import { Sandbox } from "./sandbox.js";

const SOCKET = "/tmp/podman.sock";
const IMAGE = "graphplan-busybox:test";
const docker = new Docker({ socketPath: SOCKET });

let engineCheck: Promise<void> | undefined;
/** Fails (it never skips) when the engine or the image is missing, saying how to get them. */
function engineReady(): Promise<void> {
  engineCheck ??= (async () => {
    const setup = `run \`bash .ci/podman-setup.sh\` as root (it installs podman, serves the Docker API on ${SOCKET} and builds ${IMAGE})`;
    try {
      await Promise.race([
        docker.ping(),
        new Promise((_, reject) => setTimeout(() => reject(new Error("no answer within 10 s")), 10_000)),
      ]);
    } catch (error) {
      throw new Error(
        `the docker sandbox tests need a container engine on ${SOCKET}, which does not answer (${String(error)}): ${setup}`,
      );
    }
    try {
      await docker.getImage(IMAGE).inspect();
    } catch (error) {
      throw new Error(
        `the docker sandbox tests need the image ${IMAGE}, which the engine on ${SOCKET} does not have (${String(error)}): ${setup}`,
      );
    }
  })();
  return engineCheck;
}

/** A test that first checks the engine: each one fails on its own when podman is not set up. */
const it = (name: string, body: () => Promise<void>) =>
  vitestIt(name, async () => {
    await engineReady();
    await body();
  });

/** Options for one test: its own label, so it can find its container and only its container. */
function options(extra: Partial<DockerSandboxOptions> = {}): DockerSandboxOptions & { readonly run: string } {
  const run = randomUUID();
  return {
    image: IMAGE,
    workdir: "/work/repo",
    socketPath: SOCKET,
    labels: { "graphplan.test.run": run },
    ...extra,
    run,
  };
}

const containersOf = async (run: string) =>
  docker.listContainers({ all: true, filters: { label: [`${SANDBOX_LABEL}=1`, `graphplan.test.run=${run}`] } });

const withDocker = <A, E>(opts: DockerSandboxOptions, program: (sandbox: Sandbox["Service"]) => Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    return yield* program(yield* Sandbox);
  }).pipe(Effect.provide(Sandbox.layerDocker(opts)));
const inDocker = <A, E>(opts: DockerSandboxOptions, program: (sandbox: Sandbox["Service"]) => Effect.Effect<A, E>) =>
  Effect.runPromise(withDocker(opts, program));

describe("the docker sandbox (podman on /tmp/podman.sock)", () => {
  it("runs commands in the working directory with the container's environment, returning exit codes and both streams", async () => {
    const opts = options({ env: { GREETING: "hello there" } });
    const [failing, quoting, ok, big] = await inDocker(opts, (sandbox) =>
      Effect.all([
        sandbox.exec('pwd; echo out; echo err >&2; echo "$GREETING"; exit 3'),
        sandbox.exec(`printf '%s|' "a  b" '$HOME' "it's"; echo`),
        sandbox.exec("true"),
        sandbox.exec("head -c 300000 /dev/zero | tr '\\000' x; echo end >&2"),
      ]),
    );
    expect(failing).toEqual({ exitCode: 3, output: "/work/repo\nout\nerr\nhello there\n", timedOut: false });
    expect(quoting).toEqual({ exitCode: 0, output: "a  b|$HOME|it's|\n", timedOut: false });
    expect(ok).toEqual({ exitCode: 0, output: "", timedOut: false });
    expect(big.exitCode).toBe(0);
    expect(big.output).toBe(`${"x".repeat(300_000)}end\n`);
  });

  it("shares a bind-mounted host directory: the container reads the host's files and its writes land on the host; :ro binds refuse writes", async () => {
    const repo = mkdtempSync(join(tmpdir(), "sandbox-repo-"));
    const readonly = mkdtempSync(join(tmpdir(), "sandbox-ro-"));
    writeFileSync(join(repo, "a.py"), "print(1)\n");
    writeFileSync(join(readonly, "keep.txt"), "kept\n");
    const opts = options({ binds: [`${repo}:/work/repo`, `${readonly}:/mnt/ro:ro`] });
    const [read, write, refused] = await inDocker(opts, (sandbox) =>
      Effect.all([
        sandbox.exec("cat a.py"),
        sandbox.exec("mkdir -p pkg && echo 'x = 2' > pkg/b.py && sed -i 's/1/3/' a.py"),
        sandbox.exec("echo changed > /mnt/ro/keep.txt"),
      ]),
    );
    expect(read).toEqual({ exitCode: 0, output: "print(1)\n", timedOut: false });
    expect(write.exitCode).toBe(0);
    expect(readFileSync(join(repo, "pkg", "b.py"), "utf8")).toBe("x = 2\n");
    expect(readFileSync(join(repo, "a.py"), "utf8")).toBe("print(3)\n");
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/read-only/i);
    expect(readFileSync(join(readonly, "keep.txt"), "utf8")).toBe("kept\n");
  });

  it("kills a timed-out command and everything it started, even in a new session, and later commands still run", async () => {
    const repo = mkdtempSync(join(tmpdir(), "sandbox-repo-"));
    const opts = options({ binds: [`${repo}:/work/repo`] });
    const started = Date.now();
    const [timedOut, elapsed, later, processes] = await inDocker(opts, (sandbox) =>
      Effect.gen(function* () {
        const result = yield* sandbox.exec(
          "(sleep 2; touch late-child) & setsid sh -c 'sleep 2; touch late-session' & echo started; echo warn >&2; sleep 30; touch too-late",
          { timeoutMs: 700 },
        );
        const elapsed = Date.now() - started;
        // Long enough for the background commands to have written their files, had they survived.
        const later = yield* sandbox.exec("sleep 2.5; ls; echo done");
        const processes = yield* sandbox.exec("ps -o args");
        return [result, elapsed, later, processes] as const;
      }),
    );
    expect(timedOut.timedOut).toBe(true);
    expect(timedOut.exitCode).toBe(-1);
    expect(timedOut.output).toBe("started\nwarn\n");
    expect(elapsed).toBeLessThan(6_000);
    expect(later).toEqual({ exitCode: 0, output: "done\n", timedOut: false });
    expect(existsSync(join(repo, "late-child")) || existsSync(join(repo, "late-session"))).toBe(false);
    expect(processes.output).not.toMatch(/sleep (2|30)\b/);
  });

  it("uses the layer's default timeout when exec is given none", async () => {
    const result = await inDocker(options({ timeoutMs: 400 }), (sandbox) => sandbox.exec("echo begun; sleep 20"));
    expect(result).toEqual({ exitCode: -1, output: "begun\n", timedOut: true });
  });

  it("removes its container when the scope closes after success", async () => {
    const opts = options();
    const inside = await inDocker(opts, (sandbox) =>
      Effect.gen(function* () {
        const listed = yield* Effect.promise(() => containersOf(opts.run));
        return { listed, description: sandbox.description, hostname: (yield* sandbox.exec("hostname")).output.trim() };
      }),
    );
    expect(inside.listed).toHaveLength(1);
    expect(inside.listed[0]?.State).toBe("running");
    expect(inside.description).toBe(`docker:${IMAGE}@${inside.listed[0]?.Id.slice(0, 12)}`);
    expect(await containersOf(opts.run)).toEqual([]);
  });

  it("removes its container when the program inside the scope fails", async () => {
    const opts = options();
    let seen = 0;
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        yield* sandbox.exec("true");
        seen = (yield* Effect.promise(() => containersOf(opts.run))).length;
        return yield* Effect.fail("the agent gave up" as const);
      }).pipe(Effect.provide(Sandbox.layerDocker(opts))),
    );
    expect(seen).toBe(1);
    expect(Exit.isFailure(exit)).toBe(true);
    expect(await containersOf(opts.run)).toEqual([]);
  });

  it("removes its container and stops the running command when the program is interrupted", async () => {
    const opts = options();
    const fiber = Effect.runFork(
      Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        return yield* sandbox.exec("sleep 30");
      }).pipe(Effect.provide(Sandbox.layerDocker(opts))),
    );
    // Wait until the command runs.
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [container] = await containersOf(opts.run);
      if (container !== undefined) {
        const top = await docker
          .getContainer(container.Id)
          .top({ ps_args: "-ef" })
          .catch(() => undefined);
        if (JSON.stringify(top?.Processes ?? []).includes("sleep 30")) break;
      }
      if (Date.now() > deadline) throw new Error("the command never started");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const started = Date.now();
    const exit = await Effect.runPromise(Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber))));
    expect(Exit.hasInterrupts(exit)).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await containersOf(opts.run)).toEqual([]);
  });

  it("fails with SandboxFailed when its container disappears under it", async () => {
    const opts = options();
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.gen(function* () {
          const sandbox = yield* Sandbox;
          const [container] = yield* Effect.promise(() => containersOf(opts.run));
          yield* Effect.promise(() => docker.getContainer(container!.Id).remove({ force: true }));
          return yield* sandbox.exec("echo nobody hears");
        }).pipe(Effect.provide(Sandbox.layerDocker(opts))),
      ),
    );
    expect(error._tag).toBe("SandboxFailed");
    expect(error.message).toContain("echo nobody hears");
  });

  it("reports a missing image as SandboxUnavailable, saying how to get it, and leaves no container", async () => {
    const opts = options({ image: "graphplan-no-such-image:missing" });
    const error = await Effect.runPromise(Effect.flip(withDocker(opts, (sandbox) => sandbox.exec("true"))));
    expect(error._tag).toBe("SandboxUnavailable");
    expect(error.message).toContain("graphplan-no-such-image:missing");
    expect(error.message).toContain("pull graphplan-no-such-image:missing");
    expect(error.message).toContain(".ci/podman-setup.sh");
    expect(await containersOf(opts.run)).toEqual([]);
  });

  it("reports an engine that does not answer as SandboxUnavailable naming the socket, also when it comes from DOCKER_HOST", async () => {
    const missing = join(tmpdir(), `graphplan-no-engine-${process.pid}.sock`);
    const direct = await Effect.runPromise(
      Effect.flip(withDocker({ image: IMAGE, workdir: "/", socketPath: missing }, (sandbox) => sandbox.exec("true"))),
    );
    expect(direct._tag).toBe("SandboxUnavailable");
    expect(direct.message).toContain(`engine at ${missing} does not answer`);
    expect(direct.message).toContain("podman system service");

    const before = process.env.DOCKER_HOST;
    process.env.DOCKER_HOST = `unix://${missing}-env`;
    try {
      const fromEnv = await Effect.runPromise(
        Effect.flip(withDocker({ image: IMAGE, workdir: "/" }, (sandbox) => sandbox.exec("true"))),
      );
      expect(fromEnv.message).toContain(`engine at ${missing}-env does not answer`);
    } finally {
      if (before === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = before;
    }
  });

  it("runs the README's Sandboxes example", async () => {
    const log: unknown[] = [];
    const console = { log: (...args: unknown[]) => log.push(...args) };
    // --- README example (Sandboxes) ---
    const { Sandbox } = await import("../index.js");

    const repo = mkdtempSync(join(tmpdir(), "repo-"));
    const layer = Sandbox.layerDocker({
      image: "graphplan-busybox:test",
      workdir: "/work/repo",
      binds: [`${repo}:/work/repo`],
      socketPath: "/tmp/podman.sock",
    });
    const program = Effect.gen(function* () {
      const sandbox = yield* Sandbox;
      yield* sandbox.exec("echo hello > greeting.txt");
      return yield* sandbox.exec("echo waiting; sleep 60", { timeoutMs: 300 });
    });
    const result = await Effect.runPromise(program.pipe(Effect.provide(layer))); // the container is removed here
    console.log(result, readFileSync(join(repo, "greeting.txt"), "utf8"));
    // { exitCode: -1, output: "waiting\n", timedOut: true } "hello\n"
    // --- end ---
    expect(log).toEqual([{ exitCode: -1, output: "waiting\n", timedOut: true }, "hello\n"]);
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { Sandbox } from "./sandbox.js";

const inLocal = <A, E>(cwd: string, program: Effect.Effect<A, E, Sandbox>) =>
  Effect.runPromise(program.pipe(Effect.provide(Sandbox.layerLocal({ cwd }))));

describe("the local sandbox", () => {
  it("runs a command in its directory and returns the exit code and the output of both streams", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-"));
    writeFileSync(join(dir, "a.txt"), "hello\n");
    const result = await inLocal(
      dir,
      Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        return yield* sandbox.exec("cat a.txt; echo oops >&2; exit 3");
      }),
    );
    expect(result).toEqual({ exitCode: 3, output: "hello\noops\n", timedOut: false });
  });

  it("kills a command and the processes it started when the timeout passes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-"));
    const started = Date.now();
    const result = await inLocal(
      dir,
      Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        return yield* sandbox.exec("(sleep 30; touch late) & echo started; wait", { timeoutMs: 300 });
      }),
    );
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(-1);
    expect(result.output).toBe("started\n");
    expect(Date.now() - started).toBeLessThan(10_000);
    const check = await inLocal(
      dir,
      Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        return yield* sandbox.exec("sleep 0.5; ls");
      }),
    );
    expect(check.output).toBe("");
  });

  it("passes on only the environment variables `inherit` keeps, plus `env`", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-"));
    process.env.GRAPHPLAN_TEST_SECRET_API_KEY = "sk-secret";
    process.env.GRAPHPLAN_TEST_PLAIN = "plain";
    try {
      const layer = Sandbox.layerLocal({
        cwd: dir,
        inherit: (name) => !name.endsWith("_API_KEY"),
        env: { EXTRA: "x" },
      });
      const program = Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        return yield* sandbox.exec('echo "[$GRAPHPLAN_TEST_SECRET_API_KEY][$GRAPHPLAN_TEST_PLAIN][$EXTRA]"');
      });
      expect((await Effect.runPromise(program.pipe(Effect.provide(layer)))).output).toBe("[][plain][x]\n");
      expect((await inLocal(dir, program)).output).toBe("[sk-secret][plain][]\n");
    } finally {
      delete process.env.GRAPHPLAN_TEST_SECRET_API_KEY;
      delete process.env.GRAPHPLAN_TEST_PLAIN;
    }
  });

  it("refuses a working directory that does not exist, naming it", async () => {
    const missing = join(tmpdir(), "graphplan-no-such-dir");
    const error = await Effect.runPromise(
      Effect.flip(
        Effect.gen(function* () {
          const s = yield* Sandbox;
          return yield* s.exec("true");
        }).pipe(Effect.provide(Sandbox.layerLocal({ cwd: missing }))),
      ),
    );
    expect(error._tag).toBe("SandboxUnavailable");
    expect(error.message).toContain(missing);
  });
});

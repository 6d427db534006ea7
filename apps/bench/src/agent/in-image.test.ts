/** The engine pool of `bench agent --in-image`: engines that answer, least busy first, and what happens when none does. */
import { ContainerEngine, EngineUnavailable, type ContainerEngineShape } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { EnginePool } from "./in-image.js";

/** A real engine shape for an address nothing listens on, or one whose ping answers. */
const engine = (host: string, alive: boolean): ContainerEngineShape => ({
  ...ContainerEngine.make({ host: "unix:///tmp/graphplan-no-engine.sock" }),
  endpoint: host,
  ping: alive ? Effect.void : Effect.fail(new EngineUnavailable({ endpoint: host, detail: "connection refused" })),
});

const poolOf = (engines: Array<[string, boolean, number]>) =>
  new EnginePool({ namespace: null, tag: "latest", engines: engines.map(([host, , workers]) => ({ host, workers })) }, 1, (host) => engine(host!, engines.find(([h]) => h === host)![1]));

describe("the engine pool", () => {
  it("leaves out the engines that do not answer and hands out slots on the least busy of the others", async () => {
    const pool = poolOf([["tcp://a:2375", true, 2], ["tcp://dead:2375", false, 4], ["tcp://b:2375", true, 1]]);
    expect(pool.total).toBe(7);
    await Effect.runPromise(pool.check);
    const taken = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const first = yield* pool.acquire();
          const second = yield* pool.acquire();
          const third = yield* pool.acquire();
          return [first, second, third].map((s) => s.engine.endpoint);
        }),
      ),
    );
    expect(taken).toEqual(["tcp://a:2375", "tcp://b:2375", "tcp://a:2375"]);
    expect(pool.slots.map((s) => s.busy)).toEqual([0, 0, 0]);
  });

  it("fails naming the first engine's problem when none answers", async () => {
    const pool = poolOf([["tcp://x:2375", false, 1], ["tcp://y:2375", false, 1]]);
    const error = await Effect.runPromise(Effect.flip(pool.check));
    expect(error.message).toContain("tcp://x:2375 does not answer (connection refused)");
    const none = await Effect.runPromise(Effect.flip(Effect.scoped(pool.acquire())));
    expect(none.message).toBe("no container engine left (every engine stopped answering)");
  });
});

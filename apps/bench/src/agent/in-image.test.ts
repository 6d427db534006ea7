/** The engine pool of `bench agent --in-image`: engines that answer, least busy first, and what happens when none does. */
import { ContainerEngine, EngineUnavailable, type ContainerEngineShape } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Scope from "effect/Scope";
import { describe, expect, it } from "vitest";
import { HOST, SETUP_HINT } from "../eval/fixtures/instances.js";
import { AGENT_RUN_LABEL, EnginePool } from "./in-image.js";

/** A real engine shape for an address nothing listens on, or one whose ping answers. */
const engine = (host: string, alive: boolean): ContainerEngineShape => ({
  ...ContainerEngine.make({ host: "unix:///tmp/graphplan-no-engine.sock" }),
  endpoint: host,
  ping: alive ? Effect.void : Effect.fail(new EngineUnavailable({ endpoint: host, detail: "connection refused" })),
});

const poolOf = (engines: Array<[string, boolean, number]>) =>
  new EnginePool(
    { namespace: null, tag: "latest", engines: engines.map(([host, , workers]) => ({ host, workers })) },
    1,
    (host) => engine(host!, engines.find(([h]) => h === host)![1]),
  );

describe("the engine pool", () => {
  it("leaves out the engines that do not answer and hands out slots on the least busy of the others", async () => {
    const pool = poolOf([
      ["tcp://a:2375", true, 2],
      ["tcp://dead:2375", false, 4],
      ["tcp://b:2375", true, 1],
    ]);
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

  it("runs removals in the background, survives the interruption of whoever started them, and drains them all", async () => {
    const pool = poolOf([["tcp://a:2375", true, 1]]);
    const removed: number[] = [];
    const removal = (n: number, ms: number) =>
      Effect.sleep(`${ms} millis`).pipe(Effect.andThen(Effect.sync(() => void removed.push(n))));
    // The instance hands its removal over and ends at once, then is interrupted (Ctrl-C): the removal goes on.
    await Effect.runPromise(
      Effect.scoped(Effect.addFinalizer(() => pool.background(removal(1, 150))).pipe(Effect.andThen(Effect.interrupt))),
    ).catch(() => undefined);
    await Effect.runPromise(pool.background(removal(2, 50)));
    expect(removed).toEqual([]); // neither was waited for
    await Effect.runPromise(pool.drain);
    expect(removed).toEqual([2, 1]);
    await Effect.runPromise(pool.drain); // nothing left to wait for
  });

  it("fails naming the first engine's problem when none answers", async () => {
    const pool = poolOf([
      ["tcp://x:2375", false, 1],
      ["tcp://y:2375", false, 1],
    ]);
    const error = await Effect.runPromise(Effect.flip(pool.check));
    expect(error.message).toContain("tcp://x:2375 does not answer (connection refused)");
    const none = await Effect.runPromise(Effect.flip(Effect.scoped(pool.acquire())));
    expect(none.message).toBe("no container engine left (every engine stopped answering)");
  });
});

describe("the engine pool's sweep (podman on /tmp/podman.sock)", () => {
  it("removes the containers of its own run that outlived their scope, and no other run's", async () => {
    const live = ContainerEngine.make({ host: HOST });
    await Effect.runPromise(live.ping).catch((e: Error) =>
      Promise.reject(new Error(`this test needs a container engine: ${e.message}; ${SETUP_HINT}`)),
    );
    const pool = new EnginePool({ namespace: null, tag: "latest", engines: [{ host: HOST, workers: 1 }] }, 1);
    const other = new EnginePool({ namespace: null, tag: "latest", engines: [{ host: HOST, workers: 1 }] }, 1);
    // Scopes left open: the containers outlive what started them, as when an engine refused their removal.
    const mine = await Effect.runPromise(Scope.make());
    const theirs = await Effect.runPromise(Scope.make());
    const start = (runId: string, scope: Scope.Closeable) =>
      Effect.runPromise(
        Scope.provide(live.start({ image: "graphplan-busybox:test", labels: { [AGENT_RUN_LABEL]: runId } }), scope),
      );
    try {
      await start(pool.runId, mine);
      await start(other.runId, theirs);
      const removed = await Effect.runPromise(pool.sweep);
      expect(removed).toHaveLength(1);
      expect(await Effect.runPromise(live.containersLabelled({ [AGENT_RUN_LABEL]: pool.runId }))).toEqual([]);
      expect(await Effect.runPromise(live.containersLabelled({ [AGENT_RUN_LABEL]: other.runId }))).toHaveLength(1);
      // The scope's own removal, later, finds nothing to remove and does not fail.
      await Effect.runPromise(Scope.close(mine, Exit.void));
      expect(await Effect.runPromise(other.sweep)).toHaveLength(1);
    } finally {
      await Effect.runPromise(Scope.close(theirs, Exit.void));
      await Effect.runPromise(Scope.close(mine, Exit.void));
    }
  });
});

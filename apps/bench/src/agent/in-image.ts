/**
 * `bench agent --in-image`: each instance runs inside its own instance image (what `bench eval`
 * grades in; `bench images build` makes them here), repository at /testbed, the model's commands
 * in the image's environment (its pytest, its interpreter) and every file read and written through
 * the engine — nothing of the repository on the host. Instances are spread over one or more
 * engines (`--docker-host URL[=N]`); an engine that stops answering is taken out of the rotation.
 */
import { randomUUID } from "node:crypto";
import { SUPPORTED_EXTENSIONS } from "@graphplan/graph";
import {
  ContainerEngine,
  containerSession,
  Sandbox,
  Workspace,
  type ContainerEngineShape,
  type ContainerSession,
} from "@graphplan/runtime";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import * as Exit from "effect/Exit";
import * as Fiber from "effect/Fiber";
import * as Layer from "effect/Layer";
import * as Scope from "effect/Scope";
import { instanceImageName } from "../eval/spec.js";
import type { EngineSlot } from "../options.js";

export interface InImageOptions {
  /** Image namespace (null: local names) and tag, as for `bench eval`. */
  readonly namespace: string | null;
  readonly tag: string;
  /** Engines and their containers at once; empty: DOCKER_HOST with the run's -w. */
  readonly engines: readonly EngineSlot[];
}

/** The label of the agent's containers (`podman ps -a --filter label=graphplan.agent.run`). */
export const AGENT_RUN_LABEL = "graphplan.agent.run";

/** The environment of the model's commands, as mini-swe-agent sets it for SWE-bench images. */
const COMMAND_ENV = {
  BASH_ENV: "/root/.bashrc",
  PAGER: "cat",
  MANPAGER: "cat",
  LESS: "-R",
  PIP_PROGRESS_BAR: "off",
  TQDM_DISABLE: "1",
  // git compares sizes and mtimes only: in a fresh container the index's ctimes and inodes are the
  // image build's, and git would re-hash the whole work tree on its first command (8 s on django).
  GIT_CONFIG_COUNT: "2",
  GIT_CONFIG_KEY_0: "core.checkStat",
  GIT_CONFIG_VALUE_0: "minimal",
  GIT_CONFIG_KEY_1: "core.trustctime",
  GIT_CONFIG_VALUE_1: "false",
};

/** The instance could not be run in its image (no image, no engine, the container failed). */
export class InImageUnavailable extends Data.TaggedError("InImageUnavailable")<{ readonly detail: string }> {
  override get message(): string {
    return this.detail;
  }
}

interface Slot {
  readonly engine: ContainerEngineShape;
  readonly workers: number;
  busy: number;
  lost: boolean;
}

/** Engines with free slots, taken least busy first; `total` is the run's concurrency. */
export class EnginePool {
  readonly slots: Slot[];
  readonly runId = randomUUID().slice(0, 8);
  /** Containers being removed, off the instances' critical path; `drain` waits for them. */
  readonly #removals = new Set<Fiber.Fiber<void>>();

  constructor(
    options: InImageOptions,
    defaultWorkers: number,
    make: (host: string | undefined) => ContainerEngineShape = (host) => ContainerEngine.make({ host }),
  ) {
    const engines = options.engines.length ? options.engines : [{ host: undefined, workers: defaultWorkers }];
    this.slots = engines.map((e) => ({ engine: make(e.host), workers: e.workers, busy: 0, lost: false }));
  }

  get total(): number {
    return this.slots.reduce((n, s) => n + s.workers, 0);
  }

  /** Fails when no engine answers (bad input for the run). */
  readonly check = Effect.gen({ self: this }, function* () {
    const problems: string[] = [];
    for (const slot of this.slots) {
      const alive = yield* slot.engine.ping.pipe(
        Effect.as(true),
        Effect.catch((e) => Effect.sync(() => (problems.push(e.message), false))),
      );
      slot.lost = !alive;
    }
    if (this.slots.every((s) => s.lost))
      return yield* new InImageUnavailable({ detail: problems[0] ?? "no container engine" });
  });

  /**
   * Removes whatever container of this run is still there, on every engine that answers: the last
   * line of defence behind each container's own removal (which retries, but an engine under load
   * has refused it). Returns the names it had to remove.
   */
  readonly sweep: Effect.Effect<readonly string[]> = Effect.gen({ self: this }, function* () {
    const removed: string[] = [];
    for (const slot of this.slots) {
      const left = yield* slot.engine
        .containersLabelled({ [AGENT_RUN_LABEL]: this.runId })
        .pipe(Effect.catch(() => Effect.succeed([] as readonly string[])));
      for (const id of left) {
        yield* slot.engine.removeContainer(id).pipe(
          Effect.andThen(Effect.sync(() => void removed.push(id.slice(0, 12)))),
          Effect.catch((e) =>
            Effect.logWarning(
              `the agent's container ${id.slice(0, 12)} could not be removed (${e.message}); remove it with \`podman rm -f ${id.slice(0, 12)}\``,
            ),
          ),
        );
      }
    }
    return removed;
  });

  /**
   * Runs `removal` in the background, uninterruptibly: an instance does not wait for its container's
   * removal (a quarter of a second on podman), as mini-swe-agent does not. The run waits for all of
   * them (`drain`) before it ends, Ctrl-C included, and sweeps what is left after that.
   */
  background(removal: Effect.Effect<void>): Effect.Effect<void> {
    return Effect.gen({ self: this }, function* () {
      const fiber = yield* Effect.forkDetach(removal, { uninterruptible: true });
      this.#removals.add(fiber);
      fiber.addObserver(() => this.#removals.delete(fiber));
    });
  }

  /** Waits for the removals under way (see `background`). */
  readonly drain: Effect.Effect<void> = Effect.suspend(() => Effect.asVoid(Fiber.awaitAll([...this.#removals])));

  /** A slot on the least busy live engine, held for the scope. */
  acquire(): Effect.Effect<Slot, InImageUnavailable, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.suspend(() => {
        const live = this.slots
          .filter((s) => !s.lost && s.busy < s.workers)
          .sort((a, b) => a.busy / a.workers - b.busy / b.workers);
        const slot = live[0] ?? this.slots.find((s) => !s.lost);
        if (slot === undefined)
          return Effect.fail(
            new InImageUnavailable({ detail: "no container engine left (every engine stopped answering)" }),
          );
        slot.busy++;
        return Effect.succeed(slot);
      }),
      (slot) => Effect.sync(() => void slot.busy--),
    );
  }
}

/**
 * The Sandbox and Workspace layers of one instance: a container of its image, removed when the
 * scope closes. An engine that no longer answers is taken out of the pool.
 */
export function instanceEnvironment(
  pool: EnginePool,
  options: InImageOptions,
  instanceId: string,
  timeoutMs: number,
): Effect.Effect<Layer.Layer<Sandbox | Workspace>, InImageUnavailable, Scope.Scope> {
  return Effect.gen(function* () {
    const slot = yield* pool.acquire();
    const { engine } = slot;
    const image = instanceImageName(instanceId, { namespace: options.namespace, tag: options.tag });
    const lost = (detail: string) =>
      engine.ping.pipe(
        Effect.catch(() => Effect.sync(() => void (slot.lost = true))),
        Effect.andThen(new InImageUnavailable({ detail })),
      );
    const info = yield* engine.inspectImage(image).pipe(Effect.catch((e) => lost(e.message)));
    if (info === undefined) {
      return yield* new InImageUnavailable({
        detail: `the image ${image} is not in the engine at ${engine.endpoint}; build it with \`pnpm -s bench images build --instances ${instanceId}\``,
      });
    }
    // The container lives in a scope of its own, closed (the container removed) in the background
    // when the instance's scope closes: see EnginePool.background.
    const containerScope = yield* Scope.make();
    yield* Effect.addFinalizer(() => pool.background(Scope.close(containerScope, Exit.void)));
    const container = yield* engine
      .start({
        image,
        name: `graphplan-agent.${instanceId.toLowerCase()}.${pool.runId}`,
        workdir: "/testbed",
        user: "root",
        labels: { [AGENT_RUN_LABEL]: pool.runId },
      })
      .pipe(
        Scope.provide(containerScope),
        Effect.catch((e) => lost(e.message)),
      );
    // The repository lives only in this container, which dies with the process: an ephemeral workspace
    // (no journal, each write one copy through the engine). Its snapshots read the source files the
    // agent graphs at once, and any other file when it is used (django's tree: 42 MB, 18 MB of source).
    const session: ContainerSession = containerSession(container, {
      root: "/testbed",
      env: COMMAND_ENV,
      timeoutMs,
      ephemeral: true,
      prefetch: SUPPORTED_EXTENSIONS,
    });
    return Layer.mergeAll(Layer.succeed(Sandbox, session.sandbox), Layer.succeed(Workspace, session.workspace));
  });
}

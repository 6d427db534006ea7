/**
 * The agent end to end with its commands in a REAL container: podman serving the Docker API on
 * /tmp/podman.sock and the local image graphplan-debian:test (Debian bookworm with bash, git and
 * python3). Both come from `bash .ci/podman-setup.sh` (as root); without them these tests fail (they
 * are never skipped) with a message saying so.
 *
 * The sandbox is the one `graphplan run --sandbox docker --image graphplan-debian:test --workdir /repo`
 * builds (`sandboxLayer`: `Sandbox.layerDocker` with the repository bind-mounted at /repo), the
 * engine named by DOCKER_HOST as on the command line; the Workspace edits the same files on the host.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { afterEach, describe, expect, it as vitestIt, vi } from "vitest";
import { LanguageModel, Sandbox, ScriptedModel, Workspace } from "@graphplan/runtime";
import type { ChatMessage, SandboxUnavailable } from "@graphplan/runtime";
import { runAgent } from "./agent.js";
import type { AgentConfig } from "./config.js";
import { bash, configWith, git, read, shopRepo, tempDir } from "./fixtures/repo.js";
import { sandboxLayer } from "./layers.js";
import { TrajectorySchema } from "./trajectory.js";

const SOCKET = "/tmp/podman.sock";
const IMAGE = "graphplan-debian:test";
const WORKDIR = "/repo";
const SANDBOX_LABEL = "graphplan.sandbox";
/** A uid that is neither root (the container's user) nor, normally, this process's. */
const OTHER_UID = 4242;
const TASK =
  "Cart.total() ignores the quantity of each item: a cart with 3 pens at 2.0 totals 2.0 instead of 6.0. Fix it.";
/** The shop transcript `graphplan run --provider scripted` demos: grep, READY_TO_PLAN, the plan, `python3 check.py`, submit. */
const REPLIES = JSON.parse(
  readFileSync(join(import.meta.dirname, "fixtures", "shop-replies.json"), "utf8"),
) as string[];
const FIXED_LINE = "        return sum(price * quantity for _name, price, quantity in self.items)";

/** GET on the engine's Docker API over its Unix socket: the status and the parsed JSON body. */
function api(path: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: SOCKET, path, method: "GET", timeout: 10_000 }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      res.on("end", () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // _ping answers plain text.
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on("timeout", () => req.destroy(new Error("no answer within 10 s")));
    req.on("error", reject);
    req.end();
  });
}

let engineCheck: Promise<void> | undefined;
/** Fails (it never skips) when the engine or the image is missing, saying how to get them. */
function engineReady(): Promise<void> {
  engineCheck ??= (async () => {
    const setup = `run \`bash .ci/podman-setup.sh\` as root (it installs podman, serves the Docker API on ${SOCKET} and builds ${IMAGE})`;
    const ping = await api("/_ping").catch((error: unknown) => ({ status: 0, body: String(error) }));
    if (ping.status !== 200)
      throw new Error(
        `the agent's container tests need a container engine on ${SOCKET}, which does not answer (${String(ping.body)}): ${setup}`,
      );
    const image = await api(`/images/${encodeURIComponent(IMAGE)}/json`);
    if (image.status !== 200)
      throw new Error(
        `the agent's container tests need the image ${IMAGE}, which the engine on ${SOCKET} does not have (HTTP ${image.status}): ${setup}`,
      );
  })();
  return engineCheck;
}

/** A test that first checks the engine: each one fails on its own when podman is not set up. */
const it = (name: string, body: () => Promise<void>) =>
  vitestIt(
    name,
    async () => {
      await engineReady();
      await body();
    },
    120_000,
  );

/** Ids of the containers carrying the sandbox label, running or not. */
async function sandboxContainers(): Promise<{ id: string; image: string }[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [`${SANDBOX_LABEL}=1`] }));
  const { status, body } = await api(`/containers/json?all=true&filters=${filters}`);
  expect(status).toBe(200);
  return (body as { Id: string; Image: string }[]).map((c) => ({ id: c.Id, image: c.Image }));
}

/** The sandbox of `graphplan run --sandbox docker --image IMAGE --workdir /repo` over `repo` (the engine from DOCKER_HOST). */
function dockerSandbox(repo: string, config: AgentConfig): Promise<Layer.Layer<Sandbox, SandboxUnavailable>> {
  return Effect.runPromise(sandboxLayer({ sandbox: "docker", image: IMAGE, workdir: WORKDIR }, repo, config));
}

/**
 * Gives `repo` to another user while `body` runs, as on a developer's machine where git in the
 * container (root) does not own the bind-mounted repository. Only root can: other users already are
 * "another user" to the container's root.
 */
async function ownedByAnother<A>(repo: string, body: () => Promise<A>): Promise<A> {
  if (process.getuid?.() !== 0) return body();
  execFileSync("chown", ["-R", `${OTHER_UID}:${OTHER_UID}`, repo]);
  try {
    return await body();
  } finally {
    execFileSync("chown", ["-R", "0:0", repo]);
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

const lastUser = (messages: readonly ChatMessage[]) => [...messages].reverse().find((m) => m.role === "user")!.content;
const observation = (exitCode: number, output: string) =>
  `<returncode>${exitCode}</returncode>\n<output>\n${output}</output>\n`;

describe("the agent in a container (podman on /tmp/podman.sock, image graphplan-debian:test)", () => {
  it("explores, checks and submits from inside the container while the plan is applied on the host, and removes the container", async () => {
    vi.stubEnv("DOCKER_HOST", `unix://${SOCKET}`);
    const repo = shopRepo();
    const config = await configWith();
    // The shop transcript, after three commands whose output only the container gives.
    const [grep, ready, plan, check, submit] = REPLIES;
    const scripted = new ScriptedModel([
      bash(
        "pwd; cat /etc/hostname; echo; git --version; python3 -c 'import sys; print(sys.executable)'",
        "Where am I?",
      ),
      bash("python3 check.py", "Does the check fail?"),
      bash("git log --format=%s; git status --porcelain", "What is committed?"),
      grep!,
      ready!,
      plan!,
      check!,
      submit!,
    ]);
    const layers = Layer.mergeAll(
      LanguageModel.layerScripted(scripted),
      await dockerSandbox(repo, config),
      Workspace.layer(repo),
    );
    const trajectory = await ownedByAnother(repo, () =>
      Effect.runPromise(runAgent({ task: TASK, config, instanceId: "shop-docker" }).pipe(Effect.provide(layers))),
    );

    expect(trajectory.exitReason).toBe("the model submitted and the patch passed the checks");
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(TrajectorySchema.parse(trajectory)).toEqual(trajectory);
    expect(trajectory.transitions.map((t) => t.to)).toEqual([
      "explore",
      "graph",
      "plan",
      "verify",
      "execute",
      "review",
      "submit",
    ]);
    const container = /^docker:graphplan-debian:test@([0-9a-f]{12})$/.exec(trajectory.sandbox)?.[1];
    expect(container, `the trajectory's sandbox is ${trajectory.sandbox}`).toBeDefined();

    // The commands ran in that container: its working directory /repo (the host has none), its hostname
    // (podman's: the container id), its git and its python3 — and they saw the host's repository.
    const [, probe, failing, log, grepped, , review, checked] = scripted.requests;
    const probed =
      /^<returncode>0<\/returncode>\n<output>\n\/repo\n([0-9a-f]{12})\ngit version 2\.\d+\.\d+\n\/usr\/bin\/python3\n<\/output>\n$/.exec(
        lastUser(probe!),
      );
    expect(probed?.[1], lastUser(probe!)).toBe(container);
    expect(lastUser(failing!)).toMatch(
      /^<returncode>1<\/returncode>\n<output>\nTraceback \(most recent call last\):\n {2}File "\/repo\/check\.py", line 6[\s\S]*\nAssertionError: 12\.0\n<\/output>\n$/,
    );
    expect(lastUser(log!)).toBe(observation(0, "shop\n"));
    expect(lastUser(grepped!)).toContain("./shop/cart.py:12:    def total(self):");
    // The plan was applied on the host; the review ran the project's check with the container's python3 on it.
    expect(read(repo, "shop/cart.py")).toContain(`${FIXED_LINE}\n`);
    expect(trajectory.plans).toHaveLength(1);
    expect(trajectory.plans[0]).toMatchObject({
      valid: true,
      verify: { passed: true },
      apply: { ok: true, written: ["shop/cart.py"] },
    });
    expect(lastUser(review!)).toContain(`+${FIXED_LINE}`);
    expect(lastUser(checked!)).toBe(observation(0, "ok\n"));
    expect(scripted.requests).toHaveLength(8);

    // SUBMIT's git ran in the container (where the repository belonged to another user, so only with
    // safe.directory): the patch is the work tree's diff, and it turns a fresh clone into the fixed file.
    expect(trajectory.submissions).toHaveLength(1);
    expect(trajectory.submissions[0]).toMatchObject({ phase: "submit", ok: true, problems: [] });
    expect(trajectory.patch).toContain(
      `-        return sum(price for _name, price, _quantity in self.items)\n+${FIXED_LINE}\n`,
    );
    expect(trajectory.patch).toBe(git(repo, "diff", "HEAD"));
    const clone = tempDir("graphplan-clone-");
    git(clone, "clone", "-q", repo, ".");
    writeFileSync(join(clone, "fix.patch"), trajectory.patch);
    git(clone, "apply", "fix.patch");
    expect(read(clone, "shop/cart.py")).toBe(read(repo, "shop/cart.py"));

    // The container is gone (the layer's scope closed), and no sandbox container of this image is left.
    const after = await sandboxContainers();
    expect(after.filter((c) => c.id.startsWith(container!))).toEqual([]);
    expect(after.filter((c) => c.image.endsWith(IMAGE))).toEqual([]);
  });

  it("git in the container refuses a repository another user owns, unless safe.directory is set, which sandboxLayer's docker sandbox does", async () => {
    vi.stubEnv("DOCKER_HOST", `unix://${SOCKET}`);
    const repo = shopRepo();
    const config = await configWith();
    const status = (layer: Layer.Layer<Sandbox, SandboxUnavailable>) =>
      Effect.runPromise(
        Effect.gen(function* () {
          return yield* (yield* Sandbox).exec("echo new > new.txt; git status --porcelain");
        }).pipe(Effect.provide(layer)),
      );
    const [bare, agents] = await ownedByAnother(repo, async () => [
      await status(
        Sandbox.layerDocker({ image: IMAGE, workdir: WORKDIR, binds: [`${repo}:${WORKDIR}`], socketPath: SOCKET }),
      ),
      await status(await dockerSandbox(repo, config)),
    ]);
    expect(bare.exitCode).toBe(128);
    expect(bare.output).toContain("fatal: detected dubious ownership in repository at '/repo'");
    expect(agents).toEqual({ exitCode: 0, output: "?? new.txt\n", timedOut: false });
  });
});

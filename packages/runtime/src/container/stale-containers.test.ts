/** The tests' sweep of containers an interrupted run left, on the real engine (podman on /tmp/podman.sock). */
import { randomUUID } from "node:crypto";
import Docker from "dockerode";
import { expect, it } from "vitest";
import { removeStaleContainers, TEST_RUN_LABEL } from "../fixtures/stale-containers.js";

const docker = new Docker({ socketPath: "/tmp/podman.sock" });
const IMAGE = "graphplan-busybox:test";

it("removes the labelled containers older than the limit, running or not, and leaves younger ones", async () => {
  const run = randomUUID();
  const label = `${TEST_RUN_LABEL}=${run}`;
  const created = await docker.createContainer({
    Image: IMAGE,
    Cmd: ["sleep", "600"],
    Labels: { [TEST_RUN_LABEL]: run },
  });
  const running = await docker.createContainer({
    Image: IMAGE,
    Cmd: ["sleep", "600"],
    Labels: { [TEST_RUN_LABEL]: run },
  });
  await running.start();
  try {
    expect(await removeStaleContainers(docker, label, 3600)).toEqual([]);
    expect((await removeStaleContainers(docker, label, 0)).sort()).toEqual([created.id, running.id].sort());
    expect(await docker.listContainers({ all: true, filters: { label: [label] } })).toEqual([]);
  } finally {
    for (const c of [created, running]) await c.remove({ force: true }).catch(() => undefined);
  }
});

/**
 * The TARPIT probe on the real podman engine (`bash .ci/podman-setup.sh`): a connect from a container of
 * graphplan-debian:test to a port the host answers, to a closed port of the host, and to 10.255.255.1, which
 * podman-setup makes the host leave unanswered for containers, as the internet does; and from an image without bash.
 */
import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import { randomUUID } from "node:crypto";
import { ContainerEngine } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_IMAGE, HOST, requireEngine } from "./fixtures/instances.js";
import { addressWarning, probeAddress, UNANSWERED_ADDRESS } from "./network.js";

const LABEL = "graphplan.test.network";
/** podman-setup's busybox image: no bash, so the probe cannot run there. */
const BUSYBOX_IMAGE = "graphplan-busybox:test";
const RUN = randomUUID().slice(0, 8);
const probe = (target: { host: string; port: number }) =>
  Effect.runPromise(
    probeAddress(BASE_IMAGE, target, { [LABEL]: RUN }).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
  );

/** The host as containers on podman's default network reach it: that network's gateway. */
const gateway = () =>
  execFileSync(
    "podman",
    ["--url", HOST, "network", "inspect", "podman", "--format", "{{range .Subnets}}{{.Gateway}}{{end}}"],
    {
      encoding: "utf8",
    },
  ).trim();

let server: Server;
let port: number;
let closedPort: number;

beforeAll(async () => {
  await requireEngine("the network probe");
  server = createServer((socket) => socket.end());
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  port = (server.address() as { port: number }).port;
  // A port the host does not listen on: one a server just let go of.
  const other = createServer();
  await new Promise<void>((resolve) => other.listen(0, "0.0.0.0", resolve));
  closedPort = (other.address() as { port: number }).port;
  await new Promise<void>((resolve) => other.close(() => resolve()));
});

afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe("probeAddress (podman at unix:///tmp/podman.sock)", { timeout: 120_000 }, () => {
  it("says a connect the network answers was answered, and the warning names the address, the image and the README's fix", async () => {
    const target = { host: gateway(), port };
    const result = await probe(target);
    expect(result.kind).toBe("answered");
    const warning = addressWarning(HOST, BASE_IMAGE, result, target);
    expect(warning).toContain(`a connect to ${target.host}:${port} from ${BASE_IMAGE} was answered in`);
    expect(warning).toContain(`"requests' connect-timeout tests"`);
  });

  it("says a connect refused at once failed, with what bash said", async () => {
    const target = { host: gateway(), port: closedPort };
    const result = await probe(target);
    expect(result).toEqual({ kind: "refused", detail: expect.stringContaining("Connection refused") });
    expect(addressWarning(HOST, BASE_IMAGE, result, target)).toContain("failed at once");
  });

  it("says 10.255.255.1 is left unanswered where the host drops containers' packets to it (podman-setup's rule), with no warning", async () => {
    const result = await probe(UNANSWERED_ADDRESS);
    expect(result, "podman-setup's iptables rule is missing: run `bash .ci/podman-setup.sh`").toEqual({
      kind: "unanswered",
    });
    expect(addressWarning(HOST, BASE_IMAGE, result)).toBeUndefined();
  });

  it("says a probe that cannot run (no bash in the image) was not tried, rather than refused, and the warning says to check by hand", async () => {
    const result = await Effect.runPromise(
      probeAddress(BUSYBOX_IMAGE, UNANSWERED_ADDRESS, { [LABEL]: RUN }).pipe(
        Effect.provide(ContainerEngine.layer({ host: HOST })),
      ),
    );
    expect(result).toEqual({ kind: "unprobed", detail: expect.stringContaining("bash") });
    const warning = addressWarning(HOST, BUSYBOX_IMAGE, result);
    expect(warning).toContain(`could not try a connect to 10.255.255.1:80 from ${BUSYBOX_IMAGE}`);
    expect(warning).toContain("check by hand");
  });

  it("leaves no container behind", async () => {
    await probe({ host: gateway(), port });
    const left = await Effect.runPromise(ContainerEngine.make({ host: HOST }).containersLabelled({ [LABEL]: RUN }));
    expect(left).toEqual([]);
  });
});

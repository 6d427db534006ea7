/**
 * What a run's network must leave unanswered. requests' connect-timeout tests (`test_connect_timeout`,
 * `test_total_timeout_connect`, …) connect to `TARPIT`, http://10.255.255.1, and pass only when that connect times
 * out, as it does on the internet. A network that answers the address, or refuses it at once, fails them whatever
 * the patch: a gold patch grades unresolved (apps/bench/README.md, "requests' connect-timeout tests"). `bench eval`
 * tries the connect from the first such instance's image on each engine before it grades, and warns.
 */
import { ContainerEngine, type ContainerFailed } from "@graphplan/runtime";
import * as Effect from "effect/Effect";

/** The address the tests expect to time out, and the repositories whose tests use it. */
export const UNANSWERED_ADDRESS = { host: "10.255.255.1", port: 80 } as const;
export const REPOSITORIES_NEEDING_UNANSWERED = new Set(["psf/requests"]);

/** Seconds the connect is given: far more than the tests' own connect timeouts (0.1 s). */
const PROBE_SECONDS = 2;

export type AddressProbe =
  | { readonly kind: "unanswered" }
  | { readonly kind: "answered"; readonly ms: number }
  | { readonly kind: "refused"; readonly detail: string };

/**
 * Connects from a container of `image` to `target` with bash's /dev/tcp: timed out (as wanted), answered, or
 * refused at once (unreachable network, connection refused). The container is removed however this ends.
 */
export function probeAddress(
  image: string,
  target: { readonly host: string; readonly port: number } = UNANSWERED_ADDRESS,
  labels: Readonly<Record<string, string>> = {},
): Effect.Effect<AddressProbe, ContainerFailed, ContainerEngine> {
  return Effect.scoped(
    Effect.gen(function* () {
      const engine = yield* ContainerEngine;
      const container = yield* engine.start({ image, user: "root", labels });
      const result = yield* container.exec(
        `t0=$(date +%s%N); timeout ${PROBE_SECONDS} bash -c 'exec 3<>/dev/tcp/${target.host}/${target.port}' 2>&1; rc=$?; echo "graphplan-probe $rc $(( ($(date +%s%N) - t0) / 1000000 ))"`,
        { timeoutMs: (PROBE_SECONDS + 30) * 1000 },
      );
      const match = /graphplan-probe (\d+) (\d+)\s*$/.exec(result.output);
      if (match === null)
        return { kind: "refused", detail: `the probe did not run: ${result.output.trim().slice(-200)}` } as const;
      const [, rc, ms] = match;
      if (rc === "124") return { kind: "unanswered" } as const;
      if (rc === "0") return { kind: "answered", ms: Number(ms) } as const;
      const said = result.output.slice(0, match.index).trim().split("\n").pop() ?? "";
      return { kind: "refused", detail: said.replace(/^bash: (line \d+: )?/, "") || `exit ${rc}` } as const;
    }),
  );
}

/** The warning for a probe that did not time out (undefined when it did). */
export function addressWarning(
  engine: string,
  image: string,
  probe: AddressProbe,
  target: { readonly host: string; readonly port: number } = UNANSWERED_ADDRESS,
): string | undefined {
  const address = `${target.host}:${target.port}`;
  switch (probe.kind) {
    case "unanswered":
      return undefined;
    case "answered":
      return `engine ${engine}: a connect to ${address} from ${image} was answered in ${probe.ms} ms; requests' connect-timeout tests fail there whatever the patch — drop the containers' packets to it (apps/bench/README.md, "requests' connect-timeout tests")`;
    case "refused":
      return `engine ${engine}: a connect to ${address} from ${image} failed at once (${probe.detail}); requests' connect-timeout tests need it to time out — give the containers a network route that leaves it unanswered (apps/bench/README.md, "requests' connect-timeout tests")`;
  }
}

/**
 * What a run's network must leave unanswered. requests' connect-timeout tests (`test_connect_timeout`,
 * `test_total_timeout_connect`, …) connect to `TARPIT`, http://10.255.255.1, and pass only when that connect times
 * out, as it does on the internet. A network that answers the address, or refuses it at once, fails them whatever
 * the patch: a gold patch grades unresolved (apps/bench/README.md, "requests' connect-timeout tests"). `bench eval`
 * tries the connect from the first such instance's image on each engine before it grades, and warns.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ContainerEngine, type ContainerFailed } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import { z } from "zod";

/** The address the tests expect to time out, and the repositories whose tests use it. */
export const UNANSWERED_ADDRESS = { host: "10.255.255.1", port: 80 } as const;
export const REPOSITORIES_NEEDING_UNANSWERED = new Set(["psf/requests"]);

/** Seconds the connect is given: far more than the tests' own connect timeouts (0.1 s). */
const PROBE_SECONDS = 2;

/**
 * What a probe saw: the connect timed out (as wanted), was answered, failed at once (unreachable network,
 * connection refused), or could not be tried at all (the image has no bash or timeout).
 */
export const AddressProbeSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("unanswered") }),
  z.object({ kind: z.literal("answered"), ms: z.number() }),
  z.object({ kind: z.literal("refused"), detail: z.string() }),
  z.object({ kind: z.literal("unprobed"), detail: z.string() }),
]);
export type AddressProbe = z.infer<typeof AddressProbeSchema>;

/** One engine's network, tried from `image`: what a run records in `OUT/<run-id>/network.json`. */
export const NetworkCheckSchema = z.object({ engine: z.string(), image: z.string(), probe: AddressProbeSchema });
export type NetworkCheck = z.infer<typeof NetworkCheckSchema>;

/** Where a run keeps its checks, beside its instances' log directories (`--slurm` merges the shards' files). */
export const networkChecksFile = (outDir: string, runId: string): string => join(outDir, runId, "network.json");

/** The checks a run recorded; none when it recorded none (or the file is not a list of checks). */
export async function readNetworkChecks(outDir: string, runId: string): Promise<NetworkCheck[]> {
  const text = await readFile(networkChecksFile(outDir, runId), "utf8").catch(() => undefined);
  if (text === undefined) return [];
  try {
    const parsed = z.array(NetworkCheckSchema).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

/** Records a run's checks, whole or not at all (the run directory must exist). */
export async function writeNetworkChecks(
  outDir: string,
  runId: string,
  checks: readonly NetworkCheck[],
): Promise<void> {
  const file = networkChecksFile(outDir, runId);
  await writeFile(`${file}.tmp`, `${JSON.stringify(checks, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

/** Exit codes of `timeout CMD` when CMD cannot be run (126: not executable, 127: not found). */
const NOT_RUN = new Set(["126", "127"]);

/**
 * Connects from a container of `image` to `target` with bash's /dev/tcp (AddressProbe says what it can see).
 * The container is removed however this ends.
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
      if (match === null) return { kind: "unprobed", detail: result.output.trim().slice(-200) || "no output" } as const;
      const [, rc, ms] = match;
      if (rc === "124") return { kind: "unanswered" } as const;
      if (rc === "0") return { kind: "answered", ms: Number(ms) } as const;
      const said = result.output.slice(0, match.index).trim().split("\n").pop() ?? "";
      if (NOT_RUN.has(rc!)) return { kind: "unprobed", detail: said || `exit ${rc}` } as const;
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
    case "unprobed":
      return `engine ${engine}: could not try a connect to ${address} from ${image}, the probe needs bash and timeout there (${probe.detail}); requests' connect-timeout tests need it to time out — check by hand that it does (apps/bench/README.md, "requests' connect-timeout tests")`;
  }
}

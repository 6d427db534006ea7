/**
 * The environment layer's apt commands, run in the real podman engine's `graphplan-debian:test` container
 * (`bash .ci/podman-setup.sh`) with a stand-in `apt-get` ahead of Debian's on the path: it stalls or answers as a
 * test says, and `download` makes real .deb files with `dpkg-deb --build`, which the command unpacks.
 */
import { ContainerEngine, type ContainerShape } from "@graphplan/runtime";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { debianPackagesCommand, OTHER_SUITES_LIST, otherSuitesCommand } from "./apt.js";

const HOST = process.env.GRAPHPLAN_PODMAN_URL ?? "unix:///tmp/podman.sock";
const IMAGE = process.env.GRAPHPLAN_DEBIAN_IMAGE ?? "graphplan-debian:test";

/**
 * `apt-get` for the test: logs each call to /tmp/apt-calls; `update` sleeps for $STALL_UPDATES calls first (the
 * stall seen on real mirrors), then copies the other suites' list to /tmp/seen.list; `download name=version…` writes
 * name_version_all.deb holding usr/lib/python3/dist-packages/name/VERSION.
 */
const FAKE_APT_GET = `#!/bin/bash
echo "$*" >> /tmp/apt-calls
while [ "$1" = -o ]; do shift 2; done
case "$1" in
  update)
    n=$(cat /tmp/stalls 2>/dev/null || echo 0)
    if [ "$n" -lt "\${STALL_UPDATES:-0}" ]; then echo $((n + 1)) > /tmp/stalls; sleep 600; fi
    cp ${OTHER_SUITES_LIST} /tmp/seen.list ;;
  download)
    shift
    for arg in "$@"; do
      case "$arg" in -*) continue ;; esac
      name=\${arg%%=*}; version=\${arg#*=}; root=$(mktemp -d)
      mkdir -p "$root/DEBIAN" "$root/usr/lib/python3/dist-packages/$name" && chmod 755 "$root" "$root/DEBIAN"
      echo "$version" > "$root/usr/lib/python3/dist-packages/$name/VERSION"
      printf 'Package: %s\\nVersion: 1\\nArchitecture: all\\nMaintainer: t <t@example.com>\\nDescription: t\\n' "$name" > "$root/DEBIAN/control"
      dpkg-deb -Zgzip --build "$root" "\${name}_1_all.deb" >/dev/null
    done ;;
  install) echo "installed \${*:2}" >> /tmp/apt-calls ;;
esac
`;

/** Runs `command` in a fresh container with the stand-in apt-get; answers its result and the state it left. */
const runWithFakeApt = (command: string, env: Record<string, string> = {}) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const engine = yield* ContainerEngine;
        const container: ContainerShape = yield* engine.start({ image: IMAGE, labels: { "graphplan.test": "apt" } });
        yield* container.putFiles([{ path: "/usr/local/sbin/apt-get", content: FAKE_APT_GET, mode: 0o755 }]);
        const result = yield* container.exec(command, { env, timeoutMs: 60_000, user: "root" });
        const look = (script: string) => container.exec(script, { user: "root" }).pipe(Effect.map((r) => r.output));
        return {
          result,
          calls: (yield* look("cat /tmp/apt-calls 2>/dev/null")).trim().split("\n").filter(Boolean),
          seenList: yield* look("cat /tmp/seen.list 2>/dev/null"),
          left: (yield* look(
            `ls -d ${OTHER_SUITES_LIST} /tmp/graphplan-other-suites /var/lib/apt/lists/* 2>/dev/null`,
          )).trim(),
          unpacked: (yield* look(
            "cd /opt/sweb 2>/dev/null && find . -name VERSION | sort | xargs -r grep -H ''",
          )).trim(),
        };
      }),
    ).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
  );

const SUITES = [
  { suite: "bullseye", into: "/opt/sweb/bullseye", packages: ["python3-numpy=1:1.19.5-1", "cython3=0.29.21-3+b1"] },
  { suite: "bullseye", into: "/opt/sweb/bullseye-pytest", packages: ["python3-pytest=6.0.2-2"] },
  { suite: "trixie", into: "/opt/sweb/trixie", packages: ["cython3=3.0.11+dfsg-2+b1"] },
];

describe("other suites' pinned packages (apt.ts) in a real container", () => {
  it("one update for every suite, a stalled attempt cut at its ceiling and retried; each entry's pins unpacked under its directory; the list, indexes and downloads removed", async () => {
    const command = otherSuitesCommand("http://deb.debian.org/debian", SUITES, { attemptSeconds: 2, pauseSeconds: 0 });
    const { result, calls, seenList, left, unpacked } = await runWithFakeApt(command, { STALL_UPDATES: "1" });
    expect(result.exitCode, result.output).toBe(0);
    expect(result.output).toContain("apt-get update (bullseye, trixie): attempt 1 of 3 failed or passed 2 s");
    const updates = calls.filter((c) => c.endsWith("update -q"));
    expect(updates).toHaveLength(2); // the stalled one and its retry; not one per entry
    expect(updates[0]).toContain("-o Acquire::http::Pipeline-Depth=0");
    expect(seenList).toBe(
      "deb http://deb.debian.org/debian bullseye main\ndeb http://deb.debian.org/debian trixie main\n",
    );
    expect(calls.filter((c) => c.includes("download"))).toHaveLength(3);
    expect(unpacked.split("\n")).toEqual([
      "./bullseye-pytest/usr/lib/python3/dist-packages/python3-pytest/VERSION:6.0.2-2",
      "./bullseye/usr/lib/python3/dist-packages/cython3/VERSION:0.29.21-3+b1",
      "./bullseye/usr/lib/python3/dist-packages/python3-numpy/VERSION:1:1.19.5-1",
      "./trixie/usr/lib/python3/dist-packages/cython3/VERSION:3.0.11+dfsg-2+b1",
    ]);
    expect(left).toBe("");
  });

  it("an update that stalls every attempt fails the step naming what failed and what to check, and leaves nothing behind", async () => {
    const command = otherSuitesCommand("http://deb.debian.org/debian", SUITES.slice(0, 1), {
      attemptSeconds: 1,
      pauseSeconds: 0,
      attempts: 2,
    });
    const { result, calls, left, unpacked } = await runWithFakeApt(command, { STALL_UPDATES: "9" });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain(
      "apt-get update (bullseye) failed 2 times; check that this machine reaches the Debian mirror, then build again",
    );
    expect(calls.filter((c) => c.includes("download"))).toEqual([]);
    expect(unpacked).toBe("");
    expect(left).toBe("");
  });

  it("the base suite's packages: the update retried past a stall, then one install of them all", async () => {
    const command = debianPackagesCommand(["gcc", "g++"], { attemptSeconds: 2, pauseSeconds: 0 });
    // the stand-in's update copies the other suites' list, which this step does not write: give it one
    const { result, calls } = await runWithFakeApt(`touch ${OTHER_SUITES_LIST} && ${command}`, {
      STALL_UPDATES: "1",
    });
    expect(result.exitCode, result.output).toBe(0);
    expect(calls.filter((c) => c.endsWith("update -q"))).toHaveLength(2);
    expect(calls).toContain("installed -y -q --no-install-recommends gcc g++");
  });
});

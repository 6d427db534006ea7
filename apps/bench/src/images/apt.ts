/**
 * The shell commands with which an environment layer gets Debian packages: the suite's own (`packages`,
 * installed) and pinned ones of other suites (`other_suites`, downloaded and unpacked, not installed).
 *
 * Every `apt-get` runs without HTTP pipelining and with apt's own retries; the index update and the downloads
 * also through `apt_retry`, a ceiling per attempt and three attempts. On this project's machines an `apt-get update` of an extra suite
 * twice stalled for 20 minutes on one connection after its first file arrived, with `Acquire::http::Timeout`
 * never firing (apps/bench/README.md, "Sixth round"): only a ceiling around the process ends that.
 */
import type { RecipeEnvironment } from "./recipe.js";

/** The list file the other suites' sources go in, removed (with the indexes) when the step ends. */
export const OTHER_SUITES_LIST = "/etc/apt/sources.list.d/graphplan-other-suites.list";

export interface AptTiming {
  /** Ceiling of one attempt at `apt-get update` or `apt-get download` (default 300 s). */
  readonly attemptSeconds?: number;
  /** Pause between attempts (default 10 s). */
  readonly pauseSeconds?: number;
  /** Attempts before the step fails (default 3). */
  readonly attempts?: number;
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

const APT_OPTIONS = "-o Acquire::Retries=3 -o Acquire::http::Timeout=30 -o Acquire::http::Pipeline-Depth=0";

/** `apt_retry WHAT ARGS…`: `apt-get ARGS…` with the options above, each attempt under the ceiling. */
function preamble(timing: AptTiming): string {
  const attemptSeconds = timing.attemptSeconds ?? 300;
  const pause = timing.pauseSeconds ?? 10;
  const attempts = timing.attempts ?? 3;
  return `apt_retry() { what=$1; shift; for attempt in $(seq ${attempts}); do timeout ${attemptSeconds} apt-get ${APT_OPTIONS} "$@" && return 0; echo "$what: attempt $attempt of ${attempts} failed or passed ${attemptSeconds} s" >&2; [ "$attempt" = ${attempts} ] || sleep ${pause}; done; echo "$what failed ${attempts} times; check that this machine reaches the Debian mirror, then build again" >&2; return 1; }`;
}

/** The "Debian packages" step: the base suite's packages installed (`environment.packages`). */
export function debianPackagesCommand(packages: readonly string[], timing: AptTiming = {}): string {
  return [
    "set -e",
    "export DEBIAN_FRONTEND=noninteractive",
    preamble(timing),
    `apt_retry "apt-get update" update -q`,
    `apt-get ${APT_OPTIONS} install -y -q --no-install-recommends ${packages.join(" ")}`,
    "rm -rf /var/lib/apt/lists/*",
  ].join("\n");
}

/** The suites `other_suites` names, each once, in the order first named. */
export function otherSuiteNames(otherSuites: NonNullable<RecipeEnvironment["other_suites"]>): string[] {
  return [...new Set(otherSuites.map((entry) => entry.suite))];
}

/**
 * The "other suites" step: one `apt-get update` with every other suite's source added, then each entry's pinned
 * packages downloaded (checked against that suite's signed index) and unpacked under its `into`. The source list,
 * the indexes and the downloads are removed however the step ends.
 */
export function otherSuitesCommand(
  mirror: string,
  otherSuites: NonNullable<RecipeEnvironment["other_suites"]>,
  timing: AptTiming = {},
): string {
  const suites = otherSuiteNames(otherSuites);
  const work = "/tmp/graphplan-other-suites";
  return [
    "set -e",
    preamble(timing),
    `trap 'rm -rf ${OTHER_SUITES_LIST} /var/lib/apt/lists/* ${work}' EXIT`,
    `printf '%s\\n' ${suites.map((suite) => quote(`deb ${mirror} ${suite} main`)).join(" ")} > ${OTHER_SUITES_LIST}`,
    `apt_retry ${quote(`apt-get update (${suites.join(", ")})`)} update -q >/dev/null`,
    ...otherSuites.flatMap((entry, i) => [
      `rm -rf ${work}/${i} && mkdir -p ${work}/${i} && cd ${work}/${i}`,
      `apt_retry ${quote(`apt-get download from ${entry.suite}`)} download -q ${entry.packages.map(quote).join(" ")}`,
      `mkdir -p ${quote(entry.into)} && for deb in *.deb; do dpkg-deb -x "$deb" ${quote(entry.into)}; done`,
    ]),
  ].join("\n");
}

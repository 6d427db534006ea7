/** Option parsers the `bench` commands share, so each is spelled and checked the same way. */
import { readFile } from "node:fs/promises";
import { InvalidArgumentError } from "commander";

/** A whole number ≥ 1 for the option `what` (`-w`, `--timeout`). */
export const positiveInt =
  (what: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
      throw new InvalidArgumentError(`${what} takes a whole number ≥ 1, not ${JSON.stringify(value)}`);
    return n;
  };

/** A repeatable option: every value, in order. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** One engine of `--docker-host`: its URL (undefined: DOCKER_HOST) and how many containers at once. */
export interface EngineSlot {
  readonly host: string | undefined;
  readonly workers: number;
}

/** `--docker-host URL` or `URL=N` (N containers at once on that engine; default `workers`). */
export function engineSlots(hosts: readonly string[] | undefined, workers: number): EngineSlot[] {
  if (!hosts?.length) return [{ host: undefined, workers }];
  return hosts.map((spec) => {
    const match = /^(.*)=(\d+)$/.exec(spec);
    if (match && Number(match[2]) < 1)
      throw new InvalidArgumentError(
        `--docker-host ${spec}: the number after = is the containers at once on that engine, ≥ 1`,
      );
    return match ? { host: match[1]!, workers: Number(match[2]) } : { host: spec, workers };
  });
}

/** Reads a `--repo-map` file: `{"owner/name": "/path/to/git/dir", ...}`. */
export async function readRepoMap(path: string | undefined): Promise<Record<string, string>> {
  if (!path) return {};
  const value: unknown = JSON.parse(await readFile(path, "utf8"));
  if (
    !value ||
    typeof value !== "object" ||
    Array.isArray(value) ||
    !Object.values(value).every((v) => typeof v === "string")
  ) {
    throw new Error(`${path}: a repo map is a JSON object of "owner/name": "path/to/git/dir"`);
  }
  return value as Record<string, string>;
}

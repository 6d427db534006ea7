/** Go's own parser as an oracle for tests: gofmt -e (go/parser and go/printer), one run per source. */
import { spawnSync } from "node:child_process";

/** For each source, `null` when gofmt (go/parser) accepts it, else its first error. Needs Go (`bash .ci/go-setup.sh`). */
export function goParse(sources: readonly string[]): (string | null)[] {
  return sources.map((source) => {
    const run = spawnSync("gofmt", ["-e"], { input: source, encoding: "utf8" });
    if (run.error && (run.error as NodeJS.ErrnoException).code === "ENOENT")
      throw new Error("no Go toolchain: run `bash .ci/go-setup.sh` (Debian's golang-go)");
    return run.status === 0 ? null : (run.stderr.trim().split("\n")[0] ?? `gofmt exited ${run.status}`);
  });
}

/** gofmt's layout of a source that parses (tabs, spacing): a fragment written as gofmt writes it comes back unchanged. */
export function gofmt(source: string): string {
  const run = spawnSync("gofmt", [], { input: source, encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr || `gofmt exited ${run.status}`);
  return run.stdout;
}

/** What the three scripts of this package share on the command line: paths from the caller's folder, usage errors exit 2. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";

/**
 * A path as the user meant it. pnpm runs a package's script (`script`, e.g. "recall") in the package's
 * folder and says where it was called from in INIT_CWD; run any other way, the process's own folder.
 */
export const fromCaller = (script: string, path: string): string =>
  resolve((process.env.npm_lifecycle_event === script && process.env.INIT_CWD) || process.cwd(), path);

/** The usage line on stderr after `problem`, and exit 2. */
export function usageError(usage: string, problem?: string): never {
  process.stderr.write(`${problem ? `${problem}\n` : ""}usage: ${usage}\n`);
  process.exit(2);
}

/** `parseArgs` of the arguments (a leading "--", which `pnpm x -- args` passes on, dropped); a bad option is a usage error. */
export function parseArguments<T extends Omit<ParseArgsConfig, "args">>(
  usage: string,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  const argv = process.argv.slice(2);
  try {
    return parseArgs({ ...config, args: argv[0] === "--" ? argv.slice(1) : argv }) as ReturnType<typeof parseArgs<T>>;
  } catch (error) {
    return usageError(usage, (error as Error).message);
  }
}

/** The work tree at HEAD of a bare clone, extracted to a temporary directory (`dispose` removes it); a plain clone or directory as it is. */
export function workTreeOf(dir: string): { dir: string; dispose: () => void } {
  let bare = "false";
  try {
    bare = execFileSync("git", ["-C", dir, "rev-parse", "--is-bare-repository"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    // Not a git repository: a plain directory of source.
  }
  if (bare !== "true") return { dir, dispose: () => undefined };
  const tree = mkdtempSync(join(tmpdir(), "graphplan-bench-graph-"));
  try {
    const archive = execFileSync("git", ["-C", dir, "archive", "HEAD"], {
      maxBuffer: 1 << 30,
      stdio: ["ignore", "pipe", "pipe"],
    });
    execFileSync("tar", ["-x", "-C", tree], { input: archive });
  } catch (error) {
    rmSync(tree, { recursive: true, force: true });
    throw error;
  }
  return { dir: tree, dispose: () => rmSync(tree, { recursive: true, force: true }) };
}

/** The local sandbox: commands run with `bash -c` in a directory of this machine. */
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import * as Effect from "effect/Effect";
import { SandboxFailed, SandboxUnavailable, type ExecOptions, type ExecResult, type SandboxShape } from "./sandbox.js";

export interface LocalSandboxOptions {
  /** The working directory of every command. */
  readonly cwd: string;
  /** Extra environment variables (added to the inherited ones). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Which of this process's environment variables commands inherit (default: all). E.g. keep API
   * keys away from commands a model writes: `(name) => !name.endsWith("_API_KEY")`.
   */
  readonly inherit?: (name: string) => boolean;
  /** Default timeout of a command, when `exec` is given none (default 120 s). */
  readonly timeoutMs?: number;
}

export function makeLocalSandbox(options: LocalSandboxOptions): Effect.Effect<SandboxShape, SandboxUnavailable> {
  const cwd = resolve(options.cwd);
  const description = `local:${cwd}`;
  return Effect.try({
    try: () => {
      if (!statSync(cwd).isDirectory()) throw new Error("not a directory");
      const inherited = options.inherit
        ? Object.fromEntries(Object.entries(process.env).filter(([name]) => options.inherit!(name)))
        : process.env;
      const env = { ...inherited, ...options.env };
      return {
        description,
        exec: (command: string, exec?: ExecOptions) =>
          run(description, cwd, command, exec?.timeoutMs ?? options.timeoutMs ?? 120_000, env),
      };
    },
    catch: (error) =>
      new SandboxUnavailable({
        sandbox: description,
        detail: error instanceof Error ? error.message : String(error),
        hint: "pass an existing directory as the sandbox's working directory",
      }),
  });
}

function run(
  sandbox: string,
  cwd: string,
  command: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Effect.Effect<ExecResult, SandboxFailed> {
  return Effect.callback<ExecResult, SandboxFailed>((resume) => {
    // Its own process group, so the timeout (or an interruption) kills everything the command started.
    const child = spawn("bash", ["-c", command], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const chunks: Buffer[] = [];
    let timedOut = false;
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.on("error", (error) => {
      clearTimeout(timer);
      resume(Effect.fail(new SandboxFailed({ sandbox, command, detail: error.message })));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const output = Buffer.concat(chunks).toString("utf8");
      resume(Effect.succeed({ exitCode: timedOut ? -1 : (code ?? -1), output, timedOut }));
    });
    return Effect.sync(() => {
      clearTimeout(timer);
      kill();
    });
  });
}

/**
 * A real npm registry on loopback for the rehearsal: Verdaccio, installed with npm in a cache directory
 * outside the workspace (it is not a workspace dependency), started on a free port with a fresh storage,
 * `@graphplan/*` served only from what the rehearsal publishes and everything else proxied to the
 * upstream registry. Every command the rehearsal runs against a registry goes through {@link runTool}:
 * a registry that does not answer fails with one line naming it.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { Data } from "effect";
import { stringify } from "yaml";

/** 6.8.0 is the newest Verdaccio that runs on node 20 (6.10 wants node 22). */
export const VERDACCIO_VERSION = "6.8.0";

/** A registry that did not answer: the message is one line naming it. */
export class RegistryUnreachable extends Data.TaggedError("RegistryUnreachable")<{
  readonly url: string;
  readonly detail: string;
}> {
  override get message(): string {
    return `the registry ${this.url} is unreachable (${this.detail}); start it, or check the network and the registry address`;
  }
}

/** A command that failed for another reason: the command, its exit and the tail of its output. */
export class ToolFailed extends Data.TaggedError("ToolFailed")<{
  readonly command: string;
  readonly code: number | null;
  readonly output: string;
}> {
  override get message(): string {
    return `${this.command} exited ${this.code}:\n${this.output.trimEnd().split("\n").slice(-30).join("\n")}`;
  }
}

/** The registry this machine's npm installs from (what Verdaccio proxies to). */
export function upstreamRegistry(): string {
  const fromEnv = process.env.GRAPHPLAN_UPSTREAM_REGISTRY;
  if (fromEnv) return withSlash(fromEnv);
  const result = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8" });
  const url = result.status === 0 ? result.stdout.trim() : "";
  return withSlash(/^https?:\/\//.test(url) ? url : "https://registry.npmjs.org/");
}

const withSlash = (url: string): string => (url.endsWith("/") ? url : `${url}/`);

/**
 * TLS errors about the certificate: the registry answered, and node does not trust its certificate. npm
 * reads its own `cafile`, node only `NODE_EXTRA_CA_CERTS`, so behind a TLS-inspecting proxy npm may reach a
 * registry node's `fetch` rejects: such a registry is reachable, and the command's own error is the one to show.
 */
const CERTIFICATE_ERROR =
  /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_[A-Z_]+|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/**
 * Answers when `url` answers HTTP at all (any status, or a certificate node does not trust): a refused
 * connection, an unknown host or no answer within `timeoutMs` throws {@link RegistryUnreachable}.
 */
export async function ensureReachable(url: string, timeoutMs = 10_000): Promise<void> {
  try {
    const response = await fetch(new URL("-/ping", withSlash(url)), { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code && CERTIFICATE_ERROR.test(cause.code)) return;
    const detail = cause?.code ?? cause?.message ?? (error as Error).name ?? String(error);
    throw new RegistryUnreachable({
      url: withSlash(url),
      detail: detail === "TimeoutError" ? `no answer in ${timeoutMs / 1000} s` : detail,
    });
  }
}

export interface ToolOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The registries the command talks to: checked when it fails, so that an unreachable one is named. */
  readonly registries: readonly string[];
  readonly timeoutMs?: number;
}

export interface ToolResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs a command to its end and returns its exit and output, whatever the exit. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: Omit<ToolOptions, "registries">,
): Promise<ToolResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 600_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/**
 * Runs an npm or pnpm command that must succeed. When it fails, the registries it talks to are
 * checked first: an unreachable one is the error (one line), else {@link ToolFailed}.
 */
export async function runTool(command: string, args: readonly string[], options: ToolOptions): Promise<ToolResult> {
  const result = await runCommand(command, args, options);
  if (result.code === 0) return result;
  for (const registry of options.registries) await ensureReachable(registry);
  throw new ToolFailed({
    command: `${command} ${args.join(" ")}`,
    code: result.code,
    output: `${result.stderr}\n${result.stdout}`,
  });
}

/**
 * The environment for npm and pnpm: packages from `registry`, `@graphplan/*` from `graphplan` (the
 * rehearsal's Verdaccio; by default the same registry); none of the caller's npm settings (its user config,
 * cache, registry), the given cache and user config instead; quiet; few and short retries.
 */
export function npmEnv(registry: string, cache: string, userconfig: string, graphplan = registry): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(npm|pnpm)_(config|package|lifecycle)_/i.test(key)) env[key] = value;
  return {
    ...env,
    npm_config_registry: registry,
    "npm_config_@graphplan:registry": graphplan,
    npm_config_cache: cache,
    npm_config_userconfig: userconfig,
    npm_config_fund: "false",
    npm_config_audit: "false",
    npm_config_update_notifier: "false",
    npm_config_loglevel: "error",
    npm_config_fetch_retries: "2",
    npm_config_fetch_retry_mintimeout: "1000",
    npm_config_fetch_retry_maxtimeout: "4000",
  };
}

/** Where Verdaccio is installed once per machine: `$XDG_CACHE_HOME` or `~/.cache`, never the workspace. */
export function defaultCacheRoot(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "graphplan-release");
}

/**
 * Verdaccio's entry script, installed with npm into `<cacheRoot>/verdaccio-<version>` when it is not
 * there yet (about 40 s, 330 packages): node-fetch pinned to 2.7.0 through npm `overrides`, as
 * Verdaccio 6.8.0 needs on node 20. Installed into a temporary directory and moved in place, so two
 * rehearsals at once never see half an install.
 */
export async function installVerdaccio(cacheRoot = defaultCacheRoot(), upstream = upstreamRegistry()): Promise<string> {
  const dir = join(cacheRoot, `verdaccio-${VERDACCIO_VERSION}`);
  const entry = join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
  if (existsSync(entry)) return entry;
  mkdirSync(cacheRoot, { recursive: true });
  const staging = mkdtempSync(join(cacheRoot, ".installing-"));
  try {
    writeFileSync(
      join(staging, "package.json"),
      JSON.stringify(
        { private: true, dependencies: { verdaccio: VERDACCIO_VERSION }, overrides: { "node-fetch": "2.7.0" } },
        null,
        2,
      ),
    );
    writeFileSync(join(staging, ".npmrc"), "");
    await runTool("npm", ["install", "--no-save"], {
      cwd: staging,
      env: npmEnv(upstream, join(staging, ".npm-cache"), join(staging, ".npmrc")),
      registries: [upstream],
    });
    rmSync(join(staging, ".npm-cache"), { recursive: true, force: true });
    try {
      renameSync(staging, dir);
    } catch (error) {
      if (!existsSync(entry)) throw error; // another rehearsal moved its install in first: use that one
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return entry;
}

export interface Registry {
  /** `http://127.0.0.1:PORT/` */
  readonly url: string;
  /** A user config (`.npmrc`) holding a token that may publish to it. */
  readonly userconfig: string;
  readonly storage: string;
  /** Times at which each version of a package was published, from the registry's own records. */
  readonly published: (name: string) => Promise<Record<string, string>>;
  readonly stop: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/**
 * Starts Verdaccio on a free loopback port with a fresh storage under `dir`, proxying everything but
 * `@graphplan/*` to `upstream`, and registers a user whose token goes into `<dir>/.npmrc`.
 */
export async function startVerdaccio(entry: string, dir: string, upstream = upstreamRegistry()): Promise<Registry> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const storage = join(dir, "storage");
  mkdirSync(storage, { recursive: true });
  const config = join(dir, "config.yaml");
  const everyone = { access: "$all", publish: "$authenticated", unpublish: "$authenticated" };
  writeFileSync(
    config,
    stringify({
      storage,
      auth: { htpasswd: { file: join(dir, "htpasswd"), max_users: 10 } },
      uplinks: { upstream: { url: upstream, timeout: "60s", max_fails: 5, maxage: "30m", cache: true } },
      packages: { "@graphplan/*": everyone, "**": { ...everyone, proxy: "upstream" } },
      server: { keepAliveTimeout: 60 },
      max_body_size: "200mb",
      log: { type: "stdout", format: "pretty", level: "error" },
      web: { enable: false },
    }),
  );
  const child = spawn(process.execPath, [entry, "--config", config, "--listen", `127.0.0.1:${port}`], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(
        `Verdaccio exited ${child.exitCode} before answering on ${url}: ${output.trim().split("\n").slice(-3).join(" / ")}`,
      );
    try {
      await ensureReachable(url, 2_000);
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw error;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    const response = await fetch(new URL("-/user/org.couchdb.user:rehearsal", url), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "rehearsal", password: "rehearsal-password", email: "rehearsal@example.com" }),
    });
    const body = (await response.json()) as { token?: string; error?: string };
    if (!body.token)
      throw new Error(`Verdaccio on ${url} gave no token for a new user (${response.status} ${body.error ?? ""})`);
    const userconfig = join(dir, ".npmrc");
    writeFileSync(userconfig, `//127.0.0.1:${port}/:_authToken=${body.token}\n`);
    const published = async (name: string): Promise<Record<string, string>> => {
      const response = await fetch(new URL(name.replace("/", "%2f"), url));
      if (!response.ok) return {};
      const doc = (await response.json()) as { time?: Record<string, string> };
      return doc.time ?? {};
    };
    return { url, userconfig, storage, published, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The version of Verdaccio installed at `entry` (for the report). */
export function installedVersion(entry: string): string {
  return (JSON.parse(readFileSync(join(entry, "..", "..", "package.json"), "utf8")) as { version: string }).version;
}

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureReachable, npmEnv, RegistryUnreachable, runTool, ToolFailed } from "./registry.js";

/** A loopback address nothing listens on: a port taken, then released. */
async function closedRegistry(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/`;
}

describe("an unreachable registry", () => {
  it("is named in one line", async () => {
    const url = await closedRegistry();
    const error = await ensureReachable(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RegistryUnreachable);
    expect((error as Error).message).toBe(
      `the registry ${url} is unreachable (ECONNREFUSED); start it, or check the network and the registry address`,
    );
  });

  it("is the error of an npm install against it, in one line, instead of npm's output", async () => {
    const url = await closedRegistry();
    const dir = mkdtempSync(join(tmpdir(), "unreachable-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", private: true }));
    writeFileSync(join(dir, ".npmrc"), "");
    const error = await runTool("npm", ["install", "@graphplan/graph"], {
      cwd: dir,
      env: npmEnv(url, join(dir, "cache"), join(dir, ".npmrc")),
      registries: [url],
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RegistryUnreachable);
    expect((error as Error).message.split("\n")).toHaveLength(1);
    expect((error as Error).message).toContain(url);
  });

  it("is not a registry that answers with a certificate node does not trust: the command's own error is kept", async () => {
    // A TLS-inspecting proxy's certificate, as npm (with its `cafile`) trusts it and node's fetch does not.
    const dir = mkdtempSync(join(tmpdir(), "untrusted-"));
    const made = spawnSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"].concat([
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ]),
      { encoding: "utf8" },
    );
    expect(made.status, made.stderr).toBe(0);
    const server = createHttpsServer(
      { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) },
      (_req, res) => res.end("{}"),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `https://127.0.0.1:${(server.address() as { port: number }).port}/`;
    try {
      await expect(ensureReachable(url)).resolves.toBeUndefined();
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "x", private: true }));
      writeFileSync(join(dir, ".npmrc"), "");
      const error = await runTool("npm", ["install", "@graphplan/graph"], {
        cwd: dir,
        env: { ...npmEnv(url, join(dir, "cache"), join(dir, ".npmrc")), npm_config_fetch_retries: "0" },
        registries: [url],
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ToolFailed);
      expect((error as Error).message).toMatch(/^npm install @graphplan\/graph exited [1-9]/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("answers when the registry answers", async () => {
    const server = (await import("node:http")).createServer((_req, res) => res.end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await expect(ensureReachable(`http://127.0.0.1:${port}`)).resolves.toBeUndefined();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureReachable, npmEnv, RegistryUnreachable, runTool } from "./registry.js";

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

  it("answers when the registry answers", async () => {
    const server = (await import("node:http")).createServer((_req, res) => res.end("{}"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await expect(ensureReachable(`http://127.0.0.1:${port}`)).resolves.toBeUndefined();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

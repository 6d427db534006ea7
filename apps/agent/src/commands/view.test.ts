/**
 * `graphplan view`: the page served from a real run — the replay model on the example project —
 * by the real command line, looked at in Debian's Chromium; and bad input.
 */
import { spawn } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { git, tempDir } from "@graphplan/testkit";
import { chromiumPath } from "@graphplan/viewer/testing";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DEFAULT_EXAMPLE, readExample } from "./demo.js";
import { runCommand } from "./run.js";
import { viewCommand } from "./view.js";
import { runInProcess } from "./fixtures/in-process.js";

const APP = resolve(import.meta.dirname, "..", "..");

/** `graphplan run` with the replay model on a fresh copy of the example project: its output directory. */
async function exampleRun(): Promise<string> {
  const read = readExample(DEFAULT_EXAMPLE);
  if (!read.ok) throw new Error(read.error);
  const repo = join(tempDir(), "textstats");
  cpSync(join(DEFAULT_EXAMPLE, read.example.project), repo, { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "the example project");
  const out = join(tempDir(), "run");
  const result = await runInProcess(
    [runCommand],
    [
      "run",
      "--repo",
      repo,
      "--provider",
      "replay",
      "--patch",
      join(DEFAULT_EXAMPLE, read.example.patch),
      "--task",
      join(DEFAULT_EXAMPLE, read.example.task),
      "--output",
      out,
      "-q",
    ],
  );
  expect(result.code, result.stderr).toBe(0);
  return out;
}

describe("graphplan view", () => {
  it("serves the page of a replay run of the example until Ctrl-C: the plan's step on the code it changed, the diff, the messages", async () => {
    const out = await exampleRun();
    const child = spawn(
      join(APP, "node_modules/.bin/tsx"),
      ["--conditions=source", "src/cli.ts", "view", out, "--port", "0"],
      { cwd: APP, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const browser = await chromium.launch({ executablePath: chromiumPath(), chromiumSandbox: false });
    try {
      await expect
        .poll(() => stdout, { timeout: 30_000 })
        .toMatch(/at http:\/\/127\.0\.0\.1:\d+\/ \(Ctrl-C to stop\)\n$/);
      expect(stdout).toMatch(/^graphplan view: 1 instance\(s\) of /);
      const url = /(http:\/\/\S+)/.exec(stdout)![1]!;
      const page = await browser.newPage();
      await page.goto(url);
      await page.locator("[data-testid=rows] tbody tr").first().click();
      await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe("run");
      expect(await page.getByTestId("plan-meta").innerText()).toMatch(
        /Version 1 of 1 .*verified · applied: textstats\/words\.py/,
      );
      // The step's locator, and the code it resolved to: line 15 of words.py, before and after.
      const step = page.locator("li.step[data-step='0']");
      expect(await step.getByTestId("locator").innerText()).toContain('"name": "word_count"');
      expect(await step.getByTestId("place").innerText()).toMatch(
        /textstats\/words\.py, line 15[\s\S]*return len\(text\.split\(" "\)\)[\s\S]*return len\(words\(text\)\)/,
      );
      expect(await page.getByTestId("patch").innerText()).toContain("return len(words(text))");
      const trajectory = JSON.parse(readFileSync(join(out, "trajectory.json"), "utf8")) as { messages: unknown[] };
      expect(await page.getByTestId("message").count()).toBe(trajectory.messages.length);
    } finally {
      await browser.close();
      child.kill("SIGINT");
    }
    expect(await exited, stderr).toBe(0);
  });

  it("exits 2 with one line for a missing path, a directory that holds no run, and a port in use", async () => {
    const view = (...args: string[]) => runInProcess([viewCommand], ["view", ...args]);
    const missing = await view(join(tempDir(), "nope"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^graphplan view: \S+nope: no such file or directory; give a bench agent .*trajectory\.json\n$/,
    );
    const empty = tempDir();
    writeFileSync(join(empty, "notes.txt"), "hello");
    const noRun = await view(empty);
    expect(noRun.code).toBe(2);
    expect(noRun.stderr).toMatch(/holds no trajectory\.json and no evaluation report\.json/);
    const out = tempDir();
    writeFileSync(join(out, "trajectory.json"), "{}");
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
    try {
      const port = String((taken.address() as { port: number }).port);
      const busy = await view(out, "--port", port);
      expect(busy.code).toBe(2);
      expect(busy.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    } finally {
      taken.close();
    }
    const badPort = await view(out, "--port", "70000");
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/a port is a whole number from 0 to 65535/);
  });
});

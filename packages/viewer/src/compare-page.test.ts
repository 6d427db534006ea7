/**
 * A `bench compare` directory in the page, in a real browser (Debian's Chromium via playwright-core, as
 * page.test.ts): the arms side by side, the paired table, the significance, and each instance's two
 * outcomes, each one click from that arm's trajectory.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveRun, type RunningViewer } from "./server.js";
import { chromiumPath, writeComparison, type WrittenComparison } from "./testing.js";

let dir: string;
let viewer: RunningViewer;
let browser: Browser;
let page: Page;
let written: WrittenComparison;
const elsewhere: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "graphplan-viewer-compare-"));
  written = await writeComparison(dir);
  viewer = await serveRun({ path: dir, port: 0 });
  browser = await chromium.launch({ executablePath: chromiumPath(), chromiumSandbox: false });
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("request", (request) => {
    if (!request.url().startsWith(viewer.url)) elsewhere.push(request.url());
  });
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cells = (p: Page, testid: string) =>
  p
    .getByTestId(testid)
    .locator("tbody tr")
    .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c as HTMLElement).innerText.trim())));

describe("a comparison in the page", () => {
  it("shows the arms side by side, the paired table with McNemar's p and the interval, and both outcomes of every instance", async () => {
    await page.goto(viewer.url);
    await expect.poll(() => page.getByTestId("paired").isVisible()).toBe(true);
    expect(await cells(page, "paired")).toEqual([
      ["graphplan resolved", "1", "3"],
      ["graphplan not", "1", "0"],
    ]);
    expect(await page.getByTestId("significance").innerText()).toBe(
      "Difference in resolve rate (graphplan − baseline): +40.0 points, 95% bootstrap interval [−20.0, +80.0] (10000 resamples, seed 42). McNemar's exact test: p = 0.625 (3 vs 1 discordant pairs).",
    );
    const arms = await cells(page, "arms");
    expect(arms).toContainEqual(["resolved", "4 of 5 (80.0%)", "2 of 5 (40.0%)"]);
    expect(arms).toContainEqual(["ended: submitted / fallback / limit / failed", "4 / 1 / 0 / 0", "5 / 0 / 0 / 0"]);
    expect(arms).toContainEqual(["fallbacks by phase", "verify 1", "—"]);
    // Tokens and dollars per arm (COMPARISON_SPENT, five instances each).
    expect(arms).toContainEqual(["tokens in", "50,000", "100,000"]);
    expect(arms).toContainEqual(["of it cache reads", "30,000", "70,000"]);
    expect(arms).toContainEqual(["of it cache writes", "10,000", "0"]);
    expect(arms).toContainEqual(["tokens out", "2,500", "5,000"]);
    expect(arms).toContainEqual(["cost", "$0.2500", "$0.5000"]);
    // Which arm is cheaper: the totals' ratios, and per instance A − B.
    expect(await page.getByTestId("spend-ratio").innerText()).toBe(
      "graphplan / baseline: input ×0.50 (uncached ×0.33, cache reads ×0.43, cache writes –), output ×0.50, dollars ×0.50 (–: baseline's is 0). graphplan cost less on 5, baseline on 0, the same on 0 instance(s).",
    );
    expect(await page.getByTestId("difference").allInnerTexts()).toEqual(
      written.ids.map(() => "−$0.0500 · −10,000 in · −500 out"),
    );
    // One row per instance, each arm's outcome in its own cell.
    const pairs = await cells(page, "pairs");
    expect(pairs.map((row) => row[0])).toEqual(written.ids);
    expect(pairs.map((row) => [row[1]!.startsWith("resolved"), row[2]!.startsWith("resolved")])).toEqual(
      written.ids.map((id) => [written.resolved.graphplan.includes(id), written.resolved.baseline.includes(id)]),
    );
    expect(pairs[4]![1]).toMatch(/^unresolved · fallback/);
    expect(elsewhere).toEqual([]);
  });

  it("opens each arm's own trajectory of an instance from its cell, and u goes back to the comparison", async () => {
    const id = written.ids[4]!;
    await page.goto(viewer.url);
    await page.locator(`[data-testid=pairs] tr[data-id="${id}"] td[data-arm=baseline] a`).click();
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(`${id} · arm baseline`);
    expect(await page.getByTestId("task").innerText()).toMatch(/^\[baseline\] /);
    await page.keyboard.press("u");
    await expect.poll(() => page.getByTestId("paired").isVisible()).toBe(true);
    await page.locator(`[data-testid=pairs] tr[data-id="${id}"] td[data-arm=graphplan] a`).click();
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(`${id} · arm graphplan`);
    expect(await page.getByTestId("task").innerText()).not.toMatch(/^\[baseline\]/);
    // The arm's evaluation is read from its own directory.
    expect(await page.locator("p.summary").first().innerText()).toMatch(/Submitted|Failed|LimitsExceeded/);
  });

  it("answers 404 for an arm the report does not name (no other directory is read as an arm)", async () => {
    const response = await fetch(`${viewer.url}api/arm/eval/instance/${encodeURIComponent(written.ids[0]!)}`);
    expect(response.status).toBe(404);
    const known = await fetch(`${viewer.url}api/arm/baseline/instance/${encodeURIComponent(written.ids[0]!)}`);
    expect(known.status).toBe(200);
  });
});

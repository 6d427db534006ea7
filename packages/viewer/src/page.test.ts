/**
 * The page in a real browser: Debian's Chromium driven by playwright-core (`.ci/chromium-setup.sh`
 * installs it; `CHROMIUM=/path` picks another). A run written by `writeRun` is served by `serveRun`.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { serveRun, type RunningViewer } from "./server.js";
import { chromiumPath, PINNED_ISSUE, writeRun } from "./testing.js";

let dir: string;
let viewer: RunningViewer;
let browser: Browser;
let page: Page;
let ids: string[];
/** Requests that did not go to the viewer (the page must work offline). */
const elsewhere: string[] = [];
const SHOTS = join(tmpdir(), "graphplan-viewer-shots");

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "graphplan-viewer-page-"));
  ids = await writeRun(dir, { instances: 30, evaluated: true });
  viewer = await serveRun({ path: dir, port: 0 });
  browser = await chromium.launch({ executablePath: chromiumPath(), chromiumSandbox: false });
  await mkdir(SHOTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  page.on("request", (request) => {
    if (!request.url().startsWith(viewer.url)) elsewhere.push(request.url());
  });
});

/** Distinct colours of a screenshot and whether it shows `rgb`, decoded by the browser itself (a canvas). */
async function screenshotColours(
  png: Buffer,
  rgb: readonly [number, number, number],
): Promise<{ colours: number; has: boolean }> {
  const probe = await browser.newPage();
  try {
    return await probe.evaluate(
      async ([data, [r, g, b]]) => {
        const image = new Image();
        image.src = `data:image/png;base64,${data}`;
        await image.decode();
        const canvas = document.createElement("canvas");
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext("2d")!;
        context.drawImage(image, 0, 0);
        const pixels = context.getImageData(0, 0, image.width, image.height).data;
        const seen = new Set<number>();
        let has = false;
        for (let i = 0; i < pixels.length; i += 4) {
          seen.add((pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!);
          if (Math.abs(pixels[i]! - r) < 3 && Math.abs(pixels[i + 1]! - g) < 3 && Math.abs(pixels[i + 2]! - b) < 3)
            has = true;
        }
        return { colours: seen.size, has };
      },
      [png.toString("base64"), rgb] as const,
    );
  } finally {
    await probe.close();
  }
}

const rowIds = (p: Page) =>
  p.locator("[data-testid=rows] tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id")));

describe("the run page", () => {
  it("shows every instance with the totals and the chart of where they ended, and filters and sorts them", async () => {
    await page.goto(viewer.url);
    await expect.poll(async () => (await rowIds(page)).length).toBe(30);
    const totals = await page.getByTestId("totals").innerText();
    expect(totals).toMatch(/30\s+instances/);
    const index = await viewer.reader.index();
    expect(totals).toContain(`${index.totals.resolved} of 30`);
    const bars = await page.getByTestId("outcomes").locator("button.bar").allInnerTexts();
    expect(bars.map((b) => b.replace(/\s+/g, " ").trim())).toEqual(
      index.totals.outcomes.map((o) => `${o.outcome} ${o.count}`),
    );

    await page.getByLabel("filter").fill("sympy");
    expect(await rowIds(page)).toEqual(ids.filter((id) => id.includes("sympy")).sort());
    await page.getByLabel("filter").fill("");
    await page.getByLabel("repository").selectOption("pallets/flask");
    expect(await rowIds(page)).toEqual(ids.filter((id) => id.startsWith("pallets__flask")).sort());
    await page.getByLabel("repository").selectOption("");
    // A bar of the chart filters by its outcome; clicking it again shows every instance.
    await page.getByTestId("outcomes").getByText("resolved", { exact: true }).click();
    expect(await rowIds(page)).toEqual(index.rows.filter((r) => r.outcome === "resolved").map((r) => r.id));
    await page.getByTestId("outcomes").getByText("resolved", { exact: true }).click();
    // Each row's tokens: in, cache read, cache write, out (writeRun: 3 calls of 5,200 + i in, 310 out; 4,096 written, then read twice).
    const headers = await page.locator("[data-testid=rows] thead th").allInnerTexts();
    const column = (name: string) => headers.findIndex((h) => h.trim() === name);
    const cellsOf = async (id: string) => page.locator(`[data-testid=rows] tr[data-id="${id}"] td`).allInnerTexts();
    const first = await cellsOf(ids[0]!);
    expect(["tokens in", "cache read", "cache write", "tokens out", "cost"].map((name) => first[column(name)])).toEqual(
      ["15,600", "8,192", "4,096", "930", "$0.0369"],
    );
    // Instance 5's trajectory has no token totals (written before they were counted): its replies are summed.
    expect((await cellsOf(ids[5]!))[column("tokens in")]).toBe("15,615");
    // 3 · (30 · 5,200 + 0 + 1 + … + 29) = 469,305 in; 30 · 8,192 read (52.4%), 30 · 4,096 written (26.2%); 30 · 930 out.
    expect(await page.getByTestId("total-tokens").innerText()).toBe(
      "469k tokens in (52.4% cache reads, 26.2% cache writes), 28k out",
    );
    // Sorting by time, longest first, then back.
    await page.getByRole("button", { name: "time" }).click();
    const byTime = [...index.rows]
      .sort((a, b) => (b.ms ?? 0) - (a.ms ?? 0) || a.id.localeCompare(b.id))
      .map((r) => r.id);
    expect(await rowIds(page)).toEqual(byTime);

    const shot = await page.screenshot({ path: join(SHOTS, "run.png") });
    const { colours, has } = await screenshotColours(shot, [9, 105, 218]);
    expect(colours, "the screenshot is not blank").toBeGreaterThan(50);
    expect(has, "the chart's bars (#0969da) are on the screenshot").toBe(true);
    expect(elsewhere).toEqual([]);
  });

  it("opens an instance: the verifier's issue sits on its step of the plan version it was about, and the steps show the code they changed", async () => {
    await page.goto(viewer.url);
    await page.locator(`[data-testid=rows] tr[data-id="${ids[0]}"]`).click();
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(ids[0]);
    // The last plan version is shown first: verified, no issue.
    expect(await page.getByTestId("plan-meta").innerText()).toMatch(/Version 2 of 2 .*verified/);
    expect(await page.locator("[data-testid=plan] [data-testid=issue]").count()).toBe(0);
    const place = page.locator("li.step[data-step='1'] [data-testid=place]");
    expect(await place.innerText()).toMatch(/src\/text\.py, line 1[\s\S]*def slug\(value\)/);
    expect(await place.locator(".hljs-keyword").count(), "the code is coloured").toBeGreaterThan(0);
    // A text step (the changelog entry) is shown like the others: its operator, its file and lines before and after.
    const text = page.locator("li.step[data-step='2']");
    expect(await text.innerText()).toContain("insert_text");
    expect(await text.getByTestId("place").innerText()).toMatch(
      /CHANGES\.rst, line 4[\s\S]*Unreleased[\s\S]*``normalize`` lower-cases\.[\s\S]*Drop Python 3\.9/,
    );

    // `[`: the version before, which failed: its issue is pinned to its second step, not the first.
    await page.keyboard.press("[");
    await expect.poll(() => page.getByTestId("plan-meta").innerText()).toMatch(/Version 1 of 2 .*1 verifier error/);
    expect(await page.locator("li.step[data-step='1'] [data-testid=issue]").innerText()).toContain(PINNED_ISSUE);
    expect(await page.locator("li.step[data-step='0'] [data-testid=issue]").count()).toBe(0);
    // `]` again: the changes from version 1 are shown side by side.
    await page.keyboard.press("]");
    await expect.poll(() => page.getByTestId("plan-changes").locator(".d2h-file-side-diff").count()).toBe(2);
    expect(await page.getByTestId("plan-changes").innerText()).toContain('"normalize"');
    await page.keyboard.press("[");

    // n / p walk the steps.
    await page.keyboard.press("n");
    await expect.poll(() => page.locator("li.step.selected").getAttribute("data-step")).toBe("0");
    await page.keyboard.press("n");
    await expect.poll(() => page.locator("li.step.selected").getAttribute("data-step")).toBe("1");
    const shot = await page.locator("li.step.selected").screenshot({ path: join(SHOTS, "step-issue.png") });
    const { has } = await screenshotColours(shot, [255, 235, 233]);
    expect(has, "the error's background (#ffebe9) is on the step's screenshot").toBe(true);
    await page.keyboard.press("p");
    await expect.poll(() => page.locator("li.step.selected").getAttribute("data-step")).toBe("0");
    expect(elsewhere).toEqual([]);
  });

  it("shows the executed diff, the tests, and every message with its tokens and cost; long outputs are folded", async () => {
    await page.goto(`${viewer.url}#/i/${encodeURIComponent(ids[1]!)}`);
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(ids[1]);
    const patch = page.locator("section").filter({ hasText: "Executed diff" }).getByTestId("patch");
    expect(await patch.locator(".d2h-file-wrapper").count()).toBe(2);
    expect(await patch.innerText()).toContain("return value.strip().lower()");
    expect(await page.getByTestId("tests").innerText()).toMatch(
      /unresolved[\s\S]*FAIL_TO_PASS: 0 passed, 1 failed[\s\S]*✗ tests\/test_text\.py::test_lower/,
    );
    expect(await page.getByTestId("message").count()).toBe(8);
    // Each call: its tokens (in, cache read, cache write, out) and dollars; the first call wrote the cache, the next read it.
    const usage = await page.getByTestId("usage").allInnerTexts();
    expect(usage).toEqual([
      "5,201 in · 0 cache read · 4,096 cache write · 310 out · $0.0123 · end_turn",
      "5,201 in · 4,096 cache read · 0 cache write · 310 out · $0.0123 · end_turn",
      "5,201 in · 4,096 cache read · 0 cache write · 310 out · $0.0123 · end_turn",
    ]);
    // Each phase: calls, tokens and dollars, and their sum.
    const spend = await page
      .getByTestId("spend")
      .locator("tr[data-phase]")
      .evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => (c as HTMLElement).innerText.trim())));
    expect(spend).toEqual([
      ["explore", "1", "5,201", "0", "4,096", "310", "$0.0123"],
      ["plan", "2", "10,402", "8,192", "0", "620", "$0.0246"],
      ["all", "3", "15,603", "8,192", "4,096", "930", "$0.0369"],
    ]);
    expect(await page.locator("p.summary").innerText()).toMatch(/3 model calls · 16k tokens in, 930 out · \$0\.0369/);
    expect(await page.getByTestId("timeline").locator("li").allInnerTexts()).toEqual(
      expect.arrayContaining([expect.stringContaining("verify")]),
    );
  });

  it("folds a long observation (the page's speed on large runs is measured by benchmarks/viewer, not here)", async () => {
    const big = await mkdtemp(join(tmpdir(), "graphplan-viewer-big-"));
    try {
      const [id] = await writeRun(big, { instances: 1, padding: 200_000 });
      const other = await serveRun({ path: big, port: 0 });
      try {
        await page.goto(`${other.url}#/i/${encodeURIComponent(id!)}`);
        await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(id);
        const folded = page.locator("li.message details.fold");
        expect(await folded.count()).toBe(1);
        expect(await folded.locator("summary").innerText()).toMatch(/… 10,5\d\d lines/);
        expect(await folded.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      } finally {
        await other.close();
      }
    } finally {
      await rm(big, { recursive: true, force: true });
    }
  });

  it("walks instances with j and k in the order the run view shows, and u goes back", async () => {
    await page.goto(viewer.url);
    await page.getByLabel("repository").selectOption("django/django");
    const shown = (await rowIds(page)) as string[];
    await page.locator(`[data-testid=rows] tr[data-id="${shown[0]}"]`).click();
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(shown[0]);
    await page.keyboard.press("j");
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(shown[1]);
    await page.keyboard.press("j");
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(shown[2]);
    await page.keyboard.press("k");
    await expect.poll(() => page.getByTestId("instance-id").textContent()).toBe(shown[1]);
    await page.keyboard.press("u");
    await expect.poll(async () => (await rowIds(page)).length).toBe(shown.length);
  });
});

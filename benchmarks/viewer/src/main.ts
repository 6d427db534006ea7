/**
 * `pnpm -s bench [--instances N] [--rounds R]` here: a run of 300 instances (N) with ~100 kB trajectories (~30 MB, the size of a
 * real SWE-bench Lite run) is written by `writeRun`, served by `serveRun`, and opened in Chromium.
 * Prints, over 5 rounds (R; median, max): the time from navigation to the 300 rows on screen (the
 * issue's target: under 2 s), to one instance's page, and the server's row index cold and warm; and,
 * as the reference, what a page that loaded every trajectory would pay just to fetch and parse them.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const USAGE =
  "usage: pnpm -s bench [--instances 300] [--rounds 5]   (in benchmarks/viewer; whole numbers ≥ 1, rounds ≤ instances)";
const { INSTANCES, ROUNDS } = (() => {
  let values;
  try {
    values = parseArgs({
      args: process.argv.slice(2).filter((a) => a !== "--"),
      options: {
        instances: { type: "string", default: process.env["INSTANCES"] ?? "300" },
        rounds: { type: "string", default: "5" },
      },
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  const [instances, rounds] = [Number(values.instances), Number(values.rounds)];
  if (!Number.isInteger(instances) || !Number.isInteger(rounds) || instances < 1 || rounds < 1 || rounds > instances) {
    process.stderr.write(
      `--instances ${values.instances} --rounds ${values.rounds}: give whole numbers ≥ 1, rounds ≤ instances\n${USAGE}\n`,
    );
    process.exit(2);
  }
  return { INSTANCES: instances, ROUNDS: rounds };
})();
// Loaded once the arguments are known to be good (a usage error answers at once).
const { RunReader, serveRun } = await import("@graphplan/viewer");
const { chromiumPath, writeRun } = await import("@graphplan/viewer/testing");
const { chromium } = await import("playwright-core");

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, max ${Math.max(...xs).toFixed(0)} ms`;

async function sizeOf(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name === "trajectory.json")
      total += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return total;
}

const dir = await mkdtemp(join(tmpdir(), "graphplan-bench-viewer-"));
try {
  const ids = await writeRun(dir, { instances: INSTANCES, padding: 95_000, evaluated: true });
  const bytes = await sizeOf(dir);
  console.log(`run: ${ids.length} instances, ${(bytes / 1e6).toFixed(1)} MB of trajectories (${dir})`);

  const cold: number[] = [];
  const warm: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const reader = await RunReader.open(dir);
    let t = performance.now();
    await reader.index();
    cold.push(performance.now() - t);
    t = performance.now();
    await reader.index();
    warm.push(performance.now() - t);
  }

  const viewer = await serveRun({ path: dir, port: 0 });
  const browser = await chromium.launch({ executablePath: chromiumPath(), chromiumSandbox: false });
  const rows: number[] = [];
  const instance: number[] = [];
  const everything: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const page = await browser.newPage();
      let t = performance.now();
      await page.goto(viewer.url);
      await page
        .locator("[data-testid=rows] tbody tr")
        .nth(INSTANCES - 1)
        .waitFor();
      rows.push(performance.now() - t);
      t = performance.now();
      await page.locator(`[data-testid=rows] tr[data-id="${ids[round]}"]`).click();
      await page.getByTestId("plan").waitFor();
      instance.push(performance.now() - t);
      // The reference: a page that loaded every trajectory up front.
      everything.push(
        await page.evaluate(async (all) => {
          const start = performance.now();
          await Promise.all(all.map((id) => fetch(`/api/instance/${encodeURIComponent(id)}`).then((r) => r.json())));
          return performance.now() - start;
        }, ids),
      );
      await page.close();
    }
  } finally {
    await browser.close();
    await viewer.close();
  }
  console.log(`server row index, cold (every trajectory read and parsed): ${fmt(cold)}`);
  console.log(`server row index, warm (unchanged files from the cache):   ${fmt(warm)}`);
  console.log(`page: navigation to all ${INSTANCES} rows on screen:          ${fmt(rows)}   (target < 2000 ms)`);
  console.log(`page: one instance opened (row click to its plan shown):   ${fmt(instance)}`);
  console.log(`reference: fetching and parsing every trajectory at once:  ${fmt(everything)}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}

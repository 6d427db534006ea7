/**
 * `pnpm --filter @graphplan/bench bench:eval [N]`: what `bench eval` costs per instance beside the
 * test run itself (image check, container start, copy, patch apply, grading, container removal),
 * measured on N (default 10) small instances built here on the real engine (podman on
 * /tmp/podman.sock), one container at a time so that the figures are per instance. Target: ≤ 2 s
 * median overhead. Prints the medians and p90s of every stage.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import { quantile } from "../figures.js";
import { evalFixture, HOST, removeImages } from "./fixtures/instances.js";
import type { StageTimes } from "./instance.js";
import { runEvaluation } from "./run.js";

const args = process.argv.slice(2).filter((a) => a !== "--");
const count = Number(args[0] ?? 10);
if (args.length > 1 || !Number.isInteger(count) || count < 1) {
  process.stderr.write(
    "usage: pnpm --filter @graphplan/bench bench:eval [N]   (N instances, a whole number ≥ 1; default 10)\n",
  );
  process.exit(2);
}
const root = mkdtempSync(join(tmpdir(), "graphplan-bench-eval-"));
const fx = await evalFixture(root, `bench${process.pid}`, count);
try {
  const preds = fx.preds(Object.fromEntries(fx.ids.map((id) => [id, fx.patches.gold])));
  const result = await Effect.runPromise(
    runEvaluation({
      preds,
      dataset: fx.dataset,
      runId: "overhead",
      outDir: join(root, "out"),
      engines: [{ host: HOST, workers: 1 }],
      timeoutS: 600,
      namespace: null,
      tag: fx.tag,
      pull: false,
      runEmpty: false,
      rerun: false,
    }),
  );
  const graded = result.outcomes.filter((o) => o.stages !== undefined);
  if (graded.length !== count || result.summary.resolved_instances !== count)
    throw new Error(`expected ${count} resolved instances, got ${JSON.stringify(result.summary)}`);
  const stages: (keyof StageTimes)[] = ["image", "start", "copy", "apply", "grade", "cleanup", "tests"];
  const column = (f: (t: StageTimes) => number) => graded.map((o) => f(o.stages!)).sort((a, b) => a - b);
  const fmt = (values: number[]) =>
    `${(quantile(values, 0.5)! / 1000).toFixed(3)} s median, ${(quantile(values, 0.9)! / 1000).toFixed(3)} s p90`;
  process.stdout.write(
    `bench eval overhead, ${count} instances, one container at a time, engine ${HOST}, load average ${loadavg()[0]!.toFixed(1)}\n`,
  );
  for (const stage of stages) process.stdout.write(`  ${stage.padEnd(8)} ${fmt(column((t) => t[stage]))}\n`);
  // Everything that is not the eval script's run: the stages above plus the environment file, the git diffs and the logs.
  const overhead = graded.map((o) => o.ms - o.stages!.tests).sort((a, b) => a - b);
  process.stdout.write(
    `overhead (whole instance − tests): ${fmt(overhead)}  (target ≤ 2 s median: ${quantile(overhead, 0.5)! <= 2000 ? "met" : "missed"})\n`,
  );
  process.stdout.write(`whole instance:           ${fmt(graded.map((o) => o.ms).sort((a, b) => a - b))}\n`);
} finally {
  await removeImages(fx);
  rmSync(root, { recursive: true, force: true });
}

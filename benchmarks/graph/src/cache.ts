/**
 * Usage: pnpm --filter @graphplan/bench-graph bench:cache -- --git-dir REPO --commits A,B [--repeat R] [--json]
 *
 * What the persistent graph cache (`GraphCache({ store: new DiskGraphStore(dir) })`) saves a
 * second agent instance on the same repository. The work trees of commits A and B are read from
 * the repository (a clone, bare or plain) into memory (not timed); then, R times each, every
 * run in a fresh process-local cache and, where a store is used, a fresh temporary directory:
 *
 * - today: the graph of A with a `GraphCache` and no store;
 * - cold: the graph of A with an empty store (every file parsed and handed to the store, whose
 *   writes finish on libuv's thread pool after the build returns: that wait is printed apart);
 * - second commit: a new cache on that store, the graph of B (the files B shares with A are read
 *   back, the others parsed and written);
 * - same commit: a new cache on that store, the graph of A again (every file read back).
 *
 * Today and cold alternate which runs first. Then, apart, the store's own work on the build's
 * thread (every miss and hand-over of a cold build, without the parse). Prints medians, ratios
 * (cold / today, store work / today, second commit / cold and / today) and the load average.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import {
  EXTRACTOR_VERSION,
  GraphCache,
  languagesOf,
  loadGrammars,
  storeKey,
  SUPPORTED_EXTENSIONS,
  type SourceFile,
} from "@graphplan/graph";
import { DiskGraphStore } from "@graphplan/graph/disk";
import { fromCaller, parseArguments, usageError } from "./cli.js";
import { median } from "./measure.js";

const USAGE =
  "pnpm --filter @graphplan/bench-graph bench:cache -- --git-dir REPO --commits A,B [--repeat R] [--json]   (REPO: a clone, bare or plain)";
const { values } = parseArguments(USAGE, {
  options: {
    "git-dir": { type: "string" },
    commits: { type: "string" },
    repeat: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
});
const commits = values.commits?.split(",") ?? [];
const repeat = Number(values.repeat);
if (!values["git-dir"] || commits.length !== 2 || !(Number.isInteger(repeat) && repeat >= 1))
  usageError(USAGE, "give --git-dir, two commits as --commits A,B and --repeat as a whole number ≥ 1");
const gitDir = fromCaller("bench:cache", values["git-dir"]);
for (const commit of commits) {
  try {
    execFileSync("git", ["-C", gitDir, "rev-parse", "--verify", "-q", `${commit}^{commit}`], { stdio: "ignore" });
  } catch {
    usageError(USAGE, `${gitDir} has no commit ${commit}: give a git clone (bare or plain) that has both commits`);
  }
}

/** The supported files of `commit`, read with `git ls-tree` and `git cat-file --batch` (no work tree). */
function filesAt(commit: string): SourceFile[] {
  const listing = execFileSync("git", ["-C", gitDir, "ls-tree", "-r", "-z", commit], {
    maxBuffer: 1 << 28,
    encoding: "utf8",
  });
  const wanted: { path: string; blob: string }[] = [];
  for (const record of listing.split("\0")) {
    const match = /^\d+ blob ([0-9a-f]+)\t(.+)$/s.exec(record);
    if (!match) continue;
    const path = match[2]!;
    const dot = path.lastIndexOf(".");
    if (dot < 0 || !SUPPORTED_EXTENSIONS.includes(path.slice(dot).toLowerCase())) continue;
    if (path.split("/").some((part) => part === "node_modules")) continue;
    wanted.push({ path, blob: match[1]! });
  }
  const out = execFileSync("git", ["-C", gitDir, "cat-file", "--batch"], {
    input: wanted.map((w) => w.blob).join("\n") + "\n",
    maxBuffer: 1 << 30,
  });
  const files: SourceFile[] = [];
  let at = 0;
  for (const { path } of wanted) {
    const headerEnd = out.indexOf(10, at);
    const size = Number(out.subarray(at, headerEnd).toString("latin1").split(" ")[2]);
    files.push({ path, source: out.subarray(headerEnd + 1, headerEnd + 1 + size).toString("utf8") });
    at = headerEnd + 1 + size + 1;
  }
  return files;
}

const loadBefore = loadavg()[0]!;
const [a, b] = [filesAt(commits[0]!), filesAt(commits[1]!)];
const sourcesOfA = new Map(a.map((f) => [f.path, f.source]));
const shared = b.filter((f) => sourcesOfA.get(f.path) === f.source).length;
await loadGrammars(languagesOf([...a, ...b]));

/** CPU time (user + system, ms) of each timed run, by phase: less disturbed by other processes than wall time. */
const cpu: Record<string, number[]> = { today: [], cold: [], second: [], same: [] };
let phase = "";
const timeIt = (run: () => void): number => {
  (globalThis as { gc?: () => void }).gc?.();
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  run();
  const wall = performance.now() - start;
  const used = process.cpuUsage(cpuStart);
  cpu[phase]?.push((used.user + used.system) / 1000);
  return wall;
};
const timed = (name: string, run: () => void): number => {
  phase = name;
  return timeIt(run);
};

const today: number[] = [];
const cold: number[] = [];
const coldFlush: number[] = [];
const second: number[] = [];
const same: number[] = [];
let secondParsed = 0;
let bytes = 0;
let entries = 0;
// One untimed warm-up of the parsers and the JIT.
phase = "warm-up";
timeIt(() => new GraphCache().build(a));
for (let i = 0; i < repeat; i++) {
  // Today and cold alternate which goes first, so neither always runs after the other's I/O.
  if (i % 2 === 0) today.push(timed("today", () => new GraphCache().build(a)));
  const dir = mkdtempSync(join(tmpdir(), "graph-cache-bench-"));
  try {
    const coldStore = new DiskGraphStore(dir);
    cold.push(timed("cold", () => new GraphCache({ store: coldStore }).build(a)));
    // The entries are written on libuv's thread pool after the build returns: timed apart.
    const flushStart = performance.now();
    await coldStore.flush();
    coldFlush.push(performance.now() - flushStart);
    if (i % 2 === 1) today.push(timed("today", () => new GraphCache().build(a)));
    const secondStore = new DiskGraphStore(dir);
    const cache = new GraphCache({ store: secondStore });
    second.push(timed("second", () => cache.build(b)));
    secondParsed = cache.lastParsed.length;
    await secondStore.flush();
    const sameStore = new DiskGraphStore(dir);
    same.push(timed("same", () => new GraphCache({ store: sameStore }).build(a)));
    await sameStore.flush();
    bytes = sameStore.size();
    entries = Number(
      execFileSync("sh", ["-c", `find ${JSON.stringify(dir)} -name '*.json' | wc -l`], { encoding: "utf8" }).trim(),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
// The store's own work on the build's thread, apart from the parse (whose run-to-run spread on this
// machine is larger than the store's whole cost): for every file of A, the miss (`get`) and the
// hand-over of its graph (`put`), on an empty store. The sha1 of each file is left out: the cache
// computes it with or without a store (it is part of every file graph).
const built = new GraphCache();
built.build(a);
const keyed = a.map((f) => ({
  key: storeKey(f.path, built.get(f.path)!.hash, EXTRACTOR_VERSION)!,
  graph: built.get(f.path)!,
}));
const storeWork: number[] = [];
for (let i = 0; i < Math.max(3, repeat); i++) {
  const dir = mkdtempSync(join(tmpdir(), "graph-cache-bench-"));
  try {
    const store = new DiskGraphStore(dir);
    (globalThis as { gc?: () => void }).gc?.();
    const start = performance.now();
    for (const { key, graph } of keyed) if (!store.get(key)) store.put(key, graph);
    storeWork.push(performance.now() - start);
    await store.flush();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const loadAfter = loadavg()[0]!;
const m = {
  today: median(today),
  cold: median(cold),
  coldFlush: median(coldFlush),
  second: median(second),
  same: median(same),
  storeWork: median(storeWork),
};
const result = {
  commits,
  files: [a.length, b.length],
  sharedFiles: shared,
  secondParsed,
  store: { bytes, entries },
  ms: m,
  runs: { today, cold, coldFlush, second, same, storeWork },
  cpuMs: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, median(v)])),
  cpuRuns: cpu,
  ratios: {
    coldOverToday: m.cold / m.today,
    storeWorkOverToday: m.storeWork / m.today,
    secondOverCold: m.second / m.cold,
    secondOverToday: m.second / m.today,
    sameOverCold: m.same / m.cold,
  },
  cpuRatios: {
    coldOverToday: median(cpu.cold!) / median(cpu.today!),
    secondOverCold: median(cpu.second!) / median(cpu.cold!),
  },
  // Each round's cold and today run back to back (alternating which goes first): the median of their
  // ratios is not moved by the machine's load drifting between rounds, as the ratio of two medians is.
  pairedColdOverToday: {
    wall: median(cold.map((c, i) => c / today[i]!)),
    cpu: median(cpu.cold!.map((c, i) => c / cpu.today![i]!)),
  },
  load: [loadBefore, loadAfter],
};
if (values.json) process.stdout.write(JSON.stringify(result, null, 2) + "\n");
else {
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  console.log(
    `persistent graph cache, ${gitDir} ${commits.map((c) => c.slice(0, 7)).join(" → ")} (load avg ${loadBefore.toFixed(2)} → ${loadAfter.toFixed(2)}; median of ${repeat})`,
  );
  console.log(
    `files: ${a.length} at A, ${b.length} at B, ${shared} of B's with the same text at A; store after A: ${entries} entries, ${(bytes / 1e6).toFixed(1)} MB`,
  );
  console.log(`today (GraphCache, no store), A:      ${ms(m.today)}  [${today.map(ms).join(", ")}]`);
  console.log(
    `cold store, A (parse + write):        ${ms(m.cold)}  [${cold.map(ms).join(", ")}]  ratio to today ${result.ratios.coldOverToday.toFixed(3)}`,
  );
  console.log(
    `  paired with the today of its round (median of the ${repeat} ratios): ${result.pairedColdOverToday.wall.toFixed(3)} by wall time, ${result.pairedColdOverToday.cpu.toFixed(3)} by CPU time`,
  );
  console.log(`  then its writes finishing (thread pool): ${ms(m.coldFlush)}  [${coldFlush.map(ms).join(", ")}]`);
  console.log(
    `  the store's own work on the build's thread (misses + hand-over, no parse): ${ms(m.storeWork)}  [${storeWork.map(ms).join(", ")}]  = ${(100 * result.ratios.storeWorkOverToday).toFixed(1)} % of today`,
  );
  console.log(
    `second commit, B (${secondParsed} parsed):        ${ms(m.second)}  [${second.map(ms).join(", ")}]  ratio to cold ${result.ratios.secondOverCold.toFixed(3)} (target <= 0.10), to today ${result.ratios.secondOverToday.toFixed(3)}`,
  );
  console.log(
    `same commit again, A (all read back): ${ms(m.same)}  [${same.map(ms).join(", ")}]  ratio to cold ${result.ratios.sameOverCold.toFixed(3)}`,
  );
  console.log(
    `CPU time (median): today ${ms(result.cpuMs.today!)}, cold ${ms(result.cpuMs.cold!)} (ratio ${result.cpuRatios.coldOverToday.toFixed(3)}), second commit ${ms(result.cpuMs.second!)} (ratio to cold ${result.cpuRatios.secondOverCold.toFixed(3)}), same ${ms(result.cpuMs.same!)}`,
  );
}

/**
 * Usage: pnpm --filter @graphplan/bench-graph bench -- <dir> [--workers N] [--repeat R] [--json]
 *
 * Graphs every supported file under <dir> and prints files, MB, ms, MB/s and peak memory;
 * in the same run, times @ast-grep/napi parsing the same Python files and finding function and
 * class definitions (ratio = ours / ast-grep, lower is better), graphing on N worker threads,
 * and re-graphing after a one-file change with a GraphCache.
 */
import { availableParallelism, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { statSync } from "node:fs";
import {
  buildGraph,
  detectLanguage,
  GraphCache,
  languagesOf,
  loadGrammars,
  parse,
  type Graph,
  type SourceFile,
} from "@graphplan/graph";
import { astGrepDefinitions, astGrepDefinitionsAsync } from "./astgrep.js";
import { fromCaller, parseArguments, usageError, workTreeOf } from "./cli.js";
import { bytesOf, readTree } from "./files.js";
import { GraphPool } from "./pool.js";
import { MemorySampler, median, summarize, time, timeAsync, type Timing } from "./measure.js";

const TARGETS = { ratioSingle: 1.0, ratioThreads: 0.6, regraphMs: 20 } as const;

const USAGE =
  "pnpm --filter @graphplan/bench-graph bench -- <dir> [--workers N] [--repeat R] [--json]   (<dir>: a source tree, or a bare clone read at HEAD)";
const { values, positionals } = parseArguments(USAGE, {
  allowPositionals: true,
  options: {
    workers: { type: "string", default: String(availableParallelism()) },
    repeat: { type: "string", default: "3" },
    json: { type: "boolean", default: false },
  },
});
const workers = Number(values.workers);
const repeat = Number(values.repeat);
if (
  positionals.length !== 1 ||
  !(Number.isInteger(workers) && workers >= 1) ||
  !(Number.isInteger(repeat) && repeat >= 1)
)
  usageError(USAGE, "give one directory, and --workers and --repeat as whole numbers ≥ 1");
const given = fromCaller("bench", positionals[0]!);
if (!statSync(given, { throwIfNoEntry: false })?.isDirectory())
  usageError(USAGE, `${positionals[0]} is not a directory`);
const tree = workTreeOf(given);
process.on("exit", () => tree.dispose());
const dir = tree.dir;

const loadBefore = loadavg()[0]!;
const memory = new MemorySampler();
const files = await readTree(dir);
if (files.length === 0) {
  process.stderr.write(`bench: no supported source files under ${dir}\n`);
  process.exit(2);
}
const pythonFiles = files.filter((file) => detectLanguage(file.path) === "python");
const mb = bytesOf(files) / 1e6;
const pythonMb = bytesOf(pythonFiles) / 1e6;
const rssBefore = memory.phase();

const grammarLoad = await timeAsync(() => loadGrammars(languagesOf(files)));

// 1. Ours on every supported file, one thread. The first run's peak RSS is ours alone.
const all: Timing[] = [];
let graph = await buildGraph(files);
all.push(time(() => (graph = graphOf(files))));
// The first phase that builds anything, so the process's maxRSS so far is ours alone.
const peakOurs = memory.phase();
const maxRssOurs = memory.maxRss();

// 2. Worker threads (before ast-grep runs, so the peak rss of this phase is ours).
const poolStart = await timeAsync(async () => GraphPool.start(workers, files));
const pool = poolStart.value;
await pool.build(files); // warm-up, as the single-thread runs had one: V8 tiers WebAssembly up while it runs
const threaded: Timing[] = [];
const threadedPython: Timing[] = [];
for (let i = 0; i < repeat; i++) {
  const run = await timeAsync(() => pool.build(files));
  if (i === 0 && JSON.stringify(run.value) !== JSON.stringify(graph))
    throw new Error("the worker pool's graph differs from buildGraph's");
  threaded.push(run);
  if (pythonFiles.length) threadedPython.push(await timeAsync(() => pool.build(pythonFiles)));
}
await pool.close();
const peakThreads = memory.phase();

// 3. Ours and ast-grep on the Python files, interleaved, `repeat` times each.
const oursPython: Timing[] = [];
/** tree-sitter (WebAssembly) parsing and freeing the trees, nothing else: the floor under ours. */
const parseOnly: Timing[] = [];
const astGrep: Timing[] = [];
let astGrepCount = 0;
let rssAfterAstGrep = 0;
astGrepDefinitions(pythonFiles.slice(0, 100)); // warm-up: loads the dynamic grammar library
for (let i = 0; i < repeat; i++) {
  if (i > 0) all.push(time(() => (graph = graphOf(files))));
  if (pythonFiles.length) {
    // Alternate which engine goes first, so neither always runs on a warmer (or busier) machine.
    const ours = () => oursPython.push(time(() => graphOf(pythonFiles)));
    const theirs = () => {
      astGrep.push(
        time(() => (astGrepCount = astGrepDefinitions(pythonFiles).reduce((n, defs) => n + defs.length, 0))),
      );
      rssAfterAstGrep = Math.max(rssAfterAstGrep, memory.sample());
    };
    if (i % 2 === 0) {
      ours();
      theirs();
    } else {
      theirs();
      ours();
    }
    parseOnly.push(time(() => pythonFiles.forEach((file) => parse(file.source, "python").delete())));
  }
}
memory.phase();
const astGrepAsync = pythonFiles.length
  ? await timeAsync(() => astGrepDefinitionsAsync(pythonFiles, workers * 2))
  : undefined;
const peakAstGrepAsync = memory.phase();

// 4. Re-graph after a one-file change: 10 files at size quantiles (plus one untimed warm-up),
// timed without a forced collection (a full GC right before would flush compiled code).
const cache = new GraphCache();
await buildGraph(files, { cache });
const regraph: number[] = [];
const candidates = [...(pythonFiles.length ? pythonFiles : files)].sort((a, b) => a.source.length - b.source.length);
for (let i = 0; i <= 10; i++) {
  const target = candidates[Math.min(candidates.length - 1, Math.floor((candidates.length * (i || 5)) / 11))]!;
  const edited = files.map((file) =>
    file === target ? { path: file.path, source: `${file.source}\n# edited by the benchmark ${i}\n` } : file,
  );
  const start = performance.now();
  cache.build(edited);
  const ms = performance.now() - start;
  if (cache.lastParsed.length !== 1 || cache.lastParsed[0] !== target.path)
    throw new Error(`re-graph parsed ${cache.lastParsed.length} files`);
  if (i > 0) regraph.push(ms);
  cache.build(files); // back to the original text (not timed)
}
memory.stop();

const allMs = summarize(all);
const oursPyMs = summarize(oursPython);
const astMs = summarize(astGrep);
const parseMs = summarize(parseOnly);
const threadsMs = summarize(threaded);
const threadsPyMs = summarize(threadedPython);
const ratioSingle = oursPyMs.median / astMs.median;
const ratioSingleCpu = oursPyMs.cpu_median / astMs.cpu_median;
const ratioThreads = threadsPyMs.median / astMs.median;
const pySymbols = graph.symbols.filter(
  (s) => detectLanguage(s.file) === "python" && (s.kind === "class" || s.kind === "function"),
).length;

const result = {
  date: new Date().toISOString(),
  dir: given,
  cores: availableParallelism(),
  node: process.version,
  /** 1-minute load average before and after the run: other work on the machine slows every figure. */
  load_average: [round(loadBefore, 2), round(loadavg()[0]!, 2)],
  files: files.length,
  mb: round(mb, 2),
  python: { files: pythonFiles.length, mb: round(pythonMb, 2) },
  grammar_load_ms: round(grammarLoad.ms, 0),
  ours_all: {
    ...allMs,
    mb_per_s: round(mb / (allMs.median / 1000), 2),
    symbols: graph.symbols.length,
    imports: graph.imports.length,
    errors: graph.errors.length,
  },
  ours_python: { ...oursPyMs, mb_per_s: round(pythonMb / (oursPyMs.median / 1000), 2), definitions: pySymbols },
  parse_only_python: { ...parseMs, share_of_ours: round(parseMs.median / oursPyMs.median, 3) },
  astgrep_python: { ...astMs, mb_per_s: round(pythonMb / (astMs.median / 1000), 2), definitions: astGrepCount },
  astgrep_python_parse_async_ms: astGrepAsync ? round(astGrepAsync.ms, 0) : null,
  ratio_single: round(ratioSingle, 3),
  ratio_single_cpu: round(ratioSingleCpu, 3),
  threads: {
    workers,
    start_ms: round(poolStart.ms, 0),
    all: threadsMs,
    python: threadsPyMs,
    ratio: round(ratioThreads, 3),
    busy_ms: pool.lastBusyMs.map((ms) => round(ms, 0)),
  },
  regraph_ms: {
    median: round(median(regraph), 2),
    max: round(Math.max(...regraph), 2),
    runs: regraph.map((ms) => round(ms, 2)),
  },
  memory_mb: {
    rss_with_files_read: round(rssBefore / 1e6, 0),
    ours_1_thread_rss: round(peakOurs / 1e6, 0),
    ours_1_thread_max_rss: round(maxRssOurs / 1e6, 0),
    astgrep_rss_after_run: round(rssAfterAstGrep / 1e6, 0),
    astgrep_parse_async_rss_peak: round(peakAstGrepAsync / 1e6, 0),
    ours_threads_rss_peak: round(peakThreads / 1e6, 0),
    run_rss_peak_sampled: round(memory.peak / 1e6, 0),
    run_max_rss: round(memory.maxRss() / 1e6, 0),
  },
};

if (values.json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  const verdict = (value: number, target: number) =>
    value <= target
      ? `meets target <= ${target}`
      : `MISSES target <= ${target} by ${round(((value - target) / target) * 100, 0)}%`;
  const lines = [
    `graph benchmark: ${given} (${result.cores} cores, node ${result.node}, ${result.date}, load average ${result.load_average.join(" -> ")})`,
    `files ${result.files} (${result.python.files} Python), ${result.mb} MB (${result.python.mb} MB Python); grammars loaded in ${result.grammar_load_ms} ms`,
    `ours, all files, 1 thread:      median ${allMs.median} ms (min ${allMs.min}, cpu ${allMs.cpu_median}), ${result.ours_all.mb_per_s} MB/s; ${result.ours_all.symbols} symbols, ${result.ours_all.imports} imports, ${result.ours_all.errors} errors`,
    `ours, Python, 1 thread:         median ${oursPyMs.median} ms (min ${oursPyMs.min}, cpu ${oursPyMs.cpu_median}), ${result.ours_python.mb_per_s} MB/s; ${pySymbols} class/function definitions`,
    `  of which tree-sitter parse:   median ${parseMs.median} ms (cpu ${parseMs.cpu_median}) parsing and freeing the trees alone, ${round((parseMs.median / oursPyMs.median) * 100, 0)}% of ours`,
    `ast-grep, Python, 1 thread:     median ${astMs.median} ms (min ${astMs.min}, cpu ${astMs.cpu_median}), ${result.astgrep_python.mb_per_s} MB/s; ${astGrepCount} class/function definitions`,
    `ast-grep, Python, parseAsync:   ${result.astgrep_python_parse_async_ms} ms (${workers * 2} at a time on libuv's thread pool; for reference)`,
    `ratio ours/ast-grep, 1 thread:  ${result.ratio_single} (${verdict(ratioSingle, TARGETS.ratioSingle)}); by CPU time ${result.ratio_single_cpu}`,
    `ours, ${workers} worker threads:     Python median ${threadsPyMs.median} ms (min ${threadsPyMs.min}; last run's workers busy ${result.threads.busy_ms.join(", ")} ms); all files median ${threadsMs.median} ms; workers started in ${result.threads.start_ms} ms`,
    `ratio ours threads/ast-grep:    ${result.threads.ratio} (${verdict(ratioThreads, TARGETS.ratioThreads)})`,
    `re-graph after a one-file change (GraphCache): median ${result.regraph_ms.median} ms, max ${result.regraph_ms.max} ms (${verdict(result.regraph_ms.median, TARGETS.regraphMs)})`,
    `memory (rss): ${result.memory_mb.rss_with_files_read} MB with the files read; ours 1 thread ${result.memory_mb.ours_1_thread_rss} MB (maxRSS ${result.memory_mb.ours_1_thread_max_rss} MB); ours ${workers} workers peak ${result.memory_mb.ours_threads_rss_peak} MB (sampled); ast-grep ${result.memory_mb.astgrep_rss_after_run} MB after a run, parseAsync peak ${result.memory_mb.astgrep_parse_async_rss_peak} MB; whole run peak ${result.memory_mb.run_rss_peak_sampled} MB sampled / maxRSS ${result.memory_mb.run_max_rss} MB`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** `buildGraph` once the grammars are loaded: the same code path, synchronous. */
function graphOf(input: readonly SourceFile[]): Graph {
  return new GraphCache().build(input);
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

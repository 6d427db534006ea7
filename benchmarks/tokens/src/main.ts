/**
 * `pnpm --filter @graphplan/bench-tokens bench -- --repos DIR [--dataset FILE] [--instances IDS] [--out DIR]`
 *
 * What a model's run is billed, measured through the whole accounting path: the replay model answers
 * behind the stand-in of a provider (`modelOverWire`), through that provider's real SDK, and the stand-in
 * bills each request as the provider documents it (input counted by a real tokenizer, cache reads and
 * writes by the request's breakpoints or its prefix). Three parts:
 *
 * 1. `bench agent --in-image --provider replay`, both arms (graphplan, baseline), on the instances
 *    `bench compare` uses (six real Lite instances, in their images), over Anthropic's wire with caching
 *    on and off and over OpenAI's: tokens per instance and per phase, dollars at Claude Sonnet 4.5's and
 *    GPT-4.1's list prices, and how many requests read the previous request whole from the cache.
 * 2. A long run (`--long-calls`, 24 by default) scripted on the first instance's repository: the stand-in's
 *    own record of whether each request started with the previous one byte for byte, and the share of
 *    input tokens billed as cache reads.
 * 3. The prompt diet: the tokens of each prompt the graphplan arm sent, per instance.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { loadConfig, runAgent, TrajectorySchema, type Trajectory } from "@graphplan/agent";
import { readDataset } from "@graphplan/bench";
import { compile, parseUnifiedDiff, preImagePaths } from "@graphplan/compiler";
import { loadGrammars } from "@graphplan/graph";
import { LanguageModel, Sandbox, ScriptedModel, Workspace } from "@graphplan/runtime";
import { modelOverWire, type WireConfig } from "@graphplan/runtime/testing";
import { billedInput, dollarsAt, instanceTotals, kTokens, prefixReads, runTotals, share, table } from "./figures.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const SIX = [
  "pallets__flask-4045",
  "pallets__flask-4992",
  "pallets__flask-5063",
  "psf__requests-863",
  "psf__requests-1963",
  "psf__requests-2148",
];
const fromCaller = (path: string): string =>
  resolve((process.env.npm_lifecycle_event === "bench" && process.env.INIT_CWD) || process.cwd(), path);

const program = new Command("bench-tokens")
  .requiredOption(
    "--repos <dir>",
    "directory of clones named <owner>__<name> (the replay reads pre-images from them)",
    fromCaller,
  )
  .option(
    "--dataset <file>",
    "SWE-bench JSONL",
    fromCaller,
    join(ROOT, "..", "shared", "datasets", "swe-bench-lite.test.jsonl"),
  )
  .option("--instances <ids>", "comma-separated instance ids (images built: bench images build)", SIX.join(","))
  .option("--out <dir>", "where the bench agent runs go", fromCaller)
  .option("--long-calls <n>", "model calls of the scripted long run", (v) => Number.parseInt(v, 10), 24)
  .showHelpAfterError()
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  // `pnpm --filter … bench -- --repos DIR` hands the script a literal `--`.
  .parse(process.argv.filter((arg, i) => !(arg === "--" && i === 2)));
const options = program.opts<{ repos: string; dataset: string; instances: string; out?: string; longCalls: number }>();
const ids = options.instances.split(",").filter(Boolean);
const out = options.out ?? mkdtempSync(join(tmpdir(), "bench-tokens-"));

const VARIANTS: readonly { label: string; wire: WireConfig; price: string }[] = [
  {
    label: "anthropic, cache on",
    wire: { provider: "anthropic", model: "claude-sonnet-5", cache: true },
    price: "claude-sonnet-5",
  },
  {
    label: "anthropic, cache off",
    wire: { provider: "anthropic", model: "claude-sonnet-5", cache: false },
    price: "claude-sonnet-5",
  },
  { label: "openai, cache key on", wire: { provider: "openai", model: "gpt-4.1", cache: true }, price: "gpt-4.1" },
];
const ARMS = ["graphplan", "baseline"] as const;

const encoder = new Tiktoken(o200kBase);
const tokens = (text: string) => encoder.encode(text).length;

/** Part 1: one `bench agent` run per arm and wire, as a user runs it; its trajectories. */
function benchAgent(arm: string, variant: (typeof VARIANTS)[number], dir: string): Trajectory[] {
  mkdirSync(dir, { recursive: true });
  const config = join(dir, "config.json"); // YAML takes JSON
  writeFileSync(config, JSON.stringify({ model: variant.wire }));
  const args = [
    "-s",
    "--dir",
    ROOT,
    "bench",
    "agent",
    "--dataset",
    options.dataset,
    "--instances",
    ids.join(","),
    "--in-image",
    "--provider",
    "replay",
    "--repos",
    options.repos,
    "--strategy",
    arm,
    "--config",
    config,
    "--out",
    join(dir, "run"),
    "-w",
    "2",
    "--redo",
  ];
  const run = spawnSync("pnpm", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  if (run.status !== 0)
    throw new Error(
      `bench agent (${arm}, ${variant.label}) exited ${run.status}:\n${run.stderr}${run.stdout.slice(-2000)}`,
    );
  return ids.map((id) =>
    TrajectorySchema.parse(JSON.parse(readFileSync(join(dir, "run", id, "trajectory.json"), "utf8"))),
  );
}

const runs = new Map<string, Trajectory[]>();
for (const arm of ARMS)
  for (const variant of VARIANTS) {
    const started = performance.now();
    runs.set(
      `${arm}|${variant.label}`,
      benchAgent(
        arm,
        variant,
        join(out, `${arm}-${variant.wire.provider}-${variant.wire.cache ? "cache" : "nocache"}`),
      ),
    );
    console.error(`${arm}, ${variant.label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }

console.log(`# Tokens per instance (${ids.length} instances, --provider replay in their images; o200k_base counts)\n`);
const rows: string[][] = [];
for (const arm of ARMS)
  for (const variant of VARIANTS) {
    const list = runs.get(`${arm}|${variant.label}`)!;
    const { all } = runTotals(list);
    const reads = list.map((t) => prefixReads(t)).reduce((a, b) => ({ exact: a.exact + b.exact, of: a.of + b.of }));
    const n = list.length;
    const cacheable = variant.wire.provider === "anthropic" && variant.wire.cache;
    rows.push([
      arm,
      variant.label,
      (all.modelCalls / n).toFixed(1),
      kTokens(all.inputTokens / n),
      kTokens(all.cacheReadTokens / n),
      kTokens(all.cacheWriteTokens / n),
      kTokens(all.outputTokens / n),
      share(all.cacheReadTokens, all.inputTokens),
      kTokens(billedInput(all) / n),
      `$${(dollarsAt(variant.price, all, true) / n).toFixed(4)}`,
      `$${(dollarsAt(variant.price, all, false) / n).toFixed(4)}`,
      cacheable ? `${reads.exact}/${reads.of}` : "—",
    ]);
  }
console.log(
  table(
    [
      "arm",
      "wire",
      "calls",
      "input",
      "cache read",
      "cache write",
      "output",
      "read share",
      "billed in*",
      "$ (billed)",
      "$ (no cache)",
      "whole prefix read",
    ],
    rows,
  ),
);
console.log(
  "\n* billed in: input tokens weighted as billed (cache reads 0.1x, writes 1.25x); $ at the wire's model's list price (claude-sonnet-5, gpt-4.1), per instance; 'no cache': the same tokens with no cache price.",
);

console.log("\n# Per phase (graphplan arm, anthropic, cache on; sums over the instances)\n");
const { byPhase } = runTotals(runs.get("graphplan|anthropic, cache on")!);
console.log(
  table(
    ["phase", "calls", "input", "cache read", "cache write", "output", "$"],
    [...byPhase].map(([phase, t]) => [
      phase,
      String(t.modelCalls),
      kTokens(t.inputTokens),
      kTokens(t.cacheReadTokens),
      kTokens(t.cacheWriteTokens),
      kTokens(t.outputTokens),
      `$${t.costUsd.toFixed(4)}`,
    ]),
  ),
);

console.log("\n# Per instance: graphplan beside baseline (anthropic, cache on)\n");
const g = runs.get("graphplan|anthropic, cache on")!;
const b = runs.get("baseline|anthropic, cache on")!;
console.log(
  table(
    ["instance", "graphplan billed in", "baseline billed in", "graphplan $", "baseline $"],
    ids.map((id, i) => {
      const [tg, tb] = [instanceTotals(g[i]!), instanceTotals(b[i]!)];
      return [
        id,
        kTokens(billedInput(tg)),
        kTokens(billedInput(tb)),
        `$${tg.costUsd.toFixed(4)}`,
        `$${tb.costUsd.toFixed(4)}`,
      ];
    }),
  ),
);

// Part 3: the prompt diet — tokens of each prompt the graphplan arm sent.
console.log("\n# Prompts the graphplan arm sent (tokens, mean per instance that sent it)\n");
const byPrompt = new Map<string, number[]>();
for (const t of g) {
  const sums = new Map<string, number>();
  for (const m of t.messages) if (m.prompt) sums.set(m.prompt, (sums.get(m.prompt) ?? 0) + tokens(m.content));
  for (const [name, n] of sums) byPrompt.set(name, [...(byPrompt.get(name) ?? []), n]);
}
console.log(
  table(
    ["prompt", "instances", "tokens (mean)", "max"],
    [...byPrompt].map(([name, list]) => [
      name,
      String(list.length),
      String(Math.round(list.reduce((a, c) => a + c, 0) / list.length)),
      String(Math.max(...list)),
    ]),
  ),
);

// Part 2: a long scripted run on the first instance's repository, the stand-in's own record of each request.
const [first] = (await readDataset(options.dataset)).flatMap((line) =>
  line.ok && line.instance.instance_id === ids[0] ? [line.instance] : [],
);
if (!first) throw new Error(`${ids[0]} is not in ${options.dataset}`);
const work = mkdtempSync(join(tmpdir(), "bench-tokens-long-"));
const git = (...args: string[]) => execFileSync("git", ["-C", work, ...args], { encoding: "utf8" });
execFileSync("git", ["clone", "-q", "--shared", join(options.repos, first.repo.replace("/", "__")), work]);
git("checkout", "-q", first.base_commit);
await loadGrammars();
const patch = first.patch;
const files = new Map(preImagePaths(parseUnifiedDiff(patch)).map((p) => [p, readFileSync(join(work, p), "utf8")]));
const plan = compile(files, patch).plan;
const sources = git("ls-files", "*.py").trim().split("\n");
const bash = (command: string) => `THOUGHT: reading on.\n\n\`\`\`bash\n${command}\n\`\`\``;
const explore = Array.from({ length: Math.max(1, options.longCalls - 3) }, (_, i) => {
  const file = sources[(i * 7) % sources.length]!;
  return bash(`sed -n '1,${60 + 10 * i}p' ${file}`);
});
const replies = [
  ...explore,
  `THOUGHT: The change is in ${[...files.keys()].join(", ")}.\n\nREADY_TO_PLAN: ${JSON.stringify([...files.keys()])}`,
  `THOUGHT: The plan.\n\n\`\`\`json\n${JSON.stringify(plan, null, 2)}\n\`\`\``,
  bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
];
const { config } = await Effect.runPromise(loadConfig(undefined));
const longRows: string[][] = [];
for (const variant of VARIANTS) {
  git("checkout", "-q", "--", ".");
  git("clean", "-qfd");
  const stats = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const served = yield* modelOverWire(new ScriptedModel(replies), variant.wire);
        const t = yield* runAgent({
          task: String(first.problem_statement),
          config: { ...config, limits: { ...config.limits, max_explore_steps: replies.length } },
        }).pipe(
          Effect.provide(
            Layer.mergeAll(
              Layer.succeed(LanguageModel, served.model),
              Sandbox.layerLocal({ cwd: work }),
              Workspace.layer(work),
            ),
          ),
        );
        return {
          t,
          stats: served.server.stats(),
          tools: tokens(JSON.stringify(served.server.requests[0]?.body["tools"] ?? [])),
        };
      }),
    ),
  );
  const { t, stats: s, tools } = stats;
  longRows.push([
    variant.label,
    t.exitStatus,
    String(s.requests),
    `${s.prefixStable}/${s.requests - 1}`,
    kTokens(s.inputTokens),
    share(s.cacheReadTokens, s.inputTokens),
    kTokens(s.cacheWriteTokens),
    String(tools),
    `$${dollarsAt(variant.price, instanceTotals(t), true).toFixed(4)}`,
    `$${dollarsAt(variant.price, instanceTotals(t), false).toFixed(4)}`,
  ]);
}
rmSync(work, { recursive: true, force: true });
console.log(
  `\n# A long run: ${replies.length} scripted replies on ${first.instance_id}'s repository (the stand-in's record)\n`,
);
console.log(
  table(
    [
      "wire",
      "exit",
      "requests",
      "extends previous",
      "input",
      "cache read share",
      "cache write",
      "tools tokens",
      "$ (billed)",
      "$ (no cache)",
    ],
    longRows,
  ),
);
console.log(`\nruns: ${out}`);

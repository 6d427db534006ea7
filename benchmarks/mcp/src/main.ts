/**
 * The SWE-bench Lite gold replays driven through `graphplan mcp`: for each instance the files the gold patch
 * touches, as they are at its base commit, are written into a scratch root; an MCP client (the SDK's own
 * `Client` over stdio, the server a child process as agents run it) sends `compile_patch` with the patch (page
 * after page while the plan has more) and then `apply_plan` with the plan it answered; the files on disk must
 * be the patch's post-images byte for byte. The same two calls are then made in-process (`Engine` of
 * @graphplan/mcp, no protocol) on a fresh copy, so the protocol's cost per call shows beside the work. Before
 * the replays the server is started several times: its start time is spawn → `initialize` answered →
 * `tools/list` answered.
 *
 *   pnpm --filter @graphplan/bench-mcp bench --dataset FILE.jsonl --repos DIR [--instances ID,...] [--out FILE]
 *
 * What the tool list costs in tokens, without a dataset: `pnpm --filter @graphplan/bench-mcp tokens` (tokens.ts).
 *
 * DIR holds a bare clone per repository, `owner__name` (as `bench replay --repos` takes).
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { quantile, readDataset, Repositories, type DatasetInstance } from "@graphplan/bench";
import { parseUnifiedDiff, postImages, preImagePaths } from "@graphplan/compiler";
import { Engine } from "@graphplan/mcp";

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const CLI = join(REPO_ROOT, "apps/agent/src/cli.ts");
const TSX = join(REPO_ROOT, "node_modules/.bin/tsx");
const STARTS = 5;

interface Outcome {
  readonly id: string;
  readonly repo: string;
  /** identical: the post-images on disk; else why not. */
  readonly server: string;
  readonly inProcess: string;
  readonly ms: { compile: number; apply: number; compileInProcess: number; applyInProcess: number };
}

const program = new Command("bench-mcp")
  .requiredOption("--dataset <file>", "SWE-bench JSONL (instance_id, repo, base_commit, patch)")
  .requiredOption("--repos <dir>", "bare clones named owner__name")
  .option("--instances <ids>", "only these instance ids, comma-separated")
  .option("--out <file>", "write every instance's outcome and the figures as JSON here")
  .parse();
const options = program.opts<{ dataset: string; repos: string; instances?: string; out?: string }>();

const lines = await readDataset(options.dataset);
const wanted = options.instances ? new Set(options.instances.split(",")) : undefined;
const instances = lines.flatMap((l) => (l.ok && (!wanted || wanted.has(l.instance.instance_id)) ? [l.instance] : []));
const repos = new Repositories({ reposDir: options.repos, repoMap: {} });
const root = await realpath(await mkdtemp(join(tmpdir(), "graphplan-bench-mcp-")));

const spawnServer = () =>
  new StdioClientTransport({
    command: TSX,
    args: ["--conditions=source", CLI, "mcp", "--root", root],
    stderr: "inherit",
    cwd: REPO_ROOT,
  });

// Start time: spawn → initialize answered → tools/list answered, several times (the first start also warms tsx's cache).
const starts: number[] = [];
for (let i = 0; i < STARTS; i++) {
  const started = performance.now();
  const client = new Client({ name: "bench-mcp", version: "0" });
  await client.connect(spawnServer());
  await client.listTools();
  starts.push(performance.now() - started);
  await client.close();
}

// Beside it, the same CLI doing nothing: `graphplan --help` (loading the command line is most of a start).
const helps: number[] = [];
for (let i = 0; i < STARTS; i++) {
  const started = performance.now();
  await new Promise<void>((resolve, reject) =>
    execFile(TSX, ["--conditions=source", CLI, "--help"], { cwd: REPO_ROOT }, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  helps.push(performance.now() - started);
}

const client = new Client({ name: "bench-mcp", version: "0" });
await client.connect(spawnServer(), {});
const engine = new Engine({ root });
const outcomes: Outcome[] = [];
const began = performance.now();

/** Empties the root and writes `files` into it. */
async function reset(files: ReadonlyMap<string, string>): Promise<void> {
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  for (const [path, text] of files) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
}

/** "identical", or the first file whose bytes on disk differ from the post-image. */
async function judge(post: ReadonlyMap<string, string | null>): Promise<string> {
  for (const [path, text] of post) {
    const now = await readFile(join(root, path), "utf8").catch(() => null);
    if (now !== text) return `differs: ${path}`;
  }
  return "identical";
}

const textOf = (result: CallToolResult): string =>
  ((result.content[0] as { text?: string } | undefined)?.text ?? "").split("\n")[0]!;
const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 }) as Promise<CallToolResult>;

async function viaServer(
  instance: DatasetInstance,
  post: ReadonlyMap<string, string | null>,
): Promise<{ verdict: string; compile: number; apply: number }> {
  let mark = performance.now();
  // The plan comes in pages of whole steps: each page's steps, until the page that names no next one.
  const plan: unknown[] = [];
  for (let page = 1; ; page++) {
    const compiled = await call("compile_patch", { diff: instance.patch, page });
    const content = compiled.structuredContent as { plan?: unknown[]; next_page?: number | null } | undefined;
    if (compiled.isError || !content?.plan)
      return { verdict: `compile_patch: ${textOf(compiled)}`, compile: performance.now() - mark, apply: 0 };
    plan.push(...content.plan);
    if (!content.next_page) break;
  }
  const compile = performance.now() - mark;
  mark = performance.now();
  const applied = await call("apply_plan", { plan });
  const apply = performance.now() - mark;
  if (applied.isError) return { verdict: `apply_plan: ${textOf(applied)}`, compile, apply };
  return { verdict: await judge(post), compile, apply };
}

async function inProcess(
  instance: DatasetInstance,
  post: ReadonlyMap<string, string | null>,
): Promise<{ verdict: string; compile: number; apply: number }> {
  let mark = performance.now();
  const compiled = await engine.compilePatch(instance.patch).catch((error: Error) => error);
  const compile = performance.now() - mark;
  if (compiled instanceof Error) return { verdict: `compile: ${compiled.message.split("\n")[0]}`, compile, apply: 0 };
  if (!compiled.verification.passed)
    return { verdict: `compile: ${compiled.verification.errors[0] ?? "not verified"}`, compile, apply: 0 };
  mark = performance.now();
  // The plan as JSON, as a client sends it.
  const applied = await engine.apply(JSON.parse(JSON.stringify(compiled.plan)) as unknown);
  const apply = performance.now() - mark;
  if (applied.kind !== "applied") return { verdict: `apply: ${applied.kind}`, compile, apply };
  return { verdict: await judge(post), compile, apply };
}

for (const [index, instance] of instances.entries()) {
  const reader = repos.reader(instance.repo);
  const base = { id: instance.instance_id, repo: instance.repo };
  const skip = (why: string) =>
    outcomes.push({
      ...base,
      server: why,
      inProcess: why,
      ms: { compile: 0, apply: 0, compileInProcess: 0, applyInProcess: 0 },
    });
  if (!("file" in reader)) {
    skip(`no repository: ${reader.message}`);
    continue;
  }
  const patches = parseUnifiedDiff(instance.patch);
  const pre = new Map<string, string>();
  let missing: string | undefined;
  for (const path of preImagePaths(patches)) {
    const text = await reader.file(instance.base_commit, path).catch(() => undefined);
    if (text === undefined) missing = path;
    else pre.set(path, text);
  }
  if (missing) {
    skip(`no pre-image: ${missing} at ${instance.base_commit}`);
    continue;
  }
  const post = postImages(patches, pre);
  await reset(pre);
  const served = await viaServer(instance, post);
  await reset(pre);
  const local = await inProcess(instance, post);
  outcomes.push({
    ...base,
    server: served.verdict,
    inProcess: local.verdict,
    ms: { compile: served.compile, apply: served.apply, compileInProcess: local.compile, applyInProcess: local.apply },
  });
  if ((index + 1) % 10 === 0) await report(true);
  process.stderr.write(
    `\r${index + 1}/${instances.length} ${instance.instance_id}: ${served.verdict}${served.verdict === local.verdict ? "" : ` (in-process: ${local.verdict})`}        `,
  );
}
process.stderr.write("\n");
await client.close();
repos.close();
await rm(root, { recursive: true, force: true });
process.stdout.write(await report(false));

/** The figures so far; written to --out (every 10 instances, so a cut-short run still has them) and, at the end, printed. */
async function report(partial: boolean): Promise<string> {
  const totalS = (performance.now() - began) / 1000;
  const stats = (values: number[]) => {
    const sorted = values.filter((v) => v > 0).sort((a, b) => a - b);
    return { median: quantile(sorted, 0.5) ?? 0, p90: quantile(sorted, 0.9) ?? 0 };
  };
  const ran = outcomes.filter((o) => !o.server.startsWith("no "));
  const figures = {
    partial,
    instances: instances.length,
    attempted: outcomes.length,
    replayed: ran.length,
    identical: ran.filter((o) => o.server === "identical").length,
    identicalInProcess: ran.filter((o) => o.inProcess === "identical").length,
    start_ms: { ...stats(starts), all: starts.map(Math.round) },
    help_ms: { ...stats(helps), all: helps.map(Math.round) },
    compile_patch_ms: {
      server: stats(ran.map((o) => o.ms.compile)),
      inProcess: stats(ran.map((o) => o.ms.compileInProcess)),
    },
    apply_plan_ms: { server: stats(ran.map((o) => o.ms.apply)), inProcess: stats(ran.map((o) => o.ms.applyInProcess)) },
    total_s: Math.round(totalS),
    byRepo: Object.fromEntries(
      [...new Set(outcomes.map((o) => o.repo))].map((repo) => [
        repo,
        `${ran.filter((o) => o.repo === repo && o.server === "identical").length}/${outcomes.filter((o) => o.repo === repo).length}`,
      ]),
    ),
  };
  const f = (n: number) => n.toFixed(1);
  const out = [
    `instances: ${figures.instances}; attempted: ${figures.attempted}; replayed: ${figures.replayed}; identical post-images through the server: ${figures.identical}/${figures.replayed} (in-process: ${figures.identicalInProcess}/${figures.replayed})`,
    `per repository: ${Object.entries(figures.byRepo)
      .map(([repo, n]) => `${repo} ${n}`)
      .join(", ")}`,
    `server start (spawn → initialize → tools/list), ${STARTS} starts: median ${f(figures.start_ms.median)} ms, p90 ${f(figures.start_ms.p90)} ms (${figures.start_ms.all.join(", ")})`,
    `beside it, \`graphplan --help\`, ${STARTS} runs: median ${f(figures.help_ms.median)} ms, p90 ${f(figures.help_ms.p90)} ms (${figures.help_ms.all.join(", ")})`,
    "| tool call | server median | server p90 | in-process median | in-process p90 |",
    "| --- | --- | --- | --- | --- |",
    `| compile_patch | ${f(figures.compile_patch_ms.server.median)} ms | ${f(figures.compile_patch_ms.server.p90)} ms | ${f(figures.compile_patch_ms.inProcess.median)} ms | ${f(figures.compile_patch_ms.inProcess.p90)} ms |`,
    `| apply_plan | ${f(figures.apply_plan_ms.server.median)} ms | ${f(figures.apply_plan_ms.server.p90)} ms | ${f(figures.apply_plan_ms.inProcess.median)} ms | ${f(figures.apply_plan_ms.inProcess.p90)} ms |`,
    `${figures.replayed} instances, both ways: ${figures.total_s} s`,
  ];
  for (const o of ran.filter((o) => o.server !== "identical" || o.inProcess !== "identical"))
    out.push(`not identical: ${o.id}: server ${o.server}; in-process ${o.inProcess}`);
  for (const o of outcomes.filter((o) => o.server.startsWith("no "))) out.push(`not replayed: ${o.id}: ${o.server}`);
  const text = `${out.join("\n")}\n`;
  if (options.out) await writeFile(options.out, `${JSON.stringify({ figures, summary: text, outcomes }, null, 2)}\n`);
  return text;
}

/**
 * Plans as LLMs really write them. Every gold patch of the dataset is compiled into a plan
 * (`compile` of @graphplan/bench, on the pre-images read from the bare clones); the plan is
 * mutated one mistake per variant (src/mutate.ts); each variant goes the way of
 * `graphplan apply PLAN --json` (the plan's front door `parsePlan`, the verifier, then the runtime's
 * all-or-nothing apply, on an in-memory workspace) and is classified:
 *
 * - corrected: exit 0 and the files equal the gold result;
 * - rejected, says the fix: refused, and the message names the fix (the words of the variant);
 * - rejected, vague: refused otherwise;
 * - silent wrong: exit 0 with another result (of which: Python files CPython cannot compile;
 *   and, for mistakes that yield another valid plan, how many the verifier warned about).
 *
 * Usage: pnpm -s bench --repos DIR --dataset FILE [--limit N] [--offset N] [--mistakes a,b] [--samples N]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { GitObjectReader, readDataset, repositoryPath } from "@graphplan/bench";
import { compile, parseUnifiedDiff, postImages, preImagePaths } from "@graphplan/compiler";
import { buildGraph, loadGrammarsFor, type Graph } from "@graphplan/graph";
import { PlanSession, planParts, pythonIndentProblems, type WrittenPlan } from "@graphplan/primitives";
import { applyPlan, Workspace } from "@graphplan/runtime";
import { formalHandlers, parsePlan } from "@graphplan/catalog";
import { renderIssue, verifyPlan } from "@graphplan/verifier";
import { Effect, Result } from "effect";
import { MISTAKES, ROOT, variantsOf, type Mistake, type StepContext, type Variant } from "./mutate.js";

type Outcome =
  | { ok: true; files: Map<string, string>; warnings: string[]; notes: string[] }
  | { ok: false; message: string };

/** A path the verifier reports but `graphplan apply` refuses itself (apps/agent/src/commands/verify.ts, `outsideRoot`). */
const outside = (p: string): boolean => p.startsWith("/") || p.split("/").includes("..");

/**
 * `graphplan apply --json` in process (apps/agent/src/commands/apply.ts): `parsePlan` with the root, whose first
 * problem is the one-line error; `verifyPlan`, whose errors refuse the plan unless the apply refuses it itself (a
 * plan-wide problem, a path outside the root); then the runtime's `applyPlan`.
 */
export async function applyLikeCli(raw: unknown, files: ReadonlyMap<string, string>, graph: Graph): Promise<Outcome> {
  const parsed = parsePlan(raw, { root: ROOT });
  if (!parsed.ok) {
    const first = parsed.issues.find((i) => i.severity === "error")!;
    return { ok: false, message: `not a valid plan: ${renderIssue(first)}` };
  }
  const notes = parsed.warnings.map((w) => w.message.replace(/^corrected: /, ""));
  const plan = parsed.plan;
  const verdict = await verifyPlan(plan, files, graph, { handlers: formalHandlers, root: ROOT });
  const refusedByApply = verdict.issues.some(
    (i) => i.severity === "error" && (i.check === "plan" || (i.file !== undefined && outside(i.file))),
  );
  if (!verdict.passed && !refusedByApply) return { ok: false, message: verdict.errors.join("\n") };
  const program = Effect.gen(function* () {
    const result = yield* applyPlan(plan);
    if (!result.ok) return { ok: false as const, message: result.failure.message };
    const ws = yield* Workspace;
    const out = new Map<string, string>();
    for (const path of files.keys()) out.set(path, yield* ws.read(path));
    return { ok: true as const, files: out, warnings: verdict.warnings, notes };
  });
  const outcome = await Effect.runPromise(Effect.result(Effect.provide(program, Workspace.layerMemory(files))));
  if (Result.isFailure(outcome)) {
    const e: unknown = outcome.failure;
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  return outcome.success;
}

/** Which of `sources` CPython cannot compile (one python3 process for all). */
export function notCompiling(sources: readonly { path: string; source: string }[]): boolean[] {
  if (sources.length === 0) return [];
  const script =
    "import json,sys\nfor item in json.load(sys.stdin):\n    try:\n        compile(item['source'], item['path'], 'exec')\n        print(0)\n    except (SyntaxError, ValueError):\n        print(1)\n";
  const out = execFileSync("python3", ["-W", "ignore", "-c", script], {
    input: JSON.stringify(sources),
    maxBuffer: 1 << 26,
  }).toString();
  return out
    .trim()
    .split("\n")
    .map((l) => l === "1");
}

const COLUMNS = [
  "variants",
  "corrected",
  "rejected, says the fix",
  "rejected, vague",
  "silent wrong",
  "of which do not compile",
  "of which warned",
] as const;
type Row = Record<(typeof COLUMNS)[number], number>;
const emptyRow = (): Row => Object.fromEntries(COLUMNS.map((c) => [c, 0])) as Row;

const USAGE =
  "usage: pnpm --filter @graphplan/bench-plan-mistakes bench -- --repos DIR --dataset FILE [--limit N] [--offset N] [--mistakes a,b] [--samples N] [--only ID,ID] [--verbose] [--dump DIR]";

/** The usage line on stderr after `problem`, and exit 2. */
function usageError(problem: string): never {
  process.stderr.write(`plan-mistakes: ${problem}\n${USAGE}\n`);
  process.exit(2);
}

/** The options, checked; relative paths are the caller's (pnpm runs a package's script in its folder and says where it was called from in INIT_CWD). */
function argumentsOf() {
  // `pnpm --filter ... bench -- --repos ...` passes the `--` on.
  const argv = process.argv.slice(2);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv[0] === "--" ? argv.slice(1) : argv,
      options: {
        repos: { type: "string" },
        dataset: { type: "string" },
        limit: { type: "string" },
        offset: { type: "string" },
        mistakes: { type: "string" },
        samples: { type: "string", default: "2" },
        verbose: { type: "boolean" },
        dump: { type: "string" },
        only: { type: "string" },
      },
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const values = parsed.values;
  if (!values.repos || !values.dataset)
    return usageError("give --repos (clones as <owner>__<name>, bare or plain) and --dataset (SWE-bench JSONL)");
  const callerDir = (process.env.npm_lifecycle_event === "bench" && process.env.INIT_CWD) || process.cwd();
  const repos = resolve(callerDir, values.repos);
  const dataset = resolve(callerDir, values.dataset);
  if (!statSync(repos, { throwIfNoEntry: false })?.isDirectory())
    usageError(`--repos ${values.repos}: no such directory`);
  if (!statSync(dataset, { throwIfNoEntry: false })?.isFile()) usageError(`--dataset ${values.dataset}: no such file`);
  for (const key of ["limit", "offset", "samples"] as const)
    if (values[key] !== undefined && !/^\d+$/.test(values[key]))
      usageError(`--${key} ${values[key]}: give a whole number`);
  const unknown = values.mistakes?.split(",").filter((m) => !(MISTAKES as readonly string[]).includes(m));
  if (unknown?.length) usageError(`unknown mistake ${unknown.join(", ")}; the mistakes: ${MISTAKES.join(", ")}`);
  return { ...values, repos, dataset, dump: values.dump === undefined ? undefined : resolve(callerDir, values.dump) };
}

async function main(): Promise<void> {
  const values = argumentsOf();
  const wanted = new Set<Mistake>((values.mistakes?.split(",") as Mistake[] | undefined) ?? MISTAKES);
  const lines = (await readDataset(values.dataset)).slice(Number(values.offset ?? 0));
  const limit = values.limit ? Number(values.limit) : lines.length;
  const rows = new Map<Mistake, Row>(MISTAKES.filter((m) => wanted.has(m)).map((m) => [m, emptyRow()]));
  const samples = new Map<string, string[]>();
  const sample = (key: string, text: string): void => {
    const list = samples.get(key) ?? [];
    if (list.length < Number(values.samples)) list.push(text);
    samples.set(key, list);
  };
  const readers = new Map<string, GitObjectReader | null>();
  let noRepo = 0;
  let scanned = 0;
  let flagged = 0;
  let instances = 0;
  let skipped = 0;
  const started = performance.now();
  for (const line of lines.slice(0, limit)) {
    if (!line.ok) continue;
    const inst = line.instance;
    if (values.only && !values.only.split(",").includes(inst.instance_id)) continue;
    let reader = readers.get(inst.repo);
    if (reader === undefined) {
      try {
        reader = new GitObjectReader(inst.repo, repositoryPath(inst.repo, values.repos, {}));
      } catch {
        reader = null;
      }
      readers.set(inst.repo, reader);
    }
    if (reader === null) {
      noRepo++;
      continue;
    }
    let patches: ReturnType<typeof parseUnifiedDiff>;
    try {
      patches = parseUnifiedDiff(inst.patch);
    } catch {
      skipped++; // a patch no plan expresses (a binary file): `bench replay` reports those
      continue;
    }
    const pre = new Map<string, string>();
    for (const path of preImagePaths(patches)) {
      const text = await reader.file(inst.base_commit, path);
      if (text !== undefined) pre.set(path, text);
    }
    const post = postImages(patches, pre);
    const pyPre = [...pre].filter(([path]) => path.endsWith(".py")).map(([path, source]) => ({ path, source }));
    const uncompilable = notCompiling(pyPre);
    for (const [k, { path, source }] of pyPre.entries()) {
      if (uncompilable[k]) continue; // only files CPython compiles: a flag on one of them is a false alarm
      scanned++;
      if (pythonIndentProblems(source).length > 0) {
        flagged++;
        sample("indentation check flagged a pre-image", `${inst.instance_id} ${path}`);
      }
    }
    await loadGrammarsFor([...pre.keys(), ...post.keys()]);
    let plan: WrittenPlan;
    try {
      plan = compile(pre, inst.patch).plan;
    } catch {
      skipped++;
      continue;
    }
    const graph = await buildGraph([...pre].map(([path, source]) => ({ path, source })));
    const gold = new Map([...pre].map(([p, s]) => [p, (post.get(p) ?? s) as string]));
    const same = (files: ReadonlyMap<string, string>): boolean => [...gold].every(([p, s]) => files.get(p) === s);
    const base = await applyLikeCli(JSON.parse(JSON.stringify(plan)), pre, graph);
    if (!base.ok || !same(base.files)) {
      skipped++;
      continue;
    }
    instances++;
    // What the files were before each step.
    const contexts: StepContext[] = [];
    const session = new PlanSession(pre, { handlers: formalHandlers });
    try {
      for (const step of planParts(plan).steps) {
        contexts.push({
          step,
          sources: new Map(session.paths().map((p): [string, string] => [p, session.text(p) ?? ""])),
        });
        const r = session.run(step);
        if (!r.ok) break;
        session.commit();
      }
    } finally {
      session.dispose();
    }
    const variants = variantsOf(plan, contexts).filter((v) => wanted.has(v.mistake));
    const wrong: { variant: Variant; files: Map<string, string> }[] = [];
    for (const variant of variants) {
      if (variant.baseline !== undefined) {
        const b = await applyLikeCli(variant.baseline, pre, graph);
        if (!b.ok || !same(b.files)) continue;
      }
      const row = rows.get(variant.mistake)!;
      row.variants++;
      let outcome: Outcome;
      try {
        outcome = await applyLikeCli(variant.plan, pre, graph);
      } catch (error) {
        outcome = { ok: false, message: `CRASH ${(error as Error).stack}` };
      }
      if (outcome.ok && same(outcome.files)) {
        row.corrected++;
        if (outcome.notes.length) sample(`${variant.mistake} corrected`, outcome.notes.join(" | "));
      } else if (outcome.ok) {
        row["silent wrong"]++;
        if (variant.mayBeValid && outcome.warnings.some((w) => /position|index|one letter off/i.test(w)))
          row["of which warned"]++;
        wrong.push({ variant, files: outcome.files });
        if (values.dump) {
          const dir = join(values.dump, `${inst.instance_id}-${variant.mistake}-${row.variants}`);
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, "plan.json"), JSON.stringify(variant.plan, null, 2));
          for (const [path, text] of outcome.files)
            if (text !== gold.get(path)) {
              writeFileSync(join(dir, `${path.replace(/\//g, "_")}.got`), text);
              writeFileSync(join(dir, `${path.replace(/\//g, "_")}.want`), gold.get(path)!);
            }
        }
      } else if (
        variant.fixWords.every((w) =>
          typeof w === "string" ? outcome.message.toLowerCase().includes(w.toLowerCase()) : w.test(outcome.message),
        )
      ) {
        row["rejected, says the fix"]++;
        sample(`${variant.mistake} says fix`, `${inst.instance_id}: ${outcome.message.slice(0, 400)}`);
      } else {
        row["rejected, vague"]++;
        sample(
          `${variant.mistake} vague`,
          `${inst.instance_id}: ${outcome.message.slice(0, 400)} [wanted: ${variant.fixWords.join(", ")}]`,
        );
      }
    }
    // Silent wrong results: which Python files do not compile.
    const checks: { path: string; source: string; at: number }[] = [];
    wrong.forEach((w, at) => {
      for (const [path, source] of w.files)
        if (path.endsWith(".py") && source !== pre.get(path) && source !== gold.get(path))
          checks.push({ path, source, at });
    });
    const bad = notCompiling(checks);
    const counted = new Set<number>();
    checks.forEach((c, k) => {
      if (bad[k] && !counted.has(c.at)) {
        counted.add(c.at);
        rows.get(wrong[c.at]!.variant.mistake)!["of which do not compile"]++;
        sample(`${wrong[c.at]!.variant.mistake} does not compile`, `${inst.instance_id} ${c.path}`);
      }
    });
    for (const w of wrong) sample(`${w.variant.mistake} silent wrong`, `${inst.instance_id}`);
    if (values.verbose)
      process.stderr.write(
        `${inst.instance_id}: ${variants.length} variants (${Math.round((performance.now() - started) / 1000)} s)\n`,
      );
  }
  for (const r of readers.values()) r?.close();
  const total = emptyRow();
  const table = [`| mistake | ${COLUMNS.join(" | ")} |`, `|---|${COLUMNS.map(() => "---").join("|")}|`];
  for (const [mistake, row] of rows) {
    for (const c of COLUMNS) total[c] += row[c];
    table.push(`| ${mistake} | ${COLUMNS.map((c) => row[c]).join(" | ")} |`);
  }
  table.push(`| **all** | ${COLUMNS.map((c) => `**${total[c]}**`).join(" | ")} |`);
  process.stdout.write(
    `${instances} instances (${skipped} skipped: no exact gold plan; ${noRepo} without a clone), ${Math.round((performance.now() - started) / 1000)} s, the Python indentation check flags ${flagged} of the ${scanned} pre-image files CPython compiles\n\n${table.join("\n")}\n\n`,
  );
  for (const [key, list] of [...samples].sort())
    process.stdout.write(`${key}:\n${list.map((s) => `  ${s}`).join("\n")}\n`);
}

await main();

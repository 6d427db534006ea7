/**
 * Runs on disk for tests and benchmarks: `writeRun(dir, options)` writes what `bench run` writes —
 * `OUT/<id>/trajectory.json` and, when evaluated, `OUT/eval/<run>/<model>/<id>/{report.json,
 * test_output.txt, patch.diff}` — for made-up instances, deterministic for a given `seed`. Every
 * trajectory parses with `TrajectorySchema`. Each instance has two plan versions: the first fails
 * verification with an issue pinned to its second step, the second passes and says where each step
 * changed the code.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { TrajectorySchema, type Trajectory } from "@graphplan/agent";
import type { ArmResult, CompareReport, InstanceArm } from "./compare-format.js";
import type { InstanceReport } from "./formats.js";

/**
 * The Chromium the page's tests drive: `CHROMIUM` if set, else Debian's `/usr/bin/chromium`
 * (`.ci/chromium-setup.sh` installs it). Throws, saying how to get one, when it is missing.
 */
export function chromiumPath(): string {
  const path = process.env["CHROMIUM"] ?? "/usr/bin/chromium";
  if (!existsSync(path))
    throw new Error(
      `no Chromium at ${path}: run \`bash .ci/chromium-setup.sh\` (Debian's chromium package), or set CHROMIUM=/path/to/chromium`,
    );
  return path;
}

export interface WriteRunOptions {
  readonly instances: number;
  /** Characters of padding in each instance's observations: ~100_000 gives trajectories of ~100 kB. */
  readonly padding?: number;
  /** Write evaluation reports too (every third instance resolved, one in seven an evaluation error). */
  readonly evaluated?: boolean;
  readonly seed?: number;
}

const REPOS = ["django__django", "sympy__sympy", "pytest-dev__pytest", "pallets__flask", "sphinx-doc__sphinx"];

/** The instance ids `writeRun` uses, in order. */
export const runInstanceIds = (count: number, seed = 1): string[] =>
  Array.from({ length: count }, (_, i) => `${REPOS[(i + seed) % REPOS.length]}-${10000 + i * 7 + seed}`);

/** The verifier's error every first plan version carries on its second step (`plan[1]`). */
export const PINNED_ISSUE = "locator matched no function named 'normalise' in src/text.py";

// Long on purpose: a test fixture: one trajectory literal with every field the page shows, varied by instance.
function trajectoryOf(id: string, i: number, padding: number): Trajectory {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 12, 0, s + i)).toISOString();
  const status = i % 5 === 4 ? "Failed" : i % 11 === 10 ? "LimitsExceeded" : "Submitted";
  const locator = { kind: "function", name: "normalize", file: "src/text.py" };
  const plan1 = [
    {
      op: "replace_node",
      params: {
        locator: { kind: "return", file: "src/text.py", parent: { kind: "function", name: "normalize" } },
        replacement: "return value.strip().lower()",
      },
    },
    {
      op: "insert_after_node",
      params: {
        locator: { kind: "function", name: "normalise", file: "src/text.py" },
        code: "def slug(value):\n    return normalize(value).replace(' ', '-')",
      },
    },
  ];
  const changelog = {
    op: "insert_text",
    params: {
      file: "CHANGES.rst",
      anchor: "Unreleased\n\n",
      position: "after",
      text: "-   ``normalize`` lower-cases.\n",
    },
  };
  const plan2 = [
    plan1[0],
    {
      op: "insert_after_node",
      params: { locator, code: "def slug(value):\n    return normalize(value).replace(' ', '-')" },
    },
    changelog,
  ];
  const patch = `diff --git a/src/text.py b/src/text.py\n--- a/src/text.py\n+++ b/src/text.py\n@@ -1,2 +1,6 @@\n def normalize(value):\n-    return value.strip()\n+    return value.strip().lower()\n+\n+\n+def slug(value):\n+    return normalize(value).replace(' ', '-')\ndiff --git a/CHANGES.rst b/CHANGES.rst\n--- a/CHANGES.rst\n+++ b/CHANGES.rst\n@@ -4,3 +4,4 @@\n Unreleased\n \n+-   \`\`normalize\`\` lower-cases.\n -   Drop Python 3.9.\n`;
  const observation = `$ pytest tests/test_text.py\n${"collected 12 items\n".repeat(Math.max(1, Math.floor(padding / 19)))}`;
  // The first call writes the prompt's first 4,096 tokens to the cache, the later ones read them.
  const assistant = (content: string, phase: Trajectory["messages"][number]["phase"], s: number) => ({
    role: "assistant" as const,
    content,
    phase,
    at: at(s),
    costUsd: 0.0123,
    usage: {
      inputTokens: 5200 + i,
      outputTokens: 310,
      cacheReadTokens: s === 1 ? 0 : CACHED,
      cacheWriteTokens: s === 1 ? CACHED : 0,
    },
    stopReason: "end_turn",
  });
  const messages: Trajectory["messages"] = [
    { role: "system", content: "You are GraphPlan's planner.", phase: "explore", at: at(0) },
    { role: "user", content: `Fix ${id}: normalize() must lower-case.`, phase: "explore", at: at(0) },
    assistant("FILES: src/text.py", "explore", 1),
    { role: "user", content: observation, phase: "graph", at: at(2) },
    assistant(`\`\`\`json\n${JSON.stringify({ plan: plan1 })}\n\`\`\``, "plan", 3),
    {
      role: "user",
      content: `Verification failed:\nStep 2 (insert_after_node): ${PINNED_ISSUE}`,
      phase: "verify",
      at: at(4),
    },
    assistant(`\`\`\`json\n${JSON.stringify({ plan: plan2 })}\n\`\`\``, "plan", 5),
    { role: "user", content: "Applied: src/text.py", phase: "execute", at: at(6) },
  ];
  const issue = {
    step: 1,
    op: "insert_after_node",
    check: "locator" as const,
    severity: "error" as const,
    message: PINNED_ISSUE,
    fix: "use the name the graph lists: normalize",
    file: "src/text.py",
  };
  return TrajectorySchema.parse({
    format: "graphplan-trajectory/1",
    instance: {
      id,
      task: `normalize() in src/text.py must return lower-case text (${id}).\n\nSteps to reproduce: call normalize(" A ").`,
    },
    config: { name: "default", limits: { costLimit: 3 } },
    model: "claude-sonnet-4-5",
    sandbox: "docker",
    workspace: "/testbed",
    messages,
    transitions: [
      { from: null, to: "explore", reason: "start", atMessage: 0 },
      { from: "explore", to: "graph", reason: "files chosen", atMessage: 3 },
      { from: "graph", to: "plan", reason: "graph built", atMessage: 4 },
      { from: "plan", to: "verify", reason: "plan parsed", atMessage: 5 },
      { from: "verify", to: "plan", reason: "verification failed: revise", atMessage: 6 },
      { from: "plan", to: "execute", reason: "verified", atMessage: 7 },
      ...(status === "Submitted"
        ? [{ from: "execute" as const, to: "submit" as const, reason: "applied", atMessage: 7 }]
        : []),
    ],
    files: ["src/text.py"],
    plans: [
      {
        attempt: 1,
        atMessage: 4,
        valid: true,
        channel: "json block",
        plan: { plan: plan1 },
        verify: {
          passed: false,
          errors: [`Step 2 (insert_after_node): ${PINNED_ISSUE}`],
          warnings: [],
          issues: [issue],
          places: [
            {
              step: 0,
              file: "src/text.py",
              line: 2,
              afterLine: 2,
              before: "    return value.strip()",
              after: "    return value.strip().lower()",
            },
          ],
        },
      },
      {
        attempt: 2,
        atMessage: 6,
        valid: true,
        channel: "json block",
        plan: { plan: plan2 },
        verify: {
          passed: true,
          errors: [],
          warnings: [],
          issues: [],
          places: [
            {
              step: 0,
              file: "src/text.py",
              line: 2,
              afterLine: 2,
              before: "    return value.strip()",
              after: "    return value.strip().lower()",
            },
            {
              step: 1,
              file: "src/text.py",
              line: 1,
              afterLine: 1,
              before: "def normalize(value):\n    return value.strip().lower()",
              after:
                "def normalize(value):\n    return value.strip().lower()\n\n\ndef slug(value):\n    return normalize(value).replace(' ', '-')",
            },
            {
              step: 2,
              file: "CHANGES.rst",
              line: 4,
              afterLine: 4,
              before: "Unreleased\n\n-   Drop Python 3.9.",
              after: "Unreleased\n\n-   ``normalize`` lower-cases.\n-   Drop Python 3.9.",
            },
          ],
        },
        apply: { ok: true, written: ["src/text.py", "CHANGES.rst"], created: [] },
      },
    ],
    submissions:
      status === "Submitted"
        ? [
            {
              phase: "submit",
              atMessage: 7,
              ok: true,
              patch,
              checks: {
                diffHeader: true,
                fileMarkers: true,
                hunks: true,
                additions: true,
                deletions: true,
                applies: true,
              },
              problems: [],
            },
          ]
        : [],
    exitStatus: status,
    exitReason:
      status === "Submitted"
        ? "submitted"
        : status === "Failed"
          ? "plan verification failed after 3 revisions"
          : "cost limit $3.00 reached",
    patch: status === "Submitted" ? patch : "",
    startedAt: at(0),
    finishedAt: at(20 + (i % 40)),
    totals: {
      costUsd: 0.0369,
      modelCalls: 3,
      modelMs: 9000,
      commandMs: 800,
      // Every sixth instance as written before tokens were totalled: the page sums its replies.
      ...(i % 6 === 5
        ? {}
        : {
            inputTokens: 3 * (5200 + i),
            outputTokens: 930,
            cacheReadTokens: 2 * CACHED,
            cacheWriteTokens: CACHED,
            byPhase: {
              explore: { ...call(i), cacheWriteTokens: CACHED },
              plan: {
                modelCalls: 2,
                costUsd: 0.0246,
                inputTokens: 2 * (5200 + i),
                outputTokens: 620,
                cacheReadTokens: 2 * CACHED,
                cacheWriteTokens: 0,
              },
            },
          }),
    },
  });
}

/** Tokens each instance's first call writes to the prompt cache and its two later calls read. */
export const CACHED = 4096;
const call = (i: number) => ({
  modelCalls: 1,
  costUsd: 0.0123,
  inputTokens: 5200 + i,
  outputTokens: 310,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** Writes a run of `options.instances` made-up instances under `dir`; returns their ids. */
export async function writeRun(dir: string, options: WriteRunOptions): Promise<string[]> {
  const ids = runInstanceIds(options.instances, options.seed);
  const model = "claude-sonnet-4-5";
  await Promise.all(
    ids.map(async (id, i) => {
      const t = trajectoryOf(id, i, options.padding ?? 2_000);
      await mkdir(join(dir, id), { recursive: true });
      await writeFile(join(dir, id, "trajectory.json"), `${JSON.stringify(t, null, 2)}\n`);
      if (!options.evaluated || t.exitStatus !== "Submitted") return;
      const evalDir = join(dir, "eval", "graphplan", model, id);
      await mkdir(evalDir, { recursive: true });
      await writeFile(join(evalDir, "patch.diff"), t.patch);
      await writeFile(
        join(evalDir, "test_output.txt"),
        `+ pytest tests/test_text.py\ntests/test_text.py::test_lower ${i % 3 === 0 ? "PASSED" : "FAILED"}\ntests/test_text.py::test_strip PASSED\n`,
      );
      if (i % 7 === 6) return; // an evaluation error: no report.json
      const resolved = i % 3 === 0;
      const report: InstanceReport = {
        [id]: {
          patch_is_None: false,
          patch_exists: true,
          patch_successfully_applied: true,
          resolved,
          tests_status: {
            FAIL_TO_PASS: {
              success: resolved ? ["tests/test_text.py::test_lower"] : [],
              failure: resolved ? [] : ["tests/test_text.py::test_lower"],
            },
            PASS_TO_PASS: { success: ["tests/test_text.py::test_strip"], failure: [] },
            FAIL_TO_FAIL: { success: [], failure: [] },
            PASS_TO_FAIL: { success: [], failure: [] },
          },
        },
      };
      await writeFile(join(evalDir, "report.json"), `${JSON.stringify(report, null, 4)}\n`);
    }),
  );
  return ids;
}

/**
 * What each arm of `writeComparison` spent on every instance: graphplan half of the baseline's input (a third of
 * its uncached input: 2,000 against 6,000; 6,000 cache reads against 14,000, and cache writes the baseline has
 * none of), half its output and half its dollars.
 */
export const COMPARISON_SPENT = {
  graphplan: {
    model_calls: 3,
    cost_usd: 0.05,
    input_tokens: 10_000,
    output_tokens: 500,
    cache_read_tokens: 6000,
    cache_write_tokens: 2000,
  },
  baseline: {
    model_calls: 6,
    cost_usd: 0.1,
    input_tokens: 20_000,
    output_tokens: 1000,
    cache_read_tokens: 14_000,
    cache_write_tokens: 0,
  },
} as const;

/** What `writeComparison` made: the instance ids, and which of them each arm resolved. */
export interface WrittenComparison {
  readonly ids: readonly string[];
  readonly resolved: { readonly graphplan: readonly string[]; readonly baseline: readonly string[] };
}

/**
 * Writes what `bench compare` writes for arms `graphplan` and `baseline` over five made-up instances:
 * each arm's run (`DIR/<arm>/`, by `writeRun`; the baseline's tasks start with "[baseline]" so a page
 * can tell whose trajectory it shows) and `DIR/compare.json`, in which graphplan resolves the first
 * four and baseline the first and the fifth (both 1, only graphplan 3, only baseline 1, neither 0).
 */
export async function writeComparison(dir: string): Promise<WrittenComparison> {
  const ids = await writeRun(join(dir, "graphplan"), { instances: 5 });
  await writeRun(join(dir, "baseline"), { instances: 5 });
  for (const id of ids) {
    const file = join(dir, "baseline", id, "trajectory.json");
    const t = TrajectorySchema.parse(JSON.parse(await readFile(file, "utf8")));
    await writeFile(
      file,
      `${JSON.stringify({ ...t, instance: { ...t.instance, task: `[baseline] ${t.instance.task}` } }, null, 2)}\n`,
    );
  }
  const resolved = { graphplan: ids.slice(0, 4), baseline: [ids[0]!, ids[4]!] };
  const spent = COMPARISON_SPENT;
  const outcome = (arm: "graphplan" | "baseline", id: string, i: number): InstanceArm => ({
    resolved: resolved[arm].includes(id),
    eval: resolved[arm].includes(id) ? "resolved" : "unresolved",
    agent: "Submitted",
    ending: arm === "graphplan" && i === 4 ? "fallback" : "submitted",
    ...spent[arm],
    ms: 20_000,
    trajectory: `${arm}/${id}/trajectory.json`,
  });
  const arm = (label: "graphplan" | "baseline"): ArmResult => ({
    label,
    strategy: label,
    config: null,
    instances: 5,
    resolved: resolved[label].length,
    resolve_rate: resolved[label].length / 5,
    endings:
      label === "graphplan"
        ? { submitted: 4, fallback: 1, limit: 0, failed: 0 }
        : { submitted: 5, fallback: 0, limit: 0, failed: 0 },
    model_calls: 5 * spent[label].model_calls,
    input_tokens: 5 * spent[label].input_tokens,
    output_tokens: 5 * spent[label].output_tokens,
    cache_read_tokens: 5 * spent[label].cache_read_tokens,
    cache_write_tokens: 5 * spent[label].cache_write_tokens,
    cost_usd: 5 * spent[label].cost_usd,
    agent_ms: 100_000,
    wall_ms: 130_000,
    graphplan:
      label === "graphplan"
        ? { planned: 5, verified_first_time: 3, revisions: 2, fallbacks_by_phase: { verify: 1 } }
        : null,
  });
  const report: CompareReport = {
    format: "graphplan-bench-compare/1",
    created: "2026-11-27T12:00:00.000Z",
    spec: {
      arms: [
        { label: "graphplan", strategy: "graphplan", config: null },
        { label: "baseline", strategy: "baseline", config: null },
      ],
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      dataset: "/data/lite.jsonl",
    },
    results: {
      instances: 5,
      arms: [arm("graphplan"), arm("baseline")],
      paired: { both: 1, onlyA: 3, onlyB: 1, neither: 0 },
      difference: 0.4,
      interval: { low: -0.2, high: 0.8, level: 0.95, resamples: 10_000, seed: 42 },
      mcnemar_p: 0.625,
      spend_ratio: {
        input_tokens: 0.5,
        uncached_input_tokens: 2000 / 6000,
        cache_read_tokens: 6000 / 14_000,
        cache_write_tokens: null,
        output_tokens: 0.5,
        cost_usd: 0.5,
      },
      cheaper: { a: 5, b: 0, same: 0 },
      per_instance: ids.map((id, i) => ({
        instance_id: id,
        arms: [outcome("graphplan", id, i), outcome("baseline", id, i)],
        difference: {
          input_tokens: -10_000,
          uncached_input_tokens: -4000,
          cache_read_tokens: -8000,
          cache_write_tokens: 2000,
          output_tokens: -500,
          cost_usd: -0.05,
        },
      })),
    },
  };
  await writeFile(join(dir, "compare.json"), `${JSON.stringify(report, null, 2)}\n`);
  return { ids, resolved };
}

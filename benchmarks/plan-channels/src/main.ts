/**
 * Plans as models send them, through the whole agent. For each bad-model mode (src/modes.ts), a
 * stand-in model server speaking Anthropic's Messages API plays the model of every selected SWE-bench
 * instance: it explores with one command, names the gold patch's files, then sends the gold plan (as
 * compiled by the gold replay) the mode's way, and corrects it after the agent's nudge. The agent runs
 * as `bench agent` runs it (`runAgentBench`: a worktree per instance, the real Anthropic SDK, the
 * default config), and each trajectory says whether a valid plan got through, after how many PLAN
 * attempts, and what the run's diff was. The server counts what the agent sent.
 *
 * Usage: pnpm -s bench --repos DIR --dataset FILE [--filter REGEX] [--slice a:b] [--modes a,b]
 *        [--workers N] [--out DIR] [--no-full-prompt]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig, type Trajectory } from "@graphplan/agent";
import { Repositories, instanceDir, readDataset, replayInstance, runAgentBench } from "@graphplan/bench";
import { anthropicMessage, startProviderServer, type ReceivedRequest } from "@graphplan/runtime/testing";
import * as Effect from "effect/Effect";
import { stringify } from "yaml";
import { MODES, turnOf, type Mode, type Reply } from "./modes.js";

const KEY_ENV = "GRAPHPLAN_PLAN_CHANNELS_KEY";
const usage =
  "usage: pnpm -s bench --repos DIR --dataset FILE [--filter REGEX] [--slice a:b] [--modes a,b] [--workers N] [--out DIR] [--no-full-prompt]";

function fail(message: string): never {
  process.stderr.write(`plan-channels: ${message}\n${usage}\n`);
  process.exit(2);
}

const { values } = (() => {
  try {
    // `pnpm --filter ... bench -- --repos ...` passes the `--` on.
    const argv = process.argv.slice(2);
    return parseArgs({
      args: argv[0] === "--" ? argv.slice(1) : argv,
      options: {
        repos: { type: "string" },
        dataset: { type: "string" },
        filter: { type: "string", default: "^(pallets__flask|psf__requests)-" },
        slice: { type: "string" },
        modes: { type: "string" },
        workers: { type: "string", default: "1" },
        out: { type: "string" },
        "no-full-prompt": { type: "boolean", default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
if (!values.repos || !values.dataset)
  fail("give --repos (clones as <owner>__<name>, bare or plain) and --dataset (SWE-bench JSONL)");
// Paths as the user meant them: pnpm runs a package's script in the package's folder and says where it was called from in INIT_CWD.
const callerDir = (process.env.npm_lifecycle_event === "bench" && process.env.INIT_CWD) || process.cwd();
values.repos = resolve(callerDir, values.repos);
values.dataset = resolve(callerDir, values.dataset);
if (values.out !== undefined) values.out = resolve(callerDir, values.out);
if (!statSync(values.repos, { throwIfNoEntry: false })?.isDirectory())
  fail(`--repos ${values.repos}: no such directory; give the directory of clones named <owner>__<name>`);
if (!statSync(values.dataset, { throwIfNoEntry: false })?.isFile())
  fail(
    `--dataset ${values.dataset}: no such file; give SWE-bench's JSONL (e.g. ../shared/datasets/swe-bench-lite.test.jsonl)`,
  );
const modes = values.modes
  ? values.modes
      .split(",")
      .map(
        (name) =>
          MODES.find((m) => m.name === name) ??
          fail(`unknown mode ${name}; modes: ${MODES.map((m) => m.name).join(", ")}`),
      )
  : MODES;
const workers = Number.parseInt(values.workers, 10);
if (!(workers >= 1)) fail(`--workers ${values.workers}: give a whole number ≥ 1`);
const out = values.out ?? mkdtempSync(join(tmpdir(), "graphplan-plan-channels-"));
mkdirSync(out, { recursive: true });

// 1. The gold plans, as the gold replay compiles them.
const lines = (await readDataset(values.dataset)).flatMap((line) => (line.ok ? [line] : []));
const filter = new RegExp(values.filter);
let selected = lines.filter((line) => filter.test(line.instance.instance_id));
if (values.slice) {
  const [a, b] = values.slice.split(":").map((s) => (s === "" ? undefined : Number.parseInt(s, 10)));
  selected = selected.slice(a ?? 0, b);
}
interface Gold {
  readonly id: string;
  readonly files: readonly string[];
  readonly plan: unknown;
  /** A piece of the problem statement that tells the instance's conversations apart. */
  readonly marker: string;
}
const golds: Gold[] = [];
const repositories = new Repositories({ reposDir: values.repos, repoMap: {} });
const replayDir = join(out, "gold-replay");
for (const line of selected) {
  const entry = await replayInstance(line, repositories, {
    outDir: replayDir,
    reposDir: values.repos,
    repoMap: {},
    gitCheck: false,
  });
  if (entry.status !== "exact") {
    process.stderr.write(`skipped ${line.instance.instance_id}: its gold replay is ${entry.status}\n`);
    continue;
  }
  const plan = JSON.parse(
    readFileSync(join(replayDir, instanceDir(line.instance.instance_id), "plan.json"), "utf8"),
  ) as unknown;
  golds.push({
    id: line.instance.instance_id,
    files: entry.files,
    plan,
    marker: String(line.instance.problem_statement).trim().slice(0, 160),
  });
}
repositories.close();
if (golds.length === 0)
  fail(
    `no instance matches --filter ${values.filter}${values.slice ? ` --slice ${values.slice}` : ""} with its repository under --repos`,
  );

// 2. The stand-in model: one server, the mode named by the model id, the instance by its problem statement.
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .map((block: Record<string, unknown>) =>
            block.type === "text" ? String(block.text) : block.type === "tool_result" ? textOf(block.content) : "",
          )
          .join("\n")
      : "";
interface Traffic {
  calls: number;
  chars: number;
}
const traffic = new Map<string, Traffic>();
const server = await startProviderServer((request: ReceivedRequest) => {
  const body = request.body as { model: string; messages: { role: string; content: unknown }[]; system?: unknown };
  const mode = MODES.find((m) => body.model === `bad-${m.name}`)!;
  const gold = golds.find((g) => body.messages.some((m) => m.role === "user" && textOf(m.content).includes(g.marker)));
  if (!gold)
    return {
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "no instance of the benchmark in this conversation" },
      },
    };
  const key = `${mode.name}/${gold.id}`;
  const seen = traffic.get(key) ?? { calls: 0, chars: 0 };
  traffic.set(key, { calls: seen.calls + 1, chars: seen.chars + JSON.stringify(request.body).length });
  const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
  // The plan file the prompts name (each instance of a local run has its own).
  const planFile =
    /the file (\S*edit_plan\.json)/.exec(body.messages.map((m) => textOf(m.content)).join("\n"))?.[1] ??
    "/tmp/edit_plan.json";
  const reply = replyOf(
    mode,
    gold,
    turnOf(textOf(lastUser?.content), body.messages.filter((m) => m.role === "assistant").length),
    planFile,
  );
  const inputTokens = Math.ceil(JSON.stringify(request.body).length / 4);
  return reply.kind === "tool"
    ? anthropicMessage({
        content: [
          { type: "text", text: "THOUGHT: the plan." },
          { type: "tool_use", id: `toolu_${seen.calls}`, name: "submit_plan", input: reply.input },
        ],
        inputTokens,
        outputTokens: 200,
        stopReason: "tool_use",
      })
    : anthropicMessage({
        content: [{ type: "text", text: reply.text }],
        inputTokens,
        outputTokens: Math.ceil(reply.text.length / 4),
        stopReason: reply.stopReason ?? "end_turn",
      });
});

function replyOf(mode: Mode, gold: Gold, turn: ReturnType<typeof turnOf>, planFile: string): Reply {
  const bash = (command: string) => ({
    kind: "text" as const,
    text: `THOUGHT: next.\n\n\`\`\`bash\n${command}\n\`\`\``,
  });
  switch (turn) {
    case "explore":
      return bash("git status --short && git ls-files | head -20");
    case "ready":
      return { kind: "text", text: `THOUGHT: the files to change.\n\nREADY_TO_PLAN: ${JSON.stringify(gold.files)}` };
    case "plan":
      return mode.first(gold.plan, planFile);
    case "nudge":
      return mode.corrected(gold.plan, planFile);
    case "review":
    case "fallback":
      return bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
  }
}

// 3. The agent on every instance, once per mode (and the baseline once more with the full prompt).
interface Variant {
  readonly mode: Mode;
  readonly prompt: "compact" | "full";
}
const variants: Variant[] = modes.map((mode) => ({ mode, prompt: "compact" }));
if (!values["no-full-prompt"] && modes.some((m) => m.name === "json-block"))
  variants.push({ mode: MODES.find((m) => m.name === "json-block")!, prompt: "full" });
const defaultPlanPrompt = (await Effect.runPromise(loadConfig())).config.prompts.plan;

process.env[KEY_ENV] = "bench-key";
const graphCacheDir = join(out, "graph-cache");
interface Row {
  readonly variant: string;
  readonly n: number;
  readonly firstValid: number;
  readonly firstVerified: number;
  readonly valid: number;
  readonly submittedWithPlan: number;
  readonly sameDiff: number;
  readonly attempts: number;
  readonly fallbacks: number;
  readonly calls: number;
  readonly planPromptChars: number;
  readonly inputChars: number;
}
const rows: Row[] = [];
const baselineDiffs = new Map<string, string>();
try {
  for (const variant of variants) {
    const name = `${variant.mode.name}${variant.prompt === "full" ? " (full prompt)" : ""}`;
    const dir = join(out, `${variant.mode.name}-${variant.prompt}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const config = {
      model: {
        provider: "anthropic",
        model: `bad-${variant.mode.name}`,
        baseUrl: server.origin,
        apiKeyEnv: KEY_ENV,
        maxRetries: 0,
        price: { inputPerMTok: 3, outputPerMTok: 15 },
      },
      limits: { step_limit: 30 },
      ...(variant.prompt === "full"
        ? {
            prompts: {
              plan: defaultPlanPrompt.replace(
                "{{catalog}}",
                "{{catalog_full}}\n\nThe plan's JSON Schema:\n{{plan_schema}}",
              ),
            },
          }
        : {}),
    };
    const configPath = join(dir, "config.yaml");
    writeFileSync(configPath, stringify(config));
    const started = performance.now();
    await Effect.runPromise(
      runAgentBench({
        dataset: values.dataset,
        reposDir: values.repos,
        instances: golds.map((g) => g.id),
        workers,
        graphCacheDir,
        outDir: dir,
        configPath,
        model: { provider: "anthropic", model: `bad-${variant.mode.name}` },
        sandbox: { sandbox: "local", workdir: "/repo" },
      }),
    );
    let firstValid = 0,
      firstVerified = 0,
      valid = 0,
      submittedWithPlan = 0,
      sameDiff = 0,
      attempts = 0,
      fallbacks = 0,
      calls = 0,
      inputChars = 0,
      planPromptChars = 0;
    for (const gold of golds) {
      const trajectory = JSON.parse(readFileSync(join(dir, gold.id, "trajectory.json"), "utf8")) as Trajectory;
      const firstValidAt = trajectory.plans.findIndex((p) => p.valid);
      if (trajectory.plans[0]?.valid) firstValid++;
      if (trajectory.plans[0]?.verify?.passed) firstVerified++;
      if (firstValidAt >= 0) valid++;
      attempts += firstValidAt >= 0 ? trajectory.plans[firstValidAt]!.attempt : trajectory.plans.length;
      if (trajectory.transitions.some((t) => t.to === "fallback")) fallbacks++;
      const applied = trajectory.plans.some((p) => p.apply?.ok);
      if (trajectory.exitStatus === "Submitted" && applied) submittedWithPlan++;
      if (variant.mode.name === "json-block" && variant.prompt === "compact")
        baselineDiffs.set(gold.id, trajectory.patch);
      if (trajectory.patch !== "" && trajectory.patch === baselineDiffs.get(gold.id)) sameDiff++;
      const seen = traffic.get(`${variant.mode.name}/${gold.id}`);
      calls += seen?.calls ?? 0;
      inputChars += seen?.chars ?? 0;
      traffic.delete(`${variant.mode.name}/${gold.id}`);
      const planPrompt = trajectory.messages.find((m) => m.role === "user" && m.content.startsWith("Phase 2, PLAN"));
      planPromptChars += planPrompt?.content.length ?? 0;
    }
    const n = golds.length;
    rows.push({
      variant: name,
      n,
      firstValid,
      firstVerified,
      valid,
      submittedWithPlan,
      sameDiff,
      attempts,
      fallbacks,
      calls,
      planPromptChars,
      inputChars,
    });
    process.stderr.write(
      `${name}: ${valid}/${n} valid plans, ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
  }
} finally {
  await server.close();
}

// 4. The table.
const pct = (a: number, n: number) => `${a}/${n} (${Math.round((100 * a) / n)}%)`;
const kB = (chars: number, n: number) => `${(chars / n / 1000).toFixed(1)} kB`;
const table = [
  "| mode | valid plan at the 1st PLAN reply | 1st reply passed VERIFY | valid plan in the end | plan applied and submitted | same diff as json-block | PLAN replies to a valid plan (mean) | fell back | model calls per run | PLAN prompt | input sent per run |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
  ...rows.map(
    (r) =>
      `| ${r.variant} | ${pct(r.firstValid, r.n)} | ${pct(r.firstVerified, r.n)} | ${pct(r.valid, r.n)} | ${pct(r.submittedWithPlan, r.n)} | ${pct(r.sameDiff, r.n)} | ${(r.attempts / r.n).toFixed(2)} | ${r.fallbacks} | ${(r.calls / r.n).toFixed(1)} | ${kB(r.planPromptChars, r.n)} | ${kB(r.inputChars, r.n)} |`,
  ),
];
const totals = rows.filter((r) => r.variant !== "never-a-plan" && !r.variant.endsWith("(full prompt)"));
const sum = (f: (r: Row) => number) => totals.reduce((s, r) => s + f(r), 0);
process.stdout.write(
  `${golds.length} instances (${golds.map((g) => g.id).join(", ")}), ${workers} worker(s); output in ${out}\n\n${table.join("\n")}\n\n`,
);
process.stdout.write(
  `modes that can succeed (all but never-a-plan): valid plan at the first reply ${pct(
    sum((r) => r.firstValid),
    sum((r) => r.n),
  )}, verified at the first reply ${pct(
    sum((r) => r.firstVerified),
    sum((r) => r.n),
  )}, valid in the end ${pct(
    sum((r) => r.valid),
    sum((r) => r.n),
  )}\n\n`,
);
for (const mode of modes) process.stdout.write(`- ${mode.name}: ${mode.about}\n`);

/**
 * A run on disk, as the page sees it: where its trajectories and evaluation reports are, one row per
 * instance, and one instance's details on demand. Reads the layouts GraphPlan writes — `bench agent`
 * / `bench run` output directories (`OUT/<id>/trajectory.json`, `OUT/eval/<run>/<model>/<id>/…`),
 * `bench eval` runs (`<run>/<model>/<id>/report.json`), `graphplan run --output DIR` and a single
 * trajectory file — by looking for the files, not by trusting one layout.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { PHASES, repliesUsage, TrajectorySchema, trajectoryUsage, type Phase, type Trajectory } from "@graphplan/agent";
import { Data } from "effect";
import { InstanceReportSchema, type InstanceResult } from "./formats.js";

/** PATH does not exist. */
export class RunNotFound extends Data.TaggedError("RunNotFound")<{ readonly path: string }> {
  override get message(): string {
    return `${this.path}: no such file or directory; give a bench agent / bench run / bench eval output directory, a graphplan run --output directory, or a trajectory.json`;
  }
}

/** PATH exists but holds no run GraphPlan wrote. */
export class NotARun extends Data.TaggedError("NotARun")<{ readonly path: string; readonly detail: string }> {
  override get message(): string {
    return `${this.path}: ${this.detail}; give a bench agent / bench run / bench eval output directory, a graphplan run --output directory, or a trajectory.json`;
  }
}

export type RunError = RunNotFound | NotARun;

/** Where one instance's files are. */
interface InstanceFiles {
  trajectory?: string;
  /** The evaluation's log directory (report.json, test_output.txt, patch.diff, run_instance.log). */
  evalDir?: string;
}

/** How an instance ended, for the chart: resolved, submitted but unresolved, or the exit status and the phase. */
export type Outcome = string;

export interface RunRow {
  readonly id: string;
  readonly repo: string;
  /** The trajectory's exit status; `no trajectory` for an evaluated instance without one; `unreadable` when its trajectory did not parse. */
  readonly status: string;
  /** The evaluation: `resolved`, `unresolved`, `error` (evaluated, no report: apply failure, timeout), or null (not evaluated). */
  readonly evaluation: "resolved" | "unresolved" | "error" | null;
  /** The last phase the run entered. */
  readonly phase: Phase | null;
  readonly outcome: Outcome;
  readonly exitReason: string;
  /** Plan replies after the first (the revision loop). */
  readonly revisions: number;
  /** Model calls. */
  readonly steps: number;
  /** Tokens of every model call as the provider billed them (0 when it reported none): input (all), of it read from and written to the cache, output. */
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** Wall time of the run (finishedAt − startedAt), when the trajectory has both. */
  readonly ms: number | null;
}

export interface RunTotals {
  readonly instances: number;
  readonly submitted: number;
  readonly evaluated: number;
  readonly resolved: number;
  readonly costUsd: number;
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly ms: number;
  /** Instances per outcome, most frequent first. */
  readonly outcomes: readonly { readonly outcome: Outcome; readonly count: number }[];
}

export interface RunIndex {
  readonly path: string;
  readonly rows: readonly RunRow[];
  readonly totals: RunTotals;
}

/** The most of test_output.txt one instance view carries (its end: where pytest's summary is). */
export const TEST_OUTPUT_TAIL = 200_000;

/** Calls, dollars and tokens of a run or of one of its phases (the trajectory's `totals.byPhase` entries). */
export type Usage = NonNullable<NonNullable<Trajectory["totals"]["byPhase"]>[Phase]>;

export interface PhaseUsage extends Usage {
  readonly phase: Phase;
}

export interface InstanceDetail {
  readonly row: RunRow;
  /** What each phase the run called the model in spent, in the phases' order. */
  readonly phases: readonly PhaseUsage[];
  readonly trajectory: Trajectory | null;
  /** Why the trajectory could not be read, when it could not. */
  readonly trajectoryError: string | null;
  readonly evaluation: {
    readonly result: InstanceResult | null;
    /** The end of test_output.txt (at most {@link TEST_OUTPUT_TAIL} characters), and its full length. */
    readonly testOutput: string | null;
    readonly testOutputLength: number;
    /** The patch the evaluation applied. */
    readonly patch: string | null;
  } | null;
}

const SKIP = new Set(["node_modules", ".git"]);
/** Deep enough for `OUT/eval/<run>/<model>/<id>/report.json`. */
const MAX_DEPTH = 6;
/** An evaluation log directory holds these (a `graphplan run --output` directory holds a patch.diff too, and is none). */
const EVAL_SIBLINGS = ["run_instance.log", "test_output.txt"];

const repoOf = (id: string): string => {
  const m = /^(.+?)__(.+)-\d+$/.exec(id);
  return m ? `${m[1]}/${m[2]}` : "";
};

/** Summaries kept per trajectory file, while its size and mtime stay the same. */
interface Cached {
  readonly key: string;
  readonly row: Omit<RunRow, "evaluation" | "outcome">;
}

/** An opened run: the files are looked for again on every {@link RunReader.index} (a live run grows). */
export class RunReader {
  readonly #cache = new Map<string, Cached>();
  #files = new Map<string, InstanceFiles>();

  private constructor(
    readonly path: string,
    readonly isFile: boolean,
  ) {}

  /** Opens PATH: fails with a tagged error when it does not exist or holds no run. */
  static async open(path: string): Promise<RunReader> {
    const absolute = resolve(path);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) throw new RunNotFound({ path });
    const reader = new RunReader(absolute, info.isFile());
    if (info.isFile()) {
      const text = await readFile(absolute, "utf8");
      const parsed = safeJson(text);
      const trajectory = TrajectorySchema.safeParse(parsed);
      if (!trajectory.success)
        throw new NotARun({
          path,
          detail: `not a GraphPlan trajectory (${trajectory.error.issues[0]?.path.join(".") || "the file"}: ${trajectory.error.issues[0]?.message ?? "not JSON"})`,
        });
    }
    await reader.#discover();
    if (reader.#files.size === 0)
      throw new NotARun({ path, detail: "holds no trajectory.json and no evaluation report.json" });
    return reader;
  }

  async #discover(): Promise<void> {
    const files = new Map<string, InstanceFiles>();
    const entry = (id: string): InstanceFiles => files.get(id) ?? files.set(id, {}).get(id)!;
    if (this.isFile) {
      entry(this.#idOfFile(this.path)).trajectory = this.path;
      this.#files = files;
      return;
    }
    const walk = async (dir: string, depth: number): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      const names = new Set(entries.map((e) => e.name));
      if (names.has("trajectory.json"))
        entry(dir === this.path ? this.#idOfFile(join(dir, "trajectory.json")) : basename(dir)).trajectory = join(
          dir,
          "trajectory.json",
        );
      if (EVAL_SIBLINGS.some((n) => names.has(n))) entry(basename(dir)).evalDir = dir;
      if (depth >= MAX_DEPTH) return;
      await Promise.all(
        entries
          .filter((e) => e.isDirectory() && !SKIP.has(e.name) && !e.name.startsWith("."))
          .map((e) => walk(join(dir, e.name), depth + 1)),
      );
    };
    await walk(this.path, 0);
    this.#files = files;
  }

  /** A trajectory file outside an instance directory is named by its parent directory, or by its own name. */
  #idOfFile(file: string): string {
    const parent = basename(dirname(file));
    return basename(file) === "trajectory.json" && parent ? parent : basename(file).replace(/\.json$/, "");
  }

  /** One row per instance, sorted by id, and the totals. Re-reads only trajectories that changed. */
  async index(): Promise<RunIndex> {
    await this.#discover();
    const rows = await Promise.all([...this.#files].map(([id, files]) => this.#row(id, files)));
    rows.sort((a, b) => a.id.localeCompare(b.id));
    return { path: this.path, rows, totals: totalsOf(rows) };
  }

  async #row(id: string, files: InstanceFiles): Promise<RunRow> {
    const base = files.trajectory ? await this.#summary(id, files.trajectory) : blankRow(id, "no trajectory");
    return withEvaluation(base, files.evalDir ? await readResult(id, files.evalDir) : undefined);
  }

  async #summary(id: string, file: string): Promise<Cached["row"]> {
    const info = await stat(file).catch(() => undefined);
    const key = `${info?.size}:${info?.mtimeMs}`;
    const cached = this.#cache.get(file);
    if (cached?.key === key) return cached.row;
    const parsed = TrajectorySchema.safeParse(safeJson(await readFile(file, "utf8").catch(() => "")));
    const row = parsed.success ? summaryOf(id, parsed.data) : blankRow(id, "unreadable");
    this.#cache.set(file, { key, row });
    return row;
  }

  /** One instance's trajectory and evaluation; undefined when the run has no such instance. */
  async instance(id: string): Promise<InstanceDetail | undefined> {
    let files = this.#files.get(id);
    if (!files) {
      await this.#discover();
      files = this.#files.get(id);
    }
    if (!files) return undefined;
    let trajectory: Trajectory | null = null;
    let trajectoryError: string | null = null;
    if (files.trajectory) {
      const parsed = TrajectorySchema.safeParse(safeJson(await readFile(files.trajectory, "utf8").catch(() => "")));
      if (parsed.success) trajectory = parsed.data;
      else
        trajectoryError = `${files.trajectory}: ${parsed.error.issues[0]?.path.join(".") || "the file"}: ${parsed.error.issues[0]?.message ?? "not JSON"}`;
    }
    // The trajectory and report.json are read once: the row is made from them.
    const evaluation = files.evalDir ? await evaluationDetail(id, files.evalDir) : null;
    const base = trajectory
      ? summaryOf(id, trajectory)
      : blankRow(id, files.trajectory ? "unreadable" : "no trajectory");
    return {
      row: withEvaluation(base, evaluation ? evaluation.result : undefined),
      phases: trajectory ? phaseUsage(trajectory) : [],
      trajectory,
      trajectoryError,
      evaluation,
    };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function blankRow(id: string, status: string): Cached["row"] {
  return {
    id,
    repo: repoOf(id),
    status,
    phase: null,
    exitReason: "",
    revisions: 0,
    steps: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    ms: null,
  };
}

/** The run's tokens: its totals, or its replies' summed (an older trajectory). */
function tokensOf(t: Trajectory): Omit<Usage, "modelCalls" | "costUsd"> {
  const { modelCalls: _calls, costUsd: _cost, ...tokens } = trajectoryUsage(t);
  return tokens;
}

/** Each phase's spend: the trajectory's `byPhase`, or its replies summed by their phase (an older trajectory). */
export function phaseUsage(t: Trajectory): PhaseUsage[] {
  const byPhase = t.totals.byPhase;
  return PHASES.flatMap((phase) => {
    const usage = byPhase ? byPhase[phase] : repliesUsage(t.messages.filter((m) => m.phase === phase));
    return usage && usage.modelCalls > 0 ? [{ phase, ...usage }] : [];
  });
}

function summaryOf(id: string, t: Trajectory): Cached["row"] {
  const started = t.startedAt ? Date.parse(t.startedAt) : Number.NaN;
  const finished = t.finishedAt ? Date.parse(t.finishedAt) : Number.NaN;
  return {
    id,
    repo: repoOf(t.instance.id ?? id),
    status: t.exitStatus,
    phase: t.transitions.at(-1)?.to ?? null,
    exitReason: t.exitReason,
    revisions: Math.max(0, t.plans.length - 1),
    steps: t.totals.modelCalls,
    ...tokensOf(t),
    costUsd: t.totals.costUsd,
    ms: Number.isFinite(started) && Number.isFinite(finished) ? finished - started : null,
  };
}

async function readResult(id: string, dir: string): Promise<InstanceResult | null> {
  const parsed = InstanceReportSchema.safeParse(
    safeJson(await readFile(join(dir, "report.json"), "utf8").catch(() => "")),
  );
  return parsed.success ? (parsed.data[id] ?? null) : null;
}

/** The row of a summary and its evaluation's result (undefined: not evaluated; null: evaluated, no report). */
function withEvaluation(base: Cached["row"], result: InstanceResult | null | undefined): RunRow {
  const evaluation: RunRow["evaluation"] =
    result === undefined ? null : result === null ? "error" : result.resolved ? "resolved" : "unresolved";
  return { ...base, evaluation, outcome: outcomeOf(base, evaluation) };
}

function outcomeOf(row: Cached["row"], evaluation: RunRow["evaluation"]): Outcome {
  if (evaluation === "resolved") return "resolved";
  if (row.status === "Submitted")
    return evaluation === "unresolved"
      ? "submitted, unresolved"
      : evaluation === "error"
        ? "submitted, evaluation error"
        : "submitted";
  if (row.status === "no trajectory") return evaluation === "unresolved" ? "unresolved" : "evaluation error";
  return `${row.status}${row.phase ? ` in ${row.phase}` : ""}`;
}

function totalsOf(rows: readonly RunRow[]): RunTotals {
  const outcomes = new Map<Outcome, number>();
  for (const r of rows) outcomes.set(r.outcome, (outcomes.get(r.outcome) ?? 0) + 1);
  return {
    instances: rows.length,
    submitted: rows.filter((r) => r.status === "Submitted").length,
    evaluated: rows.filter((r) => r.evaluation !== null).length,
    resolved: rows.filter((r) => r.evaluation === "resolved").length,
    costUsd: rows.reduce((s, r) => s + r.costUsd, 0),
    inputTokens: rows.reduce((s, r) => s + r.inputTokens, 0),
    cacheReadTokens: rows.reduce((s, r) => s + r.cacheReadTokens, 0),
    cacheWriteTokens: rows.reduce((s, r) => s + r.cacheWriteTokens, 0),
    outputTokens: rows.reduce((s, r) => s + r.outputTokens, 0),
    ms: rows.reduce((s, r) => s + (r.ms ?? 0), 0),
    outcomes: [...outcomes]
      .map(([outcome, count]) => ({ outcome, count }))
      .sort((a, b) => b.count - a.count || a.outcome.localeCompare(b.outcome)),
  };
}

async function evaluationDetail(id: string, dir: string): Promise<NonNullable<InstanceDetail["evaluation"]>> {
  const output = await readFile(join(dir, "test_output.txt"), "utf8").catch(() => null);
  return {
    result: await readResult(id, dir),
    testOutput: output === null ? null : output.slice(-TEST_OUTPUT_TAIL),
    testOutputLength: output?.length ?? 0,
    patch: await readFile(join(dir, "patch.diff"), "utf8").catch(() => null),
  };
}

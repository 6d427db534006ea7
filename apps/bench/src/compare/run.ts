/**
 * `bench compare`: two agent configurations (arms) on the same selection, each run and graded by
 * `bench run`'s own work (`benchRun`: the agent in the instance images, then `bench eval`) under
 * `DIR/<label>/`, one arm after the other — so an interrupted comparison resumes arm by arm, and
 * within an arm instance by instance — then the paired comparison in `DIR/compare.json`.
 */
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { benchRun, type RunCommandOptions, type StageDisplay } from "../run-command.js";
import {
  ARM_STRATEGIES,
  CompareReportSchema,
  type ArmSpec,
  type CompareReport,
  type CompareSpec,
  type EVAL_OUTCOMES,
} from "@graphplan/viewer";
import { compareArms, parseTrajectory, type ArmRun } from "./report.js";

/** Bad input to `bench compare` (exit code 2, one line): the arms, the configs, an --out of another comparison. */
export class CompareInputInvalid extends Data.TaggedError("CompareInputInvalid")<{ readonly detail: string }> {
  override get message(): string {
    return this.detail;
  }
}

const invalid = (detail: string) => new CompareInputInvalid({ detail });

/**
 * The arms of `--arms A,B` (each `strategy` or `label:strategy`) with `--arms-config C1,C2` (one YAML
 * per arm, `-` for none): exactly two, with different labels, of the strategies bench agent runs.
 */
export function parseArms(arms: string, configs: string | undefined): ArmSpec[] {
  const specs = arms.split(",").map((s) => s.trim());
  if (specs.length !== 2 || specs.some((s) => s === ""))
    throw invalid(`--arms ${arms}: name two arms, comma-separated, e.g. --arms graphplan,baseline`);
  const files = configs === undefined ? [undefined, undefined] : configs.split(",").map((s) => s.trim());
  if (files.length !== 2)
    throw invalid(
      `--arms-config ${configs}: give one config per arm, comma-separated (- for the default config), e.g. --arms-config a.yaml,b.yaml`,
    );
  const parsed = specs.map((spec, i): ArmSpec => {
    const [label, strategy] = spec.includes(":") ? (spec.split(":", 2) as [string, string]) : [spec, spec];
    if (!(ARM_STRATEGIES as readonly string[]).includes(strategy)) {
      throw invalid(
        `--arms: unknown arm "${spec}": an arm is a strategy (${ARM_STRATEGIES.join(", ")}) or label:strategy, e.g. short:graphplan`,
      );
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(label))
      throw invalid(`--arms: the label "${label}" names the arm's directory: letters, digits, _ . and -`);
    const config = files[i] === undefined || files[i] === "-" ? null : resolve(files[i]!);
    if (config !== null && !existsSync(config))
      throw invalid(`--arms-config: no such file ${files[i]}; give a YAML config per arm (- for the default)`);
    return { label, strategy: strategy as ArmSpec["strategy"], config };
  });
  if (parsed[0]!.label === parsed[1]!.label) {
    throw invalid(
      `--arms ${arms}: the same arm twice; compare two different arms, or name them apart (e.g. --arms a:graphplan,b:graphplan with --arms-config a.yaml,b.yaml)`,
    );
  }
  return parsed;
}

const sameSpec = (a: CompareSpec, b: CompareSpec) =>
  JSON.stringify([a.arms, a.provider, a.model]) === JSON.stringify([b.arms, b.provider, b.model]);

/** The comparison already in `DIR/compare.json`, if any (it must be this one). */
function checkOut(out: string, spec: CompareSpec): void {
  const path = join(out, "compare.json");
  if (!existsSync(path)) return;
  let earlier: CompareReport;
  try {
    earlier = CompareReportSchema.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    throw invalid(`--out ${out}: ${path} is not a comparison's report; use another --out`);
  }
  if (!sameSpec(earlier.spec, spec)) {
    const describe = (s: CompareSpec) =>
      `${s.arms.map((a) => `${a.label}:${a.strategy}${a.config ? ` (${a.config})` : ""}`).join(" vs ")} with ${s.provider ?? "?"}${s.model ? `:${s.model}` : ""}`;
    throw invalid(
      `--out ${out} holds another comparison (${describe(earlier.spec)}), not ${describe(spec)}; use another --out`,
    );
  }
}

async function writeReport(out: string, report: CompareReport): Promise<string> {
  const path = join(out, "compare.json");
  await writeFile(`${path}.tmp`, `${JSON.stringify(CompareReportSchema.parse(report), null, 2)}\n`);
  await rename(`${path}.tmp`, path);
  return path;
}

export interface CompareOptions {
  /** bench run's options, shared by the arms (`out` is DIR; `config`, `strategy` and `script` are set per arm). */
  readonly run: RunCommandOptions;
  readonly arms: readonly ArmSpec[];
  /** With `--provider scripted`: one script per arm (or one for both). */
  readonly scripts?: readonly (string | undefined)[];
  /** The progress display of each arm's stages. */
  readonly display: (arm: ArmSpec, index: number) => StageDisplay;
  /** Called when an arm has been run and graded. */
  readonly onArm?: (arm: ArmSpec, resolved: number, total: number) => void;
}

export interface CompareResult {
  readonly report: CompareReport & { results: NonNullable<CompareReport["results"]> };
  readonly path: string;
}

/** Both arms, one after the other, then `DIR/compare.json`. */
export function runCompare(
  options: CompareOptions,
): Effect.Effect<CompareResult, CompareInputInvalid | Effect.Error<ReturnType<typeof benchRun>>> {
  return Effect.gen(function* () {
    const out = resolve(options.run.out);
    const spec: CompareSpec = {
      arms: [options.arms[0]!, options.arms[1]!],
      provider: options.run.provider ?? null,
      model: options.run.model ?? null,
      dataset: resolve(options.run.dataset),
    };
    if (!existsSync(spec.dataset))
      return yield* invalid(`--dataset ${options.run.dataset}: no such file; give a SWE-bench JSONL`);
    yield* Effect.try({
      try: () => checkOut(out, spec),
      catch: (e) => (e instanceof CompareInputInvalid ? e : invalid(String(e))),
    });
    yield* Effect.promise(async () => {
      await mkdir(out, { recursive: true });
      if (!existsSync(join(out, "compare.json")))
        await writeReport(out, {
          format: "graphplan-bench-compare/1",
          created: new Date().toISOString(),
          spec,
          results: null,
        });
    });
    const runs: ArmRun[] = [];
    for (const [index, arm] of spec.arms.entries()) {
      const started = performance.now();
      const armDir = join(out, arm.label);
      const script = options.scripts?.[index] ?? options.run.script;
      const opts: RunCommandOptions = {
        ...options.run,
        out: armDir,
        strategy: arm.strategy,
        config: arm.config ?? undefined,
        script,
      };
      const { agent, graded } = yield* benchRun(opts, options.display(arm, index), () => undefined);
      const verdicts = new Map<string, (typeof EVAL_OUTCOMES)[number]>();
      for (const id of graded.summary.unresolved_ids) verdicts.set(id, "unresolved");
      for (const id of graded.summary.error_ids) verdicts.set(id, "error");
      for (const id of graded.summary.empty_patch_ids) verdicts.set(id, "empty_patch");
      for (const id of graded.summary.resolved_ids) verdicts.set(id, "resolved");
      const trajectories = new Map<string, string>();
      yield* Effect.promise(() =>
        Promise.all(
          agent.entries.map(async (e) => {
            const text = await readFile(join(armDir, e.instance_id, "trajectory.json"), "utf8").catch(() => undefined);
            if (text !== undefined) trajectories.set(e.instance_id, text);
          }),
        ),
      );
      runs.push({
        spec: arm,
        entries: agent.entries,
        verdicts,
        trajectory: (id) => parseTrajectory(trajectories.get(id)),
        wallMs: performance.now() - started,
      });
      options.onArm?.(arm, graded.summary.resolved_instances, agent.entries.length);
    }
    const results = compareArms(runs[0]!, runs[1]!);
    const report = { format: "graphplan-bench-compare/1" as const, created: new Date().toISOString(), spec, results };
    const path = yield* Effect.promise(() => writeReport(out, report));
    return { report, path };
  });
}

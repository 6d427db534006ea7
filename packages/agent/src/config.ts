/**
 * The agent's configuration: limits and every prompt, in YAML (config/default.yaml). A config file
 * given by the user is merged over the default (objects key by key), so it may hold only what it
 * changes. Prompts are mustache templates; each may use only the variables listed in
 * `PROMPT_VARIABLES`, which is checked when the config is loaded (a typo would otherwise render as
 * nothing).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import Mustache from "mustache";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { ModelConfigSchema } from "@graphplan/runtime";
import { ConfigInvalid, ConfigUnreadable } from "./errors.js";

/** The default config file, beside the package's src/ (and dist/). */
export const DEFAULT_CONFIG_PATH = join(import.meta.dirname, "..", "config", "default.yaml");

export const LimitsSchema = z.strictObject({
  /** EXPLORE ends in fallback after this many model replies without a usable READY_TO_PLAN. */
  max_explore_steps: z.number().int().positive(),
  /** Replies without a valid plan (no json block, not JSON, not a plan) tolerated, in all, before fallback. */
  max_plan_attempts: z.number().int().positive(),
  /** Plans that fail verification are sent back this many times before fallback. */
  max_plan_revisions: z.number().int().nonnegative(),
  /** A plan that fails to apply is sent back this many times before fallback (the original design: one). */
  max_execute_revisions: z.number().int().nonnegative(),
  /** Model calls across all phases; 0 = no limit. */
  step_limit: z.number().int().nonnegative(),
  /** Dollars across all phases (sum of each reply's costUsd); 0 = no limit. */
  cost_limit: z.number().nonnegative(),
  /** Seconds of wall time for the whole run (checked before each model call); 0 = no limit. */
  wall_time_seconds: z.number().nonnegative(),
  /** Replies in a row that break the format (no command, no plan, cut off): the run ends (LimitsExceeded). 0 = no limit. */
  max_format_errors: z.number().int().nonnegative(),
  /**
   * VERIFY gives the verifier the repository's files that import the plan's files; with more
   * source files than this in the repository it does not look for them (recorded in the trajectory).
   */
  max_repo_files: z.number().int().nonnegative(),
});

export const CommandSchema = z.strictObject({
  /** Each shell command of the model is killed after this long. */
  timeout_seconds: z.number().positive(),
  /** Longer outputs are shown as head and tail, half of this each. */
  max_output_chars: z.number().int().positive(),
  /**
   * Observations the model has already answered are resent cut to this many characters (head and
   * tail), so the history does not grow without bound; the trajectory keeps them whole. 0 = never cut.
   */
  read_output_chars: z.number().int().nonnegative(),
  /**
   * Environment variables the model's commands do not inherit in the local sandbox (names, `*`
   * matching any run of characters): API keys and tokens stay out of commands, outputs and
   * trajectories.
   */
  hidden_env: z.array(z.string().regex(/^[A-Za-z0-9_*]+$/, "a variable name, with * as a wildcard")),
});

const Prompt = z.string().min(1);
export const PromptsSchema = z.strictObject({
  system: Prompt,
  instance: Prompt,
  observation: Prompt,
  format_error: Prompt,
  cut_off: Prompt,
  ready_to_plan_invalid: Prompt,
  plan: Prompt,
  plan_invalid: Prompt,
  revision: Prompt,
  execute_failed: Prompt,
  review: Prompt,
  tool_not_now: Prompt,
  submit_rejected: Prompt,
  fallback: Prompt,
  rfsn_patch: Prompt,
  baseline_system: Prompt,
  baseline_instance: Prompt,
});

export const AgentConfigSchema = z.strictObject({
  limits: LimitsSchema,
  command: CommandSchema,
  /** After a plan is applied, show the diff and let the model check it (step loop) before it submits. */
  review: z.boolean(),
  /** How prompts (and the verifier's revision prompt) name the place the plan goes. */
  plan_destination: z.string().min(1),
  /** Where a reply's command may write the plan instead (the design's (docs/design.md, Origins) /tmp/edit_plan.json); read and removed after the command. */
  plan_file: z.string().min(1),
  /** PLAN offers models that take tools a `submit_plan` tool whose input schema is the plan's JSON Schema. */
  plan_tool: z.boolean(),
  /** Show the plan's JSON Schema (`{{plan_schema}}`) pretty-printed rather than on one line. */
  pretty_plan_schema: z.boolean(),
  prompts: PromptsSchema,
  /**
   * The live model (runtime's `ModelConfigSchema`: provider, model, price, baseUrl...), optional:
   * `graphplan run --provider P --model M` overrides provider and model. A `price` makes
   * `limits.cost_limit` count.
   */
  model: ModelConfigSchema.optional(),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/**
 * The config with the plan file moved to `path`, and every mention of the old one in
 * `plan_destination` with it: for runs whose instances share one /tmp (the local sandbox), so
 * that one instance never reads a plan another wrote.
 */
export function withPlanFile(config: AgentConfig, path: string): AgentConfig {
  return { ...config, plan_file: path, plan_destination: config.plan_destination.split(config.plan_file).join(path) };
}
export type PromptName = keyof AgentConfig["prompts"];

/** The variables each prompt is rendered with (names inside list sections included). */
export const PROMPT_VARIABLES: Readonly<Record<PromptName, readonly string[]>> = {
  system: ["ready_marker", "submit_marker", "timeout_seconds"],
  instance: ["task", "max_explore_steps", "ready_marker", "submit_marker", "timeout_seconds"],
  observation: [
    "exit_code",
    "output",
    "timed_out",
    "timeout_seconds",
    "truncated",
    "head",
    "tail",
    "elided_chars",
    "output_chars",
  ],
  format_error: ["blocks", "ready_marker", "submit_marker"],
  cut_off: ["tokens", "phase"],
  ready_to_plan_invalid: ["problems", "path", "reason", "ready_marker"],
  plan: ["graph_view", "catalog", "catalog_full", "plan_schema", "files", "plan_destination"],
  plan_invalid: ["error", "attempt", "max_attempts", "plan_destination"],
  revision: ["revision_prompt", "revision", "max_revisions", "plan_destination"],
  execute_failed: ["step", "op", "error", "revision", "max_revisions", "plan_destination"],
  review: ["diff", "files", "submit_marker"],
  tool_not_now: ["tool", "phase"],
  submit_rejected: ["problems", "submit_marker"],
  fallback: ["reason", "submit_marker"],
  baseline_system: ["submit_marker", "timeout_seconds"],
  baseline_instance: ["task", "submit_marker", "timeout_seconds"],
  rfsn_patch: [
    "task",
    "file",
    "symbol",
    "exception",
    "failing_tests",
    "frames",
    "test_output",
    "graph_view",
    "catalog",
    "plan_destination",
    "feedback",
  ],
};

/** What the model writes when it has explored enough: `READY_TO_PLAN: ["a.py", ...]`. */
export const READY_MARKER = "READY_TO_PLAN";
/** The first line of output of the command that submits (mini-swe-agent's convention). */
export const SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT";

/** Renders a prompt: mustache, without HTML escaping (prompts are plain text). */
export function render(template: string, view: Record<string, unknown>): string {
  return Mustache.render(template, view, {}, { escape: (value: unknown) => String(value) });
}

/** The variable names a template uses (first segment of dotted names), sections included. */
export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  const walk = (spans: Mustache.TemplateSpans) => {
    for (const span of spans) {
      const [type, value] = span;
      if (type === "name" || type === "&" || type === "#" || type === "^") {
        if (value !== ".") names.add(value.split(".")[0] ?? value);
      }
      if (type === ">") names.add(`>${value}`);
      const children = span[4];
      if (Array.isArray(children)) walk(children);
    }
  };
  walk(Mustache.parse(template));
  return [...names];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** `override` merged over `base`: objects key by key, anything else replaced. */
export function mergeConfig(base: unknown, override: unknown): unknown {
  if (!isObject(base) || !isObject(override)) return override === undefined ? base : override;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = mergeConfig(base[key], value);
  return out;
}

/** Validates a parsed config: the schema, then every prompt's variables. */
export function validateConfig(value: unknown, path: string): Effect.Effect<AgentConfig, ConfigInvalid> {
  return Effect.suspend(() => {
    const parsed = AgentConfigSchema.safeParse(value);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "(root)"}: ${i.message}`);
      return Effect.fail(new ConfigInvalid({ path, problems }));
    }
    const problems: string[] = [];
    for (const [name, allowed] of Object.entries(PROMPT_VARIABLES) as [PromptName, readonly string[]][]) {
      let used: string[];
      try {
        used = templateVariables(parsed.data.prompts[name]);
      } catch (error) {
        problems.push(`prompts.${name}: not a valid mustache template (${(error as Error).message})`);
        continue;
      }
      for (const variable of used) {
        if (!allowed.includes(variable))
          problems.push(
            `prompts.${name}: unknown variable {{${variable}}} (it has ${allowed.map((a) => `{{${a}}}`).join(", ")})`,
          );
      }
    }
    return problems.length ? Effect.fail(new ConfigInvalid({ path, problems })) : Effect.succeed(parsed.data);
  });
}

function readYaml(path: string): Effect.Effect<unknown, ConfigUnreadable> {
  return Effect.tryPromise({
    try: async () => parseYaml(await readFile(path, "utf8")) as unknown,
    catch: (error) =>
      new ConfigUnreadable({ path, detail: error instanceof Error ? error.message.split("\n")[0]! : String(error) }),
  });
}

export interface LoadedConfig {
  readonly config: AgentConfig;
  /** `default`, or the path of the user's file. */
  readonly name: string;
}

/** The default config, with the YAML file at `path` (if any) merged over it. */
export function loadConfig(path?: string): Effect.Effect<LoadedConfig, ConfigUnreadable | ConfigInvalid> {
  return Effect.gen(function* () {
    const base = yield* readYaml(DEFAULT_CONFIG_PATH);
    if (path === undefined) return { config: yield* validateConfig(base, DEFAULT_CONFIG_PATH), name: "default" };
    const override = yield* readYaml(path);
    if (override !== null && override !== undefined && !isObject(override)) {
      return yield* new ConfigInvalid({
        path,
        problems: ["(root): a config file is a YAML mapping (limits:, command:, prompts: ...)"],
      });
    }
    return { config: yield* validateConfig(mergeConfig(base, override ?? {}), path), name: path };
  });
}

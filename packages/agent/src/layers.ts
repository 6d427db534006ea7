/**
 * The model and sandbox layers of a run, built from command-line options. One place for both
 * `graphplan run` and the SWE-bench harness (`bench agent`), so the two accept the same
 * `--provider/--model/--script` and `--sandbox/--image/--workdir` and fail the same way.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import * as Result from "effect/Result";
import { z } from "zod";
import { loadGrammars } from "@graphplan/graph";
import { LanguageModel, ModelConfigSchema, Sandbox, ScriptedModel } from "@graphplan/runtime";
import type { LanguageModelShape, ModelConfigInvalid, SandboxUnavailable } from "@graphplan/runtime";
import { DEFAULT_WIRE, modelOverWire, type WireConfig } from "@graphplan/runtime/testing";
import type { AgentConfig } from "./config.js";
import { RunInputInvalid } from "./errors.js";
import type { Strategy } from "./baseline.js";
import { baselineReplayModel, compiledPlan, patchFiles, replayModelOf, rfsnReplayModel } from "./replay.js";

export const PROVIDERS = ["anthropic", "openai", "scripted", "replay"] as const;
export type Provider = (typeof PROVIDERS)[number];
export const SANDBOXES = ["local", "docker"] as const;
export type SandboxKind = (typeof SANDBOXES)[number];

/** `--provider`, `--model`, `--script`. */
export interface ModelOptions {
  readonly provider?: Provider | undefined;
  readonly model?: string | undefined;
  /** With provider `scripted`: a JSON file holding an array of replies, in order. */
  readonly script?: string | undefined;
  /** With provider `replay`: the reference patch (a unified diff) the replay model plans with. */
  readonly patch?: string | undefined;
  /** With provider `replay`: `baseline` applies the patch with shell commands instead of sending it as a plan; `rfsn` answers every patch request with the plan. */
  readonly strategy?: Strategy | undefined;
}

/** `--sandbox`, `--image`, `--workdir`. */
export interface SandboxOptions {
  readonly sandbox: SandboxKind;
  /** With `docker`: the image (it must exist locally). */
  readonly image?: string | undefined;
  /** With `docker`: where the directory is mounted in the container. */
  readonly workdir: string;
}

/** What a caller adds to a docker sandbox besides the directory's own mount. */
export interface SandboxExtras {
  /** More bind mounts, `host:container[:ro]`. */
  readonly binds?: readonly string[];
  /** Environment variables of the container. */
  readonly env?: Readonly<Record<string, string>>;
}

/** A text file of the command line (task, script), or `RunInputInvalid` naming it. */
export const readText = (path: string, what: string): Effect.Effect<string, RunInputInvalid> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) => new RunInputInvalid({ detail: `cannot read ${what} ${path}: ${(error as Error).message}` }),
  });

const ScriptSchema = z.array(z.string()).min(1);

/**
 * The wire a replay run's requests go over (the config's `model:` section: provider, model, cache, price;
 * else Anthropic's, priced as Claude Sonnet 5): the replay model answers behind a stand-in of that
 * provider, through its SDK, so the run's tokens and dollars are what that model would be billed.
 */
export const replayWire = (config: AgentConfig): WireConfig =>
  config.model
    ? {
        provider: config.model.provider,
        model: config.model.model,
        cache: config.model.cache,
        ...(config.model.price ? { price: config.model.price } : {}),
      }
    : DEFAULT_WIRE;

/** A replay model's layer: served over `wire` (the server lives as long as the layer). */
export const replayModelLayer = (
  model: LanguageModelShape,
  wire: WireConfig,
): Layer.Layer<LanguageModel, ModelConfigInvalid> =>
  Layer.effect(
    LanguageModel,
    Effect.map(modelOverWire(model, wire), (served) => served.model),
  );

/** `--provider replay --patch FILE`: the replay model of the patch over the repository's current files. */
function replayLayer(
  patchPath: string | undefined,
  repoDir: string | undefined,
  strategy: Strategy | undefined,
  wire: WireConfig,
): Effect.Effect<Layer.Layer<LanguageModel, ModelConfigInvalid>, RunInputInvalid> {
  return Effect.gen(function* () {
    if (patchPath === undefined)
      return yield* new RunInputInvalid({
        detail:
          "--provider replay needs --patch FILE (the reference patch, a unified diff, that the replay model plans with)",
      });
    if (repoDir === undefined)
      return yield* new RunInputInvalid({ detail: "--provider replay needs the repository the patch applies to" });
    const patch = yield* readText(patchPath, "the patch");
    if (strategy === "baseline") return replayModelLayer(baselineReplayModel(patch), wire);
    const paths = yield* Result.match(patchFiles(patch, patchPath), {
      onFailure: (e) => Effect.fail(new RunInputInvalid({ detail: e.message })),
      onSuccess: Effect.succeed,
    });
    const files = new Map<string, string>();
    for (const path of paths) {
      const text = yield* Effect.tryPromise({
        try: () => readFile(join(repoDir, path), "utf8"),
        catch: () => undefined,
      }).pipe(Effect.orElseSucceed(() => undefined));
      if (text !== undefined) files.set(path, text);
    }
    yield* Effect.promise(() => loadGrammars());
    const model = yield* Result.match(
      strategy === "rfsn"
        ? Result.map(compiledPlan(files, patch, patchPath), rfsnReplayModel)
        : replayModelOf(files, patch, patchPath),
      {
        onFailure: (e) => Effect.fail(new RunInputInvalid({ detail: e.message })),
        onSuccess: Effect.succeed,
      },
    );
    return replayModelLayer(model, wire);
  });
}

/**
 * The model layer: `scripted` replays `--script` (one `ScriptedModel`, so a layer built once and
 * shared by several runs hands out the replies in order across them); `anthropic`/`openai` (or the
 * config's `model:` section) are the runtime's live models. Fails with `RunInputInvalid` for a
 * missing or contradictory option; the live layer itself fails with `ModelConfigInvalid` when it is
 * built without an API key. `replay` compiles `--patch` against the files of `repoDir` (the
 * repository the run works on) into the plan it will send.
 */
export function modelLayer(
  options: ModelOptions,
  config: AgentConfig,
  repoDir?: string,
): Effect.Effect<Layer.Layer<LanguageModel, ModelConfigInvalid>, RunInputInvalid> {
  return Effect.gen(function* () {
    if (options.provider === "scripted") {
      if (options.script === undefined)
        return yield* new RunInputInvalid({
          detail: "--provider scripted needs --script FILE (a JSON array of replies)",
        });
      const text = yield* readText(options.script, "the script");
      const parsed = ScriptSchema.safeParse(
        yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: () => new RunInputInvalid({ detail: `the script ${options.script} is not JSON` }),
        }),
      );
      if (!parsed.success)
        return yield* new RunInputInvalid({
          detail: `the script ${options.script} must be a non-empty JSON array of strings (the replies)`,
        });
      return LanguageModel.layerOf(new ScriptedModel(parsed.data));
    }
    if (options.provider === "replay")
      return yield* replayLayer(options.patch, repoDir, options.strategy, replayWire(config));
    if (options.script !== undefined)
      return yield* new RunInputInvalid({ detail: "--script goes with --provider scripted" });
    if (options.patch !== undefined)
      return yield* new RunInputInvalid({ detail: "--patch goes with --provider replay" });
    const provider = options.provider ?? config.model?.provider;
    const model =
      options.model ??
      (options.provider === undefined || options.provider === config.model?.provider ? config.model?.model : undefined);
    if (provider === undefined || model === undefined) {
      return yield* new RunInputInvalid({
        detail:
          "name the model: --provider anthropic|openai --model NAME (or a model: section in --config), or --provider scripted --script FILE",
      });
    }
    const base = config.model && config.model.provider === provider ? config.model : {};
    const parsed = ModelConfigSchema.safeParse({ ...base, provider, model });
    if (!parsed.success)
      return yield* new RunInputInvalid({
        detail: `the model config is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      });
    // Building the layer reads the API key: a missing key fails before the first model call, as bad input.
    return LanguageModel.layer(parsed.data);
  });
}

/**
 * The environment of every docker sandbox: git's `safe.directory` set to `*` through git's
 * environment config (`GIT_CONFIG_COUNT`: the "command" scope, which git 2.39.5 honours for this
 * key; older releases take it from system or global config only).
 * git in a container usually runs as another user than the one owning the bind-mounted repository
 * on the host (root in the container, the developer's uid on the host), and then refuses it
 * ("detected dubious ownership"): every command of the model and SUBMIT's `git diff` would fail.
 */
const DOCKER_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "safe.directory",
  GIT_CONFIG_VALUE_0: "*",
};

/** Whether a variable is one the model's commands must not inherit: `command.hidden_env`, and the model's own key variable. */
export function hiddenEnv(config: AgentConfig): (name: string) => boolean {
  const patterns = config.command.hidden_env.map((glob) => new RegExp(`^${glob.split("*").join(".*")}$`, "i"));
  const keyEnv = config.model?.apiKeyEnv;
  return (name) => name === keyEnv || patterns.some((pattern) => pattern.test(name));
}

/**
 * The sandbox layer over `dir`: `local` runs the commands in `dir`; `docker` runs them in a container
 * of `--image` with `dir` bind-mounted at `--workdir` (plus `extras`; `extras.env` goes over
 * `DOCKER_GIT_ENV`), removed when the layer's scope closes. Commands time out after the config's
 * `command.timeout_seconds`.
 */
export function sandboxLayer(
  options: SandboxOptions,
  dir: string,
  config: AgentConfig,
  extras: SandboxExtras = {},
): Effect.Effect<Layer.Layer<Sandbox, SandboxUnavailable>, RunInputInvalid> {
  return Effect.gen(function* () {
    const timeoutMs = config.command.timeout_seconds * 1000;
    if (options.sandbox === "docker") {
      if (options.image === undefined)
        return yield* new RunInputInvalid({ detail: "--sandbox docker needs --image IMAGE (it must exist locally)" });
      return Sandbox.layerDocker({
        image: options.image,
        workdir: options.workdir,
        binds: [`${dir}:${options.workdir}`, ...(extras.binds ?? [])],
        timeoutMs,
        env: { ...DOCKER_GIT_ENV, ...extras.env },
      });
    }
    if (options.image !== undefined)
      return yield* new RunInputInvalid({ detail: "--image goes with --sandbox docker" });
    const hidden = hiddenEnv(config);
    return Sandbox.layerLocal({ cwd: dir, timeoutMs, inherit: (name) => !hidden(name) });
  });
}

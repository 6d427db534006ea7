import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import { AgentConfigSchema, PROMPT_VARIABLES, loadConfig, mergeConfig, render, templateVariables } from "./config.js";
import { tempDir } from "./fixtures/repo.js";

const load = (path?: string) => Effect.runPromise(Effect.result(loadConfig(path)));

describe("the agent config", () => {
  it("loads config/default.yaml with the design's limits and every prompt", async () => {
    const loaded = await load();
    if (loaded._tag !== "Success") throw new Error(String(loaded.failure));
    const { config, name } = loaded.success;
    expect(name).toBe("default");
    expect(config.limits).toEqual({
      max_explore_steps: 30,
      max_plan_attempts: 5,
      max_plan_revisions: 3,
      max_execute_revisions: 1,
      step_limit: 250,
      cost_limit: 3,
      max_repo_files: 20000,
      max_format_errors: 5,
      wall_time_seconds: 3600,
    });
    expect(config.command).toMatchObject({ timeout_seconds: 60, max_output_chars: 10000 });
    expect(config.command.hidden_env).toContain("*_API_KEY");
    expect(Object.keys(config.prompts).sort()).toEqual(Object.keys(PROMPT_VARIABLES).sort());
  });

  it("merges a partial user file over the default", async () => {
    const dir = tempDir();
    const path = join(dir, "mine.yaml");
    writeFileSync(
      path,
      "limits:\n  step_limit: 40\nprompts:\n  fallback: 'Plan failed: {{reason}}. Go on with bash.'\n",
    );
    const loaded = await load(path);
    if (loaded._tag !== "Success") throw new Error(String(loaded.failure));
    expect(loaded.success.name).toBe(path);
    expect(loaded.success.config.limits.step_limit).toBe(40);
    expect(loaded.success.config.limits.max_explore_steps).toBe(30);
    expect(loaded.success.config.prompts.fallback).toBe("Plan failed: {{reason}}. Go on with bash.");
    expect(loaded.success.config.prompts.system).toContain("exactly one bash code block");
  });

  it("rejects unknown keys, wrong types and unknown template variables, naming each", async () => {
    const dir = tempDir();
    const path = join(dir, "bad.yaml");
    writeFileSync(path, "limits:\n  step_limt: 40\n  cost_limit: lots\nprompts:\n  plan: 'Graph: {{grpah_view}}'\n");
    const loaded = await load(path);
    if (loaded._tag !== "Failure") throw new Error("expected a failure");
    expect(loaded.failure._tag).toBe("ConfigInvalid");
    expect(loaded.failure.message).toContain("limits.cost_limit");
    expect(loaded.failure.message).toContain('Unrecognized key: "step_limt"');

    writeFileSync(path, "prompts:\n  plan: 'Graph: {{grpah_view}}'\n");
    const again = await load(path);
    if (again._tag !== "Failure") throw new Error("expected a failure");
    expect(again.failure.message).toContain("prompts.plan: unknown variable {{grpah_view}}");
  });

  it("reports an unreadable or non-YAML file as ConfigUnreadable", async () => {
    const missing = await load("/no/such/config.yaml");
    expect(missing._tag === "Failure" && missing.failure._tag).toBe("ConfigUnreadable");
    const dir = tempDir();
    writeFileSync(join(dir, "x.yaml"), "limits: [unclosed\n");
    const broken = await load(join(dir, "x.yaml"));
    expect(broken._tag === "Failure" && broken.failure._tag).toBe("ConfigUnreadable");
  });

  it("every default prompt uses only its own variables (the check itself finds sections and dotted names)", async () => {
    expect(templateVariables("{{a}} {{#list}}{{b.c}}{{.}}{{/list}}{{^flag}}x{{/flag}}{{&raw}}").sort()).toEqual([
      "a",
      "b",
      "flag",
      "list",
      "raw",
    ]);
    const loaded = await load();
    if (loaded._tag !== "Success") throw new Error("default must load");
    for (const [name, allowed] of Object.entries(PROMPT_VARIABLES)) {
      for (const used of templateVariables(loaded.success.config.prompts[name as keyof typeof PROMPT_VARIABLES]))
        expect(allowed).toContain(used);
    }
  });

  it("renders without HTML escaping", () => {
    expect(render("<x>{{v}}</x>", { v: `a < b && "c"` })).toBe(`<x>a < b && "c"</x>`);
  });

  it("merges objects key by key and replaces everything else", () => {
    expect(mergeConfig({ a: { b: 1, c: 2 }, d: [1] }, { a: { c: 3 }, d: [2, 3] })).toEqual({
      a: { b: 1, c: 3 },
      d: [2, 3],
    });
    expect(AgentConfigSchema.safeParse({}).success).toBe(false);
  });
});

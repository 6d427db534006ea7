import * as Effect from "effect/Effect";
import { afterEach, describe, expect, it } from "vitest";
import { Sandbox } from "@graphplan/runtime";
import { configWith, tempDir } from "./fixtures/repo.js";
import { hiddenEnv, sandboxLayer } from "./layers.js";

const SET = {
  ANTHROPIC_API_KEY: "sk-ant-secret",
  GRAPHPLAN_TEST_KEY_VAR: "model-key",
  GITHUB_TOKEN: "ghp-secret",
  GRAPHPLAN_TEST_VISIBLE: "visible",
};
afterEach(() => {
  for (const name of Object.keys(SET)) delete process.env[name];
});

describe("the local sandbox of the agent", () => {
  it("keeps API keys and tokens, and the model's own key variable, out of the model's commands", async () => {
    Object.assign(process.env, SET);
    const config = await configWith({ model: { provider: "openai", model: "m", apiKeyEnv: "GRAPHPLAN_TEST_KEY_VAR" } });
    const layer = await Effect.runPromise(sandboxLayer({ sandbox: "local", workdir: "/repo" }, tempDir(), config));
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const sandbox = yield* Sandbox;
        return yield* sandbox.exec("env");
      }).pipe(Effect.provide(layer)),
    );
    expect(result.output).toContain("GRAPHPLAN_TEST_VISIBLE=visible");
    for (const secret of ["sk-ant-secret", "model-key", "ghp-secret"]) expect(result.output).not.toContain(secret);
  });

  it("matches command.hidden_env as names with * wildcards, case-insensitively", async () => {
    const hidden = hiddenEnv(await configWith({ command: { hidden_env: ["*_API_KEY", "AWS_*"] } }));
    expect(["OPENAI_API_KEY", "openai_api_key", "AWS_SECRET_ACCESS_KEY"].every(hidden)).toBe(true);
    expect(["PATH", "HOME", "API_KEYRING", "MY_AWS"].some(hidden)).toBe(false);
  });
});

/** Each phase on its own, over test layers: a scripted model, a table sandbox, an in-memory workspace. */
import * as Effect from "effect/Effect";
import * as Layer from "effect/Layer";
import { describe, expect, it } from "vitest";
import { LanguageModel, type Sandbox, ScriptedModel, Workspace } from "@graphplan/runtime";
import { TestSandbox, testSandboxLayer } from "@graphplan/runtime/testing";
import type { ScriptedReply, TestAnswer } from "@graphplan/runtime";
import { GraphCache } from "@graphplan/graph";
import { Tiktoken } from "js-tiktoken/lite";
import o200kBase from "js-tiktoken/ranks/o200k_base";
import { CATALOG, catalogPrompt, compactCatalogPrompt, planJsonSchema } from "@graphplan/catalog";
import { explore } from "./explore.js";
import { SHOP, bash, configWith, json, read } from "./fixtures/repo.js";
import { patchCommandOutput } from "./submit.js";
import { graphPhase } from "./graph.js";
import { stepLoop } from "./step-loop.js";
import { askForPlan, planToolSpec, requestPlan } from "./plan.js";
import { Session } from "./session.js";
import { verifyPhase } from "./verify.js";

const FILES = {
  "shop/cart.py": read(SHOP, "shop/cart.py"),
  "shop/pricing.py": read(SHOP, "shop/pricing.py"),
  "notes.txt": "just text\n",
  "empty.py": "",
  "pyproject.toml": "[project]\nname = 'shop'\n",
};

async function setup(
  script: readonly ScriptedReply[],
  answers: (command: string) => TestAnswer | undefined = () => undefined,
  config: unknown = {},
) {
  const model = new ScriptedModel(script);
  const sandbox = new TestSandbox(answers);
  const session = new Session(await configWith(config));
  session.enter("explore", "test");
  const layers = Layer.mergeAll(
    LanguageModel.layerScripted(model),
    testSandboxLayer(sandbox),
    Workspace.layerMemory(FILES),
  );
  const run = <A, E>(effect: Effect.Effect<A, E, LanguageModel | Sandbox | Workspace>) =>
    Effect.runPromise(effect.pipe(Effect.provide(layers)));
  return { model, sandbox, session, run };
}

const userMessages = (session: Session) => session.messages.filter((m) => m.role === "user").map((m) => m.content);

describe("EXPLORE", () => {
  it("runs each command in the sandbox, sends the observation back, and ends on READY_TO_PLAN with existing files", async () => {
    const { session, sandbox, run } = await setup(
      [bash("grep -n total shop/cart.py"), bash("sleep 100"), 'READY_TO_PLAN: ["shop/cart.py", "shop/pricing.py"]'],
      (command) =>
        command.startsWith("grep") ? "12:    def total(self):\n" : { exitCode: -1, output: "", timedOut: true },
    );
    const outcome = await run(explore(session));
    expect(outcome).toEqual({ kind: "ready", files: ["shop/cart.py", "shop/pricing.py"] });
    expect(sandbox.commands).toEqual(["grep -n total shop/cart.py", "sleep 100"]);
    const [first, second] = userMessages(session);
    expect(first).toBe("<returncode>0</returncode>\n<output>\n12:    def total(self):\n</output>\n");
    expect(second).toContain("<returncode>-1</returncode>\n<warning>The command was killed after 60 seconds.");
  });

  it("cuts a long output to head and tail with a note", async () => {
    const { session, run } = await setup(
      [bash("cat big"), 'READY_TO_PLAN: ["shop/cart.py"]'],
      () => `${"a".repeat(30)}${"b".repeat(30)}`,
      { command: { max_output_chars: 20 } },
    );
    await run(explore(session));
    const [observation] = userMessages(session);
    expect(observation).toContain("The output has 60 characters");
    expect(observation).toContain(
      "<output_head>\naaaaaaaaaa\n</output_head>\n<elided_chars>40 characters elided</elided_chars>\n<output_tail>\nbbbbbbbbbb\n</output_tail>",
    );
    expect(observation).not.toContain("<output>");
  });

  it("tells the model which listed files cannot be used, and a malformed list why", async () => {
    const { session, run } = await setup([
      'READY_TO_PLAN: ["shop/nope.py", "../etc/passwd", "shop"]',
      "READY_TO_PLAN: shop/cart.py",
      'READY_TO_PLAN: ["shop/cart.py"]',
    ]);
    expect(await run(explore(session))).toEqual({ kind: "ready", files: ["shop/cart.py"] });
    const [first, second] = userMessages(session);
    expect(first).toContain(
      "- shop/nope.py: no such file (a file the change adds is not listed here: the plan makes it with create_file)\n",
    );
    expect(first).toContain("- ../etc/passwd: not inside the repository");
    expect(first).toContain("- shop: cannot be read");
    expect(second).toContain("- READY_TO_PLAN: READY_TO_PLAN: must be followed by a JSON list of file paths");
  });

  it("falls back after max_explore_steps replies, format errors counted", async () => {
    const { session, model, run } = await setup(
      ["no block here", bash("ls"), "```bash\nls\n```\n```bash\npwd\n```", 'READY_TO_PLAN: ["shop/cart.py"]'],
      () => "x\n",
      { limits: { max_explore_steps: 3 } },
    );
    expect(await run(explore(session))).toEqual({
      kind: "fallback",
      reason: "explore did not end with READY_TO_PLAN within max_explore_steps (3)",
    });
    expect(model.used).toBe(3);
    expect(userMessages(session)[2]).toContain("Your reply had 2 ```bash blocks");
  });
});

describe("GRAPH", () => {
  it("builds the graph of the listed files", async () => {
    const { run } = await setup([]);
    const outcome = await run(graphPhase(["shop/cart.py"], new GraphCache()));
    if (outcome.kind !== "ok") throw new Error(outcome.reason);
    expect(outcome.view.split("\n").slice(0, 3)).toEqual([
      "FILE: shop/cart.py",
      "  IMPORT: from shop.pricing import apply_discount [line 2]",
      "  CLASS: Cart (lines 5-16)",
    ]);
    expect([...outcome.files.keys()]).toEqual(["shop/cart.py"]);
  });

  it("shows the keys of a data file the explorer named beside the code", async () => {
    const { run } = await setup([]);
    const outcome = await run(graphPhase(["shop/cart.py", "pyproject.toml"], new GraphCache()));
    if (outcome.kind !== "ok") throw new Error(outcome.reason);
    expect(outcome.view.split("\n").slice(0, 3)).toEqual([
      "FILE: pyproject.toml (toml, 2 lines)",
      "  SECTION: [project] [line 1]",
      "  KEY: project.name [line 2]",
    ]);
  });

  it("falls back on a file that cannot be read, and on an empty graph", async () => {
    const { run } = await setup([]);
    expect(await run(graphPhase(["shop/cart.py", "gone.py"], new GraphCache()))).toEqual({
      kind: "fallback",
      reason: expect.stringMatching(/^the graph could not be built: file "gone.py" does not exist/),
    });
    expect(await run(graphPhase(["empty.py"], new GraphCache()))).toEqual({
      kind: "fallback",
      reason: "the code graph of empty.py is empty",
    });
    // A text file has no code graph but is shown for text steps.
    const text = await run(graphPhase(["notes.txt"], new GraphCache()));
    expect(text.kind === "ok" && text.view).toBe(
      "FILE: notes.txt (not code: 1 lines; change it with text steps, quoting its lines)",
    );
  });
});

let encoder: Tiktoken | undefined;
/** The tokenizer of OpenAI's current models, built once (a real tokenizer: the bound is in tokens, not bytes). */
const o200k = () => (encoder ??= new Tiktoken(o200kBase));

describe("PLAN", () => {
  const good = [
    {
      op: "replace_node",
      params: {
        locator: { kind: "method", name: "total", file: "shop/cart.py" },
        replacement: "def total(self):\n    return 0",
      },
    },
  ];

  it("shows the compact catalog generated from the one catalog, and no JSON Schema, by default", async () => {
    const { session } = await setup([]);
    askForPlan(session, ["shop/cart.py"], "FILE: shop/cart.py");
    const prompt = userMessages(session)[0]!;
    expect(prompt).toContain(compactCatalogPrompt({ legacy: false, languages: ["python"] }));
    expect(prompt).not.toContain(catalogPrompt());
    expect(prompt).not.toContain(JSON.stringify(planJsonSchema()));
    expect(prompt).toContain("FILE: shop/cart.py");
    // Every operator of the catalog a Python file can use is named, one line each, but the legacy ones (which
    // text steps replace), the read-only ones and the primitive forms of templates of the same name.
    const left = new Set(["locate", "locate_region"]);
    const templates = new Set(CATALOG.filter((e) => e.step === "template").map((e) => e.name));
    for (const entry of CATALOG.filter(
      (e) =>
        e.step !== "fragment" &&
        e.kind !== "legacy" &&
        (!e.languages || e.languages.includes("python")) &&
        !left.has(e.name) &&
        !(e.step === "op" && templates.has(e.name)),
    ))
      expect(prompt).toMatch(new RegExp(`^- ${entry.name}\\(`, "m"));
    expect(prompt).not.toMatch(/^- locate\(/m);
    expect(prompt.match(/^- add_method\(/gm)).toHaveLength(1); // the template: add_method(target: locator, ...
    expect(prompt).toMatch(/^- add_method\(target: locator/m);
    expect(prompt).not.toContain("Shell, CSS, HTML nodes"); // no such file in the plan
    expect(prompt).not.toMatch(/^## Legacy/m);
    expect(prompt).not.toMatch(/^- delete_lines\(/m);
    expect(prompt).toMatch(
      /^## Text \(any file: docs, changelogs, config\)\n- write_file\(path: string, content: string\)/m,
    );
  });

  it("fits the PLAN prompt of the shop project in 12 kB (it was ~70 kB with the JSON Schema)", async () => {
    const { session, run } = await setup([]);
    const graphed = await run(graphPhase(["shop/cart.py"], new GraphCache()));
    if (graphed.kind !== "ok") throw new Error(graphed.reason);
    askForPlan(session, ["shop/cart.py"], graphed.view);
    const prompt = userMessages(session)[0]!;
    expect(prompt).toContain(graphed.view);
    expect(Buffer.byteLength(prompt)).toBeLessThanOrEqual(12_000);
  });

  it("keeps the PLAN prompt of the shop project, catalog and graph view included, under 2,750 tokens (o200k_base)", async () => {
    const { session, run } = await setup([]);
    const graphed = await run(graphPhase(["shop/cart.py"], new GraphCache()));
    if (graphed.kind !== "ok") throw new Error(graphed.reason);
    askForPlan(session, ["shop/cart.py"], graphed.view);
    const tokens = o200k().encode(userMessages(session)[0]!).length;
    expect(tokens).toBeLessThanOrEqual(2_750); // 2,671 now; 2,946 before the catalog listed only what the files can use
  });

  it("shows the full catalog and the JSON Schema where the config's prompt asks for them", async () => {
    const { session } = await setup([], undefined, {
      prompts: { plan: "{{graph_view}}\n{{catalog_full}}\n{{plan_schema}}\n{{plan_destination}}" },
    });
    askForPlan(session, ["shop/cart.py"], "FILE: shop/cart.py");
    const prompt = userMessages(session)[0]!;
    expect(prompt).toContain(catalogPrompt());
    expect(prompt).toContain(JSON.stringify(planJsonSchema()));
  });

  it("sends the error of an invalid plan back and takes the next valid one", async () => {
    const { session, run } = await setup([json(["shop/cart.py"]), json(good)]);
    const outcome = await run(requestPlan(session));
    expect(outcome).toMatchObject({ kind: "plan", json: good });
    expect(session.invalidPlans).toBe(1);
    expect(session.plans.map((p) => [p.attempt, p.valid])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(userMessages(session)[0]).toMatch(
      /^That reply has no usable plan: the json block is not a plan: the plan's elements are not step objects/,
    );
    expect(userMessages(session)[0]).toContain("(Attempt 1 of 5 without a valid plan.)");
  });

  it("offers the plan tool to a model that takes tools, refuses an invalid plan in its call with a tool result naming the problem, and takes the next call", async () => {
    const call = (id: string, input: unknown) => ({
      content: "THOUGHT: the plan.",
      toolCalls: [{ id, name: "submit_plan", input }],
    });
    const model = new ScriptedModel(
      [call("t1", { plan: [{ params: {} }] }), call("t2", '{"plan": ['), call("t3", { plan: good })],
      true,
    );
    const session = new Session(await configWith({}));
    session.enter("plan", "test");
    session.offerTools([planToolSpec()]);
    askForPlan(session, ["shop/cart.py"], "FILE: shop/cart.py");
    const outcome = await Effect.runPromise(
      requestPlan(session).pipe(
        Effect.provide(
          Layer.mergeAll(LanguageModel.layerScripted(model), testSandboxLayer(new TestSandbox(() => undefined))),
        ),
      ),
    );
    expect(outcome).toMatchObject({ kind: "plan", json: good });
    expect(session.plans.map((p) => [p.valid, p.channel ?? p.error])).toEqual([
      [false, 'the submit_plan call\'s plan is not a plan: step 1: the step has no "op", "template" or "fragment"'],
      [false, expect.stringMatching(/^the submit_plan call's input is not valid JSON/)],
      [true, "tool call"],
    ]);
    expect(model.offeredTools.map((tools) => tools.map((t) => t.name))).toEqual([
      ["submit_plan"],
      ["submit_plan"],
      ["submit_plan"],
    ]);
    expect(model.offeredTools[0]![0]!.inputSchema).toMatchObject({ type: "object", required: ["plan"] });
    expect(userMessages(session)[0]).toContain("a call to the submit_plan tool, or ");
    // Each call is answered at the start of the next user message: the error, marked as one.
    const answered = session.messages.filter((m) => m.toolResults).map((m) => m.toolResults);
    expect(answered).toEqual([
      [{ id: "t1", content: expect.stringMatching(/^the submit_plan call's plan is not a plan/), isError: true }],
      [{ id: "t2", content: expect.stringMatching(/not valid JSON/), isError: true }],
    ]);
    expect(session.conversation().at(-1)).toMatchObject({ role: "assistant", toolCalls: [{ id: "t3" }] });
  });

  it("offers no tool to a model that takes none, and does not mention one", async () => {
    const { session, model, run } = await setup([json(good)]);
    askForPlan(session, ["shop/cart.py"], "FILE: shop/cart.py");
    expect(await run(requestPlan(session))).toMatchObject({ kind: "plan" });
    expect(model.offeredTools).toEqual([[]]);
    expect(userMessages(session)[0]).not.toContain("submit_plan");
  });

  it("falls back after max_plan_attempts replies without a plan", async () => {
    const { session, model, run } = await setup(["no plan", json([]), json(good)], undefined, {
      limits: { max_plan_attempts: 2 },
    });
    const outcome = await run(requestPlan(session));
    expect(outcome).toEqual({
      kind: "fallback",
      reason: expect.stringMatching(/^no valid plan after 2 attempts \(last: the json block is not a plan: /),
    });
    expect(model.used).toBe(2);
  });
});

describe("VERIFY", () => {
  it("passes a plan that fits the files and fails one that does not, with the verifier's errors", async () => {
    const { session, run } = await setup([]);
    const ok = await run(
      verifyPhase(
        session,
        [
          {
            op: "replace_node",
            params: {
              locator: { kind: "method", name: "total", file: "shop/cart.py" },
              replacement: "def total(self):\n    return 0",
            },
          },
        ],
        ["shop/cart.py"],
      ),
    );
    expect(ok.result).toMatchObject({ passed: true, errors: [] });
    const bad = await run(
      verifyPhase(
        session,
        [
          {
            op: "replace_node",
            params: {
              locator: { kind: "method", name: "total", file: "shop/cart.py" },
              replacement: "def total(self):\n    return (",
            },
          },
        ],
        ["shop/cart.py"],
      ),
    );
    expect(bad.result.passed).toBe(false);
    expect(bad.result.errors.join("\n")).toMatch(/syntax/i);
  });

  it("reads the files the plan names that EXPLORE did not list", async () => {
    const { session, run } = await setup([]);
    const plan = [
      {
        op: "delete_node",
        params: {
          locator: { kind: "if", file: "shop/pricing.py", parent: { kind: "function", name: "apply_discount" } },
        },
      },
    ];
    expect((await run(verifyPhase(session, plan, ["shop/cart.py"]))).result).toMatchObject({ passed: true });
    const missing = await run(
      verifyPhase(
        session,
        [{ op: "delete_node", params: { locator: { kind: "function", name: "f", file: "shop/none.py" } } }],
        ["shop/cart.py"],
      ),
    );
    expect(missing.result.passed).toBe(false);
    expect(missing.result.errors.join("\n")).toContain("shop/none.py");
  });
});

describe("the step loop", () => {
  const PATCH = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n";
  /** A sandbox whose git answers with PATCH (and whose apply check passes) once `edited` is set. */
  const answers =
    (state: { edited: boolean }) =>
    (command: string): TestAnswer | undefined => {
      if (command.startsWith("sed")) return ((state.edited = true), "");
      if (command.startsWith("echo COMPLETE")) return "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n";
      if (command.includes("git add -A"))
        return state.edited
          ? patchCommandOutput(command, PATCH)
          : patchCommandOutput(command, "", { applies: false, output: "error: No valid patches in input\n" });
      return undefined;
    };

  it("runs commands until the submit marker, rejecting an unusable patch and going on", async () => {
    const state = { edited: false };
    const { session, run } = await setup(
      [
        "no block",
        bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
        bash("sed -i s/1/2/ a.py"),
        bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"),
      ],
      answers(state),
    );
    session.enter("fallback", "test");
    const submission = await run(stepLoop(session, "fallback"));
    expect(submission).toMatchObject({ ok: true, patch: PATCH, phase: "submit" });
    expect(session.submissions.map((s) => s.ok)).toEqual([false, true]);
    const users = userMessages(session);
    expect(users[0]).toContain("Your reply had 0 ```bash blocks");
    expect(users[1]).toContain("The submission was rejected");
    expect(users[1]).toContain("- the diff is empty");
    expect(session.transitions.map((t) => t.to)).toEqual(["explore", "fallback", "submit", "fallback", "submit"]);
  });

  it("only the limits end a loop that never submits", async () => {
    const { session, run } = await setup(
      Array.from({ length: 5 }, () => bash("ls")),
      () => "a.py\n",
      { limits: { step_limit: 3 } },
    );
    const outcome = await run(Effect.result(stepLoop(session, "fallback")));
    expect(outcome._tag === "Failure" && outcome.failure._tag).toBe("LimitsExceeded");
    expect(session.totals.modelCalls).toBe(3);
  });
});

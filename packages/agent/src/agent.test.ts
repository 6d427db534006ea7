/**
 * End-to-end runs of the agent with a scripted model on the shop project, committed into a fresh
 * git repository: the local sandbox runs the commands, the workspace edits the files, git makes
 * the patch.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as Effect from "effect/Effect";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "@graphplan/runtime";
import { ModelRequestFailed, WorkspaceIOError } from "@graphplan/runtime";
import { SHOP, SUBMIT, bash, git, json, read, runOn, shopRepo, status, tempDir } from "./fixtures/repo.js";
import { TrajectorySchema, type Trajectory } from "./trajectory.js";

const TASK =
  "Cart.total() ignores the quantity of each item: a cart with 3 pens at 2.0 totals 2.0 instead of 6.0. Fix it.";
const TOTAL_LOCATOR = { kind: "method", name: "total", file: "shop/cart.py", parent: { kind: "class", name: "Cart" } };
const FIXED_TOTAL = "def total(self):\n    return sum(price * quantity for _name, price, quantity in self.items)";
const FIX_PLAN = [{ op: "replace_node", params: { locator: TOTAL_LOCATOR, replacement: FIXED_TOTAL } }];
const FIXED_CART = read(SHOP, "shop/cart.py").replace(
  "return sum(price for _name, price, _quantity in self.items)",
  "return sum(price * quantity for _name, price, quantity in self.items)",
);

const lastUser = (messages: readonly ChatMessage[]) => [...messages].reverse().find((m) => m.role === "user")!.content;
const phases = (t: Trajectory) => t.transitions.map((tr) => tr.to);

/** The patch applies to a fresh clone of the original commit and gives the expected file. */
function appliesToFreshClone(repo: string, patch: string): string {
  const clone = tempDir("graphplan-clone-");
  git(clone, "clone", "-q", repo, ".");
  writeFileSync(join(clone, "fix.patch"), patch);
  git(clone, "apply", "fix.patch");
  return read(clone, "shop/cart.py");
}

describe("the agent, end to end", () => {
  it("explores, plans, verifies, executes and submits the expected diff (happy path)", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(repo, TASK, [
      bash("grep -rn 'def total' --include=*.py .", "Where is total?"),
      bash("cat shop/cart.py"),
      'THOUGHT: The bug is in Cart.total.\n\nREADY_TO_PLAN: ["shop/cart.py"]',
      json(FIX_PLAN),
      SUBMIT,
    ]);

    expect(trajectory.exitStatus).toBe("Submitted");
    expect(TrajectorySchema.parse(trajectory)).toEqual(trajectory);
    expect(phases(trajectory)).toEqual(["explore", "graph", "plan", "verify", "execute", "review", "submit"]);
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
    expect(trajectory.patch).toMatch(/^diff --git a\/shop\/cart\.py b\/shop\/cart\.py\n/);
    expect(trajectory.patch).toContain(
      "-        return sum(price for _name, price, _quantity in self.items)\n+        return sum(price * quantity for _name, price, quantity in self.items)\n",
    );
    expect(appliesToFreshClone(repo, trajectory.patch)).toBe(FIXED_CART);
    expect(trajectory.files).toEqual(["shop/cart.py"]);
    expect(trajectory.totals).toMatchObject({ costUsd: 0, modelCalls: 5 });
    expect(trajectory.totals.commandMs).toBeGreaterThan(0);
    expect(trajectory.plans).toHaveLength(1);
    expect(trajectory.plans[0]).toMatchObject({
      valid: true,
      verify: { passed: true },
      apply: { ok: true, written: ["shop/cart.py"] },
    });

    // What the model was shown: the grep's real output, the graph view and the compact catalog, the diff to review.
    const [, second, , fourth, fifth] = scripted.requests;
    expect(lastUser(second!)).toContain("shop/cart.py:12:    def total(self):");
    expect(lastUser(fourth!)).toContain("  FUNCTION: total (lines 12-13)");
    expect(lastUser(fourth!)).toContain("\n# Operators\n"); // the compact catalog; the JSON Schema is not in the prompt
    expect(lastUser(fourth!)).not.toContain('"$schema"');
    expect(lastUser(fifth!)).toContain(
      "+        return sum(price * quantity for _name, price, quantity in self.items)",
    );
    // The system prompt is first, then the task.
    expect(scripted.requests[0]!.map((m) => m.role)).toEqual(["system", "user"]);
    expect(scripted.requests[0]![1]!.content).toContain(TASK);
  });

  it("takes the plan from the file a reply's command writes (the design's heredoc into /tmp/edit_plan.json), and says when the command wrote none", async () => {
    const repo = shopRepo();
    const planFile = join(tempDir("graphplan-plan-file-"), "edit_plan.json");
    const heredoc = bash(
      `cat > ${planFile} <<'EOF'\n${JSON.stringify(FIX_PLAN)}\nEOF`,
      "I write the plan to the file.",
    );
    const { trajectory, scripted } = await runOn(
      repo,
      TASK,
      ['READY_TO_PLAN: ["shop/cart.py"]', bash("echo no plan here"), heredoc, SUBMIT],
      { config: { plan_file: planFile } },
    );
    expect(lastUser(scripted.requests[2]!)).toContain(
      `the reply's command did not write a plan to ${planFile} (it exited 0: no plan here)`,
    );
    expect(trajectory.plans.map((p) => [p.valid, p.channel])).toEqual([
      [false, undefined],
      [true, "plan file"],
    ]);
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
  });

  it("sends the verifier's revision prompt back and applies the revised plan", async () => {
    const repo = shopRepo();
    const badPlan = [
      { op: "replace_node", params: { locator: { ...TOTAL_LOCATOR, name: "totl" }, replacement: FIXED_TOTAL } },
    ];
    const { trajectory, scripted } = await runOn(repo, TASK, [
      'READY_TO_PLAN: ["shop/cart.py"]',
      json(badPlan),
      json(FIX_PLAN, "Fixed the method name."),
      SUBMIT,
    ]);

    expect(trajectory.exitStatus).toBe("Submitted");
    const firstVerify = trajectory.plans[0]!.verify!;
    expect(firstVerify.passed).toBe(false);
    expect(firstVerify.errors.join("\n")).toContain("totl");
    // The model's next request carries the verifier's own error text, with its fix.
    const revision = lastUser(scripted.requests[2]!);
    for (const error of firstVerify.errors) expect(revision).toContain(error);
    expect(revision).toContain("This is revision 1 of 3.");
    expect(phases(trajectory)).toEqual([
      "explore",
      "graph",
      "plan",
      "verify",
      "plan",
      "verify",
      "execute",
      "review",
      "submit",
    ]);
    expect(trajectory.transitions[4]!.reason).toBe("verification failed with 1 error; revision 1 of 3");
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
  });

  it("executes the plan the verifier passed, with its corrections: a dotted locator name runs as the name inside its parent", async () => {
    const repo = shopRepo();
    // "Cart.total" with no parent: the verifier corrects it (a warning); the run must use the corrected locator too.
    const dotted = [
      {
        op: "replace_node",
        params: { locator: { kind: "method", name: "Cart.total", file: "shop/cart.py" }, replacement: FIXED_TOTAL },
        description: "fix the total",
      },
    ];
    const { trajectory } = await runOn(repo, TASK, ['READY_TO_PLAN: ["shop/cart.py"]', json(dotted), SUBMIT]);
    const verify = trajectory.plans[0]!.verify!;
    expect(verify.passed).toBe(true);
    expect(verify.warnings.join("\n")).toContain('took "Cart.total" as "total" inside "Cart"');
    expect(verify.warnings.join("\n")).toContain('left out "description"');
    expect(trajectory.plans[0]!.apply).toMatchObject({ ok: true });
    expect(phases(trajectory)).toEqual(["explore", "graph", "plan", "verify", "execute", "review", "submit"]);
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
  });

  it("verifies against the repository's files that import the plan's files and records them", async () => {
    const repo = shopRepo();
    const rename = [
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "apply_discount", file: "shop/pricing.py" },
          replacement: "def discount(amount, percent):\n    return amount - amount * percent / 100",
        },
      },
    ];
    const { trajectory } = await runOn(repo, "Rename apply_discount to discount.", [
      'READY_TO_PLAN: ["shop/pricing.py"]',
      json(rename),
      SUBMIT,
    ]);
    expect(TrajectorySchema.parse(trajectory)).toEqual(trajectory);
    // parsed: the three other Python files (pricing.py came from the run's cache, graphed by GRAPH).
    expect(trajectory.plans[0]!.importers).toEqual({ added: ["shop/cart.py"], parsed: 3 });
    expect(trajectory.plans[0]!.verify!.warnings).toContainEqual(
      expect.stringContaining(
        "'apply_discount' (renamed to 'discount') is imported by files not in this plan: ['shop/cart.py']",
      ),
    );
    expect(phases(trajectory)).toEqual(["explore", "graph", "plan", "verify", "execute", "review", "submit"]);
  });

  it("falls back after max_plan_revisions revisions that all fail verification, with the reason recorded", async () => {
    const repo = shopRepo();
    const badPlan = (name: string) =>
      json([{ op: "replace_node", params: { locator: { ...TOTAL_LOCATOR, name }, replacement: FIXED_TOTAL } }]);
    const { trajectory, scripted } = await runOn(repo, TASK, [
      'READY_TO_PLAN: ["shop/cart.py"]',
      badPlan("t1"),
      badPlan("t2"),
      badPlan("t3"),
      badPlan("t4"),
      bash("sed -i 's/price for _name, price, _quantity/price * quantity for _name, price, quantity/' shop/cart.py"),
      SUBMIT,
    ]);
    expect(trajectory.plans.map((p) => p.verify?.passed)).toEqual([false, false, false, false]);
    expect(lastUser(scripted.requests[4]!)).toContain("This is revision 3 of 3.");
    const fallback = trajectory.transitions.find((t) => t.to === "fallback");
    expect(fallback).toMatchObject({ from: "verify", reason: "plan verification failed after 3 revisions" });
    expect(lastUser(scripted.requests[5]!)).toContain(
      "The structured plan is not used (plan verification failed after 3 revisions)",
    );
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
  });

  it("falls back to the step loop after repeated invalid plans; the loop edits with a shell command and submits", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(repo, TASK, [
      'READY_TO_PLAN: ["shop/cart.py"]',
      "I would change total.",
      json(["shop/cart.py"]),
      json([]),
      '```json\n[{"op": \n```',
      json({ steps: [{ op: "replace_node" }] }),
      bash(
        "sed -i 's/price for _name, price, _quantity/price * quantity for _name, price, quantity/' shop/cart.py",
        "Edit directly.",
      ),
      bash("python3 check.py"),
      SUBMIT,
    ]);

    expect(trajectory.exitStatus).toBe("Submitted");
    expect(phases(trajectory)).toEqual(["explore", "graph", "plan", "fallback", "submit"]);
    expect(trajectory.transitions[3]!.reason).toMatch(
      /^no valid plan after 5 attempts \(last: the json block is not a plan: /,
    );
    expect(trajectory.plans.map((p) => p.valid)).toEqual([false, false, false, false, false]);
    expect(trajectory.plans.map((p) => p.error)).toEqual([
      "the reply has no plan: no ```json block, no fenced block and no JSON in the text",
      "the json block is not a plan: the plan's elements are not step objects (a list of file names?)",
      "the json block is not a plan: the plan is empty",
      expect.stringMatching(/^the json block is not valid JSON/),
      expect.stringMatching(/^the json block is not a plan: /),
    ]);
    // Each bad reply got the plan-integrity gate's error back; the fifth got the fallback prompt.
    expect(lastUser(scripted.requests[2]!)).toContain(
      "That reply has no usable plan: the reply has no plan: no ```json block, no fenced block and no JSON in the text",
    );
    expect(lastUser(scripted.requests[3]!)).toContain(
      "That reply has no usable plan: the json block is not a plan: the plan's elements are not step objects (a list of file names?)",
    );
    expect(lastUser(scripted.requests[6]!)).toContain(
      "The structured plan is not used (no valid plan after 5 attempts",
    );
    // The check script's real output came back, then the submission.
    expect(lastUser(scripted.requests[8]!)).toContain("<output>\nok\n</output>");
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
    expect(appliesToFreshClone(repo, trajectory.patch)).toBe(FIXED_CART);
  });

  it("falls back when exploring takes max_explore_steps replies", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(
      repo,
      TASK,
      [
        bash("ls"),
        "Let me think about it.",
        bash("cat shop/cart.py"),
        bash("sed -i 's/price for _name, price, _quantity/price * quantity for _name, price, quantity/' shop/cart.py"),
        SUBMIT,
      ],
      { config: { limits: { max_explore_steps: 3 } } },
    );

    expect(trajectory.exitStatus).toBe("Submitted");
    expect(phases(trajectory)).toEqual(["explore", "fallback", "submit"]);
    expect(trajectory.transitions[1]!.reason).toBe(
      "explore did not end with READY_TO_PLAN within max_explore_steps (3)",
    );
    expect(trajectory.files).toBeNull();
    // The reply without a block got the format error, and counted as a step.
    expect(lastUser(scripted.requests[2]!)).toContain("Your reply had 0 ```bash blocks");
    // The last observation and the fallback prompt reach the model as one user turn: turns alternate.
    const fallbackTurn = lastUser(scripted.requests[3]!);
    expect(fallbackTurn).toMatch(
      /^<returncode>0<\/returncode>\n<output>\n"""A shopping cart\."""[\s\S]*The structured plan is not used \(explore did not end/,
    );
    for (const request of scripted.requests) {
      expect(request.map((m) => m.role)).toEqual(
        request.map((_, i) => (i === 0 ? "system" : i % 2 === 1 ? "user" : "assistant")),
      );
    }
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
  });

  it("tells the model about listed files that do not exist and goes on exploring", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(repo, TASK, [
      'READY_TO_PLAN: ["shop/carts.py", "shop"]',
      'READY_TO_PLAN: ["./shop/cart.py"]',
      json(FIX_PLAN),
      SUBMIT,
    ]);
    expect(lastUser(scripted.requests[1]!)).toContain(
      "- shop/carts.py: no such file (a file the change adds is not listed here: the plan makes it with create_file)\n- shop: cannot be read",
    );
    expect(trajectory.files).toEqual(["shop/cart.py"]);
    expect(trajectory.exitStatus).toBe("Submitted");
  });

  it("ends with LimitsExceeded at step_limit model calls, recording the trajectory", async () => {
    const repo = shopRepo();
    const script = Array.from({ length: 10 }, () => bash("ls"));
    const { trajectory, scripted } = await runOn(repo, TASK, script, { config: { limits: { step_limit: 4 } } });
    expect(trajectory.exitStatus).toBe("LimitsExceeded");
    expect(trajectory.exitReason).toContain("limits.step_limit (4 model calls)");
    expect(scripted.used).toBe(4);
    expect(trajectory.totals.modelCalls).toBe(4);
    expect(trajectory.patch).toBe("");
    expect(TrajectorySchema.safeParse(trajectory).success).toBe(true);
    expect(trajectory.messages.filter((m) => m.role === "assistant")).toHaveLength(4);
  });

  it("submits the applied plan's diff when a limit ends the run during review (auto-submit)", async () => {
    const repo = shopRepo();
    const { trajectory } = await runOn(
      repo,
      TASK,
      ['READY_TO_PLAN: ["shop/cart.py"]', json(FIX_PLAN), bash("git diff --stat")],
      { config: { limits: { step_limit: 3 } } },
    );
    expect(trajectory.exitStatus).toBe("LimitsExceeded");
    expect(trajectory.autoSubmitted).toBe(true);
    expect(trajectory.exitReason).toContain("the work tree's changes were submitted as the patch");
    expect(appliesToFreshClone(repo, trajectory.patch)).toBe(FIXED_CART);
    expect(trajectory.retryable).toBe(false);
  });

  it("ends with LimitsExceeded when the run's wall time passes limits.wall_time_seconds", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(repo, TASK, [bash("sleep 1.2"), bash("ls"), bash("ls")], {
      config: { limits: { wall_time_seconds: 1 } },
    });
    expect(trajectory.exitStatus).toBe("LimitsExceeded");
    expect(trajectory.exitReason).toContain("limits.wall_time_seconds (1 s) after 1 model calls");
    expect(scripted.used).toBe(1);
  });

  it("by default never rewrites what it sent: each request starts with the previous one, reasoning blocks included", async () => {
    const repo = shopRepo();
    const long = "python3 -c \"print('\\n'.join('line %d' % i for i in range(800)))\""; // cut by the old read_output_chars
    const thinking = { type: "thinking", thinking: "the total ignores quantity", signature: "sig-1" };
    const { trajectory, scripted } = await runOn(repo, TASK, [
      { content: bash(long), reasoning: [thinking] },
      bash("cat shop/cart.py"),
      'THOUGHT: The bug is in Cart.total.\n\nREADY_TO_PLAN: ["shop/cart.py"]',
      json(FIX_PLAN),
      SUBMIT,
    ]);
    expect(trajectory.exitStatus).toBe("Submitted");
    const requests = scripted.requests;
    for (let i = 1; i < requests.length; i++)
      expect(requests[i]!.slice(0, requests[i - 1]!.length), `request ${i + 1}`).toEqual(requests[i - 1]);
    expect(requests[1]![2]).toMatchObject({ role: "assistant", reasoning: [thinking] });
    expect(
      requests
        .at(-1)!
        .map((m) => m.content)
        .join("\n"),
    ).toContain("line 400");
    // Each user message names the config prompt that made it.
    expect(trajectory.messages.filter((m) => m.role !== "assistant").map((m) => m.prompt)).toEqual([
      "system",
      "instance",
      "observation",
      "observation",
      "plan",
      "review",
    ]);
  });

  it("resends an observation the model already answered cut to head and tail, keeping it whole in the trajectory", async () => {
    const repo = shopRepo();
    const long = "python3 -c \"print('\\n'.join('line %d' % i for i in range(800)))\"";
    const { trajectory, scripted } = await runOn(repo, TASK, [bash(long), bash("ls"), bash("ls")], {
      config: { limits: { step_limit: 3 }, command: { read_output_chars: 200 } },
    });
    const firstSeen = scripted.requests[1]!.map((m) => m.content).join("\n");
    const later = scripted.requests[2]!.map((m) => m.content).join("\n");
    expect(firstSeen).toContain("line 400");
    expect(later).not.toContain("line 400");
    expect(later).toMatch(
      /line 0\nline 1\n[\s\S]*\[\.\.\. \d+ characters of this earlier output left out \.\.\.\][\s\S]*line 799/,
    );
    expect(trajectory.messages.some((m) => m.content.includes("line 400"))).toBe(true);
  });

  it("ends after max_format_errors replies in a row without a command, and tells the model when a reply was cut off", async () => {
    const repo = shopRepo();
    const cut = {
      content: "THOUGHT: Let me look at every file in turn, starting with",
      stopReason: "max_tokens",
      usage: { inputTokens: 900, outputTokens: 4096 },
    };
    const { trajectory, scripted } = await runOn(
      repo,
      TASK,
      [cut, "no block here", bash("ls"), "none", "none", "none", "none", "none"],
      { config: { limits: { max_format_errors: 3 } } },
    );
    expect(lastUser(scripted.requests[1]!)).toContain("Your reply was cut off at 4096 tokens");
    expect(lastUser(scripted.requests[2]!)).toContain("Your reply had 0 ```bash blocks");
    expect(trajectory.exitStatus).toBe("LimitsExceeded");
    expect(trajectory.exitReason).toContain("broke the reply format 3 times in a row");
    // The valid `ls` in between reset the count: 2 before it, then 3 more.
    expect(scripted.used).toBe(6);
    expect(trajectory.messages.find((m) => m.role === "assistant")?.stopReason).toBe("max_tokens");
  });

  it("marks a run that ended on a provider outage as retryable, and one that ended on a refused request as not", async () => {
    const repo = shopRepo();
    const failing = (status: number) => () => ({
      name: "outage:model",
      complete: () =>
        Effect.fail(
          new ModelRequestFailed({
            provider: "anthropic",
            model: "claude-x",
            status,
            detail: "overloaded_error: Overloaded",
          }),
        ),
    });
    const outage = await runOn(repo, TASK, [], { model: failing(529) });
    expect(outage.trajectory).toMatchObject({ exitStatus: "Failed", retryable: true });
    expect(outage.trajectory.exitReason).toContain("HTTP 529");
    const refused = await runOn(repo, TASK, [], { model: failing(400) });
    expect(refused.trajectory).toMatchObject({ exitStatus: "Failed", retryable: false });
  });

  it("reports the trajectory as it grows, every message timestamped", async () => {
    const repo = shopRepo();
    const snapshots: Trajectory[] = [];
    const { trajectory } = await runOn(
      repo,
      TASK,
      [bash("ls"), 'READY_TO_PLAN: ["shop/cart.py"]', json(FIX_PLAN), SUBMIT],
      { onProgress: (t) => snapshots.push(structuredClone(t)) },
    );
    expect(snapshots.length).toBeGreaterThan(8);
    expect(snapshots.every((t) => t.exitStatus === "Running" && TrajectorySchema.safeParse(t).success)).toBe(true);
    const counts = snapshots.map((t) => t.messages.length);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    expect(snapshots.at(-1)!.messages.length).toBe(trajectory.messages.length);
    expect(trajectory.messages.every((m) => m.at !== undefined && !Number.isNaN(Date.parse(m.at)))).toBe(true);
    expect(Date.parse(trajectory.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(trajectory.startedAt!));
  });

  it("ends with LimitsExceeded when the replies' cost reaches cost_limit", async () => {
    const repo = shopRepo();
    const script = Array.from({ length: 10 }, () => bash("ls"));
    const { trajectory, scripted } = await runOn(repo, TASK, script, {
      config: { limits: { cost_limit: 1.0 } },
      model: (inner) => ({
        name: "priced:model",
        complete: (messages) => Effect.map(inner.complete(messages), (reply) => ({ ...reply, costUsd: 0.4 })),
      }),
    });
    expect(trajectory.exitStatus).toBe("LimitsExceeded");
    expect(trajectory.exitReason).toContain("limits.cost_limit ($1; spent $1.2000 in 3 model calls)");
    expect(scripted.used).toBe(3);
    expect(trajectory.totals.costUsd).toBeCloseTo(1.2);
    expect(trajectory.model).toBe("priced:model");
  });

  it("a plan whose apply fails leaves the repository clean, and the revision round applies a corrected plan", async () => {
    const repo = shopRepo();
    let writes = 0;
    let statusAtRevision: string | undefined;
    const { trajectory, scripted } = await runOn(
      repo,
      TASK,
      [
        'READY_TO_PLAN: ["shop/cart.py"]',
        json(FIX_PLAN),
        (messages) => {
          // Asked to revise after the failed apply: the repository must be exactly as committed.
          statusAtRevision = status(repo);
          expect(lastUser(messages)).toContain(
            'writing the files failed when it ran: writing "shop/cart.py" failed (could not write "shop/cart.py": disk full); every file written before it was restored',
          );
          return json(FIX_PLAN, "Try again.");
        },
        SUBMIT,
      ],
      {
        // The first write of shop/cart.py fails (after the journal was written): applyPlan rolls back.
        workspace: (ws) => ({
          ...ws,
          write: (path, text) =>
            path === "shop/cart.py" && writes++ === 0
              ? Effect.fail(new WorkspaceIOError({ operation: "write", path, detail: "disk full" }))
              : ws.write(path, text),
        }),
      },
    );
    expect(statusAtRevision).toBe("");
    expect(scripted.used).toBe(4);
    expect(trajectory.plans[0]!.apply).toMatchObject({ ok: false });
    expect(phases(trajectory)).toEqual([
      "explore",
      "graph",
      "plan",
      "verify",
      "execute",
      "plan",
      "verify",
      "execute",
      "review",
      "submit",
    ]);
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(read(repo, "shop/cart.py")).toBe(FIXED_CART);
  });

  it("falls back after a second failed apply, and a run that then hits the limits leaves the repository clean", async () => {
    const repo = shopRepo();
    const { trajectory } = await runOn(
      repo,
      TASK,
      ['READY_TO_PLAN: ["shop/cart.py"]', json(FIX_PLAN), json(FIX_PLAN), bash("git status --porcelain")],
      {
        config: { limits: { step_limit: 4 } },
        workspace: (ws) => ({
          ...ws,
          write: (path, text) =>
            path === "shop/cart.py"
              ? Effect.fail(new WorkspaceIOError({ operation: "write", path, detail: "disk full" }))
              : ws.write(path, text),
        }),
      },
    );
    expect(trajectory.transitions.at(-1)).toMatchObject({
      to: "fallback",
      reason: expect.stringMatching(/^plan execution failed after 1 revision: writing "shop\/cart\.py" failed/),
    });
    expect(trajectory.exitStatus).toBe("LimitsExceeded");
    // The command the fallback ran saw a clean tree, and the tree is still clean.
    expect(trajectory.messages.at(-1)!.content).toContain("<returncode>0</returncode>\n<output>\n\n</output>");
    expect(status(repo)).toBe("");
    expect(execFileSync("git", ["diff", "HEAD"], { cwd: repo, encoding: "utf8" })).toBe("");
  });

  it("rejects an empty submission in the fallback and lets the model go on", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(
      repo,
      TASK,
      [
        SUBMIT,
        bash("sed -i 's/price for _name, price, _quantity/price * quantity for _name, price, quantity/' shop/cart.py"),
        SUBMIT,
      ],
      { config: { limits: { max_explore_steps: 1 } } },
    );
    // The first SUBMIT is an explore step (a command like any other); then fallback.
    expect(phases(trajectory)).toEqual(["explore", "fallback", "submit"]);
    expect(trajectory.exitStatus).toBe("Submitted");
    expect(scripted.used).toBe(3);

    const again = await runOn(shopRepo(), TASK, [SUBMIT, SUBMIT, bash("echo '# note' >> shop/pricing.py"), SUBMIT], {
      config: { limits: { max_explore_steps: 1 } },
    });
    expect(phases(again.trajectory)).toEqual(["explore", "fallback", "submit", "fallback", "submit"]);
    expect(again.trajectory.submissions.map((s) => s.ok)).toEqual([false, true]);
    expect(again.trajectory.submissions[0]!.problems).toEqual([
      "the diff is empty: no file of the work tree differs from the last commit",
    ]);
    expect(lastUser(again.scripted.requests[2]!)).toContain("The submission was rejected");
    expect(again.trajectory.patch).toContain("+# note");
  });

  it("records a model failure as exit status Failed", async () => {
    const repo = shopRepo();
    const { trajectory } = await runOn(repo, TASK, [bash("ls")]);
    expect(trajectory.exitStatus).toBe("Failed");
    expect(trajectory.exitReason).toMatch(/^ModelScriptExhausted: the scripted model has only 1 replies/);
    expect(TrajectorySchema.safeParse(trajectory).success).toBe(true);
  });
});

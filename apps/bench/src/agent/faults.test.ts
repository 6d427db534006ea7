/**
 * `bench agent` against a real API's failures: the live Anthropic model (the real SDK) pointed at the
 * runtime's stand-in provider, which injects faults per instance — a 529 burst the SDK's retries
 * absorb, an outage that outlasts them, a hung connection, a reply cut off at the token limit — with
 * two instances at once; then a resume. Every instance ends with a prediction, and none is lost or
 * counted as done while it is retryable. Also: one model per preds file, and the unpriced-model warning.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  anthropicError,
  anthropicMessage,
  startProviderServer,
  type Answer,
  type ReceivedRequest,
} from "@graphplan/runtime/testing";
import * as Effect from "effect/Effect";
import { afterAll, describe, expect, it } from "vitest";
import { CALC_REPLIES, calcFixture, tempDir, tempRoot, TASK, type Fixture } from "./fixtures/bench.js";
import { runAgentBench, type AgentBenchOptions } from "./harness.js";
import { PredictionSchema } from "./preds.js";
import { AgentReportSchema } from "./report.js";

const REPLIES = JSON.parse(readFileSync(CALC_REPLIES, "utf8")) as string[];
const KEY = "GRAPHPLAN_FAULTS_TEST_KEY";
process.env[KEY] = "sk-ant-test-faults";
afterAll(() => delete process.env[KEY]);

/** Four instances of the calc project; each problem statement names its fault. */
function dataset(fx: Fixture): string {
  const base = (JSON.parse(readFileSync(fx.dataset, "utf8").split("\n")[0]!) as { base_commit: string }).base_commit;
  const path = join(tempDir(), "faults.jsonl");
  const line = (id: string, fault: string) =>
    JSON.stringify({
      repo: "acme/calc",
      instance_id: id,
      base_commit: base,
      problem_statement: `${TASK} [fault:${fault}]`,
      patch: "",
    });
  writeFileSync(
    path,
    [
      line("acme__calc-burst", "burst"),
      line("acme__calc-outage", "outage"),
      line("acme__calc-hang", "hang"),
      line("acme__calc-cut", "cut"),
    ].join("\n") + "\n",
  );
  return path;
}

const faultOf = (request: ReceivedRequest): string =>
  /\[fault:(\w+)\]/.exec(JSON.stringify(request.body.messages))?.[1] ?? "none";
const ok = (text: string): Answer =>
  anthropicMessage({ content: [{ type: "text", text }], inputTokens: 1000, outputTokens: 100 });
const overloaded = anthropicError(529, "overloaded_error", "Overloaded", { "retry-after-ms": "1" });

/** The stand-in's behaviour: per instance, its fault, then the calc project's solution in order. */
function provider(outageOver: { value: boolean }) {
  const served = new Map<string, number>();
  const calls = new Map<string, number>();
  return (request: ReceivedRequest): Answer => {
    const fault = faultOf(request);
    const call = (calls.get(fault) ?? 0) + 1;
    calls.set(fault, call);
    if (fault === "burst" && call <= 1) return overloaded; // absorbed by the SDK's retry
    if (fault === "outage" && !outageOver.value) return overloaded; // outlasts the retries
    if (fault === "hang" && call === 1) return "hang"; // the SDK's timeout, then its retry
    const next = served.get(fault) ?? 0;
    if (fault === "cut" && call === 2) {
      return anthropicMessage({
        content: [{ type: "text", text: "THOUGHT: Let me read every file of the project, starting with" }],
        inputTokens: 1000,
        outputTokens: 4096,
        stopReason: "max_tokens",
      });
    }
    served.set(fault, next + 1);
    return ok(REPLIES[Math.min(next, REPLIES.length - 1)]!);
  };
}

function configFile(origin: string, extra = ""): string {
  const path = join(tempDir(), "model.yaml");
  writeFileSync(
    path,
    `model:\n  provider: anthropic\n  model: claude-sonnet-4-5\n  baseUrl: ${origin}\n  apiKeyEnv: ${KEY}\n  maxRetries: 1\n  timeoutMs: 1500\n${extra}`,
  );
  return path;
}

const preds = (out: string) =>
  readFileSync(join(out, "preds.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => PredictionSchema.parse(JSON.parse(l)));
const report = (out: string) => AgentReportSchema.parse(JSON.parse(readFileSync(join(out, "report.json"), "utf8")));

describe("bench agent against a failing provider (real SDK, stand-in server)", () => {
  it("absorbs bursts, hangs and cut-off replies, records an outage as retryable with no prediction, and a resume finishes it", async () => {
    const fx = calcFixture();
    const outageOver = { value: false };
    const server = await startProviderServer(provider(outageOver));
    try {
      const out = join(tempDir(), "out");
      const options: AgentBenchOptions = {
        dataset: dataset(fx),
        reposDir: fx.reposDir,
        outDir: out,
        configPath: configFile(server.origin),
        model: { provider: "anthropic", model: "claude-sonnet-4-5" },
        sandbox: { sandbox: "local", workdir: "/repo" },
        tempRoot: tempRoot(),
        workers: 2,
      };
      const first = await Effect.runPromise(runAgentBench(options));
      const byId = new Map(first.entries.map((e) => [e.instance_id, e]));
      expect(byId.get("acme__calc-burst")).toMatchObject({ status: "Submitted" });
      expect(byId.get("acme__calc-hang")).toMatchObject({ status: "Submitted" });
      expect(byId.get("acme__calc-cut")).toMatchObject({ status: "Submitted" });
      expect(byId.get("acme__calc-outage")).toMatchObject({ status: "Failed", retryable: true });
      expect(byId.get("acme__calc-outage")?.exit_reason).toMatch(/HTTP 529.*Overloaded.*overloaded: try again later/);
      expect(
        preds(out)
          .map((p) => p.instance_id)
          .sort(),
      ).toEqual(["acme__calc-burst", "acme__calc-cut", "acme__calc-hang"]);
      expect(first.summary.retryable).toBe(1);
      expect(first.table).toMatch(/^retryable \(run again on resume\) +1$/m);
      // The cut-off reply was named as such to the model.
      const cut = JSON.parse(readFileSync(join(out, "acme__calc-cut", "trajectory.json"), "utf8")) as {
        messages: { content: string; stopReason?: string }[];
      };
      expect(cut.messages.some((m) => m.stopReason === "max_tokens")).toBe(true);
      expect(cut.messages.some((m) => m.content.includes("Your reply was cut off at 4096 tokens"))).toBe(true);
      // Costs come from the model's list price without any price in the config.
      expect(byId.get("acme__calc-burst")!.cost_usd).toBeCloseTo((5 * 1000 * 3 + 5 * 100 * 15) / 1e6, 9);

      outageOver.value = true;
      const second = await Effect.runPromise(runAgentBench(options));
      const again = new Map(second.entries.map((e) => [e.instance_id, e]));
      expect(again.get("acme__calc-outage")).toMatchObject({ status: "Submitted" });
      expect(again.get("acme__calc-outage")?.resumed).toBeUndefined();
      expect(
        [...again.values()]
          .filter((e) => e.resumed)
          .map((e) => e.instance_id)
          .sort(),
      ).toEqual(["acme__calc-burst", "acme__calc-cut", "acme__calc-hang"]);
      expect(
        preds(out)
          .map((p) => p.instance_id)
          .sort(),
      ).toEqual(["acme__calc-burst", "acme__calc-cut", "acme__calc-hang", "acme__calc-outage"]);
      expect(preds(out).every((p) => p.model_patch.includes("return total / len(values)"))).toBe(true);
      expect(report(out).instances).toHaveLength(4);
    } finally {
      await server.close();
    }
  });

  it("refuses to add another model's predictions to a preds file, and warns once about a model with no known price", async () => {
    const fx = calcFixture();
    const server = await startProviderServer(provider({ value: true }));
    try {
      const out = join(tempDir(), "out");
      const base: AgentBenchOptions = {
        dataset: fx.dataset,
        reposDir: fx.reposDir,
        instances: ["acme__calc-1"],
        outDir: out,
        configPath: configFile(server.origin),
        model: { provider: "anthropic", model: "claude-sonnet-4-5" },
        sandbox: { sandbox: "local", workdir: "/repo" },
        tempRoot: tempRoot(),
      };
      await Effect.runPromise(runAgentBench(base));
      const warnings: string[] = [];
      const mixed = await Effect.runPromise(
        Effect.flip(
          runAgentBench({
            ...base,
            model: { provider: "anthropic", model: "acme-frontier-1" },
            onWarning: (w) => warnings.push(w),
          }),
        ),
      );
      expect(mixed.message).toBe(
        `${join(out, "preds.jsonl")} holds predictions of graphplan/anthropic:claude-sonnet-4-5, and this run's model is graphplan/anthropic:acme-frontier-1: one model per preds file; use another --out for this model`,
      );
      expect(warnings).toEqual([]);
      // A fresh stand-in, so that the solution is replayed from its first reply.
      const fresh = await startProviderServer(provider({ value: true }));
      await Effect.runPromise(
        runAgentBench({
          ...base,
          configPath: configFile(fresh.origin),
          outDir: join(tempDir(), "out2"),
          model: { provider: "anthropic", model: "acme-frontier-1" },
          onWarning: (w) => warnings.push(w),
        }),
      ).finally(() => fresh.close());
      expect(warnings).toEqual([
        expect.stringMatching(
          /^warning: no price is known for anthropic:acme-frontier-1: its calls count as \$0 and limits\.cost_limit cannot stop the run; set model\.price/,
        ),
      ]);
    } finally {
      await server.close();
    }
  });

  it("stops starting instances once the run's cost passes --total-cost-limit, leaving the rest without predictions", async () => {
    const fx = calcFixture();
    const server = await startProviderServer(provider({ value: true }));
    try {
      const out = join(tempDir(), "out");
      const result = await Effect.runPromise(
        runAgentBench({
          dataset: dataset(fx),
          reposDir: fx.reposDir,
          instances: ["acme__calc-burst", "acme__calc-hang", "acme__calc-cut"],
          outDir: out,
          configPath: configFile(server.origin),
          model: { provider: "anthropic", model: "claude-sonnet-4-5" },
          sandbox: { sandbox: "local", workdir: "/repo" },
          tempRoot: tempRoot(),
          totalCostLimit: 0.01,
        }),
      );
      expect(result.entries.map((e) => [e.instance_id, e.status, e.cause])).toEqual([
        ["acme__calc-burst", "Submitted", undefined],
        ["acme__calc-hang", "skipped", "total_cost_limit"],
        ["acme__calc-cut", "skipped", "total_cost_limit"],
      ]);
      expect(result.entries[1]?.error).toMatch(/^the run has spent \$0\.0225 of --total-cost-limit \$0\.01;/);
      expect(preds(out).map((p) => p.instance_id)).toEqual(["acme__calc-burst"]);
    } finally {
      await server.close();
    }
  });
});

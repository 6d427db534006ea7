/**
 * `bench run` end to end, as a user runs it: the CLI spawned, a scripted model, the small
 * SWE-bench-style instance of the eval tests with its image built on a REAL engine (podman on
 * /tmp/podman.sock, `bash .ci/podman-setup.sh`). The agent works inside the instance image (its
 * pytest runs the repository's tests), then the evaluation grades what it submitted.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TrajectorySchema } from "@graphplan/agent";
import { ContainerEngine } from "@graphplan/runtime";
import { tempDir } from "@graphplan/testkit";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_RUN_LABEL } from "./agent/in-image.js";
import { evalFixture, HOST, removeImages, requireEngine, type EvalFixture } from "./eval/fixtures/instances.js";

const app = join(import.meta.dirname, "..");
const tsx = join(app, "node_modules/.bin/tsx");
const bash = (command: string, thought = "Next step.") => `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``;
const PLAN = [
  {
    op: "replace_node",
    params: {
      locator: { kind: "function", name: "add", file: "calc/ops.py" },
      replacement: "def add(a, b):\n    return a + b",
    },
  },
];
const REPLIES = [
  bash("cat calc/ops.py && python3 -c 'import sys; print(sys.prefix)'"),
  'THOUGHT: add() subtracts.\n\nREADY_TO_PLAN: ["calc/ops.py"]',
  `THOUGHT: Make it add.\n\n\`\`\`json\n${JSON.stringify(PLAN)}\n\`\`\``,
  bash("python3 -m pytest -q tests 2>&1 | tail -1 && python3 -c 'from calc.ops import add; print(add(2, 3))'"),
  bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "Done."),
];

let fx: EvalFixture;
let root: string;
beforeAll(async () => {
  await requireEngine("bench run");
  root = mkdtempSync(join(tmpdir(), "graphplan-run-fixture-"));
  fx = await evalFixture(root, `r${randomUUID().slice(0, 8)}`, 1);
});
afterAll(async () => {
  if (fx) await removeImages(fx);
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("bench run (command line, podman)", () => {
  it("runs the agent inside the instance image, grades its patch with the instance's tests, and ends with the resolved count and the cost", () => {
    const out = join(tempDir(), "out");
    const script = join(tempDir(), "replies.json");
    writeFileSync(script, JSON.stringify(REPLIES));
    const args = [
      "--dataset",
      fx.dataset,
      "--out",
      out,
      "--provider",
      "scripted",
      "--script",
      script,
      "--namespace",
      "none",
      "--tag",
      fx.tag,
      "--docker-host",
      HOST,
      "--timeout",
      "120",
    ];
    const result = spawnSync(tsx, ["--conditions=source", "src/cli.ts", "run", ...args], {
      cwd: app,
      encoding: "utf8",
    });
    expect(result.stderr).not.toMatch(/^error/m);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^resolved 1 of 1 \(100\.0% of 1\) · total cost \$0\.0000 · tokens: 0 in, 0 out$/m);
    expect(result.stdout).toMatch(/^ {2}Submitted +1$/m);

    const id = fx.ids[0]!;
    const t = TrajectorySchema.parse(JSON.parse(readFileSync(join(out, id, "trajectory.json"), "utf8")));
    expect(t.exitStatus).toBe("Submitted");
    expect(t.sandbox).toMatch(/^container:graphplan-agent\..*:\/testbed$/);
    expect(t.workspace).toMatch(/^container:.*:\/testbed$/);
    // The model's pytest ran the repository's tests in the image.
    const observations = t.messages
      .filter((m) => m.role === "user")
      .map((m) => m.content)
      .join("\n");
    expect(observations).toMatch(/1 passed/);
    expect(observations).toMatch(/^5$/m);
    expect(t.patch).toContain("+    return a + b");

    const report = JSON.parse(
      readFileSync(join(out, "eval", "graphplan", "graphplan__scripted:model", id, "report.json"), "utf8"),
    ) as Record<string, { resolved: boolean }>;
    expect(report[id]?.resolved).toBe(true);

    // Nothing is left running, and the same command resumes without running anything again.
    const again = spawnSync(tsx, ["--conditions=source", "src/cli.ts", "run", ...args], { cwd: app, encoding: "utf8" });
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^instances +1 \(1 from an earlier run\)$/m);
    expect(again.stdout).toMatch(/^skipped \(graded before\) +1$/m);
    expect(again.stdout).toMatch(/^resolved 1 of 1/m);
  }, 240_000);

  it("leaves no agent container behind", async () => {
    const engine = ContainerEngine.make({ host: HOST });
    const left = await Effect.runPromise(engine.containersLabelled({ [AGENT_RUN_LABEL]: "" }));
    expect(left).toEqual([]);
  });
});

/**
 * `bench compare --arms graphplan,rfsn` end to end, as a user runs it: the CLI spawned, small
 * SWE-bench-style instances built on a REAL engine (podman on /tmp/podman.sock, the eval tests'
 * fixture), the agents inside the instance images, the patches graded by the instances' own tests.
 *
 * `--strategy rfsn` is told each instance's FAIL_TO_PASS names, not the tests themselves. Two kinds
 * of instance, with the replay model (every patch request answered with the reference patch's plan):
 * - "repair" instances, whose failing test is already in the repository at the base commit (the
 *   setting the RFSN planner is made for): the planner reproduces the failure, the plan fixes it,
 *   the test passes — resolved;
 * - SWE-bench's usual kind, whose failing test only the hidden test patch adds: the named test does
 *   not exist, its run ("not found") has no traceback to localize from, and the planner ends STUCK
 *   without asking the model for a patch — not resolved (no patch could make a missing test pass).
 * The graphplan arm resolves all four; the paired table says only graphplan 2, p = 0.5.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContainerEngine } from "@graphplan/runtime";
import { tempDir } from "@graphplan/testkit";
import { git } from "@graphplan/testkit/git";
import { CompareReportSchema, type CompareReport } from "@graphplan/viewer";
import * as Effect from "effect/Effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildInstanceImage,
  evalFixture,
  HOST,
  removeImages,
  requireEngine,
  fixtureArgs,
  type EvalFixture,
} from "../eval/fixtures/instances.js";
import { EVAL_RUN_LABEL } from "../eval/instance.js";
import { instanceImageName } from "../eval/spec.js";

const app = join(import.meta.dirname, "..", "..");
const tsx = join(app, "node_modules/.bin/tsx");
/** The repair instances: their base commit already holds the failing test (tests/test_ops.py::test_add). */
const REPAIR_IDS = ["pallets__flask-90201", "pallets__flask-90202"];

let fx: EvalFixture;
let root: string;
beforeAll(async () => {
  await requireEngine("bench compare");
  root = mkdtempSync(join(tmpdir(), "graphplan-compare-rfsn-"));
  fx = await evalFixture(root, `r${randomUUID().slice(0, 8)}`, 2);
  // The fixture's repository: `main` is the commit that adds test_add (its test patch applied); the gold patch applies to it.
  const repo = join(fx.root, "calc");
  const withTest = git(repo, "rev-parse", "main").trim();
  const [first] = readFileSync(fx.dataset, "utf8").trim().split("\n");
  const line = JSON.parse(first!) as Record<string, unknown>;
  // The harness's test patch of a repair instance touches the test file without changing its tests.
  const testPatch = [
    "diff --git a/tests/test_ops.py b/tests/test_ops.py",
    "--- a/tests/test_ops.py",
    "+++ b/tests/test_ops.py",
    "@@ -9,1 +9,2 @@ def test_add():",
    "     assert add(2, 3) == 5",
    "+# add() adds",
    "",
  ].join("\n");
  for (const id of REPAIR_IDS) {
    appendFileSync(
      fx.dataset,
      `${JSON.stringify({ ...line, instance_id: id, base_commit: withTest, environment_setup_commit: withTest, test_patch: testPatch })}\n`,
    );
  }
  await Effect.runPromise(
    Effect.forEach(
      REPAIR_IDS,
      (id) => buildInstanceImage(repo, withTest, instanceImageName(id, { namespace: null, tag: fx.tag })),
      {
        concurrency: 2,
        discard: true,
      },
    ).pipe(Effect.provide(ContainerEngine.layer({ host: HOST }))),
  );
}, 300_000);
afterAll(async () => {
  if (fx) {
    await removeImages(fx);
    await removeImages({ ...fx, ids: REPAIR_IDS });
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

const RUN_ID = `compare-rfsn-${randomUUID().slice(0, 8)}`;
const readReport = (out: string): CompareReport =>
  CompareReportSchema.parse(JSON.parse(readFileSync(join(out, "compare.json"), "utf8")));

describe("bench compare --arms graphplan,rfsn (command line, podman)", () => {
  it("runs the RFSN planner with each instance's FAIL_TO_PASS names: the replay resolves the repair instances, and is stuck where the hidden test patch adds the test", () => {
    const out = join(tempDir(), "cmp");
    const repoMap = join(tempDir(), "repos.json");
    writeFileSync(repoMap, JSON.stringify({ "pallets/flask": join(fx.root, "calc") }));
    const result = spawnSync(
      tsx,
      [
        "--conditions=source",
        "src/cli.ts",
        "compare",
        "--arms",
        "graphplan,rfsn",
        "--provider",
        "replay",
        "--repo-map",
        repoMap,
        "--out",
        out,
        ...fixtureArgs(fx, RUN_ID),
      ],
      { cwd: app, encoding: "utf8" },
    );
    expect(result.status, result.stderr).toBe(0);
    const r = readReport(out).results!;
    const ids = [...fx.ids, ...REPAIR_IDS];
    expect(r.per_instance.map((p) => p.instance_id)).toEqual(ids);
    const resolvedBy = (arm: 0 | 1) => r.per_instance.filter((p) => p.arms[arm].resolved).map((p) => p.instance_id);
    expect(resolvedBy(0)).toEqual(ids);
    expect(resolvedBy(1)).toEqual(REPAIR_IDS);
    // By hand: both 2, only graphplan 2; p = 2·P(Bin(2, ½) ≤ 0) = 0.5; 4/4 − 2/4 = +0.5.
    expect(r.paired).toEqual({ both: 2, onlyA: 2, onlyB: 0, neither: 0 });
    expect(r.mcnemar_p).toBe(0.5);
    expect(r.difference).toBe(0.5);
    expect(r.arms[1]).toMatchObject({
      label: "rfsn",
      strategy: "rfsn",
      resolved: 2,
      endings: { submitted: 2, fallback: 0, limit: 0, failed: 2 },
      graphplan: null,
    });

    const trajectory = (id: string) =>
      JSON.parse(readFileSync(join(out, "rfsn", id, "trajectory.json"), "utf8")) as {
        exitStatus: string;
        exitReason: string;
        transitions: { to: string; reason: string }[];
        messages: { role: string; content: string }[];
        patch: string;
      };
    // A repair instance: the named test ran with the harness's command and failed, the plan was verified, applied, and the tests passed.
    const repaired = trajectory(REPAIR_IDS[0]!);
    expect(repaired.exitStatus).toBe("Submitted");
    expect(repaired.transitions[0]!.reason).toBe("RFSN REPRODUCE: run_tests tests/test_ops.py test_add");
    expect(
      repaired.messages.some((m) => m.content.startsWith("$ pytest -rA 'tests/test_ops.py::test_add'\n(exit 1)")),
    ).toBe(true);
    expect(repaired.transitions.map((t) => t.reason)).toContainEqual(
      expect.stringMatching(/^RFSN PATCH: patch-\d+ verified$/),
    );
    expect(repaired.transitions.at(-1)!.reason).toBe("RFSN DONE: the tests pass");
    expect(repaired.patch).toContain("+    return a + b");
    expect(r.per_instance[2]!.arms[1]).toMatchObject({ agent: "Submitted", ending: "submitted", model_calls: 1 });
    // SWE-bench's kind: the named test is not in the repository, its run shows no traceback to localize from; the planner
    // searches, finds nothing to patch and ends stuck without asking the model for a patch.
    const stuck = trajectory(fx.ids[0]!);
    expect(r.per_instance[0]!.arms[1]).toMatchObject({ agent: "Failed", ending: "failed", model_calls: 0 });
    expect(stuck.exitStatus).toBe("Failed");
    expect(stuck.exitReason).toMatch(/^RfsnStuck: the RFSN planner is stuck: /);
    expect(
      stuck.messages.some((m) => /^\$ pytest -rA 'tests\/test_ops\.py::test_add'\n\(exit 4\)/.test(m.content)),
    ).toBe(true);
    expect(stuck.patch).toBe("");
    // stdout names the arm by its strategy.
    expect(result.stdout).toMatch(/^McNemar's exact test: p = 0\.5 \(2 vs 0 discordant pairs\)$/m);
  }, 600_000);

  it("leaves no eval container behind", async () => {
    const engine = ContainerEngine.make({ host: HOST });
    expect(await Effect.runPromise(engine.containersLabelled({ [EVAL_RUN_LABEL]: RUN_ID }))).toEqual([]);
  });
});

/**
 * `--strategy baseline` end to end on the shop project (real git, the local sandbox): the model edits
 * with shell commands from its first reply and submits; the replay model of the baseline applies a
 * reference patch through `git apply` in a here-document.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BASELINE_REASON } from "./baseline.js";
import { SHOP, SUBMIT, bash, git, read, runOn, shopRepo, tempDir } from "./fixtures/repo.js";
import { baselineReplayModel, baselineReplayReplies } from "./replay.js";
import { TrajectorySchema } from "./trajectory.js";

const TASK = "Cart.total() ignores the quantity of each item. Fix it.";
const BUGGY = "return sum(price for _name, price, _quantity in self.items)";
const FIXED = "return sum(price * quantity for _name, price, quantity in self.items)";

describe("--strategy baseline", () => {
  it("runs the step loop from the first reply: mini-swe-agent's prompts, shell edits, the same submission checks, no plan", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(
      repo,
      TASK,
      [
        bash("grep -n 'def total' -A2 shop/cart.py"),
        bash(`sed -i 's/${BUGGY}/${FIXED}/' shop/cart.py && git diff --stat`, "Multiply by the quantity."),
        SUBMIT,
      ],
      { strategy: "baseline" },
    );
    expect(trajectory.exitStatus, trajectory.exitReason).toBe("Submitted");
    expect(TrajectorySchema.parse(trajectory)).toEqual(trajectory);
    // One phase entered from no phase (not a fall back), then the submission.
    expect(trajectory.transitions.map((t) => [t.from, t.to])).toEqual([
      [null, "fallback"],
      ["fallback", "submit"],
    ]);
    expect(trajectory.transitions[0]!.reason).toBe(BASELINE_REASON);
    expect(trajectory.plans).toEqual([]);
    expect(trajectory.files).toBeNull();
    expect(trajectory.patch).toContain(`+        ${FIXED}`);
    expect(read(repo, "shop/cart.py")).toContain(FIXED);
    // The baseline's own prompts: a system prompt without plans, the task with the submit marker; no READY_TO_PLAN.
    const [system, instance] = scripted.requests[0]!;
    expect(system!.role).toBe("system");
    expect(system!.content).not.toMatch(/plan|READY_TO_PLAN/i);
    expect(instance!.content).toContain(TASK);
    expect(instance!.content).toContain("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT");
    expect(instance!.content).not.toContain("READY_TO_PLAN");
    // The grep's real output was the first observation.
    expect(scripted.requests[1]!.at(-1)!.content).toContain("def total(self):");
  });

  it("rejects an empty submission as the fallback loop does, and the limits end the run", async () => {
    const repo = shopRepo();
    const { trajectory, scripted } = await runOn(repo, TASK, [SUBMIT, SUBMIT, SUBMIT], {
      strategy: "baseline",
      config: { limits: { step_limit: 2 } },
    });
    expect(trajectory.exitStatus).toBe("LimitsExceeded");
    expect(trajectory.submissions.map((s) => s.ok)).toEqual([false, false]);
    expect(scripted.requests[1]!.at(-1)!.content).toContain("the diff is empty");
  });

  it("the replay model of the baseline applies the reference patch with git apply from a here-document, and submits the same diff", async () => {
    const repo = shopRepo();
    writeFileSync(join(repo, "shop/cart.py"), read(SHOP, "shop/cart.py").replace(BUGGY, FIXED));
    // A file the patch adds, holding the here-document's delimiter: in the diff it is a `+` line, so it cannot end the document.
    writeFileSync(join(repo, "NOTES"), "GRAPHPLAN_PATCH\n");
    git(repo, "add", "-A");
    const patch = git(repo, "diff", "--cached");
    git(repo, "reset", "-q", "--hard");
    git(repo, "clean", "-fdq");
    expect(baselineReplayReplies(patch)[1]).toContain("git apply --verbose - <<'GRAPHPLAN_PATCH'\ndiff --git");
    const { trajectory } = await runOn(repo, "replay", [], {
      strategy: "baseline",
      model: () => baselineReplayModel(patch),
    });
    expect(trajectory.exitStatus, trajectory.exitReason).toBe("Submitted");
    expect(trajectory.plans).toEqual([]);
    expect(trajectory.totals.modelCalls).toBe(3);
    const submitted = join(tempDir("graphplan-baseline-"), "submitted.diff");
    writeFileSync(submitted, trajectory.patch);
    git(repo, "reset", "-q", "--hard");
    git(repo, "clean", "-fdq");
    git(repo, "apply", submitted);
    git(repo, "add", "-A");
    expect(git(repo, "diff", "--cached")).toBe(patch);
  });
});

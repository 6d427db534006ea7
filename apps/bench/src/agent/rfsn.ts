/**
 * `bench agent --strategy rfsn`: the RFSN planner's task for a SWE-bench instance — the tests that must
 * pass and how to run them (see apps/bench/README.md, "`--strategy rfsn` on SWE-bench").
 *
 * The failing tests are the instance's FAIL_TO_PASS names: the tests that grade it. An agent in
 * SWE-bench's setting sees only the problem statement, so this tells the planner something a live agent
 * would not know (which tests, and so which files and names, matter). Only the names: the test patch is
 * not applied, so a test it adds does not exist in the repository the agent works on (its run fails
 * with "not found", and the planner's DONE, which needs those tests to pass, can only be reached by a
 * patch that also writes them; the harness puts the real tests back before grading).
 *
 * The tests run with the harness's own test command for the instance's repository and version (the
 * spec table's `test_cmd`, e.g. `pytest -rA`), the names put where the harness puts its test files.
 */
import type { RfsnOptions } from "@graphplan/agent";
import * as Result from "effect/Result";
import { EvalInstanceSchema, specFor } from "../eval/spec.js";

const RfsnInstanceSchema = EvalInstanceSchema.pick({ repo: true, version: true, FAIL_TO_PASS: true });

/** Runners whose test command cannot take the FAIL_TO_PASS names as they are written in the dataset. */
const UNNAMEABLE: Readonly<Record<string, string>> = {
  "sympy/sympy":
    "sympy's FAIL_TO_PASS names are bare function names (test_x), and bin/test reads its arguments as file paths, so it cannot run them by name",
};

/** The planner's task for one instance (without the proposers: the run's model), or why it has none. */
export function rfsnTask(instance: Readonly<Record<string, unknown>>): Result.Result<RfsnOptions, string> {
  const parsed = RfsnInstanceSchema.safeParse(instance);
  if (!parsed.success)
    return Result.fail(
      `--strategy rfsn needs the instance's repo, version and FAIL_TO_PASS (${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")})`,
    );
  const { repo, version, FAIL_TO_PASS } = parsed.data;
  if (FAIL_TO_PASS.length === 0)
    return Result.fail("--strategy rfsn needs the instance's failing tests, and its FAIL_TO_PASS is empty");
  const why = UNNAMEABLE[repo];
  if (why !== undefined) return Result.fail(`--strategy rfsn: ${why}`);
  const spec = specFor(repo, version);
  if (spec === undefined)
    return Result.fail(`--strategy rfsn: no test command is known for ${repo} ${version} (the harness's spec table)`);
  return Result.succeed({ failingTests: FAIL_TO_PASS, testCommand: `${spec.test_cmd} {tests}` });
}

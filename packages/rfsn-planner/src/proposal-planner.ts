/**
 * The eight proposal generators. Each returns a validated, frozen proposal whose id comes from the injected id
 * generator. The planner never writes code itself: edits carry a GraphPlan plan written by a model.
 */
import { createProposal, type Proposal } from "./schemas.js";
import { counterIds, type IdGenerator } from "./ids.js";
import type { Plan } from "./plan.js";

export interface ProposalPlannerOptions {
  /** Source of proposal ids; defaults to the deterministic counter `proposal-1`, `proposal-2`, ... */
  readonly idGenerator?: IdGenerator | undefined;
}

export type GuardType = "none" | "boundary" | "type";

/** The file and function a test id names: `path::Class::test` (pytest), `test (module.Class)` (Django), `test`. */
export function testTarget(id: string): { path: string | null; symbol: string } {
  if (id.includes("::")) {
    const [path, ...rest] = id.split("::");
    return { path: path!, symbol: (rest.at(-1) ?? path!).replace(/\[.*$/, "") };
  }
  const django = /^(\w+) \(([\w.]+)\)$/.exec(id);
  if (django) return { path: null, symbol: django[1]! };
  if (/\.py$/.test(id) || id.includes("/")) return { path: id, symbol: id };
  return { path: null, symbol: id };
}

const ROLLBACK_NONE = "nothing to roll back: the action does not modify the workspace";

export class ProposalPlanner {
  private readonly nextId: IdGenerator;

  constructor(options: ProposalPlannerOptions = {}) {
    this.nextId = options.idGenerator ?? counterIds("proposal");
  }

  /** A fresh id, and the hypothesis kept to one line (names and reasons may carry newlines). */
  private make(fields: { readonly hypothesis: string; readonly [key: string]: unknown }): Proposal {
    return createProposal({ ...fields, id: this.nextId(), hypothesis: fields.hypothesis.replace(/\s+/g, " ").trim() });
  }

  /** Run the failing tests (the given ids; none = the default suite) to capture the failure. */
  proposeReproduce(args: { tests?: readonly string[] | undefined } = {}): Proposal {
    const tests = [...(args.tests ?? [])];
    const first = tests[0] !== undefined ? testTarget(tests[0]) : null;
    return this.make({
      intent: "test",
      action_type: "run_tests",
      hypothesis:
        tests.length > 0
          ? `Running ${tests.length === 1 ? tests[0] : `${tests.length} tests`} reproduces the reported failure.`
          : "Running the test suite reproduces the reported failure.",
      target: { path: first?.path ?? ".", symbol: tests.length === 1 ? first!.symbol : null },
      change_summary: `Run ${tests.length > 0 ? tests.join(", ") : "the default test suite"} without modifying anything`,
      expected_effect: { tests, behavior: "At least one test fails, with a traceback that points at the fault" },
      risk_level: "low",
      rollback_plan: ROLLBACK_NONE,
      tests,
      scope: "targeted",
    });
  }

  /** Read a file (the traceback anchor or another suspect) to localize the fault. */
  proposeLocalizeFile(args: { filePath: string; reason: string; symbol?: string | null | undefined }): Proposal {
    return this.make({
      intent: "analyze",
      action_type: "read_file",
      hypothesis: `The fault is in ${args.symbol ? `${args.symbol} in ` : ""}${args.filePath}: ${args.reason}.`,
      target: { path: args.filePath, symbol: args.symbol ?? null },
      change_summary: `Read ${args.filePath}${args.symbol ? ` around ${args.symbol}` : ""}`,
      expected_effect: { tests: [], behavior: "The code at the suspected location is known" },
      risk_level: "low",
      rollback_plan: ROLLBACK_NONE,
    });
  }

  /** Search the repository for a pattern (a symbol, an exception message) to find where the fault lives. */
  proposeSearchRepo(args: { pattern: string; reason: string; scope?: string | undefined }): Proposal {
    return this.make({
      intent: "analyze",
      action_type: "search_repo",
      hypothesis: `Occurrences of "${args.pattern}" locate the fault: ${args.reason}.`,
      target: { path: args.scope ?? ".", symbol: null },
      change_summary: `Search ${args.scope ?? "the repository"} for "${args.pattern}"`,
      expected_effect: { tests: [], behavior: "A ranked list of files that mention the pattern" },
      risk_level: "low",
      rollback_plan: ROLLBACK_NONE,
      query: args.pattern,
    });
  }

  /** Add a defensive check (None, boundary or type) before the failing operation. Low risk. */
  proposeAddGuard(args: {
    filePath: string;
    symbol: string;
    guardType: GuardType;
    condition: string;
    change: Plan;
    tests?: readonly string[] | undefined;
  }): Proposal {
    const kind = { none: "None", boundary: "boundary", type: "type" }[args.guardType];
    return this.make({
      intent: "repair",
      action_type: "edit_file",
      hypothesis: `${args.symbol} fails because it does not handle ${args.condition}; a ${kind} guard fixes it.`,
      target: { path: args.filePath, symbol: args.symbol },
      change_summary: `Add a ${kind} check for ${args.condition} in ${args.symbol}`,
      expected_effect: {
        tests: [...(args.tests ?? [])],
        behavior: `${args.symbol} handles ${args.condition} instead of raising`,
      },
      risk_level: "low",
      rollback_plan: `Revert the edit to ${args.filePath}`,
      change: args.change,
    });
  }

  /** Fix a logic error in a function. Medium risk: it changes behaviour beyond a guard. */
  proposeFixLogicError(args: {
    filePath: string;
    symbol: string;
    description: string;
    change: Plan;
    tests?: readonly string[] | undefined;
  }): Proposal {
    return this.make({
      intent: "repair",
      action_type: "edit_file",
      hypothesis: `${args.symbol} is wrong because ${args.description}.`,
      target: { path: args.filePath, symbol: args.symbol },
      change_summary: `Fix the logic of ${args.symbol}: ${args.description}`,
      expected_effect: {
        tests: [...(args.tests ?? [])],
        behavior: `${args.symbol} behaves as the failing tests expect`,
      },
      risk_level: "medium",
      rollback_plan: `Revert the edit to ${args.filePath}`,
      change: args.change,
    });
  }

  /** Run the previously failing tests after a fix. */
  proposeVerifyTargeted(args: { tests: readonly string[]; afterFix: string }): Proposal {
    const tests = [...args.tests];
    const first = tests[0] !== undefined ? testTarget(tests[0]) : null;
    return this.make({
      intent: "test",
      action_type: "run_tests",
      hypothesis: `After ${args.afterFix}, the previously failing tests pass.`,
      target: { path: first?.path ?? ".", symbol: tests.length === 1 ? first!.symbol : null },
      change_summary: `Run ${tests.length > 0 ? tests.join(", ") : "the default test suite"} to verify the fix`,
      expected_effect: { tests, behavior: "The targeted tests pass" },
      risk_level: "low",
      rollback_plan: ROLLBACK_NONE,
      tests,
      scope: "targeted",
    });
  }

  /** Run a broader set of tests (test files or the whole suite) to catch regressions. Only after a targeted pass. */
  proposeExpandVerification(args: { testPaths?: readonly string[] | undefined } = {}): Proposal {
    const tests = [...(args.testPaths ?? [])];
    return this.make({
      intent: "test",
      action_type: "run_tests",
      hypothesis: "The fix does not break other tests.",
      target: { path: tests.length === 1 ? tests[0]! : ".", symbol: null },
      change_summary: `Run ${tests.length > 0 ? tests.join(", ") : "the whole test suite"} to check for regressions`,
      expected_effect: { tests, behavior: "No test fails" },
      risk_level: "low",
      rollback_plan: ROLLBACK_NONE,
      tests,
      scope: "broad",
    });
  }

  /** Document why progress is blocked. The last proposal of a run that cannot proceed safely. */
  proposeExplainStuck(args: { reason: string; details: readonly string[]; path?: string | undefined }): Proposal {
    return this.make({
      intent: "analyze",
      action_type: "explain_stuck",
      hypothesis: `Progress is blocked: ${args.reason}.`,
      target: { path: args.path ?? ".", symbol: null },
      change_summary: [`Stuck: ${args.reason}`, ...args.details].join("\n"),
      expected_effect: { tests: [], behavior: "A human or a different strategy takes over" },
      risk_level: "low",
      rollback_plan: ROLLBACK_NONE,
    });
  }
}

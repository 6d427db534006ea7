/**
 * `--strategy rfsn`: the RFSN planner (@graphplan/rfsn-planner) drives the run instead of the model. It
 * reproduces the failing tests in the sandbox, localizes the fault from the failure's traceback (reading
 * and searching), asks the model — or several models, whose candidates its ScoringEngine ranks — for a
 * patch of the suspect as a GraphPlan plan (an `edit_file` proposal), runs the tests, and expands to the
 * tests' files or explains why it is stuck. Every proposal passes the planner's gate (which rejects
 * edits that weaken tests), every plan the verifier, and plans are applied all or nothing.
 *
 * The planner's phases are recorded on the trajectory's: REPRODUCE and LOCALIZE as `explore`, PATCH as
 * `plan`, the gate and the verifier as `verify`, applying as `execute`, the test runs after a patch as
 * `review`, DONE as `submit`, STUCK as `fallback`.
 */
import * as Data from "effect/Data";
import * as Effect from "effect/Effect";
import { planFiles, type Plan } from "@graphplan/primitives";
import {
  createProposal,
  Gate,
  MetaPlanner,
  parseTestSummary,
  type ControllerFeedback,
  type FileChange,
  type ModelCandidate,
  type NextProposalInput,
  type PatchRequest,
  type Proposal,
} from "@graphplan/rfsn-planner";
import {
  LanguageModel,
  Workspace,
  type LanguageModelShape,
  type ModelError,
  type Sandbox,
  type SandboxFailed,
} from "@graphplan/runtime";
import { compactCatalogPrompt, loadPlanGrammars, parsePlan, runFormalPlan } from "@graphplan/catalog";
import { renderIssue, revisionPrompt } from "@graphplan/verifier";
import type { LimitsExceeded } from "./errors.js";
import { executePhase } from "./execute.js";
import { graphPhase, readFiles } from "./graph.js";
import { extractPlan, planOfToolCalls, type ExtractedPlan } from "./parse.js";
import { languagesOf, planToolSpec } from "./plan.js";
import type { Session } from "./session.js";
import { submit } from "./submit.js";
import type { Phase, Submission } from "./trajectory.js";
import { verifyPhase } from "./verify.js";

/** One model that proposes patches, by the name candidates are ranked under. */
export interface Proposer {
  readonly name: string;
  readonly model: LanguageModelShape;
}

export interface RfsnOptions {
  /** The tests that must pass (SWE-bench's FAIL_TO_PASS); none: the planner reproduces with the default suite. */
  readonly failingTests: readonly string[];
  /** How tests run in the sandbox; `{tests}` is replaced by the tests to run, shell-quoted (nothing for the suite). */
  readonly testCommand: string;
  /** The models that propose patches (`--models`); by default the run's own model. */
  readonly proposers?: readonly Proposer[];
}

/** The planner ended without the tests passing (its `explain_stuck` reason), or the passing patch was not usable. */
export class RfsnStuck extends Data.TaggedError("RfsnStuck")<{ readonly reason: string }> {
  override get message(): string {
    return `the RFSN planner is stuck: ${this.reason}`;
  }
}

type Services = LanguageModel | Sandbox | Workspace;
type RunError = LimitsExceeded | ModelError | SandboxFailed | RfsnStuck;

const PHASE: Record<string, Phase> = {
  REPRODUCE: "explore",
  LOCALIZE: "explore",
  PATCH: "plan",
  VERIFY: "review",
  EXPAND: "review",
  DONE: "submit",
  STUCK: "fallback",
};
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A test id as a runner takes it: unittest's `test_x (module.Class)` (the planner's, and SWE-bench's, form) → `module.Class.test_x`. */
const runnable = (test: string) =>
  test.replace(/^(\w+) \(([\w.]+)\)$/, (_m, name: string, where: string) =>
    where.endsWith(`.${name}`) ? where : `${where}.${name}`,
  );

/** The RFSN loop; answers the submission of the patch that made the tests pass. */
export function rfsnStrategy(
  session: Session,
  task: string,
  options: RfsnOptions,
): Effect.Effect<Submission, RunError, Services> {
  return Effect.gen(function* () {
    const root = (yield* Workspace).root;
    const planner = new MetaPlanner({
      task: {
        failingTests: [...options.failingTests],
        testCommand: options.testCommand,
        issueText: task,
        projectRoot: root,
      },
    });
    const gate = new Gate({ policy: { allowTestEdits: true } });
    const proposers = options.proposers ?? [{ name: (yield* LanguageModel).name, model: yield* LanguageModel }];
    const state: LoopState = { testOutput: "", feedback: undefined, patches: 0 };
    let input: NextProposalInput = {};
    for (;;) {
      planner.observe(input);
      const request = planner.patchRequest();
      const candidates = request ? yield* proposePatches(session, task, request, proposers, state) : [];
      const proposal = planner.nextProposal({ candidates });
      if (proposal === null) break;
      enter(
        session,
        PHASE[planner.phase] ?? "explore",
        `RFSN ${planner.phase}: ${proposal.action_type} ${proposal.target.path}${proposal.target.symbol ? ` ${proposal.target.symbol}` : ""}`,
      );
      const changes = proposal.action_type === "edit_file" ? yield* simulate(proposal.change) : undefined;
      const verdict = gate.validate(proposal, {
        ...planner.gateContext(),
        task,
        ...(changes ? { fileChanges: changes } : {}),
      });
      if (verdict._tag === "Rejected") {
        enter(session, "verify", `the gate rejected ${proposal.id}: ${verdict.type}`);
        const rules = verdict.violations?.map((v) => `${v.rule} (${v.path}: ${v.detail})`).join("; ");
        state.feedback = `the gate rejected it (${verdict.type}): ${verdict.reason}${rules ? ` — ${rules}` : ""}`;
        record(session, `The gate rejected proposal ${proposal.id} (${proposal.action_type}): ${state.feedback}`);
        input = { gateRejection: verdict };
        continue;
      }
      input = { controllerFeedback: yield* execute(session, proposal, options, state) };
    }
    if (planner.outcome !== "success")
      return yield* new RfsnStuck({ reason: planner.stuckReason ?? "the planner ended without the tests passing" });
    enter(session, "submit", "RFSN DONE: the tests pass");
    const submission = yield* submit(session);
    if (!submission.ok)
      return yield* new RfsnStuck({
        reason: `the tests pass but the patch is not usable: ${submission.problems.join("; ")}`,
      });
    return submission;
  });
}

interface LoopState {
  /** The output of the last test run, for the patch prompt. */
  testOutput: string;
  /** Why the last patch did not work (the gate, the verifier, the tests), for the next patch prompt. */
  feedback: string | undefined;
  patches: number;
}

function enter(session: Session, phase: Phase, reason: string): void {
  if (session.phase !== phase || !reason.startsWith("RFSN")) session.enter(phase, reason);
  else session.transitions.push({ from: phase, to: phase, reason, atMessage: session.messages.length });
}

/** A controller's result, in the conversation as an observation (cut once answered). */
function record(session: Session, text: string): void {
  session.say("user", text);
  session.observations.add(session.lastIndex);
}

/** Runs an accepted proposal: tests, a read, a search, a verified and applied plan, or the planner's explanation. */
function execute(
  session: Session,
  proposal: Proposal,
  options: RfsnOptions,
  state: LoopState,
): Effect.Effect<ControllerFeedback, SandboxFailed, Services> {
  return Effect.gen(function* () {
    const max = session.config.command.max_output_chars;
    const cut = (text: string) =>
      text.length > max ? `${text.slice(0, max / 2)}\n[...]\n${text.slice(-max / 2)}` : text;
    switch (proposal.action_type) {
      case "run_tests": {
        const tests = [...new Set((proposal.tests.length > 0 ? proposal.tests : options.failingTests).map(runnable))];
        const command = options.testCommand.replace("{tests}", tests.map(quote).join(" "));
        const result = yield* session.exec(command);
        state.testOutput = result.output;
        const summary = parseTestSummary(result.output);
        const failed = result.exitCode === 0 ? 0 : Math.max(1, summary?.failed ?? 0);
        record(session, `$ ${command}\n(exit ${result.exitCode})\n${cut(result.output)}`);
        if (state.patches > 0 && failed > 0)
          state.feedback = `the tests still fail after it:\n${cut(result.output).slice(-1500)}`;
        return {
          proposalId: proposal.id,
          ok: true,
          output: result.output,
          testsFailed: failed,
          ...(summary ? { testsPassed: summary.passed } : {}),
        };
      }
      case "read_file": {
        const { files, errors } = yield* readFiles([proposal.target.path]);
        const text = files.get(proposal.target.path);
        record(
          session,
          text === undefined
            ? `Cannot read ${proposal.target.path}: ${errors.join("; ")}`
            : `${proposal.target.path}:\n${cut(text)}`,
        );
        return { proposalId: proposal.id, ok: text !== undefined, output: text ?? errors.join("; ") };
      }
      case "search_repo": {
        const result = yield* session.exec(`grep -rn --exclude-dir=.git -- ${quote(proposal.query)} . | head -40`);
        record(session, `$ grep -rn ${proposal.query}\n${cut(result.output)}`);
        return { proposalId: proposal.id, ok: true, output: result.output };
      }
      case "edit_file":
        return yield* applyPatch(session, proposal, state);
      default: {
        record(session, `RFSN ${proposal.action_type}: ${proposal.change_summary}`);
        return { proposalId: proposal.id, ok: true, output: "" };
      }
    }
  });
}

/** An accepted patch: verified, then applied all or nothing; failures are the feedback of the next patch prompt. */
function applyPatch(
  session: Session,
  proposal: Proposal & { action_type: "edit_file" },
  state: LoopState,
): Effect.Effect<ControllerFeedback, never, Workspace> {
  return Effect.gen(function* () {
    state.patches++;
    const { result, plan } = yield* verifyPhase(session, proposal.change, planFiles(proposal.change));
    if (!result.passed || !plan) {
      state.feedback = revisionPrompt(result, {
        attempt: state.patches,
        maxAttempts: session.config.limits.max_plan_revisions,
        planPath: session.planDestination,
      });
      record(session, `The verifier refused proposal ${proposal.id}:\n${state.feedback}`);
      return { proposalId: proposal.id, ok: false, output: state.feedback };
    }
    enter(session, "execute", `RFSN PATCH: ${proposal.id} verified`);
    const applied = yield* executePhase(plan);
    if (!applied.ok) {
      state.feedback = `applying it failed${applied.step !== null ? ` at step ${applied.step} (${applied.op})` : ""}: ${applied.error}`;
      record(session, `Proposal ${proposal.id}: ${state.feedback}`);
      return { proposalId: proposal.id, ok: false, output: state.feedback };
    }
    state.feedback = undefined;
    record(session, `Proposal ${proposal.id} applied: ${applied.written.join(", ")}`);
    return { proposalId: proposal.id, ok: true, output: `applied to ${applied.written.join(", ")}` };
  });
}

/** The files a plan would produce, as the gate's file changes (before and after), or none when it does not run. */
function simulate(plan: Plan): Effect.Effect<FileChange[] | undefined, never, Workspace> {
  return Effect.gen(function* () {
    const { files } = yield* readFiles(planFiles(plan));
    const run = runFormalPlan(plan, files);
    if (!run.ok) return undefined;
    return [...run.files]
      .filter(([path, after]) => files.get(path) !== after)
      .map(([path, after]) => ({ path, before: files.get(path) ?? "", after }));
  });
}

/** Asks every proposer for a plan of the suspect; each valid plan is one candidate `edit_file` proposal. */
function proposePatches(
  session: Session,
  task: string,
  request: PatchRequest,
  proposers: readonly Proposer[],
  state: LoopState,
): Effect.Effect<ModelCandidate[], LimitsExceeded | ModelError, Workspace> {
  return Effect.gen(function* () {
    if (request.file === null) return [];
    const graph = yield* graphPhase([request.file], session.graphCache, (effect) => session.graphing(effect));
    session.prompt("rfsn_patch", {
      task,
      file: request.file,
      symbol: request.symbol,
      exception: request.exceptionType,
      failing_tests: request.failingTests.join(", ") || "(none named)",
      frames: request.frames.map((f) => `${f.file}:${f.line}${f.name ? ` in ${f.name}` : ""}`).join(", "),
      test_output: state.testOutput.slice(-3000),
      graph_view: graph.kind === "ok" ? graph.view : `(no graph: ${graph.reason})`,
      catalog: compactCatalogPrompt({ legacy: false, languages: languagesOf([request.file]) }),
      plan_destination: session.planDestination,
      feedback: state.feedback,
    });
    const candidates: ModelCandidate[] = [];
    for (const proposer of proposers) {
      const tools = { tools: session.planTool && proposer.model.supportsTools ? [planToolSpec()] : [] };
      const reply = yield* Effect.provideService(session.queryReply(tools), LanguageModel, proposer.model);
      const called = planOfToolCalls(reply.toolCalls);
      const extracted: ExtractedPlan = called ?? extractPlan(reply.content);
      if (called?.callId !== undefined)
        session.answerToolCall(
          called.callId,
          called.ok ? "plan received; the gate and the verifier check it next" : called.error,
          !called.ok,
        );
      // A candidate carries its plan parsed (corrections made) through the plan's front door.
      if (extracted.ok) yield* Effect.promise(() => loadPlanGrammars(extracted.json));
      const parsed = extracted.ok ? parsePlan(extracted.json) : undefined;
      const error = !extracted.ok
        ? extracted.error
        : parsed && !parsed.ok
          ? `the plan is not valid: ${parsed.issues
              .filter((i) => i.severity === "error")
              .map(renderIssue)
              .join("; ")}`
          : undefined;
      session.plans.push({
        attempt: session.plans.length + 1,
        atMessage: session.lastIndex,
        valid: error === undefined,
        ...(extracted.ok ? { channel: extracted.channel } : {}),
        ...(extracted.json !== undefined ? { plan: extracted.json } : {}),
        ...(error !== undefined ? { error } : {}),
      });
      if (!parsed?.ok) continue;
      candidates.push({
        model: proposer.name,
        proposal: patchProposal(
          proposer.name,
          candidates.length + session.plans.length,
          request,
          parsed.plan,
          reply.content,
        ),
      });
    }
    return candidates;
  });
}

/** A model's plan as the planner's `edit_file` proposal. */
function patchProposal(model: string, n: number, request: PatchRequest, plan: Plan, reply: string): Proposal {
  const thought = /THOUGHT:\s*([^\n]+)/.exec(reply)?.[1]?.trim() ?? `${model}'s plan for ${request.file}`;
  return createProposal({
    id: `patch-${n}`,
    intent: "repair",
    hypothesis: thought.slice(0, 200),
    action_type: "edit_file",
    target: { path: request.file, symbol: request.symbol },
    change_summary: `${model}: a plan of ${Array.isArray(plan) ? plan.length : plan.plan.length} step(s) on ${planFiles(plan).join(", ") || request.file}`,
    expected_effect: { tests: request.failingTests, behavior: "the failing tests pass" },
    risk_level: "low",
    rollback_plan: "the plan is applied all or nothing; git checkout -- the files it changed",
    change: plan,
  });
}

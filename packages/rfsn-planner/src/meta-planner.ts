/**
 * The strategic layer: decides which proposal comes next from the controller's feedback and the gate's rejections.
 *
 *   REPRODUCE → LOCALIZE → PATCH → VERIFY → EXPAND → DONE
 *       ↑          ↑         ↓        ↓        ↓
 *       └──────────┴─────────┴────────┴────────┘   (failures loop back; STUCK ends the run)
 *
 * - REPRODUCE runs the failing tests (then their files, then the default suite) until a failure is captured; its
 *   traceback anchors the suspects. LOCALIZE reads the top unread suspect (or searches after a pivot) and moves to
 *   PATCH once the code has been read. PATCH submits the best-scoring model candidate; VERIFY runs the targeted tests;
 *   EXPAND runs their files after a targeted pass; success there is DONE.
 * - A failed patch goes back to PATCH, or to LOCALIZE (pivot: demote the suspect, search first) once the same
 *   symptom failed `stuckThreshold` times (2). The same symptom again after the pivot is STUCK.
 * - Rejections: SCHEMA → compliance mode (the next proposal is a planner-built analysis); ORDERING → the phase the
 *   gate names; BOUNDS → a smaller scope for candidates; INVARIANT → safe mode. Three rejections in a row → safe mode;
 *   another three → STUCK. Safe mode proposes only analysis (read, then search) for `safeModeSteps` accepted steps.
 * - STUCK (iteration budget, repeated failure, repeated rejections, phase attempts, no viable patch) emits one
 *   `explain_stuck` proposal; after it, and after DONE, `nextProposal` returns null.
 */
import { z } from "zod";
import { extractEvidence } from "./evidence.js";
import { measureEdit } from "./gate.js";
import { counterIds, logicalClock, type Clock, type IdGenerator } from "./ids.js";
import { ProposalPlanner, testTarget } from "./proposal-planner.js";
import { ScoringEngine, type CandidateSelection, type ScoredCandidate } from "./scoring.js";
import { StateTracker, type Suspect } from "./state-tracker.js";
import { isProjectPath, isTestPath, relativeTo } from "./test-paths.js";
import {
  ControllerFeedbackSchema,
  GateRejectionSchema,
  PhaseSchema,
  ScopeSchema,
  ScoringWeightsSchema,
  TracebackFrameSchema,
  type ControllerFeedback,
  type Evidence,
  type GateRejection,
  type ModelCandidate,
  type Phase,
  type Proposal,
  type Scope,
} from "./schemas.js";

export const MetaPlannerOptionsSchema = z.strictObject({
  maxPhaseAttempts: z.number().int().positive().default(3).describe("Proposals in one visit of a phase before STUCK"),
  safeModeSteps: z.number().int().positive().default(2).describe("Accepted analysis steps that end safe mode"),
  task: z
    .strictObject({
      failingTests: z.array(z.string()).default([]).describe("Tests that should pass after the fix (FAIL_TO_PASS)"),
      testCommand: z.string().optional().describe("How the controller runs them (recorded as the repro command)"),
      issueText: z.string().default("").describe("The issue, used as the failure narrative when scoring"),
      projectRoot: z.string().optional().describe("Checkout path in tracebacks, e.g. /testbed"),
    })
    .default({ failingTests: [], issueText: "" }),
  weights: ScoringWeightsSchema.partial().optional(),
});
export type MetaPlannerOptions = z.input<typeof MetaPlannerOptionsSchema> & {
  /** Shared state; a new StateTracker (with `clock`) by default. */
  readonly stateTracker?: StateTracker | undefined;
  /** Proposal ids; the deterministic counter `proposal-1`, `proposal-2`, ... by default. */
  readonly idGenerator?: IdGenerator | undefined;
  /** Timestamps of the default StateTracker; a logical clock by default. */
  readonly clock?: Clock | undefined;
};

export const PlannerModeSchema = z.enum(["normal", "compliance", "safe"]);
export type PlannerMode = z.infer<typeof PlannerModeSchema>;
export const StepKindSchema = z.enum(["reproduce", "read", "search", "patch", "verify", "expand", "explain"]);
export type StepKind = z.infer<typeof StepKindSchema>;

/** One emitted proposal, for the record. */
export const PlannerStepSchema = z.strictObject({
  phase: PhaseSchema,
  mode: PlannerModeSchema,
  kind: StepKindSchema,
  proposalId: z.string(),
});
export type PlannerStep = z.infer<typeof PlannerStepSchema>;

/** What the models need to write patch candidates now (non-null only when the next proposal is a patch). */
export const PatchRequestSchema = z.strictObject({
  file: z.string().nullable(),
  symbol: z.string().nullable(),
  exceptionType: z.string().nullable(),
  failingTests: z.array(z.string()),
  frames: z.array(TracebackFrameSchema),
  issueText: z.string(),
  scope: ScopeSchema.nullable().describe("Upper bound on files and lines after a BOUNDS_VIOLATION"),
});
export type PatchRequest = z.infer<typeof PatchRequestSchema>;

export interface NextProposalInput {
  readonly controllerFeedback?: ControllerFeedback | null | undefined;
  readonly gateRejection?: GateRejection | null | undefined;
  /** Patch candidates from several models; used when the next proposal is a patch. */
  readonly candidates?: readonly ModelCandidate[] | undefined;
}

const PREVIOUS: Partial<Record<Phase, Phase>> = {
  LOCALIZE: "REPRODUCE",
  PATCH: "LOCALIZE",
  VERIFY: "PATCH",
  EXPAND: "VERIFY",
};
const unique = <T>(xs: readonly T[]): T[] => [...new Set(xs)];

export class MetaPlanner {
  readonly state: StateTracker;
  private readonly planner: ProposalPlanner;
  private readonly options: z.infer<typeof MetaPlannerOptionsSchema>;

  private _phase: Phase = "REPRODUCE";
  private _mode: PlannerMode = "normal";
  private _stuckReason: string | null = null;
  private readonly _history: PlannerStep[] = [];
  private phaseAttempts = 0;
  private last: { proposal: Proposal; kind: StepKind } | null = null;
  private awaiting = false;
  private localized = false;
  private targetedPassed = false;
  private pendingSearch = false;
  private readonly readFiles = new Set<string>();
  private readonly searched = new Set<string>();
  private safeStepsDone = 0;
  private scope: Scope | null = null;
  private readonly rejectedChanges = new Set<string>();
  private starvedPatches = 0;
  private lastPatch: Proposal | null = null;
  private lastEvidence: Evidence | null = null;
  private _lastSelection: CandidateSelection | null = null;

  constructor(options: MetaPlannerOptions = {}) {
    const { stateTracker, idGenerator, clock, ...rest } = options;
    this.options = MetaPlannerOptionsSchema.parse(rest);
    this.state = stateTracker ?? new StateTracker({ clock: clock ?? logicalClock() });
    this.planner = new ProposalPlanner({ idGenerator: idGenerator ?? counterIds("proposal") });
  }

  get phase(): Phase {
    return this._phase;
  }
  get mode(): PlannerMode {
    return this._mode;
  }
  get outcome(): "running" | "success" | "stuck" {
    return this._phase === "DONE" ? "success" : this._stuckReason !== null ? "stuck" : "running";
  }
  get stuckReason(): string | null {
    return this._stuckReason;
  }
  /** Every proposal emitted so far, with the phase and mode it was emitted in. */
  get history(): readonly PlannerStep[] {
    return this._history;
  }
  /** The candidate ranking behind the last patch decision. */
  get lastSelection(): CandidateSelection | null {
    return this._lastSelection;
  }

  /** What the gate should be told about this run (pass it as `gate.validate(proposal, context)`). */
  gateContext(): { phase: Phase; localized: boolean; targetedPassed: boolean } {
    return { phase: this._phase, localized: this.localized, targetedPassed: this.targetedPassed };
  }

  /** When the next proposal will be a patch: what the models need to write candidates. Otherwise null. */
  patchRequest(): PatchRequest | null {
    if (this._phase !== "PATCH" || this._mode !== "normal" || this.outcome !== "running") return null;
    const file = this.state.suspectFiles[0]?.path ?? null;
    return {
      file,
      symbol: this.state.suspectSymbols.find((s) => s.path === file)?.symbol ?? null,
      exceptionType: this.state.exceptionTypes.at(-1) ?? null,
      failingTests: this.failingTests(),
      frames: this.state.tracebackFrames.filter((f) => f.project),
      issueText: this.options.task.issueText,
      scope: this.scope,
    };
  }

  /** A scoring engine over the current evidence. */
  scorer(): ScoringEngine {
    return new ScoringEngine({
      failingTests: this.failingTests(),
      tracebackFrames: this.state.tracebackFrames.filter((f) => f.project),
      testNarrative: [this.options.task.issueText, ...this.state.exceptionTypes].join(" "),
      weights: this.options.weights,
    });
  }

  /** Multi-model selection over the current evidence (validation, scores, deterministic winner). */
  selectBestCandidate(candidates: readonly ModelCandidate[]): CandidateSelection {
    return this.scorer().selectBestCandidate(candidates);
  }

  /**
   * Takes the outcome of the last proposal (controller feedback, or the gate's rejection) and returns the next
   * proposal, or null when the run is over (DONE, or STUCK after its explanation).
   */
  nextProposal(input: NextProposalInput = {}): Proposal | null {
    this.observe(input);
    if (this._phase === "DONE" || this._phase === "STUCK") return null;
    const stuck = this.state.stuckReason();
    if (stuck) return this.explainStuck(stuck);
    if (this.phaseAttempts >= this.options.maxPhaseAttempts) {
      return this.explainStuck(`phase_attempts_exhausted: ${this.phaseAttempts} proposals in ${this._phase}`);
    }
    return this.propose(input.candidates ?? []);
  }

  /**
   * Applies feedback or a rejection without proposing. `nextProposal` calls it; call it yourself to learn (through
   * `patchRequest()`) whether candidates are needed before asking for the next proposal.
   */
  observe(input: Pick<NextProposalInput, "controllerFeedback" | "gateRejection">): void {
    const { controllerFeedback, gateRejection } = input;
    if (controllerFeedback && gateRejection) throw new Error("a proposal is either rejected or executed, not both");
    if (!controllerFeedback && !gateRejection) return;
    if (!this.awaiting || !this.last) throw new Error("no proposal is awaiting feedback");
    const rejection = gateRejection ? GateRejectionSchema.parse(gateRejection) : null;
    const feedback = controllerFeedback ? ControllerFeedbackSchema.parse(controllerFeedback) : null;
    const about = feedback?.proposalId ?? rejection?.proposalId ?? this.last.proposal.id;
    if (about !== this.last.proposal.id) {
      throw new Error(`outcome for ${about}, but the last proposal is ${this.last.proposal.id}`);
    }
    this.awaiting = false;
    if (rejection) this.onRejection(rejection);
    else this.onFeedback(feedback!);
  }

  // --- feedback ----------------------------------------------------------------------------------------------------

  /** Long on purpose: one case per kind of proposal (reproduce, read, search, patch, verify, expand, explain) of the design's (docs/design.md, Origins) state machine, each a few lines, over the shared evidence of the feedback. */
  private onFeedback(fb: z.infer<typeof ControllerFeedbackSchema>): void {
    const { proposal, kind } = this.last!;
    this.state.recordAcceptance();
    if (proposal.risk_level === "medium" && this.state.canAffordRisk("medium")) this.state.spendRisk("medium");
    if (this._mode === "compliance") this._mode = "normal";
    const evidence = (): Evidence => extractEvidence(fb.output, { projectRoot: this.options.task.projectRoot });
    const failed = (ev: Evidence): number => fb.testsFailed ?? ev.summary?.failed ?? ev.failingTests.length;

    switch (kind) {
      case "reproduce": {
        const ev = evidence();
        if (failed(ev) > 0 || (!fb.ok && ev.exceptionType !== null)) {
          const tests = proposal.action_type === "run_tests" ? proposal.tests : [];
          this.state.confirmReproduction(
            this.options.task.testCommand ?? (tests.length > 0 ? tests.join(" ") : "default test suite"),
          );
          this.absorb(ev);
          this.setPhase("LOCALIZE");
        }
        return;
      }
      case "read":
      case "search": {
        if (!fb.ok) {
          if (kind === "read") {
            this.state.demoteSuspect(proposal.target.path, 0);
            this.readFiles.add(proposal.target.path);
          }
          return;
        }
        this.localized = true;
        if (kind === "read") this.readFiles.add(proposal.target.path);
        else this.absorbSearchHits(fb.output, proposal.action_type === "search_repo" ? proposal.query : "");
        if (this._mode === "safe") {
          if (++this.safeStepsDone >= this.options.safeModeSteps) {
            this._mode = "normal";
            this.setPhase("PATCH");
          }
        } else if (this._phase === "LOCALIZE" && (kind === "read" || !this.unreadSuspect())) {
          // localized: the code was read, or a search found nothing new to read
          this.setPhase("PATCH");
        }
        return;
      }
      case "patch": {
        if (fb.ok) {
          this.lastPatch = proposal;
          this.targetedPassed = false;
          this.setPhase("VERIFY");
        } else {
          this.rejectedChanges.add(fingerprint(proposal));
          this.recordFailure(proposal, `patch-not-applied:${proposal.target.path}`);
        }
        return;
      }
      case "verify": {
        const ev = evidence();
        if (fb.ok && failed(ev) === 0) {
          this.state.recordHypothesis({
            proposalId: this.lastPatch?.id ?? proposal.id,
            hypothesis: this.lastPatch?.hypothesis ?? proposal.hypothesis,
            outcome: "success",
          });
          this.targetedPassed = true;
          this.setPhase("EXPAND");
        } else {
          this.absorb(ev);
          if (this.lastPatch) this.rejectedChanges.add(fingerprint(this.lastPatch));
          this.recordFailure(this.lastPatch ?? proposal, ev.signature);
        }
        return;
      }
      case "expand": {
        const ev = evidence();
        if (fb.ok && failed(ev) === 0) {
          this.setPhase("DONE");
        } else {
          this.absorb(ev);
          this.targetedPassed = false;
          this.recordFailure(this.lastPatch ?? proposal, `regression|${ev.signature}`);
        }
        return;
      }
      case "explain":
        return;
    }
  }

  /** A patch failed: record it, then pivot to LOCALIZE on a repeated symptom, else try another patch. */
  private recordFailure(patch: Proposal, signature: string): void {
    this.state.recordHypothesis({
      proposalId: patch.id,
      hypothesis: patch.hypothesis,
      outcome: "failure",
      failureSignature: signature,
    });
    if (this.state.shouldPivotToLocalization()) {
      this.state.recordPivot();
      const top = this.state.suspectFiles[0];
      if (top) this.state.demoteSuspect(top.path, 0.5);
      this.readFiles.clear();
      this.pendingSearch = true;
      this.setPhase("LOCALIZE");
    } else {
      this.setPhase("PATCH");
    }
  }

  /**
   * Test-run evidence: failures into the state; the traceback anchor and other project frames become suspects unless
   * this is the symptom already absorbed (so that a pivot's demotion is not undone by the same traceback).
   */
  private absorb(ev: Evidence): void {
    const fresh = ev.signature !== this.lastEvidence?.signature;
    this.lastEvidence = ev;
    this.state.recordFailure(ev);
    if (!fresh) return;
    for (const frame of ev.frames) {
      if (!frame.project || isTestPath(frame.file) || frame.file === ev.tracebackFile) continue;
      this.state.addSuspectFile(frame.file, 0.5, "appears in the failure traceback");
    }
    if (ev.tracebackFile) {
      this.state.addSuspectFile(ev.tracebackFile, 0.9, "innermost project frame of the failure traceback");
      const name = ev.frames.findLast((f) => f.file === ev.tracebackFile)?.name;
      if (name && name !== "<module>") this.state.addSuspectSymbol(ev.tracebackFile, name, 0.9, "failing frame");
    }
  }

  /**
   * `path:line:` search hits in files not suspected yet become suspects (more hits, more confidence); test files are
   * left out, and known suspects keep their confidence (a pivot's demotion is deliberate).
   */
  private absorbSearchHits(output: string, query: string): void {
    const known = new Set(this.state.suspectFiles.map((s) => s.path));
    const hits = new Map<string, number>();
    for (const m of output.matchAll(/^([^\s:][^:\n]*):(\d+)[:-]/gm)) {
      const file = relativeTo(m[1]!, this.options.task.projectRoot);
      if (isProjectPath(file) && !isTestPath(file) && !known.has(file)) hits.set(file, (hits.get(file) ?? 0) + 1);
    }
    for (const [file, n] of hits) this.state.addSuspectFile(file, Math.min(0.8, 0.4 + 0.1 * n), `mentions "${query}"`);
    this.pendingSearch = false;
  }

  // --- rejections --------------------------------------------------------------------------------------------------

  private onRejection(rejection: GateRejection): void {
    const { proposal } = this.last!;
    this.state.recordGateRejection(rejection);
    if (proposal.action_type === "edit_file") this.rejectedChanges.add(fingerprint(proposal));
    if (this.state.shouldEnterSafeMode()) return this.enterSafeMode();
    if (this.state.isStuck()) return;
    switch (rejection.type) {
      case "SCHEMA_VIOLATION":
        if (this._mode === "normal") this._mode = "compliance";
        return;
      case "ORDERING_VIOLATION": {
        const target = rejection.requiredPhase ?? PREVIOUS[this._phase] ?? this._phase;
        if (target === "LOCALIZE" || target === "REPRODUCE") {
          this.localized = false;
          this.readFiles.clear();
        }
        if (target === "VERIFY") this.targetedPassed = false;
        this.setPhase(target);
        return;
      }
      case "BOUNDS_VIOLATION": {
        const measured = rejection.measured ?? (proposal.action_type === "edit_file" ? measureEdit(proposal) : null);
        const limits = rejection.limits ?? this.scope ?? measured;
        if (measured && limits) {
          this.scope = {
            files: Math.max(1, Math.min(limits.files, measured.files - 1)),
            lines: Math.max(1, Math.min(limits.lines, Math.floor(measured.lines / 2))),
          };
        }
        return;
      }
      case "INVARIANT_VIOLATION":
        return this.enterSafeMode();
    }
  }

  private enterSafeMode(): void {
    this.state.enterSafeMode();
    this._mode = "safe";
    this.safeStepsDone = 0;
    this.setPhase(this.state.reproductionConfirmed ? "LOCALIZE" : "REPRODUCE");
    this.phaseAttempts = 0;
  }

  // --- proposing ---------------------------------------------------------------------------------------------------

  private setPhase(phase: Phase): void {
    if (phase !== this._phase) this.phaseAttempts = 0;
    this._phase = phase;
  }

  private emit(proposal: Proposal, kind: StepKind): Proposal {
    this.phaseAttempts++;
    this.state.spendIteration();
    this.last = { proposal, kind };
    this.awaiting = true;
    this._history.push({ phase: this._phase, mode: this._mode, kind, proposalId: proposal.id });
    return proposal;
  }

  private failingTests(): string[] {
    return unique([...this.options.task.failingTests, ...this.state.failingTests]);
  }

  private propose(candidates: readonly ModelCandidate[]): Proposal {
    switch (this._phase) {
      case "REPRODUCE":
        return this.emit(this.planner.proposeReproduce({ tests: this.reproduceTests() }), "reproduce");
      case "LOCALIZE":
        return this.localize();
      case "PATCH":
        return this.patch(candidates);
      case "VERIFY":
        return this.emit(
          this.planner.proposeVerifyTargeted({
            tests: this.failingTests(),
            afterFix: this.lastPatch?.change_summary ?? "the last edit",
          }),
          "verify",
        );
      case "EXPAND":
        return this.emit(this.planner.proposeExpandVerification({ testPaths: this.testFiles() }), "expand");
      case "STUCK":
      case "DONE":
        throw new Error(`no proposal in ${this._phase}`);
    }
  }

  /** Attempt 1: the failing tests; attempt 2: their files; then the default suite. */
  private reproduceTests(): string[] {
    const tests = this.options.task.failingTests;
    if (this.phaseAttempts === 0) return tests;
    const files = this.testFiles();
    return this.phaseAttempts === 1 && files.length > 0 && files.join() !== tests.join() ? files : [];
  }

  private testFiles(): string[] {
    return unique(this.failingTests().flatMap((t) => testTarget(t).path ?? []));
  }

  private localize(): Proposal {
    const suspects = this.state.suspectFiles.filter((s) => s.confidence > 0);
    const wantSearch = this._mode === "safe" ? this.safeStepsDone % 2 === 1 : this.pendingSearch;
    const unread = this.unreadSuspect();
    const read = this._mode === "safe" ? suspects[0] : unread;
    if (!wantSearch && read) {
      const symbol = this.state.suspectSymbols.find((s) => s.path === read.path && s.confidence > 0)?.symbol ?? null;
      return this.emit(this.planner.proposeLocalizeFile({ filePath: read.path, symbol, reason: read.reason }), "read");
    }
    const query = this.searchQuery();
    if (query) {
      this.searched.add(query);
      return this.emit(
        this.planner.proposeSearchRepo({ pattern: query, reason: "find where the failing behaviour is implemented" }),
        "search",
      );
    }
    if (read) return this.emit(this.planner.proposeLocalizeFile({ filePath: read.path, reason: read.reason }), "read");
    return this.explainStuck("nothing left to localize: no unread suspect and no new search term");
  }

  private unreadSuspect(): Suspect | undefined {
    return this.state.suspectFiles.find((s) => s.confidence > 0 && !this.readFiles.has(s.path));
  }

  /** The next search term not used yet: suspect symbols, then exception types, then failing test names. */
  private searchQuery(): string | null {
    const terms = [
      ...this.state.suspectSymbols.map((s) => s.symbol ?? ""),
      ...[...this.state.exceptionTypes].reverse(),
      ...this.failingTests().map((t) => testTarget(t).symbol),
    ];
    return terms.find((t) => t.length > 0 && !this.searched.has(t)) ?? null;
  }

  private patch(candidates: readonly ModelCandidate[]): Proposal {
    if (this._mode !== "normal") {
      const top = this.state.suspectFiles[0];
      if (top) {
        return this.emit(
          this.planner.proposeLocalizeFile({ filePath: top.path, reason: "re-read before patching (compliance mode)" }),
          "read",
        );
      }
      return this.emit(this.planner.proposeReproduce({ tests: this.failingTests() }), "reproduce");
    }
    const selection = this.selectBestCandidate(candidates);
    const viable = selection.ranking.filter((c) => this.viable(c));
    this._lastSelection = { ...selection, winner: viable[0] ?? null };
    const winner = viable[0];
    if (winner) {
      this.starvedPatches = 0;
      return this.emit(winner.proposal, "patch");
    }
    if (++this.starvedPatches >= this.options.maxPhaseAttempts) {
      return this.explainStuck(`no viable patch candidate ${this.starvedPatches} times in a row`);
    }
    this.pendingSearch = true;
    this.setPhase("LOCALIZE");
    return this.localize();
  }

  private viable(c: ScoredCandidate): boolean {
    const p = c.proposal;
    if (p.action_type !== "edit_file" || this.rejectedChanges.has(fingerprint(p))) return false;
    if (!this.state.canAffordRisk(p.risk_level)) return false;
    if (!this.scope) return true;
    const size = measureEdit(p);
    return size.files <= this.scope.files && size.lines <= this.scope.lines;
  }

  private explainStuck(reason: string): Proposal {
    this._stuckReason = reason;
    this.setPhase("STUCK");
    const s = this.state;
    const details = [
      `iterations used: ${s.iterationsUsed} of ${s.iterationBudget}`,
      `hypotheses tried: ${s.hypothesesTried.length} (${s.hypothesesTried.filter((h) => h.outcome === "failure").length} failed)`,
      `gate rejections: ${s.gateRejections.length}`,
      `last failure: ${s.lastFailureSignature ?? this.lastEvidence?.signature ?? "none"}`,
      `suspects: ${
        s.suspectFiles
          .slice(0, 3)
          .map((x) => `${x.path} (${x.confidence.toFixed(2)})`)
          .join(", ") || "none"
      }`,
    ];
    return this.emit(this.planner.proposeExplainStuck({ reason, details, path: s.suspectFiles[0]?.path }), "explain");
  }
}

/** Identity of an edit, so a rejected or failed change is never submitted again. */
function fingerprint(p: Proposal): string {
  return p.action_type === "edit_file" ? JSON.stringify(p.change) : p.id;
}

/**
 * Explicit state across attempts: reproduction, failures, ranked suspects, hypotheses tried, gate rejections, budgets
 * and convergence. Timestamps come from the injected clock only.
 */
import { z } from "zod";
import { logicalClock, type Clock } from "./ids.js";
import {
  RejectionTypeSchema,
  type Evidence,
  type GateRejection,
  type RiskLevel,
  type TracebackFrame,
} from "./schemas.js";

export const StateTrackerOptionsSchema = z.strictObject({
  riskBudget: z.number().int().nonnegative().default(3).describe("Medium-risk proposals that may be executed"),
  iterationBudget: z.number().int().positive().default(50).describe("Proposals before the run is stuck"),
  stuckThreshold: z.number().int().positive().default(2).describe("Failures with the same symptom before a pivot"),
  maxConsecutiveRejections: z.number().int().positive().default(3).describe("Rejections in a row before safe mode"),
});
export type StateTrackerOptions = z.input<typeof StateTrackerOptionsSchema> & { readonly clock?: Clock | undefined };

export const SuspectSchema = z.strictObject({
  path: z.string(),
  symbol: z.string().nullable(),
  confidence: z.number().min(0).max(1),
  reason: z.string(),
});
export type Suspect = z.infer<typeof SuspectSchema>;

export const HypothesisOutcomeSchema = z.enum(["success", "failure", "inconclusive"]);
export type HypothesisOutcome = z.infer<typeof HypothesisOutcomeSchema>;
export const HypothesisRecordSchema = z.strictObject({
  proposalId: z.string(),
  hypothesis: z.string(),
  outcome: HypothesisOutcomeSchema,
  failureSignature: z.string().nullable(),
  at: z.number(),
});
export type HypothesisRecord = z.infer<typeof HypothesisRecordSchema>;

export const RejectionRecordSchema = z.strictObject({
  proposalId: z.string().nullable(),
  type: RejectionTypeSchema,
  reason: z.string(),
  at: z.number(),
});
export type RejectionRecord = z.infer<typeof RejectionRecordSchema>;

export type StuckReason = "iteration_budget_exhausted" | "repeated_failure" | "repeated_rejections";

const byConfidence = (a: Suspect, b: Suspect): number =>
  b.confidence - a.confidence ||
  (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
  ((a.symbol ?? "") < (b.symbol ?? "") ? -1 : (a.symbol ?? "") > (b.symbol ?? "") ? 1 : 0);

export class StateTracker {
  readonly riskBudget: number;
  readonly iterationBudget: number;
  readonly stuckThreshold: number;
  readonly maxConsecutiveRejections: number;
  private readonly clock: Clock;

  // reproduction
  private _reproCommand: string | null = null;
  private _reproductionConfirmed = false;
  // failures
  private _failingTests: string[] = [];
  private _exceptionTypes: string[] = [];
  private _tracebackFrames: TracebackFrame[] = [];
  // localization
  private readonly files = new Map<string, Suspect>();
  private readonly symbols = new Map<string, Suspect>();
  // history
  private readonly _hypothesesTried: HypothesisRecord[] = [];
  private readonly _gateRejections: RejectionRecord[] = [];
  // budgets
  private _riskSpent = 0;
  private _iterationsUsed = 0;
  // convergence
  private _consecutiveFailures = 0;
  private _lastFailureSignature: string | null = null;
  private _consecutiveRejections = 0;
  private readonly pivotedSignatures = new Set<string>();
  private _safeModeEntries = 0;

  constructor(options: StateTrackerOptions = {}) {
    const { clock, ...rest } = options;
    const o = StateTrackerOptionsSchema.parse(rest);
    this.riskBudget = o.riskBudget;
    this.iterationBudget = o.iterationBudget;
    this.stuckThreshold = o.stuckThreshold;
    this.maxConsecutiveRejections = o.maxConsecutiveRejections;
    this.clock = clock ?? logicalClock();
  }

  // --- reproduction ---------------------------------------------------------------------------------------------

  get reproCommand(): string | null {
    return this._reproCommand;
  }
  get reproductionConfirmed(): boolean {
    return this._reproductionConfirmed;
  }
  /** The failure was reproduced by `command`. */
  confirmReproduction(command: string): void {
    this._reproCommand = command;
    this._reproductionConfirmed = true;
  }

  // --- failures -------------------------------------------------------------------------------------------------

  get failingTests(): readonly string[] {
    return this._failingTests;
  }
  get exceptionTypes(): readonly string[] {
    return this._exceptionTypes;
  }
  get tracebackFrames(): readonly TracebackFrame[] {
    return this._tracebackFrames;
  }
  /** Records a test run's evidence: its failing tests and frames replace the previous ones; exception types accumulate. */
  recordFailure(evidence: Pick<Evidence, "failingTests" | "exceptionType" | "frames">): void {
    if (evidence.failingTests.length > 0) this._failingTests = evidence.failingTests.map((t) => t.id);
    if (evidence.exceptionType && !this._exceptionTypes.includes(evidence.exceptionType)) {
      this._exceptionTypes.push(evidence.exceptionType);
    }
    if (evidence.frames.length > 0) this._tracebackFrames = [...evidence.frames];
  }

  // --- localization ---------------------------------------------------------------------------------------------

  /** Suspect files, most confident first (ties by path). */
  get suspectFiles(): readonly Suspect[] {
    return [...this.files.values()].sort(byConfidence);
  }
  /** Suspect symbols, most confident first (ties by path, then symbol). */
  get suspectSymbols(): readonly Suspect[] {
    return [...this.symbols.values()].sort(byConfidence);
  }
  /** Adds a suspect file, or raises its confidence (a suspect keeps the highest confidence it was given). */
  addSuspectFile(path: string, confidence: number, reason = "evidence"): void {
    this.upsert(this.files, path, { path, symbol: null, confidence, reason });
  }
  addSuspectSymbol(path: string, symbol: string, confidence: number, reason = "evidence"): void {
    this.upsert(this.symbols, `${path}\u0000${symbol}`, { path, symbol, confidence, reason });
  }
  /** Multiplies the confidence of a file and its symbols by `factor` (used when a pivot abandons a suspect). */
  demoteSuspect(path: string, factor: number): void {
    for (const map of [this.files, this.symbols]) {
      for (const [key, s] of map) if (s.path === path) map.set(key, { ...s, confidence: s.confidence * factor });
    }
  }
  private upsert(map: Map<string, Suspect>, key: string, suspect: Suspect): void {
    const confidence = Math.min(1, Math.max(0, suspect.confidence));
    const old = map.get(key);
    if (!old || confidence > old.confidence) map.set(key, { ...suspect, confidence });
  }

  // --- history --------------------------------------------------------------------------------------------------

  get hypothesesTried(): readonly HypothesisRecord[] {
    return this._hypothesesTried;
  }
  get gateRejections(): readonly RejectionRecord[] {
    return this._gateRejections;
  }

  /**
   * Records the outcome of an attempt and updates convergence: a failure with the same signature as the last one
   * extends the streak, a different signature starts a new streak of 1, a success ends it.
   */
  recordHypothesis(record: {
    proposalId: string;
    hypothesis: string;
    outcome: HypothesisOutcome;
    failureSignature?: string | null | undefined;
  }): void {
    const signature = record.outcome === "failure" ? (record.failureSignature ?? "unknown-failure") : null;
    this._hypothesesTried.push({ ...record, failureSignature: signature, at: this.clock.now() });
    if (record.outcome === "success") {
      this._consecutiveFailures = 0;
    } else if (signature !== null) {
      this._consecutiveFailures = signature === this._lastFailureSignature ? this._consecutiveFailures + 1 : 1;
      this._lastFailureSignature = signature;
    }
  }

  recordGateRejection(rejection: Pick<GateRejection, "proposalId" | "type" | "reason">): void {
    this._gateRejections.push({
      proposalId: rejection.proposalId,
      type: rejection.type,
      reason: rejection.reason,
      at: this.clock.now(),
    });
    this._consecutiveRejections++;
  }
  /** A proposal got past the gate: the rejection streak ends. */
  recordAcceptance(): void {
    this._consecutiveRejections = 0;
  }

  // --- budgets --------------------------------------------------------------------------------------------------

  get riskSpent(): number {
    return this._riskSpent;
  }
  get iterationsUsed(): number {
    return this._iterationsUsed;
  }
  spendIteration(): void {
    this._iterationsUsed++;
  }
  /** Low risk is free; medium risk costs 1 of the risk budget; high risk is never allowed. */
  canAffordRisk(level: RiskLevel): boolean {
    return level === "low" || (level === "medium" && this._riskSpent < this.riskBudget);
  }
  spendRisk(level: RiskLevel): void {
    if (!this.canAffordRisk(level)) throw new Error(`risk budget cannot afford a ${level}-risk proposal`);
    if (level === "medium") this._riskSpent++;
  }

  // --- convergence ----------------------------------------------------------------------------------------------

  get consecutiveFailures(): number {
    return this._consecutiveFailures;
  }
  get lastFailureSignature(): string | null {
    return this._lastFailureSignature;
  }
  get consecutiveRejections(): number {
    return this._consecutiveRejections;
  }
  get safeModeEntries(): number {
    return this._safeModeEntries;
  }

  /** Stop patching and gather evidence: the same symptom failed `stuckThreshold` times and was not pivoted on yet. */
  shouldPivotToLocalization(): boolean {
    return (
      this._consecutiveFailures >= this.stuckThreshold &&
      this._lastFailureSignature !== null &&
      !this.pivotedSignatures.has(this._lastFailureSignature)
    );
  }
  /** A pivot happened on the current symptom: its streak restarts, and reaching the threshold again means stuck. */
  recordPivot(): void {
    if (this._lastFailureSignature !== null) this.pivotedSignatures.add(this._lastFailureSignature);
    this._consecutiveFailures = 0;
  }
  /** The first rejection streak reaching `maxConsecutiveRejections` enters safe mode (a second one is stuck). */
  shouldEnterSafeMode(): boolean {
    return this._consecutiveRejections >= this.maxConsecutiveRejections && this._safeModeEntries === 0;
  }
  enterSafeMode(): void {
    this._safeModeEntries++;
    this._consecutiveRejections = 0;
  }

  /** Why the run cannot proceed safely, or null. */
  stuckReason(): StuckReason | null {
    if (this._iterationsUsed >= this.iterationBudget) return "iteration_budget_exhausted";
    if (
      this._consecutiveFailures >= this.stuckThreshold &&
      this._lastFailureSignature !== null &&
      this.pivotedSignatures.has(this._lastFailureSignature)
    ) {
      return "repeated_failure";
    }
    if (this._consecutiveRejections >= this.maxConsecutiveRejections && this._safeModeEntries > 0) {
      return "repeated_rejections";
    }
    return null;
  }
  /** The planner is in a loop or out of budget: iterations exhausted, the same failure after a pivot, or a rejection streak after safe mode. */
  isStuck(): boolean {
    return this.stuckReason() !== null;
  }
}

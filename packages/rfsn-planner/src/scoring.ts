/**
 * Ranks proposal candidates without executing them: six factors, each in [0, 1], weighted and summed.
 *
 * | factor             | weight | value                                                                  |
 * |--------------------|--------|------------------------------------------------------------------------|
 * | fileCount          | 1      | 1 / files touched                                                      |
 * | tracebackRelevance | 3      | 0.7 if a touched file is a traceback frame, + 0.3 if the symbol is too |
 * | guardQuality       | 2      | 1 if the edit adds a None / boundary / type check                      |
 * | apiPreservation    | 1.5    | 1 unless the edit deletes or renames symbols or changes a signature    |
 * | refactorPenalty    | -1     | broadness: refactor intent, rename-everywhere ops, lines beyond 20     |
 * | testNarrativeMatch | 2      | overlap with the failure narrative and the failing tests               |
 */
import { estimateChangedLines, planEdits, planFiles } from "./plan.js";
import { samePath } from "./test-paths.js";
import {
  ModelCandidateSchema,
  ProposalSchema,
  ScoringWeightsSchema,
  createProposal,
  type ModelCandidate,
  type Proposal,
  type ScoreBreakdown,
  type ScoringWeights,
} from "./schemas.js";

export interface ScoringContext {
  readonly failingTests?: readonly string[] | undefined;
  /** Frames of the failure (file, and the function when known); only project frames should be passed. */
  readonly tracebackFrames?:
    | ReadonlyArray<{ readonly file: string; readonly name?: string | null | undefined }>
    | undefined;
  /** The failure in words, e.g. "AttributeError when accessing .foo()". */
  readonly testNarrative?: string | undefined;
  readonly weights?: Partial<ScoringWeights> | undefined;
}

export interface ScoredProposal {
  readonly proposal: Proposal;
  readonly score: ScoreBreakdown;
}
export interface ScoredCandidate extends ScoredProposal {
  readonly model: string;
}
export interface CandidateSelection {
  /** The best valid candidate, or null when none is valid. */
  readonly winner: ScoredCandidate | null;
  /** Every valid candidate, best first. */
  readonly ranking: readonly ScoredCandidate[];
  /** Candidates that failed the proposal schema, with the reason. */
  readonly invalid: ReadonlyArray<{ readonly model: string; readonly reason: string }>;
}

const GUARDS: readonly RegExp[] = [
  // None / null checks
  /\bis\s+(?:not\s+)?None\b|[!=]==?\s*(?:null|undefined)\b|\?\?|\?\.|\bif\s+not\s+\w+/,
  // boundary checks
  /\blen\s*\(|\.length\b|\b(?:IndexError|RangeError)\b|\bmin\s*\(|\bmax\s*\(|(?:<=?|>=?)\s*0\b|\bout of range\b/,
  // type checks
  /\bisinstance\s*\(|\btypeof\b|\binstanceof\b|\bhasattr\s*\(|\bcallable\s*\(|\bArray\.isArray\s*\(/,
];
const BREAKING_OPS = new Set(["rename_symbol", "modify_function_signature", "replace_all_matching"]);
const DELETE_OPS = new Set(["delete_node", "delete_lines"]);
const STOPWORDS = new Set(
  "the a an and or of to in on at for with when while is are was were be been not no this that from by as it its into has have had does do did should would could error test tests".split(
    " ",
  ),
);

function tokens(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of text.split(/[^A-Za-z0-9_]+/)) {
    const t = raw.toLowerCase();
    if (t.length >= 3 && !STOPWORDS.has(t)) out.add(t);
  }
  return out;
}

function signatures(code: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of code.matchAll(/\b(?:def|function)\s+(\w+)\s*\(([^)]*)\)/g)) {
    out.set(
      m[1]!,
      m[2]!
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean),
    );
  }
  return out;
}

/** A new signature is compatible when it keeps the old parameters in order and every added one has a default. */
function compatible(before: readonly string[], after: readonly string[]): boolean {
  const name = (p: string): string => p.split(/[:=]/)[0]!.trim();
  return (
    before.every((p, i) => after[i] !== undefined && name(after[i]!) === name(p)) &&
    after.slice(before.length).every((p) => p.includes("=") || p.startsWith("*"))
  );
}

const round = (x: number): number => Math.round(x * 1e9) / 1e9;
const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export class ScoringEngine {
  readonly weights: ScoringWeights;
  private readonly failingTests: readonly string[];
  private readonly frames: NonNullable<ScoringContext["tracebackFrames"]>;
  private readonly narrative: Set<string>;

  constructor(context: ScoringContext = {}) {
    this.weights = ScoringWeightsSchema.parse(context.weights ?? {});
    this.failingTests = context.failingTests ?? [];
    this.frames = context.tracebackFrames ?? [];
    this.narrative = tokens(context.testNarrative ?? "");
  }

  /** The six factors of one proposal and their weighted total. */
  score(proposal: Proposal): ScoreBreakdown {
    const edit = proposal.action_type === "edit_file" ? proposal : null;
    const files = edit
      ? planFiles(edit.change).length > 0
        ? planFiles(edit.change)
        : [edit.target.path]
      : [proposal.target.path];
    const steps = edit ? planEdits(edit.change) : [];
    const added = steps.flatMap((s) => s.added).join("\n");
    const removed = steps.flatMap((s) => s.removed).join("\n");

    const fileCount = 1 / Math.max(1, files.length);

    const hits = this.frames.filter((f) => files.some((file) => samePath(file, f.file)));
    const tracebackRelevance =
      hits.length === 0
        ? 0
        : 0.7 + (proposal.target.symbol && hits.some((f) => f.name === proposal.target.symbol) ? 0.3 : 0);

    const guardQuality =
      edit && GUARDS.some((re) => (added.match(re)?.length ?? 0) > (removed.match(re)?.length ?? 0)) ? 1 : 0;

    const oldSigs = signatures(removed);
    const breaking =
      steps.some((s) => BREAKING_OPS.has(s.op)) ||
      steps.some((s) => DELETE_OPS.has(s.op) && s.deleted?.name != null) ||
      [...signatures(added)].some(([name, params]) => oldSigs.has(name) && !compatible(oldSigs.get(name)!, params)) ||
      [...oldSigs.keys()].some((name) => !signatures(added).has(name));
    const apiPreservation = breaking ? 0 : 1;

    const lines = edit ? estimateChangedLines(edit.change) : 0;
    const refactorPenalty = Math.min(
      1,
      (proposal.intent === "refactor" ? 0.5 : 0) +
        (steps.some((s) => BREAKING_OPS.has(s.op)) ? 0.5 : 0) +
        Math.max(0, lines - 20) / 80,
    );

    const text = [
      proposal.hypothesis,
      proposal.change_summary,
      proposal.expected_effect.behavior,
      proposal.target.symbol ?? "",
      proposal.target.path,
      added,
    ].join(" ");
    const words = tokens(text);
    const overlap =
      this.narrative.size === 0 ? 0 : [...this.narrative].filter((t) => words.has(t)).length / this.narrative.size;
    const covered =
      this.failingTests.length === 0
        ? 0
        : this.failingTests.filter((t) => proposal.expected_effect.tests.includes(t)).length / this.failingTests.length;
    const testNarrativeMatch =
      this.failingTests.length === 0 ? overlap : this.narrative.size === 0 ? covered : 0.6 * overlap + 0.4 * covered;

    const factors = {
      fileCount,
      tracebackRelevance,
      guardQuality,
      apiPreservation,
      refactorPenalty,
      testNarrativeMatch,
    };
    const w = this.weights;
    const total =
      w.fileCount * fileCount +
      w.tracebackRelevance * tracebackRelevance +
      w.guardQuality * guardQuality +
      w.apiPreservation * apiPreservation +
      w.refactorPenalty * refactorPenalty +
      w.testNarrativeMatch * testNarrativeMatch;
    return { proposalId: proposal.id, total: round(total), factors };
  }

  /** The `topN` best proposals, best first; equal totals are ordered by proposal id. */
  selectBest(candidates: readonly Proposal[], topN = 1): ScoredProposal[] {
    return candidates
      .map((proposal) => ({ proposal, score: this.score(proposal) }))
      .sort((a, b) => b.score.total - a.score.total || compareIds(a.proposal.id, b.proposal.id))
      .slice(0, Math.max(0, topN));
  }

  /**
   * Multi-model selection: validates each model's proposal, scores the valid ones and returns the winner with every
   * score breakdown. Equal totals are ordered by proposal id, then model name.
   */
  selectBestCandidate(candidates: readonly ModelCandidate[]): CandidateSelection {
    const invalid: Array<{ model: string; reason: string }> = [];
    const scored: ScoredCandidate[] = [];
    for (const raw of candidates) {
      const candidate = ModelCandidateSchema.parse(raw);
      const parsed = ProposalSchema.safeParse(candidate.proposal);
      if (!parsed.success) {
        invalid.push({
          model: candidate.model,
          reason: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "),
        });
        continue;
      }
      const proposal = createProposal(parsed.data);
      scored.push({ model: candidate.model, proposal, score: this.score(proposal) });
    }
    scored.sort(
      (a, b) =>
        b.score.total - a.score.total || compareIds(a.proposal.id, b.proposal.id) || compareIds(a.model, b.model),
    );
    return { winner: scored[0] ?? null, ranking: scored, invalid };
  }
}

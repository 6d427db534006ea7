/**
 * `verifyPlan`: every check of `CHECKS` (the design's (docs/design.md, Origins) layers 0–6 and the L1–L6 hierarchy), on an
 * in-memory copy of the workspace. The plan is simulated step by step, so each step is checked
 * against the files as the earlier steps leave them; every problem is collected, none stops
 * the others.
 */
import { loadGrammarsFor, type Graph } from "@graphplan/graph";
import { resolveLocator } from "@graphplan/locators";
import {
  dataFileCheck,
  formalHandlers,
  isStepError,
  parsePlanSteps,
  type PlanSteps,
  type StepParse,
} from "@graphplan/catalog";
import {
  closestMatchPlace,
  findPattern,
  OPERATOR_BY_NAME,
  stepFiles,
  type Plan,
  type Step,
  type StepHandler,
  planFiles,
  preprocessorExplains,
} from "@graphplan/primitives";
import {
  checkBounds,
  checkContent,
  checkDrift,
  checkDuplicateInsert,
  checkFiles,
  checkLocators,
  checkPositional,
  checkPatternContext,
  checkRename,
  checkSymbols,
  deletedFileIssue,
  findFiles,
  findLocators,
  LineDrift,
  locatorMessage,
  type Report,
  type StepView,
} from "./checks.js";
import { checkNewKey } from "./data-keys.js";
import { carryModuleScope } from "./scope/python.js";
import { checkHierarchy, findingKey, NAME_CHECKS, nameFindingsOfFile } from "./hierarchy.js";
import { checkDeletedFile, checkImpact } from "./impact.js";
import { stepPlace, toResult, type Issue, type StepPlace, type VerifyResult } from "./issues.js";
import { LOCAL_OPS, REMOVING_OPS } from "./ops.js";
import { Sim, type FileChange } from "./sim.js";

export interface VerifyOptions {
  /**
   * Step handlers for tier 1–3 steps, as `runPlan` takes them. Defaults to the handlers of
   * @graphplan/catalog (templates, surgery, fragments).
   */
  readonly handlers?: Readonly<Record<string, StepHandler>>;
  /**
   * The absolute directory the plan's paths are relative to: an absolute path inside it is taken
   * as the relative path (and said in a warning). Without it absolute paths are errors.
   */
  readonly root?: string;
  /**
   * Every path of the repository (`git ls-files`), when `files` holds only some of its files: a name or
   * an import that a file not given may define (a Go package's other files, a Java package's types, a
   * Python submodule) is then not reported as missing. Without it, the files given are taken as all.
   */
  readonly repoPaths?: Iterable<string>;
}

const READ_ONLY = new Set(["locate", "locate_region"]);

function viewOf(index: number, label: string, step: Step): StepView {
  const params = (("params" in step ? step.params : {}) ?? {}) as Record<string, unknown>;
  const locators = "fragment" in step ? findLocators([step.locator]) : findLocators(params);
  const files = [...findFiles("fragment" in step ? { locator: step.locator } : params)];
  // delete_file and rename_file need their file to exist (create_file and rename_file's `to` need the opposite, checked by the run).
  if (label === "delete_file" && typeof params["path"] === "string") files.push(params["path"]);
  if (label === "rename_file" && typeof params["from"] === "string") files.push(params["from"]);
  return { index, op: label, params, locators, files };
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A case the switch above forgot: a type error at compile time, a bug at run time. */
function absurd(error: never): never {
  throw new Error(`an error the verifier does not know: ${errorMessage(error)}`);
}

// Long on purpose: one case per tag of the step errors, each turned into the issue and fix a model reads; split apart, the switch would lose its exhaustiveness check.
function failureIssue(error: unknown, graph?: Graph): Omit<Issue, "step" | "op"> {
  if (!isStepError(error))
    return {
      check: "operator",
      severity: "error",
      message: `the step fails: ${errorMessage(error)}`,
      fix: "change the step as the message says",
    };
  const message = error.message;
  const failed = {
    check: "operator",
    severity: "error",
    message: `the step fails: ${message}`,
    fix: "change the step as the message says",
  } as const;
  switch (error._tag) {
    case "LocatorNotFound":
    case "LocatorAmbiguous":
    case "InvalidQuery":
    case "UnknownKind":
    case "InvalidLocator":
    case "KeyNotFound":
    case "KeyPathInvalid": {
      const { message, fix } = locatorMessage(error, graph);
      return {
        check: "locator",
        severity: "error",
        file: error._tag === "InvalidLocator" || error._tag === "KeyPathInvalid" ? undefined : error.file,
        message,
        fix,
      };
    }
    case "PatternNotFound":
      return {
        check: "content",
        severity: "error",
        file: error.file,
        message,
        fix: "copy the file's exact text into the pattern, or use an AST locator (replace_node)",
      };
    case "PostconditionFailed":
      if (error.syntaxErrors.length) {
        const where = error.syntaxErrors
          .slice(0, 3)
          .map(
            (s) =>
              `line ${s.line}:${s.column + 1} ${s.kind === "MISSING" ? `missing ${s.text}` : `unexpected ${JSON.stringify(s.text)}`}`,
          )
          .join("; ");
        return {
          check: "syntax",
          severity: "error",
          file: error.file,
          line: error.syntaxErrors[0]!.line,
          message: `Replacement produces syntax error in ${error.file}: ${where}`,
          fix: "fix the new code so it parses in place: balanced brackets and quotes, a complete statement, indentation that matches the target",
        };
      }
      return {
        check: "syntax",
        severity: "error",
        file: error.file,
        message,
        fix: "change the step so that its postcondition holds",
      };
    case "DataEditBrokeFile":
      return {
        check: "syntax",
        severity: "error",
        file: error.file,
        message,
        fix: "write the value so the file stays valid, or edit the file with a text step",
      };
    case "DataFileUnparsable":
    case "NotADataFile":
    case "ValueNotWritable":
      return { ...failed, file: error.file };
    case "TransformBrokeSyntax":
      return {
        check: "syntax",
        severity: "error",
        file: error.file,
        ...(error.errors[0] ? { line: error.errors[0].line } : {}),
        message,
        fix: "fix the new code so it is valid Python where it goes",
      };
    case "NameCollision":
      return {
        check: "rename",
        severity: "error",
        file: error.file,
        message,
        fix: "choose a new name that is not used in that scope",
      };
    case "LineOutOfRange":
      return {
        check: "lines",
        severity: "error",
        file: error.file,
        message,
        fix: "use a line inside the file as it is when the step runs, or an AST locator",
      };
    case "InvalidParams":
    case "UnknownOperator":
    case "FragmentInvalid":
    case "ParamsInvalid":
    case "UnknownTemplate":
      return {
        check: "operator",
        severity: "error",
        message,
        fix: "correct the step's parameters as the message says",
      };
    case "FileNotInPlan":
      return {
        check: "files",
        severity: "error",
        file: error.file,
        message,
        fix: "use the path of an existing file, relative to the workspace root",
      };
    case "FileExists":
      return {
        check: "files",
        severity: "error",
        file: error.file,
        message: `${error.op}: '${error.file}' already exists`,
        fix: "change the existing file with the node operators (replace_node, insert_after_node, ...), or delete_file it in an earlier step, or choose another path",
      };
    case "FileDeleted":
      return { check: "files", severity: "error", file: error.file, ...deletedFileIssue(error.file, error.byStep) };
    case "PatternAmbiguous":
    case "PreconditionFailed":
    case "TransformRejected":
    case "BindingNotFound":
    case "LanguageNotSupported":
    case "FragmentLanguageUnsupported":
    case "UnsupportedLanguage":
    case "BinaryFile":
      return { ...failed, file: "file" in error ? error.file : undefined };
    case "GrammarNotLoaded":
    case "OverlappingEdits":
    case "EditOutOfRange":
    case "OperatorRedefined":
    case "RecursionLimit":
    case "UnresolvedVariable":
    case "InvalidCondition":
      return failed;
    default:
      return absurd(error);
  }
}

/**
 * Check `syntax` on a change the executor accepted: the file must not have more syntax errors than
 * before (the session's error lists: no tree walk), unless C/C++ conditionals explain them
 * (`preprocessorExplains`, as the executor judged).
 */
function checkSyntax(change: FileChange, report: Report, placed: () => string | undefined): boolean {
  const now = change.errorsAfter;
  if (now.length === 0 || now.length <= change.errorsBefore.length) return true;
  if (preprocessorExplains(change.after.language, change.before.source, change.after.source, change.edits)) return true;
  const where = now
    .slice(0, 3)
    .map((e) => `line ${e.line}${e.kind === "MISSING" ? ` (missing ${e.text})` : ""}`)
    .join(", ");
  const place = placed();
  report({
    check: "syntax",
    severity: "error",
    file: change.after.path,
    line: now[0]?.line,
    message: `Replacement produces syntax error in ${change.after.path}: ${where}`,
    fix: `fix the new code so it parses in place${place ? `; or the place is wrong: ${place}` : ""}`,
  });
  return false;
}

/**
 * Where a legacy `replace_code` step's pattern was placed when it is not in the file as written
 * (the closest text was taken): when its edit then breaks the code, the place may be what is wrong.
 * `source` is the file before the step. Only called once the step has failed.
 */
function closestMatchNote(step: Step, source: string | undefined): string | undefined {
  if (source === undefined || !("op" in step) || step.op !== "replace_code") return undefined;
  const { pattern, similarity_threshold } = step.params as { pattern?: unknown; similarity_threshold?: unknown };
  if (typeof pattern !== "string") return undefined;
  try {
    const match = findPattern(source, pattern, typeof similarity_threshold === "number" ? similarity_threshold : 0.8);
    if (!match || match.layer === "exact") return undefined;
    const line = source.slice(0, match.start).split("\n").length;
    return `${closestMatchPlace(line, match.layer, match.score)}; if line ${line} is the place you meant, quote its lines exactly as the file has them`;
  } catch {
    return undefined; // ambiguous: the step's own error says so
  }
}

/**
 * Verification of one plan, one step at a time: {@link PlanVerifier.next} simulates and checks
 * the next step against the files as the earlier ones left them. `verifyPlanSync` runs it to the
 * end; a caller that wants to time or interleave steps drives it itself. Grammars must be
 * loaded; call {@link PlanVerifier.dispose} (or run to the end) to free the trees.
 */
export class PlanVerifier {
  readonly #issues: Issue[] = [];
  readonly #places: StepPlace[] = [];
  /** The plan as the one parser read it: every step parsed or refused, the custom operators. */
  readonly #parsed: PlanSteps;
  readonly #handlers: Readonly<Record<string, StepHandler>>;
  readonly #planFiles = new Set<string>();
  readonly #sim: Sim;
  readonly #drift = new LineDrift();
  readonly #graph: Graph;
  /** The files as they were before the plan, parsed only when a step's locator needs them. */
  readonly #original: Sim;
  /** The steps (0-based) that changed each file, in order. */
  readonly #changedBy = new Map<string, number[]>();
  /** `references`/`imports` findings, re-judged on the plan's final state once every step ran (a later step may answer them). */
  readonly #nameIssues: { readonly issue: Issue; readonly file: string }[] = [];
  #index = 0;

  constructor(raw: unknown, workspace: ReadonlyMap<string, string>, graph: Graph, options: VerifyOptions = {}) {
    this.#handlers = options.handlers ?? formalHandlers;
    // The plan's one parser: corrections (the run makes them the same way) are said as warnings; each
    // step's own problems are reported when its turn comes, and the valid steps are simulated.
    const parsed = parsePlanSteps(raw, {
      ...(options.root === undefined ? {} : { root: options.root }),
      operators: Object.keys(this.#handlers),
    });
    this.#issues.push(...parsed.corrections, ...parsed.planIssues);
    this.#parsed = parsed;
    for (const step of parsed.steps) stepFiles(step.written, this.#planFiles);
    this.#sim = new Sim(
      workspace,
      { handlers: this.#handlers, operators: parsed.operators, checkText: dataFileCheck },
      options.repoPaths,
    );
    this.#original = new Sim(workspace);
    this.#graph = graph;
  }

  /** Number of steps in the plan (0 when the plan itself is invalid). */
  get stepCount(): number {
    return this.#parsed.steps.length;
  }

  /** The plan as read (corrections made), typed, when every step parsed; what to execute once the result passed. */
  get plan(): Plan | undefined {
    return this.#parsed.plan;
  }

  /** Verifies the next step; false when every step has been verified. */
  next(): boolean {
    if (this.#index >= this.#parsed.steps.length) {
      if (this.#nameIssues.length) this.#rejudgeNames();
      this.dispose();
      return false;
    }
    const index = this.#index++;
    try {
      this.#verifyStep(index, this.#parsed.steps[index]!);
    } catch (error) {
      // A plan the simulation cannot follow (a bug of the verifier, not of the plan): said as an
      // error on the step, never thrown; the later steps are not simulated on a state that may be wrong.
      const pending = this.#parsed.steps.length - index - 1;
      this.#issues.push({
        step: index,
        op: this.#parsed.steps[index]!.key,
        check: "operator",
        severity: "error",
        message: `the verifier could not simulate this step (${errorMessage(error)}), so the plan is not verified${pending ? `; the ${pending} later step${pending === 1 ? " was" : "s were"} not checked` : ""}`,
        fix: "this is a limit of the verifier, not necessarily a mistake in the step: write the step another way (e.g. address the nodes it changes instead of the whole file, or split it in two), or apply the plan's files one plan at a time",
      });
      this.#index = this.#parsed.steps.length;
    }
    return true;
  }

  /** The result so far (all of it once {@link next} returned false). */
  result(): VerifyResult {
    return toResult(this.#issues, this.#places);
  }

  dispose(): void {
    this.#sim.dispose();
    this.#original.dispose();
  }

  /**
   * Drops the `references`/`imports` findings that the plan's own later steps answer: a step
   * imports a name that a later step defines, uses a name that a later step imports. Each finding
   * is judged again on its file as the whole plan leaves it; only those still found there stay.
   * A file the plan deleted or renamed away keeps its findings (nothing to judge them on).
   */
  #rejudgeNames(): void {
    const finals = new Map<string, ReadonlySet<string> | undefined>();
    const answered = new Set<Issue>();
    for (const { issue, file } of this.#nameIssues) {
      if (!finals.has(file)) {
        const doc = this.#sim.doc(file);
        let keys: ReadonlySet<string> | undefined;
        try {
          keys = doc ? new Set(nameFindingsOfFile(doc, this.#graph, this.#sim).map(findingKey)) : undefined;
        } catch {
          keys = undefined; // not judged again: the finding stays
        }
        finals.set(file, keys);
      }
      const keys = finals.get(file);
      if (keys && !keys.has(findingKey(issue))) answered.add(issue);
    }
    if (answered.size === 0) return;
    const kept = this.#issues.filter((i) => !answered.has(i));
    this.#issues.length = 0;
    this.#issues.push(...kept);
  }

  /**
   * A step whose locator matches nothing now but matched before the plan ran: an earlier step
   * changed that code — maybe the wrong node (an index off by one, a parent left out), maybe as
   * meant, and this step must address it as it is now. Says which, where, and which steps.
   */
  #changedEarlier(view: { locators: readonly Record<string, unknown>[] }): string | undefined {
    for (const locator of view.locators) {
      const file = locator["file"];
      if (typeof file !== "string") continue;
      const steps = this.#changedBy.get(file);
      const now = this.#sim.doc(file);
      const before = steps?.length ? this.#original.doc(file) : undefined;
      if (!steps || !now || !before) continue;
      try {
        if (resolveLocator(now.tree, now.source, now.language, locator).length > 0) continue;
        const matched = resolveLocator(before.tree, before.source, before.language, locator);
        if (matched.length === 0) continue;
        const names = steps.map((k) => `step ${k + 1}`).join(", ");
        return `Before the plan ran, this locator matched line ${matched[0]!.startPosition.row + 1} of ${file}; ${names} changed that file since. If an earlier step edited another node than meant (an index off by one, a parent left out), fix that step; else address the code as it is after it.`;
      } catch {
        // An invalid locator: its own error says so.
      }
    }
    return undefined;
  }

  /** Long on purpose: the checks of one step in the order of CHECKS (plan, files … triviality), each a call, around the simulated run that every later check reads; they share the step's report and its positional hint. */
  #verifyStep(index: number, parsed: StepParse): void {
    const label = parsed.key;
    const sim = this.#sim;
    const graph = this.#graph;
    let blocked = false;
    /** Set once the step has been run: an error about its effect may come from the wrong node. */
    let positional: string | undefined;
    const report: Report = (i) => {
      if (i.severity === "error") blocked = true;
      // A step addressed by position that breaks the code may have edited another node than meant
      // (an index off by one, a parent left out): say so, with the locator to check.
      const hint =
        i.severity === "error" && positional ? ` If the code it changed is not the code meant: ${positional}` : "";
      this.#issues.push({ ...i, ...(hint ? { fix: `${i.fix ?? ""}${hint}`.trim() } : {}), step: index, op: label });
    };
    if (!parsed.ok) {
      this.#issues.push(...parsed.issues);
      return;
    }
    const step = parsed.step;
    const view = viewOf(index, label, step);
    if (!checkFiles(view, sim, report)) return;
    checkSymbols(view, sim, graph, report);
    checkBounds(view, sim, report);
    // A tier-0 operator resolves its own locators (and reports them as the `locator` check when they fail);
    // its edits are derived from its targets, so `containment` by text would be tautological. For
    // the other ops the targets bound `containment` (their resolution is cached per tree, so the
    // step's own resolution of the same locator costs nothing more).
    const ownResolution = OPERATOR_BY_NAME.has(label) && !Object.hasOwn(this.#handlers, label);
    const { targets } = ownResolution ? { targets: [] } : checkLocators(view, sim, report, graph);
    checkPositional(view, sim, report);
    checkNewKey(view, sim, report);
    checkContent(view, sim, report);
    checkDuplicateInsert(view, sim, report);
    checkDrift(view, this.#drift, report);
    checkPatternContext(view, sim, report);
    checkRename(view, sim, report);
    const preErrors = blocked;
    const byPosition = view.locators.find(
      (l) => typeof l["index"] === "number" && (l["index"] as number) >= 0 && l["type"] !== "sexp",
    );
    if (byPosition) {
      const parent = byPosition["parent"] as { kind?: unknown; name?: unknown } | undefined;
      positional = `the locator picks its node by position (index ${String(byPosition["index"])} of the ${String(byPosition["kind"])} nodes${parent ? ` in ${String(parent.kind)} ${String(parent.name)}` : ", with no parent"}); check the index${parent ? "" : " and give the parent (the function or class around the node)"}, or address the node by name.`;
    }
    // The file a replace_code step quotes, as it is before the step: where its pattern was placed is
    // worked out again only if the step then fails (the fuzzy search is not repeated on success).
    const quoted =
      "op" in step && step.op === "replace_code" && typeof step.params["file"] === "string"
        ? sim.text(step.params["file"])
        : undefined;
    const placed = (): string | undefined => closestMatchNote(step, quoted);
    let changes: FileChange[];
    try {
      changes = sim.runStep(step, index);
    } catch (error) {
      // The pre-checks already said why this step cannot run; the executor's failure would repeat it.
      if (!preErrors) {
        const issue = failureIssue(error, graph);
        const place = issue.check === "syntax" ? placed() : undefined;
        report(place ? { ...issue, fix: `${issue.fix ?? ""}; or the place is wrong: ${place}` } : issue);
      }
      const earlier = this.#changedEarlier(view);
      if (earlier) {
        for (const issue of this.#issues) {
          if (issue.step === index && issue.severity === "error")
            Object.assign(issue, { fix: `${issue.fix ?? ""} ${earlier}`.trim() });
        }
      }
      return;
    }
    for (const change of sim.textChanges) {
      const place = stepPlace(index, change.path, change.before, change.after, change.edits);
      if (place) this.#places.push(place);
      this.#changedBy.set(change.path, [...(this.#changedBy.get(change.path) ?? []), index]);
    }
    if (changes.length === 0 && sim.textChanges.length === 0 && !READ_ONLY.has(label)) {
      report({
        check: "triviality",
        severity: "warning",
        message: "the step changes nothing: the new code is identical to the original (or already there)",
        fix: "write the change you mean to make, or drop the step",
      });
    }
    for (const change of changes) {
      if (!checkSyntax(change, report, placed)) {
        sim.rollback(change);
        continue;
      }
      carryModuleScope(change);
      const local = LOCAL_OPS.has(label) || "fragment" in step;
      const fileTargets = targets.filter((t) => t.file === change.before.path);
      for (const finding of checkHierarchy({
        change,
        targets: local && fileTargets.length ? fileTargets : undefined,
        removes: REMOVING_OPS.has(label),
        graph,
        sim,
      })) {
        report(finding);
        if (NAME_CHECKS.has(finding.check) && finding.severity === "warning")
          this.#nameIssues.push({ issue: this.#issues[this.#issues.length - 1]!, file: change.after.path });
      }
      if (change.existence === "deleted") {
        const renamedTo =
          label === "rename_file" && "params" in step && typeof step.params["to"] === "string"
            ? step.params["to"]
            : undefined;
        checkDeletedFile(change.before.path, renamedTo, sim, graph, this.#planFiles, report);
      } else checkImpact(change, sim, graph, this.#planFiles, report);
      this.#drift.record(index, change.before, change.edits);
      const place = stepPlace(index, change.before.path, change.before.source, change.after.source, change.edits);
      if (place) this.#places.push(place);
      sim.commit(change);
      const path = change.before.path;
      this.#changedBy.set(path, [...(this.#changedBy.get(path) ?? []), index]);
    }
    sim.endStep();
  }
}

/**
 * Verifies a plan without running it on the files: returns `{passed, errors, warnings, issues}`.
 * `workspace` maps paths (relative to the root) to file texts; `graph` is the code graph of the
 * workspace. Grammars must be loaded (see {@link verifyPlan}).
 */
export function verifyPlanSync(
  plan: unknown,
  workspace: ReadonlyMap<string, string>,
  graph: Graph,
  options: VerifyOptions = {},
): VerifyResult {
  return verifyAndParseSync(plan, workspace, graph, options).result;
}

/**
 * Verifies a plan (see {@link verifyPlanSync}), loading the grammars of the workspace's files
 * first.
 */
export async function verifyPlan(
  plan: unknown,
  workspace: ReadonlyMap<string, string>,
  graph: Graph,
  options: VerifyOptions = {},
): Promise<VerifyResult> {
  return (await verifyAndParse(plan, workspace, graph, options)).result;
}

/** What {@link verifyAndParse} gives: the result, and the plan as the verifier read it when it passed. */
export interface VerifiedPlan {
  readonly result: VerifyResult;
  /** The typed plan, corrections made (what to execute): present when the result passed. */
  readonly plan: Plan | undefined;
}

/** {@link verifyPlanSync}, and the plan as read (the one parse: a caller that executes it need not parse it again). */
export function verifyAndParseSync(
  json: unknown,
  workspace: ReadonlyMap<string, string>,
  graph: Graph,
  options: VerifyOptions = {},
): VerifiedPlan {
  const verifier = new PlanVerifier(json, workspace, graph, options);
  try {
    while (verifier.next());
    const result = verifier.result();
    return { result, plan: result.passed ? verifier.plan : undefined };
  } finally {
    verifier.dispose();
  }
}

/** {@link verifyPlan}, and the plan as read when it passed (see {@link verifyAndParseSync}). */
export async function verifyAndParse(
  json: unknown,
  workspace: ReadonlyMap<string, string>,
  graph: Graph,
  options: VerifyOptions = {},
): Promise<VerifiedPlan> {
  // The plan's own paths too: a file it creates may be of a language no workspace file has.
  await loadGrammarsFor([...workspace.keys(), ...planFiles(json)]);
  return verifyAndParseSync(json, workspace, graph, options);
}

/**
 * The tier dispatcher: which tier a step is, validation of tier 1/2/3 steps, their edits, the
 * handlers that run them inside primitives' `runPlan` (one all-or-nothing plan execution for
 * every tier), and a standalone executor for one step.
 */
import { dataFormatOf, detectLanguage, parseData, withTree, TaggedError } from "@graphplan/graph";
import { LocatorSchema } from "@graphplan/locators";
import {
  fragmentEdit,
  validateFragment,
  FragmentInvalid,
  closest,
  isFragmentLanguage,
  pythonProblems,
  type FragmentIssue,
  type PlaceAction,
} from "@graphplan/fragments";
import {
  applyEdits,
  OPERATOR_BY_NAME,
  PlanSession,
  primitiveEdits,
  runPlan,
  type Edit,
  type HandlerContext,
  type RunOptions,
  type RunResult,
  type Plan,
  type Step,
  type StepHandler,
} from "@graphplan/primitives";
import type { FormalOperator } from "./operator.js";
import { paramKindOf, validateParams, ParamsInvalid, type ParamIssue } from "./params.js";
import { SURGERY } from "./surgery/operators.js";
import { synonymOf } from "./synonyms.js";
import { TEMPLATES } from "./templates/index.js";
import { DATA_OPERATOR_BY_NAME, dataEdits, dataParamIssues, isDataOp } from "./data/operators.js";
import { DATA_OPS } from "./data/edit.js";
import { commitEdits, fileMap, TransformBrokeSyntax, Workspace, type FileEdits, type Files } from "./workspace.js";

/** The tier 1 operators (AST surgery). `delete_node` is also a primitive: it is tier 1 and runs as the primitive. */
export const SURGERY_OPS = [
  "rename_identifier",
  "rename_across_files",
  "copy_node",
  "move_node",
  "swap_nodes",
  "delete_node",
  "reorder_children",
] as const;
export type SurgeryOp = (typeof SURGERY_OPS)[number];
export type Tier = 0 | 1 | 2 | 3;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `op` in the surgery set or a data step (set_key, delete_key, append_item) → 1; `template` → 2; `fragment` → 3; anything else (primitives, composed, legacy, custom) → 0. */
export function detectTier(step: unknown): Tier {
  if (!isRecord(step)) return 0;
  if (
    typeof step["op"] === "string" &&
    ((SURGERY_OPS as readonly string[]).includes(step["op"]) || isDataOp(step["op"]))
  )
    return 1;
  if ("template" in step) return 2;
  if ("fragment" in step) return 3;
  return 0;
}

export const TEMPLATE_BY_NAME: ReadonlyMap<string, FormalOperator> = new Map(TEMPLATES.map((t) => [t.name, t]));
export const SURGERY_BY_NAME: ReadonlyMap<string, FormalOperator> = new Map(SURGERY.map((s) => [s.name, s]));

/** The name meant by an unknown `name`: a known synonym among `names`, else the closest spelling. */
export function suggestName(name: string, names: readonly string[]): string | undefined {
  const synonym = synonymOf(name);
  if (synonym && names.includes(synonym)) return synonym;
  return closest(name, [...names]);
}

/** The template (or, when the name is closer to one or a synonym of one, the operator) meant by an unknown template name. */
function suggestTemplate(name: string): string | undefined {
  const templates = TEMPLATES.map((t) => t.name);
  const synonym = synonymOf(name);
  if (synonym) return synonym;
  return closest(name, templates);
}

/** A `{template}` step names no template. */
export class UnknownTemplate extends TaggedError("UnknownTemplate") {
  constructor(
    readonly template: string,
    readonly suggestion: string | undefined,
  ) {
    const operator = suggestion !== undefined && !TEMPLATE_BY_NAME.has(suggestion);
    super(
      `Unknown template ${JSON.stringify(template)}${
        suggestion
          ? operator
            ? ` (did you mean the operator ${suggestion}? write {"op": ${JSON.stringify(suggestion)}, "params": {...}})`
            : ` (did you mean ${suggestion}?)`
          : ""
      }. Templates: ${TEMPLATES.map((t) => t.name).join(", ")}.`,
    );
  }
}

/** One problem with a step, for the verifier: where (`params.condition`, `fragment.children[0].kind`, ...) and what. */
export interface StepIssue {
  readonly path: string;
  readonly message: string;
  readonly code: string;
}

function operatorOf(step: Record<string, unknown>): FormalOperator | undefined {
  if (typeof step["template"] === "string") return TEMPLATE_BY_NAME.get(step["template"]);
  if (typeof step["op"] === "string") return SURGERY_BY_NAME.get(step["op"]);
  return undefined;
}

/** Issues of an operator's params (missing, unknown, ill-typed, unparsable code), each naming its param. */
export function validateOperatorParams(op: FormalOperator, params: unknown): ParamIssue[] {
  return validateParams(op.params.shape as Record<string, import("zod").ZodType>, withStepFile(op, params ?? {}), {
    languages: op.languages,
  });
}

/**
 * A locator param without `file` (rename_identifier's `scope`) is in the step's own file: the
 * operator and the verifier both read it so.
 */
export function withStepFile(op: FormalOperator, params: unknown): unknown {
  if (!isRecord(params) || typeof params["file"] !== "string") return params;
  let out: Record<string, unknown> | undefined;
  for (const [name, schema] of Object.entries(op.params.shape as Record<string, import("zod").ZodType>)) {
    const value = params[name];
    if (name === "file" || paramKindOf(schema) !== "locator" || !isRecord(value) || "file" in value) continue;
    out ??= { ...params };
    out[name] = { ...value, file: params["file"] };
  }
  return out ?? params;
}

/**
 * Validates one step of any tier without running it: template/surgery params (typed, code
 * parsed as the kind it claims), fragments (kinds, properties, children, code), locators, and
 * tier 0 params against the primitives' schemas (unknown `op`s are reported unless listed in
 * `customOps`). Needs the grammars loaded. Returns every issue; empty when valid.
 */
export function validateStep(step: unknown, customOps: readonly string[] = []): StepIssue[] {
  if (!isRecord(step))
    return [{ path: "", code: "shape", message: "a step is an object with op, template or fragment" }];
  const tier = detectTier(step);
  if (tier === 3) {
    // The fragment is written in the language of its target's file (Python when that is unknown or not one fragments are written in).
    const locator = LocatorSchema.safeParse(step["locator"]);
    const language = locator.success ? detectLanguage(locator.data.file) : undefined;
    const issues: StepIssue[] = validateFragment(step["fragment"], {
      language: isFragmentLanguage(language) ? language : "python",
    }).map((i: FragmentIssue) => ({
      path: `fragment${i.path ? `.${i.path}` : ""}`,
      code: i.code,
      message: i.message,
    }));
    const action = step["action"] ?? "replace";
    if (!["replace", "insert_before", "insert_after"].includes(String(action)))
      issues.push({
        path: "action",
        code: "value",
        message: `action is replace, insert_before or insert_after, not ${JSON.stringify(action)}`,
      });
    if (!locator.success)
      issues.push({
        path: "locator",
        code: "type",
        message: `a fragment step needs a locator for its target: ${locator.error.issues.map((i) => `${i.path.join(".") || "locator"}: ${i.message}`).join("; ")}`,
      });
    else if (!isFragmentLanguage(language)) {
      issues.push({
        path: "locator.file",
        code: "language",
        message: `fragments are written in Python, JavaScript, TypeScript, Java and Go; ${locator.data.file} is ${language ?? "not a known language"}`,
      });
    }
    for (const key of Object.keys(step))
      if (!["fragment", "action", "locator"].includes(key))
        issues.push({ path: key, code: "unknown", message: `a fragment step has fragment, action and locator only` });
    return issues;
  }
  if (tier === 1 && isDataOp(step["op"]))
    return dataParamIssues(DATA_OPERATOR_BY_NAME.get(step["op"])!, step["params"]);
  if (tier === 1 || tier === 2) {
    const op = operatorOf(step);
    if (!op && tier === 2) {
      const name = String(step["template"]);
      // An operator given as a template runs as the operator (formalHandlers): validate it as one.
      if (operatorGivenAsTemplate(step)) return validateStep({ op: name, params: step["params"] }, customOps);
      return [{ path: "template", code: "unknown", message: new UnknownTemplate(name, suggestTemplate(name)).message }];
    }
    if (!op) {
      // delete_node: the primitive's own schema.
      const info = OPERATOR_BY_NAME.get(String(step["op"]));
      const parsed = info?.paramsSchema.safeParse(step["params"] ?? {});
      return parsed && !parsed.success
        ? parsed.error.issues.map((i) => ({ path: `params.${i.path.join(".")}`, code: "type", message: i.message }))
        : [];
    }
    return validateOperatorParams(op, step["params"]).map((i) => ({
      path: `params.${i.param}`,
      code: i.problem,
      message: i.message,
    }));
  }
  const name = step["op"];
  if (typeof name !== "string")
    return [{ path: "op", code: "shape", message: 'a step needs "op" (or "template" / "fragment")' }];
  const info = OPERATOR_BY_NAME.get(name);
  if (!info) {
    if (customOps.includes(name)) return [];
    const suggestion = suggestName(name, [...OPERATOR_BY_NAME.keys(), ...SURGERY_OPS, ...TEMPLATES.map((t) => t.name)]);
    const asTemplate = TEMPLATE_BY_NAME.has(name)
      ? ` (${name} is a template: write {"template": "${name}", "params": {...}})`
      : "";
    return [
      {
        path: "op",
        code: "unknown",
        message: `unknown operator ${JSON.stringify(name)}${asTemplate || (suggestion ? ` (did you mean ${suggestion}?)` : "")}`,
      },
    ];
  }
  const params = isRecord(step["params"]) ? step["params"] : {};
  // Legacy operators also accept a {locator, ...} form (run as their primitive).
  if (info.kind === "legacy" && params["locator"] !== undefined) return [];
  const parsed = info.paramsSchema.safeParse(params);
  return parsed.success
    ? []
    : parsed.error.issues.map((i) => ({
        path: `params${i.path.length ? `.${i.path.join(".")}` : ""}`,
        code: i.code === "unrecognized_keys" ? "unknown" : "type",
        message: i.message,
      }));
}

function editsOfOperator(op: FormalOperator, params: unknown, ws: Workspace): FileEdits {
  const issues = validateOperatorParams(op, params);
  if (issues.length > 0) throw new ParamsInvalid(op.name, issues);
  return op.run(ws, withStepFile(op, params ?? {}) as Record<string, unknown>);
}

function fragmentEdits(step: Record<string, unknown>, ws: Workspace): FileEdits {
  // The fragment's own problems first (in its file's language), then its target; fragmentEdit checks it again where it goes.
  const file =
    isRecord(step["locator"]) && typeof step["locator"]["file"] === "string" ? step["locator"]["file"] : undefined;
  const language = file ? detectLanguage(file) : undefined;
  const issues = validateFragment(step["fragment"], { language: isFragmentLanguage(language) ? language : "python" });
  if (issues.length > 0) throw new FragmentInvalid(issues);
  const target = ws.one(step["locator"]);
  const action = (step["action"] ?? "replace") as PlaceAction;
  return new Map([
    [target.file, [fragmentEdit(target.source, target.node, action, step["fragment"], target.file, target.language)]],
  ]);
}

/**
 * What tree-sitter-python accepts and CPython does not (an empty block, a parameter without a
 * default after one with a default): a step may not add such a problem to a Python file.
 */
function checkPython(ws: Workspace, edits: FileEdits, op: string): void {
  for (const [file, list] of edits) {
    if (list.length === 0) continue;
    const doc = ws.doc(file);
    if (doc.language !== "python") continue;
    const before = pythonProblems(doc.tree.rootNode).length;
    const after = withTree(applyEdits(doc.source, list), "python", (tree) => pythonProblems(tree.rootNode));
    if (after.length > before)
      throw new TransformBrokeSyntax(
        op,
        file,
        after.map((p) => ({ line: p.line, column: 0, kind: "ERROR", text: p.message })),
      );
  }
}

/**
 * The edits of a tier 1/2/3 step over `from` (plain files, or a runPlan HandlerContext).
 * Throws tagged errors: ParamsInvalid, FragmentInvalid, UnknownTemplate, locator errors,
 * TransformRejected, NameCollision, BindingNotFound, ... Tier 0 steps are not handled here.
 */
export function stepEdits(step: Step | Record<string, unknown>, from: Files | HandlerContext): FileEdits {
  const s = step as Record<string, unknown>;
  const tier = detectTier(s);
  const ws = new Workspace(from);
  try {
    if (tier === 3) return checked(ws, fragmentEdits(s, ws), "fragment");
    if (tier === 2) {
      const name = String(s["template"]);
      const op = TEMPLATE_BY_NAME.get(name);
      if (!op) throw new UnknownTemplate(name, suggestTemplate(name));
      return checked(ws, editsOfOperator(op, s["params"], ws), name);
    }
    if (tier === 1 && isDataOp(s["op"])) {
      const op = DATA_OPERATOR_BY_NAME.get(s["op"])!;
      const issues = dataParamIssues(op, s["params"]);
      if (issues.length > 0)
        throw new ParamsInvalid(
          op.name,
          issues.map((i) => ({
            param: i.path.replace(/^params\.?/, "") || "params",
            problem: i.code === "unknown" || i.code === "language" || i.code === "value" ? i.code : "type",
            message: i.message,
          })),
        );
      return dataEdits(op, s["params"] as Record<string, unknown>, (file) => ws.source(file));
    }
    if (tier === 1) {
      const op = SURGERY_BY_NAME.get(String(s["op"]))!;
      if (op.name === "delete_node") {
        const params = (s["params"] ?? {}) as { locator?: { file?: string } };
        const doc = ws.doc(String(params.locator?.file ?? ""));
        const edits = primitiveEdits("delete_node", doc, params);
        if (edits instanceof Error) throw edits;
        return new Map([[doc.path, edits]]);
      }
      return checked(ws, editsOfOperator(op, s["params"], ws), op.name);
    }
    throw new Error(
      `stepEdits handles tier 1, 2 and 3 steps; ${JSON.stringify(s["op"])} is tier 0: run it with runPlan`,
    );
  } finally {
    ws.dispose();
  }
}

function checked(ws: Workspace, edits: FileEdits, op: string): FileEdits {
  checkPython(ws, edits, op);
  return edits;
}

const toRecord = (edits: FileEdits): Record<string, readonly Edit[]> => Object.fromEntries(edits);

/** The handler of a formal step inside runPlan: its edits, applied by the run with the "parses" postcondition. */
const formalHandler: StepHandler = (step, ctx) => {
  const s = step as Record<string, unknown>;
  const asOperator = operatorGivenAsTemplate(s);
  if (asOperator) {
    // {"template": "replace_node"}: the intent is certain, run it as the operator and say so.
    const corrected = `${JSON.stringify(asOperator)} is an operator, not a template: ran it as {"op": ${JSON.stringify(asOperator)}, "params": {...}}`;
    const params = (isRecord(s["params"]) ? s["params"] : {}) as Record<string, unknown>;
    if (SURGERY_BY_NAME.has(asOperator) && asOperator !== "delete_node")
      return { edits: toRecord(stepEdits({ op: asOperator, params }, ctx)), output: { ok: true, tier: 1, corrected } };
    ctx.run(asOperator, params);
    return { output: { ok: true, tier: 0, corrected } };
  }
  return { edits: toRecord(stepEdits(step, ctx)), output: { ok: true, tier: detectTier(step) } };
};

/** The operator a `{template}` step names when it names an operator and no template. */
export function operatorGivenAsTemplate(step: Record<string, unknown>): string | undefined {
  const name = step["template"];
  if (typeof name !== "string" || TEMPLATE_BY_NAME.has(name) || "op" in step) return undefined;
  return OPERATOR_BY_NAME.has(name) || SURGERY_BY_NAME.has(name) ? name : undefined;
}

/**
 * Handlers for primitives' `runPlan`: the surgery ops (delete_node is left to the primitive),
 * `template` and `fragment`. `runPlan(plan, files, {handlers: formalHandlers})` runs mixed
 * tier 0–3 plans all-or-nothing.
 */
export const formalHandlers: Readonly<Record<string, StepHandler>> = {
  ...Object.fromEntries(SURGERY_OPS.filter((op) => op !== "delete_node").map((op) => [op, formalHandler])),
  ...Object.fromEntries(DATA_OPS.map((op) => [op, formalHandler])),
  template: formalHandler,
  fragment: formalHandler,
};

/**
 * A data file (JSON, YAML, TOML) a step changed as text must still load: the reason it does not,
 * or undefined. A file that did not load before is not judged (the step did not break it).
 */
export function dataFileCheck(file: string, before: string, after: string): string | undefined {
  const format = dataFormatOf(file);
  if (!format) return undefined;
  const errors = parseData(after, format).errors;
  if (errors.length === 0 || (before !== "" && parseData(before, format).errors.length > 0)) return undefined;
  const first = errors[0]!;
  return `the result is not valid ${format.toUpperCase()} (line ${first.line}:${first.column}: ${first.message}); keep the file's syntax, or change its keys with set_key and delete_key`;
}

/** `runPlan` with {@link formalHandlers} (and any extra handlers), data files checked after text steps. Files as a Map or a plain object. */
export function runFormalPlan(plan: Plan, files: Files, options: RunOptions = {}): RunResult {
  return runPlan(plan, fileMap(files), {
    checkText: dataFileCheck,
    ...options,
    handlers: { ...formalHandlers, ...(options.handlers ?? {}) },
  });
}

export interface StepOutcome {
  readonly tier: Tier;
  /** Every file after the step. */
  readonly files: Map<string, string>;
  /** Paths whose text changed. */
  readonly changed: readonly string[];
}

/**
 * Runs one parsed step of any tier on in-memory files (tier 0 through runPlan). Throws the step's
 * tagged error when it fails; the input is never modified.
 */
export function executeStep(step: Step, files: Files): StepOutcome {
  const tier = detectTier(step);
  const all = fileMap(files);
  if (tier === 0) {
    // One typed step, through the session `runPlan` is built on (a plan comes only from `parsePlan`).
    const session = new PlanSession(all, { handlers: formalHandlers });
    try {
      const run = session.run(step);
      if (!run.ok) throw run.error.cause;
      session.commit();
      return { tier, files: session.files(), changed: session.changed };
    } finally {
      session.dispose();
    }
  }
  const ws = new Workspace(all);
  try {
    const edits = stepEdits(step as Record<string, unknown>, all);
    const name = String(
      (step as Record<string, unknown>)["op"] ?? (step as Record<string, unknown>)["template"] ?? "fragment",
    );
    const changed = commitEdits(ws, edits, name);
    for (const [file, text] of changed) all.set(file, text);
    return { tier, files: all, changed: [...changed.keys()] };
  } finally {
    ws.dispose();
  }
}

/**
 * The front door of a plan. `parsePlan(json)` reads what a model (or a user) wrote into a typed
 * {@link Plan} whose every step names a known operator with valid params, or says, step by step,
 * what is wrong and how to fix it. Mistakes whose intent is certain are corrected first
 * ({@link normalizePlan}) and said as warnings. The verifier, the CLIs and the harness read plans
 * through here and nowhere else; what it accepts is what the catalog's JSON Schema (shown to the
 * model) describes, checked by `parse.test.ts`.
 *
 * Code params are parsed as the kind they claim, so the grammars of the plan's languages must be
 * loaded first: {@link loadPlanGrammars}.
 */
import { closest, distance } from "fastest-levenshtein";
import { grammarsFor, loadGrammars } from "@graphplan/graph";
import {
  OPERATOR_BY_NAME,
  OperatorDefinitionSchema,
  paramIssues,
  planFiles,
  StepSchema,
  writtenSteps,
  type OperatorDefinition,
  type Plan,
  type Step,
  type WrittenPlan,
} from "@graphplan/primitives";
import { CATALOG } from "./catalog.js";
import { formalHandlers, suggestName, validateStep } from "./execute.js";
import { normalizePlan } from "./normalize.js";

/** One problem of a plan as written, or one correction made to it. */
export interface PlanIssue {
  /** 0-based index of the step (`plan[step]`); null for the plan as a whole. */
  readonly step: number | null;
  /** The step's op, template name or `fragment` ({@link stepKey}); `plan` for the plan as a whole. */
  readonly op: string;
  /** The verifier's check this is (its names): `plan`, the plan's shape and custom operators; `operator`, one step's operator and params. */
  readonly check: "plan" | "operator";
  /** Errors make the plan unusable; warnings are corrections already made. */
  readonly severity: "error" | "warning";
  /** What was wrong. */
  readonly message: string;
  /** How to fix it. */
  readonly fix: string;
}

export interface ParsePlanOptions {
  /**
   * The directory the plan's paths are relative to: an absolute path inside it is read as the
   * relative path (and said in a warning). Without it absolute paths are left as written.
   */
  readonly root?: string;
  /**
   * Names of extra `{op}` operators the run will have handlers for (`runPlan`'s `handlers`), beyond
   * the catalog's. A custom operator may not take one of these names either.
   */
  readonly operators?: readonly string[];
}

/** A step as parsed: the typed step, or why it cannot run; with what it was written as and named by. */
export type StepParse = (
  | { readonly ok: true; readonly step: Step }
  | { readonly ok: false; readonly issues: readonly PlanIssue[] }
) & {
  /** The step as written (after the corrections). */
  readonly written: unknown;
  /** What issues and checks name it by ({@link stepKey}). */
  readonly key: string;
};

/**
 * A plan parsed step by step, for a caller that goes on with the steps that are valid (the
 * verifier simulates them so that one bad step does not hide the others' problems).
 */
export interface PlanSteps {
  /** Corrections made, as warnings (plan-wide and per step). */
  readonly corrections: readonly PlanIssue[];
  /** Problems of the plan as a whole (its shape, its custom operators). */
  readonly planIssues: readonly PlanIssue[];
  /** One entry per step of the (corrected) plan; empty when the plan's shape is wrong. */
  readonly steps: readonly StepParse[];
  /** The valid custom operators of `define_operators`. */
  readonly operators: readonly OperatorDefinition[];
  /** The typed plan when nothing stops it (no plan-wide problem, every step valid): what to run. */
  readonly plan: Plan | undefined;
}

/** A parsed plan: typed, or every issue that stops it. */
export type ParsedPlan =
  | { readonly ok: true; readonly plan: Plan; readonly warnings: readonly PlanIssue[] }
  | { readonly ok: false; readonly issues: readonly PlanIssue[] };

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** What a step is named by in issues and checks: its op, its template's bare name, `fragment`, or `?` when it names none. Reads unparsed input (unlike `stepLabel`). */
export function stepKey(step: unknown): string {
  if (!isObject(step)) return "?";
  if (typeof step["op"] === "string") return step["op"];
  if (typeof step["template"] === "string") return step["template"];
  if ("fragment" in step) return "fragment";
  return "?";
}

/** The name among `names` that `name` most likely misspells, when it is close enough to say so. */
export function didYouMean(name: string, names: Iterable<string>): string | undefined {
  const list = [...names].filter((n) => n !== name);
  if (list.length === 0) return undefined;
  const best = closest(name, list);
  const limit = Math.max(1, Math.floor(Math.max(name.length, best.length) / 3));
  return distance(name, best) <= limit ? best : undefined;
}

/** Loads the grammars {@link parsePlan} needs for a plan as written: its files' languages, and Python (fragments are Python). */
export async function loadPlanGrammars(json: unknown): Promise<void> {
  await loadGrammars([...new Set([...grammarsFor(planFiles(json)), "python" as const])]);
}

/** Parses a plan (see the module's comment). Every issue is collected; none stops the others. */
export function parsePlan(json: unknown, options: ParsePlanOptions = {}): ParsedPlan {
  const parts = parsePlanSteps(json, options);
  const plan = parts.plan;
  if (plan) return { ok: true, plan, warnings: parts.corrections };
  return {
    ok: false,
    issues: [...parts.corrections, ...parts.planIssues, ...parts.steps.flatMap((s) => (s.ok ? [] : s.issues))],
  };
}

/**
 * The typed plan of a plan parsed step by step, when nothing stops it (no plan-wide problem, every step valid).
 * The one place a `Plan` is made: its brand says that this parse read it (see `Plan` in @graphplan/primitives).
 */
function planOf(parts: Omit<PlanSteps, "plan">): Plan | undefined {
  if (parts.planIssues.length > 0 || parts.steps.length === 0) return undefined;
  const steps: Step[] = [];
  for (const s of parts.steps) {
    if (!s.ok) return undefined;
    steps.push(s.step);
  }
  const plan: WrittenPlan =
    parts.operators.length > 0 ? { define_operators: [...parts.operators], plan: steps } : steps;
  return plan as Plan;
}

/**
 * The design's plan-integrity gate, on a plan as written: is this JSON a plan at all — a non-empty list
 * of step objects each naming its operator (`op`, `template` or `fragment`), or `{define_operators,
 * plan}` with valid custom operators? Its issues; none when it is. What each step's params hold is
 * {@link parsePlan}'s to say. Needs no grammar: a model's reply is tested with it before anything else.
 */
export function planIntegrity(json: unknown): PlanIssue[] {
  const issues: PlanIssue[] = [];
  const shape = planShape(json, [], (i) =>
    issues.push({ ...i, step: null, op: "plan", check: "plan", severity: "error" }),
  );
  for (const [index, raw] of (shape?.steps ?? []).entries()) {
    if (stepKey(raw) !== "?") continue;
    const problem = unnamedStep(raw);
    issues.push({ ...problem, step: index, op: "?", check: "operator", severity: "error" });
  }
  return issues;
}

/** Parses a plan one step at a time (see {@link PlanSteps}). */
export function parsePlanSteps(json: unknown, options: ParsePlanOptions = {}): PlanSteps {
  const { plan, corrections } = normalizePlan(json, options.root === undefined ? {} : { root: options.root });
  const written = writtenSteps(plan);
  const correctionIssues = corrections.map(
    (c): PlanIssue => ({
      step: c.step,
      op: c.step === null ? "plan" : stepKey(written?.[c.step]),
      check: "operator",
      severity: "warning",
      message: `corrected: ${c.message}`,
      fix: "write the step that way next time",
    }),
  );
  const planIssues: PlanIssue[] = [];
  const shape = planShape(plan, options.operators ?? [], (i) =>
    planIssues.push({ ...i, step: null, op: "plan", check: "plan", severity: "error" }),
  );
  if (!shape) return { corrections: correctionIssues, planIssues, steps: [], operators: [], plan: undefined };
  const custom = new Map(shape.operators.map((d) => [d.define, d] as const));
  const extra = new Set(options.operators ?? []);
  const steps = shape.steps.map((raw, index): StepParse => {
    const key = stepKey(raw);
    const issues: PlanIssue[] = [];
    const step = parseStep(raw, custom, extra, (i) =>
      issues.push({ ...i, step: index, op: key, check: "operator", severity: "error" }),
    );
    return step ? { ok: true, step, written: raw, key } : { ok: false, issues, written: raw, key };
  });
  const parts = { corrections: correctionIssues, planIssues, steps, operators: shape.operators };
  return { ...parts, plan: planOf(parts) };
}

type Problem = { readonly message: string; readonly fix: string };

function zodIssues(error: {
  issues: readonly { path: readonly PropertyKey[]; message: string; code?: string; input?: unknown }[];
}): string[] {
  return error.issues.map((i) => {
    const path = i.path.map(String).join(".");
    if (i.code === "invalid_type" && i.input === undefined && path) return `missing parameter '${path}'`;
    if (i.code === "unrecognized_keys") return `${i.message}`;
    return `${path ? `'${path}': ` : ""}${i.message}`;
  });
}

/**
 * The issues of a tier-0 step's params: the design's (docs/design.md, Origins) wording for a missing parameter, and a bad
 * `locator` explained against the form it was meant to have (zod only says "Invalid input" of a union).
 */
function tier0Issues(error: Parameters<typeof paramIssues>[0], params: Record<string, unknown>): string[] {
  const underLocator = (i: { path: readonly PropertyKey[] }) =>
    i.path[0] === "locator" && params["locator"] !== undefined;
  if (!error.issues.some(underLocator)) return zodIssues(error);
  const rest = zodIssues({ issues: error.issues.filter((i) => !underLocator(i)) });
  const locator = paramIssues(error, params)
    .filter((p) => p.startsWith("locator"))
    .map((p) =>
      /^locator\.file: Invalid input: expected string, received undefined/.test(p)
        ? 'the locator has no "file": add the path of its file, relative to the workspace root'
        : p,
    );
  return [...rest, ...locator];
}

/** The steps and valid custom operators of a plan; its problems are reported. */
function planShape(
  plan: unknown,
  handlerOps: readonly string[],
  report: (problem: Problem) => void,
): { steps: unknown[]; operators: OperatorDefinition[] } | undefined {
  let steps: unknown;
  let defs: unknown = [];
  if (Array.isArray(plan)) steps = plan;
  else if (isObject(plan) && "plan" in plan) {
    steps = plan["plan"];
    defs = plan["define_operators"] ?? [];
  } else {
    report({
      message: "the plan is not a list of steps",
      fix: 'write a JSON array of steps ({"op", "params"}, {"template", "params"} or {"fragment", "action", "locator"}), or {"define_operators": [...], "plan": [...]}',
    });
    return undefined;
  }
  if (!Array.isArray(steps) || steps.length === 0) {
    report({
      message: Array.isArray(steps) ? "the plan is empty" : '"plan" is not an array',
      fix: "give at least one step",
    });
    return undefined;
  }
  if (!steps.some(isObject)) {
    report({
      message: "the plan's elements are not step objects (a list of file names?)",
      fix: 'each step is an object such as {"op": "replace_node", "params": {...}}',
    });
    return undefined;
  }
  const operators: OperatorDefinition[] = [];
  if (!Array.isArray(defs)) {
    report({
      message: "define_operators is not an array",
      fix: "give define_operators as an array of {define, params_schema, steps}",
    });
    return { steps, operators };
  }
  for (const [i, def] of defs.entries()) {
    const parsed = OperatorDefinitionSchema.safeParse(def);
    if (!parsed.success) {
      report({
        message: `define_operators[${i}] is not a valid operator definition: ${zodIssues(parsed.error).join("; ")}`,
        fix: 'write {"define": "name", "params_schema": {"param": "string"}, "steps": [{"primitive": "...", "params": {...}}]}',
      });
      continue;
    }
    const name = parsed.data.define;
    // A name the run dispatches on already: a primitive, a tier 1–3 handler (surgery ops, template, fragment), an extra handler.
    const taken = OPERATOR_BY_NAME.has(name) || Object.hasOwn(formalHandlers, name) || handlerOps.includes(name);
    if (taken || operators.some((o) => o.define === name)) {
      report({
        message: `define_operators: '${name}' is already an operator (or defined twice)`,
        fix: "give the custom operator another name",
      });
      continue;
    }
    operators.push(parsed.data);
  }
  return { steps, operators };
}

/** Names of the catalog's `{op}` operators and of its templates (the catalog is constant: read once). */
function catalogNames(): { ops: readonly string[]; templates: readonly string[] } {
  catalogNameCache ??= {
    ops: CATALOG.filter((e) => e.step === "op").map((e) => e.name),
    templates: CATALOG.filter((e) => e.step === "template").map((e) => e.name),
  };
  return catalogNameCache;
}
let catalogNameCache: { ops: readonly string[]; templates: readonly string[] } | undefined;

function schemaKeys(schema: unknown): string | undefined {
  const shape =
    isObject(schema) && isObject((schema as { shape?: unknown }).shape)
      ? (schema as { shape: Record<string, unknown> }).shape
      : undefined;
  return shape ? Object.keys(shape).join(", ") : undefined;
}

/** What is wrong with a step that names no operator ({@link stepKey} is `?`). */
function unnamedStep(raw: unknown): Problem {
  if (!isObject(raw)) return { message: "the step is not an object", fix: 'write {"op": "...", "params": {...}}' };
  const named = (["op", "template"] as const).find((key) => key in raw);
  if (named) {
    return {
      message: `"${named}" is ${JSON.stringify(raw[named])}, not the name of ${named === "op" ? "an operator" : "a template"}`,
      fix: `give the ${named === "op" ? "operator" : "template"}'s name as a string, e.g. {"op": "replace_node", "params": {...}}`,
    };
  }
  return {
    message: 'the step has no "op", "template" or "fragment"',
    fix: 'give the operator as "op" (or a template as "template", a typed fragment as "fragment")',
  };
}

/** One step: a known operator with valid params. Returns the typed step when it can run. */
function parseStep(
  raw: unknown,
  custom: ReadonlyMap<string, OperatorDefinition>,
  handlerOps: ReadonlySet<string>,
  report: (problem: Problem) => void,
): Step | undefined {
  if (!isObject(raw) || stepKey(raw) === "?") {
    report(unnamedStep(raw));
    return undefined;
  }
  const form =
    "fragment" in raw && !("op" in raw) && !("template" in raw)
      ? ["fragment", "action", "locator"]
      : ["op" in raw ? "op" : "template", "params"];
  const unknown = Object.keys(raw).filter((key) => !form.includes(key));
  if (unknown.length) {
    report({
      message: `the step has ${unknown.map((k) => JSON.stringify(k)).join(", ")} beside ${form.map((k) => JSON.stringify(k)).join(", ")}`,
      fix: `give the step's values inside ${form.includes("params") ? '"params"' : "the fragment"}, and nothing else beside it`,
    });
    return undefined;
  }
  const parsed = StepSchema.safeParse(raw);
  if (!parsed.success) {
    report({
      message: `invalid step: ${zodIssues(parsed.error).join("; ")}`,
      fix: 'a step is {"op", "params"}, {"template", "params"} or {"fragment", "action", "locator"}',
    });
    return undefined;
  }
  const step = parsed.data;
  const params = ("params" in step ? step.params : {}) as Record<string, unknown>;
  const { ops, templates } = catalogNames();
  if ("op" in step && custom.has(step.op)) {
    const def = custom.get(step.op)!;
    const missing = Object.entries(def.params_schema)
      .filter(([p, type]) => !type.endsWith("?") && !(p in params))
      .map(([p]) => p);
    if (missing.length) {
      report({
        message: missing.map((p) => `Missing parameter '${p}' for ${step.op}`).join("; "),
        fix: `give every parameter declared in define_operators: ${Object.keys(def.params_schema).join(", ")}`,
      });
      return undefined;
    }
    return step;
  }
  if ("op" in step || "template" in step) {
    const name = "op" in step ? step.op : step.template;
    const known =
      "op" in step
        ? ops.includes(name) || OPERATOR_BY_NAME.has(name) || handlerOps.has(name)
        : templates.includes(name);
    if (!known) {
      const names = "op" in step ? [...new Set([...ops, ...OPERATOR_BY_NAME.keys(), ...custom.keys()])] : templates;
      const suggestion = suggestName(name, names) ?? didYouMean(name, names);
      const other =
        "op" in step && templates.includes(name)
          ? ` (${name} is a template: write {"template": "${name}", "params": {...}})`
          : "";
      report({
        message: `Unknown ${"op" in step ? "operator" : "template"} '${name}'${other}`,
        fix: `${suggestion ? `did you mean '${suggestion}'? ` : ""}valid ${"op" in step ? "operators" : "templates"}: ${names.join(", ")}`,
      });
      return undefined;
    }
  }
  // An operator the run has a handler for, beyond the catalog: its params are the handler's to check.
  if ("op" in step && handlerOps.has(step.op) && !ops.includes(step.op) && !OPERATOR_BY_NAME.has(step.op)) return step;
  if ("op" in step && OPERATOR_BY_NAME.has(step.op)) {
    const info = OPERATOR_BY_NAME.get(step.op)!;
    // Legacy operators also take a {locator, ...} form (run as their primitive).
    if (info.kind === "legacy" && params["locator"] !== undefined) return step;
    const result = info.paramsSchema.safeParse(params);
    if (!result.success) {
      const problems = tier0Issues(result.error, params);
      report({
        message: problems
          .map((p) =>
            p.startsWith("missing parameter")
              ? `Missing parameter '${p.slice(19, -1)}' for ${step.op}`
              : `${step.op}: ${p}`,
          )
          .join("; "),
        fix: `give ${step.op} the parameters it takes${schemaKeys(info.paramsSchema) ? `: ${schemaKeys(info.paramsSchema)}` : ""}`,
      });
      return undefined;
    }
    return step;
  }
  // Tiers 1–3: typed params, code parsed as the kind it claims, fragments' shape.
  const problems = validateStep(raw, [...custom.keys()]);
  if (problems.length) {
    report({
      message: problems.map((p) => `${p.path ? `${p.path}: ` : ""}${p.message}`).join("; "),
      fix: "correct the step's parameters as the catalog describes them",
    });
    return undefined;
  }
  return step;
}

/**
 * The plan an LLM writes: a list of steps, or an object with custom operators and the list.
 * Described once here; types are inferred and the prompt's JSON Schema is generated from it.
 */
import { z } from "zod";
import { FILE_OPS, TEXT_OPS } from "./registry.js";

const Params = z.record(z.string(), z.unknown()).describe("Parameters of the operator");

/** A step of a composed or LLM-defined operator: a primitive call, or a conditional. */
export type DslStep =
  | { primitive: string; params: Record<string, unknown>; bind?: string | undefined }
  | { if: string; then: DslStep | DslStep[]; else?: DslStep | DslStep[] | undefined };

export const DslStepSchema: z.ZodType<DslStep> = z.lazy(() =>
  z.union([
    z.strictObject({
      primitive: z.string().min(1),
      params: Params,
      bind: z.string().min(1).describe("Name the step's output for later steps ($name.field)").optional(),
    }),
    z.strictObject({
      if: z.string().min(1).describe('A condition such as "$body.count > 0"'),
      then: z.union([DslStepSchema, z.array(DslStepSchema)]),
      else: z.union([DslStepSchema, z.array(DslStepSchema)]).optional(),
    }),
  ]),
);

export const OperatorDefinitionSchema = z.strictObject({
  define: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "an operator name is an identifier"),
  description: z.string().optional(),
  params_schema: z.record(z.string(), z.string()).describe("Parameter name → type (string, number, boolean, locator)"),
  steps: z.array(DslStepSchema).min(1),
});

/** Tier 0 (primitives, composed, legacy) and tier 1 (surgery) steps: `{op, params}`. */
export const OpStepSchema = z.object({ op: z.string().min(1), params: Params.default({}) });
/** Tier 2: a template with typed parameters. */
export const TemplateStepSchema = z.object({ template: z.string().min(1), params: Params.default({}) });
/** Tier 3: a typed fragment applied at a locator. */
export const FragmentStepSchema = z.object({
  fragment: z.record(z.string(), z.unknown()),
  action: z.enum(["replace", "insert_before", "insert_after"]).default("replace"),
  locator: z.record(z.string(), z.unknown()),
});

export const StepSchema = z.union([OpStepSchema, TemplateStepSchema, FragmentStepSchema]);
export const StepsSchema = z.array(StepSchema).min(1, "a plan has at least one step");

export const PlanSchema = z.union([
  StepsSchema,
  z.object({
    define_operators: z.array(OperatorDefinitionSchema).default([]),
    plan: StepsSchema,
  }),
]);

export type OpStep = z.infer<typeof OpStepSchema>;
export type TemplateStep = z.infer<typeof TemplateStepSchema>;
export type FragmentStep = z.infer<typeof FragmentStepSchema>;
export type Step = z.infer<typeof StepSchema>;
export type OperatorDefinition = z.infer<typeof OperatorDefinitionSchema>;

/**
 * A plan's shape, typed but not read: what a model writes, or the compiler builds. Nothing runs one; read it
 * with `parsePlan` of @graphplan/catalog into a {@link Plan}.
 */
export type WrittenPlan = z.infer<typeof PlanSchema>;

/**
 * A plan read through the plan's one front door, `parsePlan` of @graphplan/catalog: every step names a known
 * operator with valid params (docs/design.md, "The plan language"). The brand is what only that parse gives, so
 * JSON, or a {@link WrittenPlan}, cannot be passed where a plan runs (`runPlan`, `PlanSession.open`, the runtime's
 * `applyPlan`) without being read first. (Zod's brand type, so that declarations of types holding a `Plan` can
 * name it; no schema here or elsewhere brands with this name: `plan-brand.test.ts` of @graphplan/testkit.)
 */
export type Plan = WrittenPlan & z.$brand<"GraphPlan.parsePlan">;

/** The steps and custom operators of a plan in either format. */
export function planParts(plan: WrittenPlan): { steps: Step[]; operators: OperatorDefinition[] } {
  return Array.isArray(plan) ? { steps: plan, operators: [] } : { steps: plan.plan, operators: plan.define_operators };
}

/**
 * Every file one step names, valid or not: `file` anywhere in it (locators, params; not "all"), the
 * files of an `importers` list (rename_across_files), and the `path`, `from` and `to` of the file
 * operations and `write_file`. Added to `out`, in order.
 */
export function stepFiles(step: unknown, out = new Set<string>()): Set<string> {
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === "string") {
      if (key === "file" && value !== "all") out.add(value);
      return;
    }
    if (Array.isArray(value)) value.forEach((v) => visit(v, key === "importers" ? "file" : undefined));
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  const s = step as { op?: unknown; params?: Record<string, unknown> } | null;
  if (
    s &&
    typeof s.op === "string" &&
    (FILE_OPS.has(s.op) || TEXT_OPS.has(s.op)) &&
    s.params &&
    typeof s.params === "object"
  ) {
    for (const key of ["path", "from", "to"]) if (typeof s.params[key] === "string") out.add(s.params[key]);
  }
  visit(step);
  return out;
}

/** The steps of a plan as written (unparsed JSON): the array itself, or `plan` of `{define_operators, plan}`; undefined when it has none. */
export function writtenSteps(plan: unknown): unknown[] | undefined {
  if (Array.isArray(plan)) return plan;
  const steps = plan && typeof plan === "object" ? (plan as { plan?: unknown }).plan : undefined;
  return Array.isArray(steps) ? steps : undefined;
}

/** Every file a plan names (see {@link stepFiles}), in order; a plan as written (unparsed JSON) too. */
export function planFiles(plan: Plan | unknown): string[] {
  const files = new Set<string>();
  for (const step of writtenSteps(plan) ?? []) stepFiles(step, files);
  return [...files];
}

/** A step's label in results, reports and errors: its op, `template:<name>` or `fragment:<action>`. */
export function stepLabel(step: Step): string {
  if ("op" in step) return step.op;
  if ("template" in step) return `template:${step.template}`;
  return `fragment:${step.action}`;
}

/** The locator a step addresses, for error messages: a fragment's locator, `params.locator`, or `{file, class_name?, func_name?}`. */
export function stepLocator(step: Step): unknown {
  if ("locator" in step) return step.locator;
  const params = step.params as Record<string, unknown>;
  if (params["locator"]) return params["locator"];
  if (typeof params["file"] === "string") {
    return {
      file: params["file"],
      ...(typeof params["class_name"] === "string" ? { class_name: params["class_name"] } : {}),
      ...(typeof params["func_name"] === "string" ? { func_name: params["func_name"] } : {}),
    };
  }
  return undefined;
}

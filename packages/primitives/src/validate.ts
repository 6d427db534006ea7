/** Plan and parameter validation shared by the session, `runPlan` and the one-primitive API. */
import { formatIssues, locatorIssues } from "@graphplan/locators";
import { distance } from "fastest-levenshtein";
import type { z } from "zod";
import { InvalidParams, InvalidPlan } from "./errors.js";
import { PlanSchema, type Plan, type Step } from "./plan.js";
import { OPERATORS } from "./registry.js";

const ALL_OPS = OPERATORS.map((o) => o.name);

/** Operator names, closest to `name` first. */
export function closestOperators(name: string, extra: readonly string[] = []): string[] {
  return [...new Set([...ALL_OPS, ...extra])].sort((a, b) => distance(name, a) - distance(name, b) || a.localeCompare(b));
}

/** Zod issues of operator params; a bad `locator` is explained against the form it was meant to have. */
export function paramIssues(error: z.ZodError, params: unknown): string[] {
  const issues = formatIssues(error);
  const locator = params && typeof params === "object" ? (params as { locator?: unknown }).locator : undefined;
  if (locator === undefined || !error.issues.some((i) => i.path[0] === "locator")) return issues;
  const specific = locatorIssues(locator, ["locator"]);
  return [...issues.filter((i) => !i.startsWith("locator")), ...(specific.length ? specific : issues.filter((i) => i.startsWith("locator")))];
}

export function parseParams<T>(op: string, schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    throw new InvalidParams(op, paramIssues(parsed.error, params));
  }
  return parsed.data;
}

/** The seed's plan-integrity check: a non-empty array whose first element is an object with a step key, or `{plan: [...]}`. */
export function isValidPlan(plan: unknown): boolean {
  if (plan && typeof plan === "object" && !Array.isArray(plan) && "plan" in plan) return isValidPlan((plan as { plan: unknown }).plan);
  if (!Array.isArray(plan) || plan.length === 0) return false;
  const first: unknown = plan[0];
  return !!first && typeof first === "object" && !Array.isArray(first) && ("op" in first || "template" in first || "fragment" in first);
}

/** Validates a plan (integrity check, then the zod schema); throws `InvalidPlan`. */
export function validatePlan(plan: unknown): Plan {
  if (!isValidPlan(plan)) {
    throw new InvalidPlan([
      Array.isArray(plan) && plan.length === 0 ? "the plan is empty" : "expected an array of steps (objects with \"op\") or an object with \"plan\"",
    ]);
  }
  const parsed = PlanSchema.safeParse(plan);
  if (!parsed.success) throw new InvalidPlan(formatIssues(parsed.error));
  return parsed.data;
}

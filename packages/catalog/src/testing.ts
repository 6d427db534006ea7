/**
 * Test support for the packages above the catalog (`@graphplan/catalog/testing`): a plan for a test, read
 * through the plan's one front door, as users read theirs. There is no other way to a `Plan`.
 */
import type { Plan } from "@graphplan/primitives";
import { parsePlan, type ParsePlanOptions } from "./parse.js";

/** `parsePlan(json, options)`'s plan; throws with every issue when `json` is not a plan (a bug in the test). */
export function parsePlanOrThrow(json: unknown, options: ParsePlanOptions = {}): Plan {
  const parsed = parsePlan(json, options);
  if (!parsed.ok) throw new Error(`not a plan: ${parsed.issues.map((i) => i.message).join("; ")}`);
  return parsed.plan;
}

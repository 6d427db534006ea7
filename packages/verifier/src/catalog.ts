/**
 * The operator catalog the verifier checks steps against: the one catalog of
 * @graphplan/templates (tier 0 from @graphplan/primitives' registry, tier 1 surgery, tier 2
 * templates, tier 3 fragments), and the handlers `runPlan` needs for tiers 1–3.
 */
import { OPERATOR_BY_NAME, type StepHandler } from "@graphplan/primitives";
import { CATALOG, formalHandlers, validateStep } from "@graphplan/templates";
import type { z } from "zod";

/** Names of the `{op}` operators and of the templates. */
export function catalogOps(): { ops: string[]; templates: string[] } {
  return {
    ops: CATALOG.filter((e) => e.step === "op").map((e) => e.name),
    templates: CATALOG.filter((e) => e.step === "template").map((e) => e.name),
  };
}

/** The params schema of a tier-0 op (tiers 1–3 are validated by {@link validateFormalStep}). */
export function paramsSchemaOf(name: string): z.ZodType | undefined {
  return OPERATOR_BY_NAME.get(name)?.paramsSchema;
}

/** Problems of a tier 1–3 step's params (typed, code parsed as its kind), from @graphplan/templates. */
export function validateFormalStep(step: unknown, customOps: readonly string[]): { path: string; message: string }[] {
  return validateStep(step, customOps);
}

/** The handlers runPlan needs for tier 1–3 steps. */
export function defaultHandlers(): Readonly<Record<string, StepHandler>> {
  return formalHandlers;
}

/** Parameter validation shared by the session, `runPlan` and the one-primitive API. */
import { formatIssues, locatorIssues } from "@graphplan/locators";
import { distance } from "fastest-levenshtein";
import type { z } from "zod";
import { InvalidParams } from "./errors.js";
import { OPERATORS } from "./registry.js";

const ALL_OPS = OPERATORS.map((o) => o.name);

/** Operator names, closest to `name` first. */
export function closestOperators(name: string, extra: readonly string[] = []): string[] {
  return [...new Set([...ALL_OPS, ...extra])].sort(
    (a, b) => distance(name, a) - distance(name, b) || a.localeCompare(b),
  );
}

/** Zod issues of operator params; a bad `locator` is explained against the form it was meant to have. */
export function paramIssues(error: z.ZodError, params: unknown): string[] {
  const issues = formatIssues(error);
  const locator = params && typeof params === "object" ? (params as { locator?: unknown }).locator : undefined;
  if (locator === undefined || !error.issues.some((i) => i.path[0] === "locator")) return issues;
  const specific = locatorIssues(locator, ["locator"]);
  return [
    ...issues.filter((i) => !i.startsWith("locator")),
    ...(specific.length ? specific : issues.filter((i) => i.startsWith("locator"))),
  ];
}

export function parseParams<T>(op: string, schema: z.ZodType<T>, params: unknown): T {
  const parsed = schema.safeParse(params ?? {});
  if (!parsed.success) {
    throw new InvalidParams(op, paramIssues(parsed.error, params));
  }
  return parsed.data;
}

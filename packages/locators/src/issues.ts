/** Zod issues as short sentences a model can act on (a union's best branch, not "Invalid input"). */
import type { z } from "zod";
import { SexpLocatorSchema, StructuredLocatorSchema } from "./schema.js";

type Issue = z.core.$ZodIssue;

function flatten(issues: readonly Issue[], prefix: readonly PropertyKey[]): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      // The branch that got furthest: fewest issues.
      // Ties go to the branch that recognized the keys (the one the value was meant for).
      const score = (branch: readonly Issue[]) =>
        branch.length * 2 + branch.filter((i) => i.code === "unrecognized_keys").length;
      const best = [...issue.errors].sort((a, b) => score(a) - score(b))[0]!;
      out.push(...flatten(best, path));
      continue;
    }
    out.push(`${path.map(String).join(".") || "(value)"}: ${issue.message}`);
  }
  return out;
}

/** One line per problem, `path: message`. */
export function formatIssues(error: z.ZodError, prefix: readonly PropertyKey[] = []): string[] {
  return flatten(error.issues, prefix);
}

/**
 * What is wrong with a locator, judged against the form it was meant to have (`type: "sexp"`
 * → S-expression, otherwise structured); empty when it is valid.
 */
export function locatorIssues(locator: unknown, prefix: readonly PropertyKey[] = []): string[] {
  const isSexp = !!locator && typeof locator === "object" && (locator as { type?: unknown }).type === "sexp";
  const parsed = (isSexp ? SexpLocatorSchema : StructuredLocatorSchema).safeParse(locator);
  return parsed.success ? [] : formatIssues(parsed.error, prefix);
}

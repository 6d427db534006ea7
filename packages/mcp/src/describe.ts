/**
 * `describe_operators`: the operator catalog on demand. Each entry's text is its own part of the catalog's
 * prompt (`catalogPrompt` of @graphplan/catalog: a `### name` block with params and example, or the one line
 * of a primitive, text or legacy operator, to which its params are added from its zod schema); no names, the
 * compact catalog (one line per operator).
 */
import * as Data from "effect/Data";
import { z } from "zod";
import { CATALOG, catalogPrompt, compactCatalogPrompt, didYouMean } from "@graphplan/catalog";

type CatalogEntry = (typeof CATALOG)[number];

/** Every name `describe_operators` knows: operators, templates and `fragment`, each once, in catalog order. */
export const OPERATOR_NAMES: readonly string[] = [...new Set(CATALOG.map((e) => e.name))];

/** Names that are neither an operator nor a template: the message names the nearest and every known one. */
export class UnknownOperator extends Data.TaggedError("UnknownOperator")<{ readonly names: readonly string[] }> {
  override get message(): string {
    const hints = this.names.map((name) => {
      const near = didYouMean(name, OPERATOR_NAMES);
      return near ? `${name} (did you mean ${near}?)` : name;
    });
    return `describe_operators: no operator or template is named ${hints.join(", ")}; name one of: ${OPERATOR_NAMES.join(", ")}`;
  }
}

let prompt: string[] | undefined;

/** The lines of the catalog's section `useCase` (its `## ` heading to the next). */
function sectionLines(useCase: string): string[] {
  prompt ??= catalogPrompt().split("\n");
  const start = prompt.indexOf(`## ${useCase}`);
  if (start < 0) return [];
  const end = prompt.findIndex((line, i) => i > start && line.startsWith("## "));
  return prompt.slice(start + 1, end < 0 ? undefined : end).filter((line) => line.trim() !== "");
}

/** `name (kind, optional): description` per parameter, read from the params' JSON Schema (the prompt's one-liners have none). */
function paramLines(params: z.ZodType): string[] {
  const json = z.toJSONSchema(params, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, { type?: string; enum?: unknown[]; anyOf?: unknown[]; description?: string }>;
    required?: string[];
  };
  return Object.entries(json.properties ?? {}).map(([name, p]) => {
    const kind = p.enum
      ? p.enum.map((v) => JSON.stringify(v)).join(" | ")
      : (p.type ?? (p.anyOf ? "locator" : "value"));
    const optional = json.required?.includes(name) ? "" : ", optional";
    return `  - ${name} (${kind}${optional})${p.description ? `: ${p.description}` : ""}`;
  });
}

/** One entry's full text: how a step names it, then its part of the catalog prompt. */
function entryText(entry: CatalogEntry): string {
  const lines = sectionLines(entry.useCase);
  const form =
    entry.step === "fragment"
      ? `fragment: {"fragment": TREE, "action": ..., "locator": LOCATOR} (tier 3)`
      : `${entry.name}: {"${entry.step}": "${entry.name}", "params": {...}} (${entry.kind}, tier ${entry.tier})`;
  if (entry.step === "fragment") return [form, ...lines].join("\n");
  const heading = lines.findIndex((line) => line === `### ${entry.name}` || line.startsWith(`### ${entry.name} [`));
  if (heading >= 0) {
    const end = lines.findIndex((line, i) => i > heading && line.startsWith("### "));
    return [form, ...lines.slice(heading, end < 0 ? undefined : end)].join("\n");
  }
  const line = lines.find((l) => l.startsWith(`- ${entry.name}(`)) ?? `- ${entry.name}: ${entry.description}`;
  const example = entry.example
    ? [`  e.g. ${JSON.stringify({ [entry.step]: entry.name, params: entry.example })}`]
    : [];
  return [form, line, ...paramLines(entry.params), ...example].join("\n");
}

/** The full text of each named operator or template (a name that is both: both), or the compact catalog; `UnknownOperator` for names the catalog lacks. */
export function describeOperators(names: readonly string[] | undefined): string {
  if (!names || names.length === 0)
    return `${compactCatalogPrompt()}\n\nCall describe_operators with names for an operator's params and an example.`;
  const unknown = names.filter((name) => !OPERATOR_NAMES.includes(name));
  if (unknown.length > 0) throw new UnknownOperator({ names: unknown });
  const entries = [...new Set(names)].flatMap((name) => CATALOG.filter((e) => e.name === name));
  return entries.map(entryText).join("\n\n");
}

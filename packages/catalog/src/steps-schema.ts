/**
 * The plan as a compact JSON Schema: an array of steps whose operator names come from the one catalog,
 * with parameters as a plain object. For places where every token counts — a tool a model is offered on
 * every request, an MCP server's tool list — where the full `planJsonSchema` (~63 kB, ~14k tokens) would be
 * paid again and again. It validates the shape only: a plan is still read by `parsePlan`, whose errors say
 * what each operator's parameters should be, and the catalog's prompt text describes them.
 */
import { CATALOG } from "./catalog.js";

let cached: Record<string, unknown> | undefined;

/** `{"type": "array", "items": {op | template | fragment step}}`: self-contained (no `$ref`), a top-level `type`. */
export function planStepsJsonSchema(): Record<string, unknown> {
  if (cached) return cached;
  const names = (step: "op" | "template") => [...new Set(CATALOG.filter((e) => e.step === step).map((e) => e.name))];
  cached = {
    type: "array",
    minItems: 1,
    description:
      'The plan: steps run in order, all or nothing. Each is {"op": NAME, "params": {...}}, {"template": NAME, "params": {...}} or {"fragment": TREE, "action": ..., "locator": LOCATOR}; the operator catalog gives each one\'s parameters.',
    items: {
      type: "object",
      properties: {
        op: { type: "string", enum: names("op") },
        template: { type: "string", enum: names("template") },
        params: { type: "object", description: "the operator's parameters (locators are objects)" },
        fragment: { type: "object", description: "new code as a typed tree {kind, properties, children}" },
        action: { type: "string", enum: ["replace", "insert_before", "insert_after"] },
        locator: { type: "object", description: "where the fragment goes" },
      },
    },
  };
  return cached;
}

/**
 * The plan as a compact JSON Schema: an array of steps whose operator, template and fragment kind names come
 * from the one catalog (and the fragments' registry), with parameters as a plain object. For places where
 * every token counts — a tool a model is offered on every request, an MCP server's tool list — where the
 * full `planJsonSchema` (~63 kB, ~14k tokens) would be paid again and again. It validates the shape only: a
 * plan is still read by `parsePlan`, whose errors say what each operator's parameters should be, and the
 * catalog's prompt text describes them.
 */
import { FRAGMENT_KINDS } from "@graphplan/fragments";
import { CATALOG, FragmentStepParams } from "./catalog.js";

let cached: string | undefined;

/** The names of the catalog's entries of one step key, in catalog order, each once. */
const namesOf = (step: "op" | "template"): string[] => [
  ...new Set(CATALOG.filter((e) => e.step === step).map((e) => e.name)),
];

/**
 * `{"type": "array", "items": {op | template | fragment step}}`: self-contained (no `$ref`, no `$defs`), a
 * top-level `type`, only standard keywords (it compiles under Ajv's strict mode). A fresh copy on each call.
 */
export function planStepsJsonSchema(): Record<string, unknown> {
  cached ??= JSON.stringify({
    type: "array",
    minItems: 1,
    description:
      'Steps run in order, all or nothing: {"template": NAME, "params": {...}}, {"op": NAME, "params": {...}} or {"fragment": TREE, "action": ..., "locator": LOCATOR}',
    items: {
      type: "object",
      properties: {
        template: { type: "string", enum: namesOf("template") },
        op: { type: "string", enum: namesOf("op") },
        params: { type: "object", description: "The operator's parameters; a locator is an object" },
        fragment: {
          type: "object",
          description: "New code as a typed tree",
          properties: {
            kind: { type: "string", enum: [...FRAGMENT_KINDS] },
            properties: { type: "object" },
            children: { type: "array", items: { type: "object" } },
          },
          required: ["kind"],
        },
        action: { type: "string", enum: FragmentStepParams.shape.action.unwrap().options },
        locator: { type: "object", description: "Where the fragment goes" },
      },
    },
  });
  return JSON.parse(cached) as Record<string, unknown>;
}

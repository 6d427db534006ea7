import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, test } from "vitest";
import { FRAGMENT_KINDS } from "@graphplan/fragments";
import { CATALOG, planJsonSchema } from "./catalog.js";
import { parsePlan } from "./parse.js";
import { planStepsJsonSchema } from "./steps-schema.js";

describe("planStepsJsonSchema", () => {
  const schema = planStepsJsonSchema() as {
    type: string;
    items: { properties: Record<string, { enum?: string[]; properties?: Record<string, { enum?: string[] }> }> };
  };

  test("names every operator and template of the one catalog, self-contained, in a twentieth of the full schema", () => {
    expect(schema.type).toBe("array");
    for (const entry of CATALOG.filter((e) => e.step !== "fragment"))
      expect(schema.items.properties[entry.step]?.enum, entry.name).toContain(entry.name);
    const text = JSON.stringify(schema);
    expect(text).not.toContain("$ref");
    expect(text).not.toContain("$defs");
    expect(text.length).toBeLessThan(JSON.stringify(planJsonSchema()).length / 20);
  });

  test("names every fragment kind of the fragments' registry", () => {
    expect(schema.items.properties["fragment"]?.properties?.["kind"]?.enum).toEqual([...FRAGMENT_KINDS]);
  });

  test("compiles under Ajv 2020-12 in strict mode, and the plans the catalog's examples make pass it", () => {
    const validate = new Ajv2020({ strict: true }).compile(planStepsJsonSchema());
    const examples = CATALOG.filter((e) => e.example).map((e) =>
      e.step === "fragment" ? e.example : { [e.step]: e.name, params: e.example },
    );
    expect(validate(examples), JSON.stringify(validate.errors)).toBe(true);
    expect(validate([{ op: "no_such_operator", params: {} }])).toBe(false);
  });

  test("a copy on each call: changing one leaves the next as it was", () => {
    (planStepsJsonSchema() as { type: string }).type = "object";
    expect(planStepsJsonSchema()["type"]).toBe("array");
  });

  test("a step of the right shape with wrong parameters still meets parsePlan, which names the fix", () => {
    const result = parsePlan([{ op: "replace_node", params: { replacement: "x = 1" } }]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(JSON.stringify(result.issues)).toContain("locator");
  });
});

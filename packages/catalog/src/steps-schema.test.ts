import { describe, expect, test } from "vitest";
import { CATALOG, planJsonSchema } from "./catalog.js";
import { parsePlan } from "./parse.js";
import { planStepsJsonSchema } from "./steps-schema.js";

describe("planStepsJsonSchema", () => {
  const schema = planStepsJsonSchema() as {
    type: string;
    items: { properties: Record<string, { enum?: string[] }> };
  };

  test("names every operator and template of the one catalog, self-contained, in a twentieth of the full schema", () => {
    expect(schema.type).toBe("array");
    for (const entry of CATALOG.filter((e) => e.step !== "fragment"))
      expect(schema.items.properties[entry.step]?.enum, entry.name).toContain(entry.name);
    const text = JSON.stringify(schema);
    expect(text).not.toContain("$ref");
    expect(text.length).toBeLessThan(JSON.stringify(planJsonSchema()).length / 20);
  });

  test("a step of the right shape with wrong parameters still meets parsePlan, which names the fix", () => {
    const result = parsePlan([{ op: "replace_node", params: { replacement: "x = 1" } }]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(JSON.stringify(result.issues)).toContain("locator");
  });
});

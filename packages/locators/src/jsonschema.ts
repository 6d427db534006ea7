/** JSON Schema of the locator, generated from the zod schema, for prompts and validators. */
import { z } from "zod";
import { LocatorSchema } from "./schema.js";

/** The JSON Schema (draft 2020-12) of a locator, as `z.toJSONSchema` renders {@link LocatorSchema}. */
export function locatorJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(LocatorSchema, { io: "input" }) as Record<string, unknown>;
}

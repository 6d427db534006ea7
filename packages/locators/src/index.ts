export { LocatorSchema, StructuredLocatorSchema, SexpLocatorSchema, ParentLocatorSchema } from "./schema.js";
export type { Locator, StructuredLocator, SexpLocator, ParentLocator } from "./schema.js";

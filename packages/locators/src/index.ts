export { LocatorSchema, StructuredLocatorSchema, SexpLocatorSchema } from "./schema.js";
export type { Locator, StructuredLocator, ParentLocator } from "./schema.js";
// Named by the declarations other packages emit for schemas built on the locator schemas (TypeScript's TS2742 without it).
export type { StructuredLocatorShape } from "./schema.js";
export { NORMALIZED_KINDS, KIND_SYNONYMS } from "./kinds.js";
export { nodeName } from "./names.js";
export {
  resolveLocator,
  resolveSome,
  resolveOne,
  kindOfNode,
  codeChildren,
  describeMatch,
  sexpCaptures,
  sexpCaptureNames,
} from "./resolve.js";
export { LocatorNotFound, InvalidLocator, isLocatorError } from "./errors.js";
export type { LocatorError } from "./errors.js";
export { locatorJsonSchema } from "./jsonschema.js";
export { formatIssues, locatorIssues } from "./issues.js";
export {
  KeyLocatorSchema,
  KeyNotFound,
  parseKeyPath,
  formatKeyPath,
  walkKeyPath,
  keyNotFound,
  nearestKeys,
} from "./keys.js";
export type { KeySegment, KeyWalk } from "./keys.js";

export { LocatorSchema, StructuredLocatorSchema, SexpLocatorSchema } from "./schema.js";
export type { Locator, StructuredLocator, ParentLocator } from "./schema.js";
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
} from "./keys.js";
export type { KeySegment, KeyWalk } from "./keys.js";

export { LocatorSchema, StructuredLocatorSchema, SexpLocatorSchema, ParentLocatorSchema } from "./schema.js";
export type { Locator, StructuredLocator, SexpLocator, ParentLocator, StructuredLocatorShape } from "./schema.js";
export { NORMALIZED_KINDS, KIND_FILTERS, KIND_SYNONYMS, normalizedKinds } from "./kinds.js";
export { nodeName, nodeNames } from "./names.js";
export { resolveLocator, resolveSome, resolveOne, kindOfNode, codeChildren, closestKinds, describeMatch, sexpCaptures, sexpCaptureNames } from "./resolve.js";
export { LocatorNotFound, LocatorAmbiguous, InvalidQuery, UnknownKind, InvalidLocator, isLocatorError } from "./errors.js";
export type { Candidate, Match, LocatorError } from "./errors.js";
export { locatorJsonSchema } from "./jsonschema.js";
export { formatIssues, locatorIssues } from "./issues.js";

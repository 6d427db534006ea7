/** The 15 tier 2 templates, in catalog order (grouped by the design's use cases: docs/design.md, Origins). */
import type { FormalOperator } from "../operator.js";
import {
  addClassAttribute,
  addConditionalBranch,
  addDecorator,
  addImportAndUse,
  addMethod,
  addParameter,
  guardClause,
} from "./adding.js";
import { changeReturnValue, modifyCondition, replaceExpression, replaceFunctionBody } from "./modifying.js";
import { wrapContextManager, wrapTryExcept } from "./wrapping.js";
import { extractVariable, inlineVariable } from "./restructuring.js";

export const TEMPLATES: readonly FormalOperator[] = [
  guardClause,
  addImportAndUse,
  addMethod,
  addParameter,
  addClassAttribute,
  addDecorator,
  addConditionalBranch,
  replaceExpression,
  modifyCondition,
  changeReturnValue,
  replaceFunctionBody,
  wrapTryExcept,
  wrapContextManager,
  extractVariable,
  inlineVariable,
];

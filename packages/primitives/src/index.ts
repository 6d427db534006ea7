export { PlanSchema, StepSchema, OpStepSchema, TemplateStepSchema, FragmentStepSchema, OperatorDefinitionSchema, DslStepSchema, planParts, planFiles } from "./plan.js";
export type { Plan, Step, OpStep, TemplateStep, FragmentStep, OperatorDefinition, DslStep } from "./plan.js";

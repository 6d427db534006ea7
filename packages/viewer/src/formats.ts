/**
 * The per-instance `report.json` of an evaluation, in the SWE-bench harness's format (v4.1.0
 * `get_eval_report` with `include_tests_status=True`): `bench eval` writes it, the viewer reads it.
 * Described once, here, so both agree.
 */
import { z } from "zod";

const TestOutcomeSchema = z.object({ success: z.array(z.string()), failure: z.array(z.string()) });

export const TestsStatusSchema = z.object({
  FAIL_TO_PASS: TestOutcomeSchema,
  PASS_TO_PASS: TestOutcomeSchema,
  FAIL_TO_FAIL: TestOutcomeSchema,
  PASS_TO_FAIL: TestOutcomeSchema,
});
export type TestsStatus = z.infer<typeof TestsStatusSchema>;

/** One instance's entry; loose, so reports of later harness versions (e.g. `infra_failure`) still read. */
export const InstanceResultSchema = z.looseObject({
  patch_is_None: z.boolean(),
  patch_exists: z.boolean(),
  patch_successfully_applied: z.boolean(),
  resolved: z.boolean(),
  tests_status: TestsStatusSchema.optional(),
});
export type InstanceResult = z.infer<typeof InstanceResultSchema>;

/** `report.json`: `{ <instance_id>: InstanceResult }`. */
export const InstanceReportSchema = z.record(z.string(), InstanceResultSchema);
export type InstanceReport = z.infer<typeof InstanceReportSchema>;

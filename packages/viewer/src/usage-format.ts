/**
 * Calls, dollars and tokens of an instance or of a run, as bench's files spell them (snake case): each entry of
 * `bench agent`'s report.json, the `usage` of each preds.jsonl line, each arm and instance of compare.json.
 * The same figures as @graphplan/runtime's `UsageTotals`; described once, here, where the viewer reads them.
 */
import { z } from "zod";

/** Tokens: 0 when a file written before they were counted has none. */
const tokens = z.number().int().nonnegative().default(0);

export const UsageFiguresSchema = z.object({
  model_calls: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  /** Every input token sent, cached or not. */
  input_tokens: tokens,
  output_tokens: tokens,
  /** Of `input_tokens`: read from the provider's prompt cache. */
  cache_read_tokens: tokens,
  /** Of `input_tokens`: written to the prompt cache. */
  cache_write_tokens: tokens,
});
export type UsageFigures = z.infer<typeof UsageFiguresSchema>;

/**
 * The apply journal: what every file about to be written looked like before, written (atomically) before
 * the first file is touched and deleted once the last one is written. Its presence means "an apply did
 * not finish": `recover` puts every file it names back.
 */
import { z } from "zod";

export const DEFAULT_JOURNAL_DIR = ".graphplan";
export const JOURNAL_FILE = "journal.json";

export const JournalEntrySchema = z.union([
  z.strictObject({
    path: z.string().min(1).describe("Relative to the workspace root"),
    original: z.base64().describe("The file's bytes before the apply, base64"),
    executable: z
      .boolean()
      .describe("Whether the file was executable before the apply (present when the apply sets its mode)")
      .optional(),
  }),
  z.strictObject({
    path: z.string().min(1),
    created: z.literal(true).describe("The apply creates this file: recovery deletes it"),
  }),
]);

export const JournalSchema = z.strictObject({
  version: z.literal(1),
  files: z.array(JournalEntrySchema),
  dirs: z
    .array(z.string().min(1))
    .describe("Directories the apply creates, deepest first: removed on recovery when empty"),
});

export type JournalEntry = z.infer<typeof JournalEntrySchema>;
export type Journal = z.infer<typeof JournalSchema>;

export const toBase64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
export const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"));

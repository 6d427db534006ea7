/** Parameter schemas of the tier-0 operators (primitives, composed, legacy). */
import { z } from "zod";
import { LocatorSchema } from "@graphplan/locators";

const code = (what: string) => z.string().describe(what);
const file = z.string().min(1).describe("Path of the file, relative to the workspace root");
const line = z.number().int().positive();

export const ReplaceNodeParams = z.strictObject({
  locator: LocatorSchema,
  replacement: code("New source text for the node, written at column 0 (it is re-indented to the node)"),
});
export const InsertNodeParams = z.strictObject({
  locator: LocatorSchema,
  code: code("Code to insert, written at column 0 (it is re-indented to the anchor's indentation)"),
  separator: z
    .string()
    .optional()
    .describe(
      'Text between the anchor and the code; "\\n" puts the code on its own line, "\\n\\n" adds a blank line, ", " inserts inline. Omitted: "\\n", and a definition inserted beside a definition is set apart by the blank lines the file puts between its definitions there',
    ),
});
export const DeleteNodeParams = z.strictObject({ locator: LocatorSchema });
export const WrapNodeParams = z.strictObject({
  locator: LocatorSchema,
  before: code(
    "Code placed before the node (at the node's indentation); end it with a newline to put the node on its own line",
  ).default(""),
  after: code("Code placed after the node").default(""),
  indent_body: z
    .union([z.number().int().min(0), z.string()])
    .describe(
      "Extra indentation for the wrapped node: a number of spaces or a string; defaults to one indent unit when `before` ends with a block opener and a newline",
    )
    .optional(),
});
export const ReplaceAllMatchingParams = z.strictObject({
  locator: LocatorSchema,
  replacement: code(
    "Text that replaces every matching node; with an S-expression locator, $name (or ${name}) is the text its capture @name matched in that match ($$ for a literal $)",
  ),
  filter: z.literal("not_in_string_or_comment").describe("Skip matches inside strings and comments").optional(),
});
export const LocateParams = z.strictObject({ locator: LocatorSchema });

export const AddMethodParams = z.strictObject({
  file,
  class_name: z.string().min(1),
  method_code: code("The whole method, written at column 0"),
});
export const AddImportParams = z.strictObject({
  file,
  import_statement: code("One import statement, e.g. `from x import y`"),
});
export const AddClassAttributeParams = z.strictObject({
  file,
  class_name: z.string().min(1),
  attribute_code: code("The attribute/field declaration, written at column 0"),
});

export const ReplaceCodeParams = z.strictObject({
  file,
  pattern: z
    .string()
    .min(1)
    .describe("Text to find (exact, then whitespace-insensitive, indentation-preserving, then similar)"),
  replacement: z.string(),
  similarity_threshold: z.number().min(0.5).max(1).default(0.8).optional(),
});
export const InsertCodeParams = z.strictObject({
  file,
  anchor_line: line,
  position: z.enum(["before", "after"]).default("after"),
  code: z.string(),
});
export const DeleteLinesParams = z.strictObject({ file, start_line: line, end_line: line });
export const ModifyFunctionSignatureParams = z.strictObject({
  file,
  func_name: z.string().min(1),
  old_signature: z.string().min(1),
  new_signature: z.string().min(1),
});
export const RenameSymbolParams = z.strictObject({
  file,
  old_name: z.string().regex(/^[A-Za-z_$][\w$]*$/, "an identifier"),
  new_name: z.string().regex(/^[A-Za-z_$][\w$]*$/, "an identifier"),
});
export const WrapBlockParams = z.strictObject({
  file,
  start_line: line,
  end_line: line,
  before_code: z.string(),
  after_code: z.string().default(""),
});
export const ReplaceFunctionBodyParams = z.strictObject({
  file,
  func_name: z.string().min(1),
  new_body: code("The new body: its statements at column 0 (braces optional for brace languages)"),
});

export type ReplaceNodeParams = z.infer<typeof ReplaceNodeParams>;
export type InsertNodeParams = z.infer<typeof InsertNodeParams>;
export type DeleteNodeParams = z.infer<typeof DeleteNodeParams>;
export type WrapNodeParams = z.infer<typeof WrapNodeParams>;
export type ReplaceAllMatchingParams = z.infer<typeof ReplaceAllMatchingParams>;
export type LocateParams = z.infer<typeof LocateParams>;

/** A path relative to the workspace root, inside it: no absolute path, no `..`, no empty segment. */
const relativePath = (what: string) =>
  z
    .string()
    .min(1)
    .refine(
      (path) =>
        !path.startsWith("/") &&
        !/^[A-Za-z]:[\\/]/.test(path) &&
        path.split(/[\\/]/).every((part) => part !== "" && part !== ".."),
      "a path relative to the workspace root, inside it (no leading /, no .., no empty part)",
    )
    .describe(what);

export const CreateFileParams = z.strictObject({
  path: relativePath("The new file's path, relative to the workspace root; it must not exist"),
  content: z.string().describe("The whole file, verbatim; a code file (of a language GraphPlan parses) must parse"),
});
export const DeleteFileParams = z.strictObject({
  path: relativePath("The file to delete, relative to the workspace root"),
});
export const RenameFileParams = z.strictObject({
  from: relativePath("The file to rename, relative to the workspace root"),
  to: relativePath("Its new path; it must not exist"),
});

// --- The text tier: steps for any text file, addressed by content (never by line number). ---

const snippet = (what: string) =>
  z
    .string()
    .min(1)
    .describe(
      `${what}: copied from the file as it is when the step runs, with enough of its lines to occur once. Matched exactly, then ignoring line endings and trailing whitespace, then with its indentation shifted; a merely similar text only when one place is clearly the closest (reported as a correction)`,
    );

export const ReplaceTextParams = z.strictObject({
  file,
  find: snippet("The text to replace"),
  replace: z.string().describe("The text that takes its place, verbatim (an empty string deletes it)"),
});
export const InsertTextParams = z.strictObject({
  file,
  anchor: snippet("Text next to which the new text goes"),
  position: z.enum(["before", "after"]).describe("Before the anchor's first character, or after its last"),
  text: z.string().min(1).describe("The text to insert, verbatim: include the line break that ends a new line"),
});
export const AppendTextParams = z.strictObject({
  file,
  text: z
    .string()
    .min(1)
    .describe(
      "Text added at the very end of the file, verbatim (if the file does not end with a line break, start with one)",
    ),
});
export const WriteFileParams = z.strictObject({
  path: relativePath("An existing file, relative to the workspace root"),
  content: z.string().describe("The file's whole new content, verbatim"),
});
export const SetFileModeParams = z.strictObject({
  path: relativePath("An existing file (or one an earlier step created), relative to the workspace root"),
  mode: z
    .enum(["100644", "100755"])
    .describe('Git\'s file mode: "100755" makes the file executable, "100644" makes it a plain file'),
});

export type ReplaceTextParams = z.infer<typeof ReplaceTextParams>;
export type InsertTextParams = z.infer<typeof InsertTextParams>;
export type AppendTextParams = z.infer<typeof AppendTextParams>;
export type WriteFileParams = z.infer<typeof WriteFileParams>;
export type SetFileModeParams = z.infer<typeof SetFileModeParams>;

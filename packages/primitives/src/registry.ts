/**
 * The tier-0 operator catalog: every operator runPlan knows without handlers, with its
 * parameter schema. Templates and the verifier build the one catalog (and its JSON Schema)
 * from this list.
 */
import { z } from "zod";
import * as P from "./params.js";

export interface OperatorInfo {
  readonly name: string;
  readonly tier: 0;
  readonly kind: "primitive" | "composed" | "legacy" | "file" | "text";
  readonly paramsSchema: z.ZodType;
  readonly description: string;
  /** For legacy operators: the primitive a plan should use instead. */
  readonly replacedBy?: string;
}

const op = (
  name: string,
  kind: OperatorInfo["kind"],
  paramsSchema: z.ZodType,
  description: string,
  replacedBy?: string,
): OperatorInfo => ({
  name,
  tier: 0,
  kind,
  paramsSchema,
  description,
  ...(replacedBy ? { replacedBy } : {}),
});

export const OPERATORS: readonly OperatorInfo[] = [
  op(
    "replace_node",
    "primitive",
    P.ReplaceNodeParams,
    "Replace the one node the locator matches with new source text (re-indented to the node).",
  ),
  op(
    "insert_before_node",
    "primitive",
    P.InsertNodeParams,
    "Insert code before the one node the locator matches (own line by default).",
  ),
  op(
    "insert_after_node",
    "primitive",
    P.InsertNodeParams,
    "Insert code after the one node the locator matches (own line by default).",
  ),
  op(
    "delete_node",
    "primitive",
    P.DeleteNodeParams,
    "Delete the one node the locator matches, with its decorators, separator comma and line; an only statement of a Python block becomes `pass`.",
  ),
  op(
    "wrap_node",
    "primitive",
    P.WrapNodeParams,
    "Wrap the one node the locator matches between `before` and `after` code (e.g. try/except), indenting it.",
  ),
  op(
    "replace_all_matching",
    "primitive",
    P.ReplaceAllMatchingParams,
    "Replace every node the locator matches (optionally not in strings/comments); afterwards none may match. With an S-expression locator, $name in the replacement is what @name captured in that match.",
  ),
  op(
    "locate",
    "primitive",
    P.LocateParams,
    "Read-only: {found, count, nodes: [{start_line, end_line, kind, name, text_preview}]}; never fails for no match.",
  ),
  op(
    "locate_region",
    "primitive",
    P.LocateParams,
    "Read-only: {start_byte, end_byte, start_line, end_line, text} of the one matching node.",
  ),
  op(
    "add_method",
    "composed",
    P.AddMethodParams,
    "Add a method at the end of a class body (Go: after the struct; Rust: in the impl).",
  ),
  op(
    "add_import",
    "composed",
    P.AddImportParams,
    "Add an import after the last top-level import (or where the first import belongs); no-op if already present.",
  ),
  op(
    "add_class_attribute",
    "composed",
    P.AddClassAttributeParams,
    "Add an attribute/field at the start of a class body (after a Python docstring).",
  ),
  op(
    "create_file",
    "file",
    P.CreateFileParams,
    "Create a file with the given content (it must not exist; a code file must parse); e.g. a new module, test, doc or script.",
  ),
  op("delete_file", "file", P.DeleteFileParams, "Delete a file (steps after it cannot address it)."),
  op(
    "rename_file",
    "file",
    P.RenameFileParams,
    "Rename (move) a file, content unchanged; later steps address it by its new path. Importers are not updated.",
  ),
  op(
    "write_file",
    "text",
    P.WriteFileParams,
    "Replace an existing file's whole content, verbatim (a code file must still parse).",
  ),
  op(
    "set_file_mode",
    "file",
    P.SetFileModeParams,
    'Make a file executable ("100755") or plain ("100644"), content unchanged.',
  ),
  op(
    "replace_text",
    "text",
    P.ReplaceTextParams,
    "Any text file (docs, changelogs, config, or code no node fits): replace the one place where `find` occurs with `replace`, verbatim.",
  ),
  op(
    "insert_text",
    "text",
    P.InsertTextParams,
    "Any text file: insert `text` verbatim just before or after the one place where `anchor` occurs.",
  ),
  op(
    "append_text",
    "text",
    P.AppendTextParams,
    "Any text file: add `text` verbatim at the end of the file (e.g. a changelog entry).",
  ),
  op(
    "replace_code",
    "legacy",
    P.ReplaceCodeParams,
    "Replace the first occurrence of a text pattern (exact, whitespace-insensitive, indentation-preserving, then similar).",
    "replace_node",
  ),
  op("insert_code", "legacy", P.InsertCodeParams, "Insert code before/after a 1-based line.", "insert_after_node"),
  op("delete_lines", "legacy", P.DeleteLinesParams, "Delete 1-based lines start_line..end_line.", "delete_node"),
  op(
    "modify_function_signature",
    "legacy",
    P.ModifyFunctionSignatureParams,
    "Replace old_signature by new_signature in a function's header.",
    "replace_node",
  ),
  op(
    "rename_symbol",
    "legacy",
    P.RenameSymbolParams,
    "Word-boundary rename in one file (also in strings/comments).",
    "replace_all_matching",
  ),
  op(
    "wrap_block",
    "legacy",
    P.WrapBlockParams,
    "Wrap 1-based lines start_line..end_line between before_code and after_code, indenting them.",
    "wrap_node",
  ),
  op("replace_function_body", "legacy", P.ReplaceFunctionBodyParams, "Replace a function's body.", "replace_node"),
];

/** The operators that create, delete, rename, rewrite whole files or set their mode (params `path`, `from`, `to`). */
export const FILE_OPS: ReadonlySet<string> = new Set(OPERATORS.filter((o) => o.kind === "file").map((o) => o.name));

/** The text tier: content-addressed edits of any text file, code or not. */
export const TEXT_OPS: ReadonlySet<string> = new Set(OPERATORS.filter((o) => o.kind === "text").map((o) => o.name));

/** Operators by name. */
export const OPERATOR_BY_NAME: ReadonlyMap<string, OperatorInfo> = new Map(OPERATORS.map((o) => [o.name, o]));

/** Legacy operator → the primitive its `{locator, ...}` form runs as (the design's (docs/design.md, Origins) mapping table). */
export const LEGACY_TO_PRIMITIVE: Readonly<Record<string, string>> = {
  replace_code: "replace_node",
  insert_code: "insert_after_node",
  delete_lines: "delete_node",
  modify_function_signature: "replace_node",
  rename_symbol: "replace_all_matching",
  wrap_block: "wrap_node",
  replace_function_body: "replace_node",
};

/** JSON Schema of one operator's parameters. */
export function operatorJsonSchema(name: string): Record<string, unknown> | undefined {
  const info = OPERATOR_BY_NAME.get(name);
  return info ? (z.toJSONSchema(info.paramsSchema, { io: "input" }) as Record<string, unknown>) : undefined;
}

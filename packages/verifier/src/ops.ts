/**
 * What the verifier needs to know about each op beyond its parameter schema: which steps edit
 * only the node their locator names (for `containment`), which remove code, which use line
 * numbers (`drift`), which rename (`rename`), which name a class or function (`symbols`).
 */
import { MUTATORS } from "@graphplan/primitives";

/** Ops whose edits stay within the lines of the node their `locator` resolves to. */
export const LOCAL_OPS: ReadonlySet<string> = new Set([...MUTATORS, "rename_identifier"]);

/** Ops whose purpose is to remove code (an empty replacement is not a placeholder). */
export const REMOVING_OPS: ReadonlySet<string> = new Set([
  "delete_node",
  "delete_lines",
  "inline_variable",
  "move_node",
]);

/** Legacy ops that address code by line number, and the parameters holding lines. */
export const LINE_OPS: Readonly<Record<string, readonly string[]>> = {
  insert_code: ["anchor_line"],
  delete_lines: ["start_line", "end_line"],
  wrap_block: ["start_line", "end_line"],
};

/** Ops that rename a symbol throughout a file, and how to read the names. */
export const RENAME_OPS: Readonly<Record<string, { readonly old: string; readonly new: string }>> = {
  rename_symbol: { old: "old_name", new: "new_name" },
  rename_identifier: { old: "name", new: "new_name" },
};

/** Parameters naming a class or a function that must exist in the file (`symbols`: in the graph). */
export const SYMBOL_PARAMS: Readonly<Record<string, "class" | "function">> = {
  class_name: "class",
  func_name: "function",
  function_name: "function",
};

/** Parameters holding new source code (read by `content`'s duplicate check). */
export const CODE_PARAMS: readonly string[] = [
  "replacement",
  "code",
  "method_code",
  "attribute_code",
  "new_body",
  "import_statement",
];

/** The name of the method a piece of code defines (`def name(` / `name(...) {`). */
export function definedName(code: string): string | undefined {
  const py = /^\s*(?:@[^\n]*\n\s*)*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/.exec(code);
  if (py) return py[1];
  const cls = /^\s*class\s+([A-Za-z_]\w*)/.exec(code);
  if (cls) return cls[1];
  const js =
    /^\s*(?:(?:public|private|protected|static|async|override|readonly|abstract|export|function|fn|func|def)\s+)*\*?\s*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(/.exec(
      code,
    );
  return js?.[1];
}

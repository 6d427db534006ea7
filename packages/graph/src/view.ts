/** The LLM-facing text view of a graph: grouped by file, ordered by line. */
import type { Graph } from "./graph.js";

const importText = (module: string, symbol: string | null): string =>
  symbol === null ? `import ${module}` : `from ${module} import ${symbol}`;

/**
 * Files in path order; in each file, imports and symbols by line (an import before a symbol on
 * the same line, otherwise document order); then one `ERROR:` line per error. Documents (files
 * that are not code, `Graph.documents`) are files too, headed with their kind and line count,
 * listing their keys, TOML sections or headings by line:
 * `FILE: pyproject.toml (toml, 40 lines)` / `  SECTION: [tool.pytest.ini_options] [line 12]`.
 *
 * ```
 * FILE: src/schema.py
 *   IMPORT: from marshmallow.utils import missing [line 12]
 *   CLASS: BaseSchema (lines 45-920)
 *   FUNCTION: __init__ (lines 50-78)
 * ```
 */
export function graphView(graph: Graph): string {
  const files = new Map<string, { line: number; order: number; text: string }[]>();
  const add = (file: string, line: number, order: number, text: string) => {
    let rows = files.get(file);
    if (!rows) files.set(file, (rows = []));
    rows.push({ line, order, text });
  };
  for (const imp of graph.imports)
    add(imp.file, imp.line, 0, `IMPORT: ${importText(imp.module, imp.symbol)} [line ${imp.line}]`);
  for (const sym of graph.symbols) {
    add(
      sym.file,
      sym.start_line,
      1,
      `${sym.kind.toUpperCase()}: ${sym.name} (lines ${sym.start_line}-${sym.end_line})`,
    );
  }
  for (const file of Object.keys(graph.line_kinds)) if (!files.has(file)) files.set(file, []);
  const headers = new Map<string, string>();
  for (const doc of graph.documents ?? []) {
    headers.set(doc.file, `FILE: ${doc.file} (${doc.kind}, ${doc.lines} line${doc.lines === 1 ? "" : "s"})`);
    files.set(doc.file, []);
    for (const entry of doc.outline) {
      const text =
        entry.kind === "heading"
          ? `HEADING: ${"#".repeat(entry.level)} ${entry.name} [line ${entry.line}]`
          : `${entry.kind.toUpperCase()}: ${entry.kind === "section" ? `[${entry.name}]` : entry.name} [line ${entry.line}]`;
      add(doc.file, entry.line, 0, text);
    }
    if (doc.omitted > 0) add(doc.file, Number.MAX_SAFE_INTEGER, 0, `... ${doc.omitted} more`);
  }
  const out: string[] = [];
  for (const [file, rows] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out.push(headers.get(file) ?? `FILE: ${file}`);
    rows.sort((a, b) => a.line - b.line || a.order - b.order);
    for (const row of rows) out.push(`  ${row.text}`);
  }
  for (const error of graph.errors) out.push(`ERROR: ${error}`);
  return out.join("\n");
}

/**
 * The graph's view of files that are not code: data files (JSON, YAML, TOML) list their keys and
 * TOML sections, Markdown and reStructuredText their headings, any other text file its name and
 * line count. Bounded: a document lists at most `OUTLINE_LIMIT` rows, and says how many it left out.
 */
import { z } from "zod";
import { dataFormatOf, parseData, positionOf, type DataNode } from "./data.js";

export const DOCUMENT_KINDS = ["json", "yaml", "toml", "markdown", "rst", "text"] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];

/** Extensions of the documents with an outline (data files, Markdown, reST); other text files are documents too when named. */
export const DOCUMENT_EXTENSIONS: readonly string[] = [".json", ".yaml", ".yml", ".toml", ".md", ".markdown", ".rst"];

export const OUTLINE_LIMIT = 40;

export const DocumentEntrySchema = z.object({
  /** `key` (a data file's key path, to depth 2), `section` (a TOML `[table]`), `heading`. */
  kind: z.enum(["key", "section", "heading"]),
  name: z.string(),
  line: z.number().int().positive(),
  /** Heading level (1 = title); a key's depth. */
  level: z.number().int().positive(),
});
export const GraphDocumentSchema = z.object({
  file: z.string(),
  kind: z.enum(DOCUMENT_KINDS),
  lines: z.number().int().nonnegative(),
  outline: z.array(DocumentEntrySchema),
  /** Outline rows left out past the limit. */
  omitted: z.number().int().nonnegative(),
});
export type DocumentEntry = z.infer<typeof DocumentEntrySchema>;
export type GraphDocument = z.infer<typeof GraphDocumentSchema>;

/** The kind of document a path is, by extension (any file that is not data, Markdown or reST is `text`). */
export function documentKindOf(path: string): DocumentKind {
  const data = dataFormatOf(path);
  if (data) return data;
  const lower = path.toLowerCase();
  if (lower.endsWith(".md") || lower.endsWith(".markdown")) return "markdown";
  if (lower.endsWith(".rst")) return "rst";
  return "text";
}

const lineCount = (source: string): number =>
  source === "" ? 0 : source.split("\n").length - (source.endsWith("\n") ? 1 : 0);

/** The document of one file. Data files need `loadDataGrammars()` first. A data file that does not parse lists what it could read. */
export function documentOfFile(file: { readonly path: string; readonly source: string }): GraphDocument {
  const kind = documentKindOf(file.path);
  const outline =
    kind === "markdown"
      ? markdownHeadings(file.source)
      : kind === "rst"
        ? rstHeadings(file.source)
        : kind === "text"
          ? []
          : dataOutline(file.source, kind);
  return {
    file: file.path,
    kind,
    lines: lineCount(file.source),
    outline: outline.slice(0, OUTLINE_LIMIT),
    omitted: Math.max(0, outline.length - OUTLINE_LIMIT),
  };
}

function dataOutline(source: string, format: "json" | "yaml" | "toml"): DocumentEntry[] {
  const root = parseData(source, format).root;
  const out: DocumentEntry[] = [];
  const lineOf = (index: number): number => positionOf(source, index).line;
  const visit = (node: DataNode, prefix: string, depth: number): void => {
    if (node.type !== "mapping") return;
    for (const entry of node.entries) {
      const name = prefix
        ? `${prefix}.${/^[^.[\]"']+$/.test(entry.key) ? entry.key : JSON.stringify(entry.key)}`
        : /^[^.[\]"']+$/.test(entry.key)
          ? entry.key
          : JSON.stringify(entry.key);
      const value = entry.value;
      if (format === "toml" && value.type === "mapping" && value.header)
        out.push({ kind: "section", name, line: lineOf(value.header.start), level: depth });
      else if (format === "toml" && value.type === "sequence" && value.style === "tables")
        out.push({ kind: "section", name: `${name}[]`, line: lineOf(entry.spans[0]!.start), level: depth });
      else if (format === "toml" && value.type === "mapping" && value.style === "table") {
        // A table only its sub-sections make (`tool` of `[tool.pytest]`): the sections say it.
      } else if (depth <= 2) out.push({ kind: "key", name, line: lineOf(entry.keyRange.start), level: depth });
      if (depth < 2 || format === "toml") visit(value, name, depth + 1);
    }
  };
  if (root) visit(root, "", 1);
  return out.sort((a, b) => a.line - b.line);
}

/** ATX (`## Title`) and setext (`Title` over `===` or `---`) headings, outside fenced code blocks. */
export function markdownHeadings(source: string): DocumentEntry[] {
  const lines = source.split(/\r?\n/);
  const out: DocumentEntry[] = [];
  let fence: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMark = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fenceMark) {
      if (!fence) fence = fenceMark;
      else if (fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence) continue;
    const atx = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      out.push({ kind: "heading", name: (atx[2] ?? "").trim(), line: i + 1, level: atx[1]!.length });
      continue;
    }
    const next = lines[i + 1];
    if (
      next !== undefined &&
      line.trim() !== "" &&
      /^ {0,3}(=+|-+)[ \t]*$/.test(next) &&
      !/^ {0,3}([-*+>]|\d+[.)])\s/.test(line) &&
      !/^ {0,3}(-{3,}|\*{3,}|_{3,})\s*$/.test(line)
    ) {
      // A setext heading: the paragraph line above the underline (a paragraph of one line; longer ones are rare in practice).
      const previous = lines[i - 1];
      if (previous === undefined || previous.trim() === "" || out.at(-1)?.line === i) {
        out.push({ kind: "heading", name: line.trim(), line: i + 1, level: next.trim()[0] === "=" ? 1 : 2 });
        i++;
      }
    }
  }
  return out;
}

const RST_ADORNMENT = /^([!-/:-@[-`{-~])\1{2,}\s*$/;

/**
 * reST section titles: a text line underlined (and maybe overlined) by one punctuation character
 * repeated at least as long as the title. Levels follow the order in which the styles first appear.
 */
export function rstHeadings(source: string): DocumentEntry[] {
  const lines = source.split(/\r?\n/);
  const out: DocumentEntry[] = [];
  const styles: string[] = [];
  const levelOf = (style: string): number => {
    if (!styles.includes(style)) styles.push(style);
    return styles.indexOf(style) + 1;
  };
  for (let i = 0; i + 1 < lines.length; i++) {
    const title = lines[i]!;
    const under = lines[i + 1]!;
    if (title.trim() === "" || RST_ADORNMENT.test(title) || /^\s/.test(title) || !RST_ADORNMENT.test(under)) continue;
    const over =
      i > 0 && RST_ADORNMENT.test(lines[i - 1]!) && lines[i - 1]!.trim()[0] === under.trim()[0]
        ? lines[i - 1]!
        : undefined;
    if (under.trim().length < title.trim().length) continue;
    out.push({
      kind: "heading",
      name: title.trim(),
      line: i + 1,
      level: levelOf(`${over ? "over" : ""}${under.trim()[0]}`),
    });
    i++;
  }
  return out;
}

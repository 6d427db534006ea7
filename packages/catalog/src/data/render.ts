/**
 * Values written in a data file's own style: its indentation unit, its quotes, whether YAML
 * sequences under a key are indented, and the inline or block form of where the value goes.
 * Pure: the style is read from the file's text.
 */
import { stringify as yamlStringify } from "yaml";
import type { DataFormat } from "@graphplan/graph";
import { ValueNotWritable } from "./errors.js";

/** What a file's text says about how it writes values. */
export interface FileStyle {
  /** One level of indentation (`"  "`, `"    "`, `"\t"`). */
  readonly unit: string;
  readonly newline: "\n" | "\r\n";
  /** Strings in single quotes (YAML `'x'`, TOML literal `'x'`) when the file has more of those than double-quoted ones. */
  readonly singleQuote: boolean;
  /** YAML: a sequence under a key is indented (`key:\n  - a`) rather than flush (`key:\n- a`). */
  readonly indentSeq: boolean;
  /** TOML: the file has `[table]` sections. */
  readonly sections: boolean;
  /** TOML: sections are separated by a blank line. */
  readonly blankBeforeSection: boolean;
}

export function styleOf(source: string, format: DataFormat): FileStyle {
  const lines = source.split(/\r?\n/);
  let unit = "";
  for (const line of lines) {
    const indent = /^[ \t]+(?=\S)/.exec(line)?.[0];
    if (!indent || (format === "yaml" && /^\s*#/.test(line))) continue;
    if (indent.startsWith("\t")) {
      unit = "\t";
      break;
    }
    // YAML: the smallest step between a line and the key above it; JSON/TOML: the smallest indent.
    if (!unit || indent.length < unit.length) unit = indent;
  }
  const singles = (source.match(/(^|[\s:=,[{])'[^'\n]*'/g) ?? []).length;
  const doubles = (source.match(/(^|[\s:=,[{])"[^"\n]*"/g) ?? []).length;
  const headers = lines
    .map((line, i) => [line, i] as const)
    .filter(([line]) => /^\s*\[/.test(line) && format === "toml");
  const blank = headers.filter(([, i]) => i > 0).some(([, i]) => lines[i - 1]!.trim() === "");
  return {
    unit: unit || (format === "json" ? "  " : format === "yaml" ? "  " : "    "),
    newline: source.includes("\r\n") ? "\r\n" : "\n",
    singleQuote: singles > doubles,
    indentSeq: !/^(\s*)[^\s#-][^\n]*:\s*\r?\n\1- /m.test(source),
    sections: headers.length > 0,
    blankBeforeSection: headers.length <= 1 ? true : blank,
  };
}

/** Lines after the first indented by `indent`. */
export function indentRest(text: string, indent: string, newline: string): string {
  return text
    .split("\n")
    .map((line, i) => (i === 0 || line === "" ? line : indent + line))
    .join(newline);
}

// ---------------------------------------------------------------------------------------------
// JSON

/** A JSON value: one line (`{"a": 1, "b": [1, 2]}`) or the file's block form at `indent`. */
export function jsonValue(value: unknown, style: FileStyle, indent: string, inline: boolean): string {
  if (inline) return inlineJson(value);
  return indentRest(JSON.stringify(value, null, style.unit) ?? "null", indent, style.newline);
}

function inlineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(", ")}]`;
  if (value && typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${inlineJson(v)}`)
      .join(", ")}}`;
  return JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------
// YAML

function yamlOptions(style: FileStyle, flow: boolean) {
  // Written for YAML 1.1 readers too (PyYAML): `on`, `yes`, `no` as strings are quoted.
  return {
    version: "1.1" as const,
    indent: style.unit === "\t" ? 2 : style.unit.length,
    indentSeq: style.indentSeq,
    singleQuote: style.singleQuote,
    lineWidth: 0,
    minContentWidth: 0,
    collectionStyle: flow ? ("flow" as const) : ("any" as const),
    flowCollectionPadding: false,
  };
}

/** A YAML scalar or collection on one line (flow style). */
export function yamlInline(value: unknown, style: FileStyle): string {
  return yamlStringify(value, yamlOptions(style, true))
    .replace(/\r?\n$/, "")
    .replace(/\n\s*/g, " ");
}

/**
 * What follows a key's colon in a block mapping: ` value` or `\n  a: 1` (lines at `indent` plus
 * the file's unit). `key` is written too when given (a new entry), else the text starts after the colon.
 */
export function yamlEntry(key: string | undefined, value: unknown, style: FileStyle, indent: string): string {
  const placeholder = "__graphplan_key__";
  const text = yamlStringify({ [key ?? placeholder]: value }, yamlOptions(style, false)).replace(/\r?\n$/, "");
  const rest = key === undefined ? text.slice(placeholder.length + 1) : text;
  return indentRest(rest, indent, style.newline);
}

/** A block sequence item after its `- `: `value`, or `a: 1\n  b: 2` with lines at `indent` + 2. */
export function yamlItem(value: unknown, style: FileStyle, indent: string): string {
  const text = yamlStringify([value], yamlOptions(style, false)).replace(/\r?\n$/, "");
  return indentRest(text.slice(2), indent, style.newline);
}

// ---------------------------------------------------------------------------------------------
// TOML

/** A TOML key: bare when it can be, else a basic string. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlBasic(key);
}

function tomlBasic(text: string): string {
  return JSON.stringify(text).replace(/\x7f/g, "\\u007f");
}

/** A TOML value written inline (strings in the file's quotes, arrays, inline tables); null cannot be written. */
export function tomlInline(value: unknown, style: FileStyle, file: string, path: string): string {
  if (value === null || value === undefined)
    throw new ValueNotWritable(file, "toml", path, "TOML has no null: delete the key (delete_key) or write a value");
  if (typeof value === "string")
    return style.singleQuote && !/['\u0000-\u001f\u007f]/.test(value) ? `'${value}'` : tomlBasic(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
    return Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER
      ? String(value)
      : String(value).includes(".") || /e/i.test(String(value))
        ? String(value)
        : `${value}.0`;
  }
  if (typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => tomlInline(v, style, file, path)).join(", ")}]`;
  if (typeof value === "object")
    return `{${Object.entries(value)
      .map(([k, v]) => `${tomlKey(k)} = ${tomlInline(v, style, file, path)}`)
      .join(", ")}}`;
  throw new ValueNotWritable(file, "toml", path, `a ${typeof value} is not a TOML value`);
}

/** A TOML array over several lines: one item a line at `itemIndent`, a trailing comma when `trailing`. */
export function tomlArrayBlock(
  items: readonly unknown[],
  style: FileStyle,
  file: string,
  path: string,
  itemIndent: string,
  closeIndent: string,
  trailing: boolean,
): string {
  if (items.length === 0) return "[]";
  const nl = style.newline;
  const body = items.map(
    (v, i) => `${itemIndent}${tomlInline(v, style, file, path)}${i < items.length - 1 || trailing ? "," : ""}`,
  );
  return `[${nl}${body.join(nl)}${nl}${closeIndent}]`;
}

const isTable = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** `[a.b]` sections for a table value: its plain keys as pairs, its tables as sub-sections. */
export function tomlSections(
  path: readonly string[],
  value: Record<string, unknown>,
  style: FileStyle,
  file: string,
  keyPath: string,
  arrayItem = false,
): string {
  const nl = style.newline;
  const name = path.map(tomlKey).join(".");
  const lines = [arrayItem ? `[[${name}]]` : `[${name}]`];
  const subs: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (isTable(v) && Object.keys(v).length > 0) subs.push(tomlSections([...path, k], v, style, file, keyPath));
    else lines.push(`${tomlKey(k)} = ${tomlInline(v, style, file, keyPath)}`);
  }
  return [lines.join(nl), ...subs].join(style.blankBeforeSection ? nl + nl : nl);
}

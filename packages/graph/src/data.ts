/**
 * Data files — JSON, YAML and TOML — read into one model of their keys: mappings, sequences and
 * scalars with the text ranges that write them. Code has `LanguageId`; data files have a
 * `DataFormat`, a separate notion, so that no table keyed by language grows rows it cannot fill.
 *
 * JSON and TOML are read with tree-sitter (tree-sitter-wasms' grammars, like the code); YAML with
 * the `yaml` package, because tree-sitter-wasms' YAML grammar needs C++ runtime symbols that
 * web-tree-sitter 0.25 no longer provides (see the package README). Pure: text in, model out.
 */
import { isCollection, isMap, isPair, isScalar, isSeq, parseDocument, type Node as YamlNode } from "yaml";
import type { Language, Node, Tree } from "web-tree-sitter";
import { Parser } from "web-tree-sitter";
import { loadWasm } from "./parser.js";
import { TaggedError } from "./tagged-error.js";

export const DATA_FORMATS = ["json", "yaml", "toml"] as const;
export type DataFormat = (typeof DATA_FORMATS)[number];

const EXTENSIONS: Readonly<Record<string, DataFormat>> = {
  ".json": "json",
  ".yaml": "yaml",
  ".yml": "yaml",
  ".toml": "toml",
};
/** The extensions read as data files, by format. */
export const DATA_EXTENSIONS: readonly string[] = Object.keys(EXTENSIONS);

/** The data format of a path, by extension (case-insensitive); undefined for any other file. */
export function dataFormatOf(path: string): DataFormat | undefined {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  return EXTENSIONS[path.slice(dot).toLowerCase()];
}

/** A span of the text: `start` inclusive, `end` exclusive, in UTF-16 code units (JS string indices). */
export interface DataRange {
  readonly start: number;
  readonly end: number;
}

/**
 * How a collection is written. `block`: YAML's indented form, JSON's multi-line form; `flow`: on
 * one line or between brackets (`{a: 1}`, `[1, 2]`, TOML's inline tables and arrays); `document`:
 * the top level of a file; `table`: a TOML `[header]` section; `dotted`: a TOML table made by
 * dotted keys (`b.c = 1`); `tables`: a TOML array of tables (`[[item]]`).
 */
export type DataStyle = "block" | "flow" | "document" | "table" | "dotted" | "tables";

export interface DataMapping extends DataRange {
  readonly type: "mapping";
  readonly style: DataStyle;
  readonly entries: DataEntry[];
  /** TOML: the `[header]` line of a `table` (the header of an element of a `[[tables]]` array). */
  readonly header?: DataRange;
  /** TOML `dotted`: the key path written before each entry's own key (`["b"]` for `b.c = 1`). */
  readonly keyPrefix?: readonly string[];
  /** TOML `dotted`: the mapping whose text holds the dotted pairs. */
  readonly owner?: DataMapping;
}

export interface DataSequence extends DataRange {
  readonly type: "sequence";
  readonly style: DataStyle;
  readonly items: DataItem[];
}

export interface DataScalar extends DataRange {
  readonly type: "scalar";
  /** The value as the format reads it; TOML dates and YAML tags/aliases as their text. */
  readonly value: string | number | boolean | null;
}

export type DataNode = DataMapping | DataSequence | DataScalar;

export interface DataEntry {
  readonly key: string;
  /** Where the key is written (its last segment, for a dotted key or a header). */
  readonly keyRange: DataRange;
  /** The text that defines the entry: a pair (key through value, no trailing comment), or each TOML section of its table. */
  readonly spans: DataRange[];
  readonly value: DataNode;
}

export interface DataItem {
  readonly spans: DataRange[];
  readonly value: DataNode;
}

/** A place the text does not read as the format. `line` and `column` are 1-based. */
export interface DataSyntaxError {
  readonly line: number;
  readonly column: number;
  readonly message: string;
}

/** A data file read: its top-level value (undefined for an empty YAML file) and its syntax errors. */
export interface DataDocument {
  readonly format: DataFormat;
  readonly root: DataNode | undefined;
  readonly errors: readonly DataSyntaxError[];
}

/** `parseData` was called before `loadDataGrammars`. */
export class DataGrammarsNotLoaded extends TaggedError("DataGrammarsNotLoaded") {
  constructor(readonly format: DataFormat) {
    super(`The ${format} grammar is not loaded: call \`await loadDataGrammars()\` once before parseData.`);
  }
}

const grammars = new Map<"json" | "toml", Language>();
const parsers = new Map<"json" | "toml", Parser>();
let loading: Promise<void> | undefined;

/** Loads the JSON and TOML grammars (YAML needs none). Idempotent, safe to call concurrently. */
export function loadDataGrammars(): Promise<void> {
  loading ??= (async () => {
    grammars.set("json", await loadWasm("tree-sitter-json.wasm"));
    grammars.set("toml", await loadWasm("tree-sitter-toml.wasm"));
  })();
  return loading;
}

function treeOf(source: string, format: "json" | "toml"): Tree {
  let parser = parsers.get(format);
  if (!parser) {
    const language = grammars.get(format);
    if (!language) throw new DataGrammarsNotLoaded(format);
    parser = new Parser();
    parser.setLanguage(language);
    parsers.set(format, parser);
  }
  const tree = parser.parse(source);
  if (!tree) throw new Error(`tree-sitter returned no tree for a ${format} source of ${source.length} chars`);
  return tree;
}

/** Reads `source` as `format`. JSON and TOML need `loadDataGrammars()` first. */
export function parseData(source: string, format: DataFormat): DataDocument {
  if (format === "yaml") return readYaml(source);
  const tree = treeOf(source, format);
  try {
    const errors = treeErrors(tree, source);
    if (format === "json") {
      const value = tree.rootNode.namedChildren.find((n) => n && n.type !== "comment");
      return { format, root: value ? jsonNode(value) : undefined, errors };
    }
    const toml = new TomlReader(source);
    const root = toml.read(tree.rootNode);
    return { format, root, errors: [...errors, ...toml.errors] };
  } finally {
    tree.delete();
  }
}

/** 1-based line and column of an index. */
export function positionOf(source: string, index: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = source.indexOf("\n"); i >= 0 && i < index; i = source.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: index - lineStart + 1 };
}

function treeErrors(tree: Tree, source: string): DataSyntaxError[] {
  if (!tree.rootNode.hasError) return [];
  const out: DataSyntaxError[] = [];
  const visit = (node: Node): void => {
    if (out.length >= 5) return;
    if (node.isMissing || node.type === "ERROR") {
      const at = positionOf(source, node.startIndex);
      out.push({
        ...at,
        message: node.isMissing ? `missing ${node.type}` : `unexpected ${JSON.stringify(node.text.slice(0, 30))}`,
      });
      return;
    }
    if (node.hasError) for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return out;
}

// ---------------------------------------------------------------------------------------------
// JSON

const range = (node: Node): DataRange => ({ start: node.startIndex, end: node.endIndex });
const isBlock = (node: Node): boolean => node.text.includes("\n");

function jsonNode(node: Node): DataNode {
  switch (node.type) {
    case "object": {
      const entries: DataEntry[] = [];
      for (const pair of node.namedChildren) {
        if (!pair || pair.type !== "pair") continue;
        const key = pair.childForFieldName("key");
        const value = pair.childForFieldName("value");
        if (!key || !value) continue;
        entries.push({ key: jsonString(key), keyRange: range(key), spans: [range(pair)], value: jsonNode(value) });
      }
      return { type: "mapping", style: isBlock(node) ? "block" : "flow", entries, ...range(node) };
    }
    case "array": {
      const items = node.namedChildren
        .filter((n): n is Node => !!n && n.type !== "comment")
        .map((n) => ({ spans: [range(n)], value: jsonNode(n) }));
      return { type: "sequence", style: isBlock(node) ? "block" : "flow", items, ...range(node) };
    }
    default:
      return { type: "scalar", value: jsonScalar(node), ...range(node) };
  }
}

function jsonString(node: Node): string {
  try {
    const value: unknown = JSON.parse(node.text);
    return typeof value === "string" ? value : node.text;
  } catch {
    return node.text.replace(/^"|"$/g, "");
  }
}

function jsonScalar(node: Node): string | number | boolean | null {
  try {
    return JSON.parse(node.text) as string | number | boolean | null;
  } catch {
    return node.text;
  }
}

// ---------------------------------------------------------------------------------------------
// YAML

function readYaml(source: string): DataDocument {
  const doc = parseDocument(source, { keepSourceTokens: false, uniqueKeys: true, prettyErrors: false });
  const errors = doc.errors.map((e) => ({ ...positionOf(source, e.pos[0]), message: e.message.split("\n")[0]! }));
  const root = doc.contents ? yamlNode(doc.contents as YamlNode, source) : undefined;
  return { format: "yaml", root, errors };
}

function yamlRange(node: YamlNode | null | undefined, fallback: number): DataRange {
  const r = node?.range;
  return r ? { start: r[0], end: r[1] } : { start: fallback, end: fallback };
}

function yamlNode(node: YamlNode, source: string): DataNode {
  const at = yamlRange(node, 0);
  if (isMap(node)) {
    const entries: DataEntry[] = [];
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key as YamlNode | null;
      const keyRange = yamlRange(key, at.start);
      const value = pair.value as YamlNode | null;
      const colon = yamlColonEnd(source, keyRange.end);
      // `key:` with nothing after it (a comment at most) is null, written nowhere: its place is after the colon.
      const blank =
        !value ||
        (isScalar(value) &&
          value.value === null &&
          source.slice(value.range?.[0] ?? colon, value.range?.[1] ?? colon).trim() === "");
      const valueNode: DataNode = blank
        ? { type: "scalar", value: null, start: colon, end: colon }
        : yamlNode(value, source);
      const end = Math.max(valueNode.end, colon);
      entries.push({
        key: isScalar(key) ? String(key.value) : source.slice(keyRange.start, keyRange.end),
        keyRange,
        spans: [{ start: keyRange.start, end }],
        value: valueNode,
      });
    }
    // A block collection ends with its last entry: yaml's range also holds the comments and blank lines after it.
    const end =
      node.flow || entries.length === 0 ? at.end : Math.max(...entries[entries.length - 1]!.spans.map((s) => s.end));
    return { type: "mapping", style: node.flow ? "flow" : "block", entries, start: at.start, end };
  }
  if (isSeq(node)) {
    const items = node.items.map((item) => {
      const value =
        isCollection(item) || isScalar(item)
          ? yamlNode(item as YamlNode, source)
          : ({ type: "scalar", value: null, ...yamlRange(item as YamlNode, at.start) } as DataScalar);
      return { spans: [{ start: value.start, end: value.end }], value };
    });
    const end = node.flow || items.length === 0 ? at.end : items[items.length - 1]!.value.end;
    return { type: "sequence", style: node.flow ? "flow" : "block", items, start: at.start, end };
  }
  if (isScalar(node)) {
    const value = node.value;
    const plain =
      value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
    const end = node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED" ? blockScalarEnd(source, at) : at.end;
    return {
      type: "scalar",
      value: plain ? (value as string | number | boolean | null) : source.slice(at.start, at.end),
      start: at.start,
      end,
    };
  }
  return { type: "scalar", value: source.slice(at.start, at.end), ...at };
}

/**
 * The end of a block scalar's last line of content (`|` and `>`): yaml's range runs on over the
 * blank lines and the less indented comment lines after it, up to the next key.
 */
function blockScalarEnd(source: string, at: DataRange): number {
  const lines = source.slice(at.start, at.end).split("\n");
  const indentOf = (line: string): number => line.length - line.trimStart().length;
  const content = lines.slice(1).find((line) => line.trim() !== "");
  if (content === undefined) return at.start + lines[0]!.length;
  const indent = indentOf(content);
  let last = lines.length - 1;
  while (last > 0 && (lines[last]!.trim() === "" || indentOf(lines[last]!) < indent)) last--;
  return at.start + lines.slice(0, last + 1).join("\n").length;
}

/** The end of the `:` after a YAML key (a key with no value ends there). */
function yamlColonEnd(source: string, keyEnd: number): number {
  const colon = source.indexOf(":", keyEnd);
  return colon < 0 ? keyEnd : colon + 1;
}

// ---------------------------------------------------------------------------------------------
// TOML

type MutableMapping = DataMapping & { entries: DataEntry[] };

/** Reads a TOML tree into the model, merging `[a.b]` sections and dotted keys into nested mappings. */
class TomlReader {
  readonly errors: DataSyntaxError[] = [];
  /** Mappings made by sections and dotted keys, that later sections may extend. */
  readonly #implicit = new WeakSet<DataMapping>();

  constructor(readonly source: string) {}

  read(document: Node): DataMapping {
    const root: MutableMapping = { type: "mapping", style: "document", entries: [], start: 0, end: this.source.length };
    for (const child of document.namedChildren) {
      if (!child) continue;
      if (child.type === "pair") this.pair(root, child);
      else if (child.type === "table") this.table(root, child, false);
      else if (child.type === "table_array_element") this.table(root, child, true);
    }
    return root;
  }

  keyPath(key: Node): { names: string[]; last: Node } {
    if (key.type === "dotted_key") {
      const parts = key.namedChildren.filter((n): n is Node => !!n);
      const names: string[] = [];
      let last = key;
      for (const part of parts) {
        const inner = this.keyPath(part);
        names.push(...inner.names);
        last = inner.last;
      }
      return { names, last };
    }
    return { names: [tomlKey(key)], last: key };
  }

  error(node: Node, message: string): void {
    this.errors.push({ ...positionOf(this.source, node.startIndex), message });
  }

  /** The mapping at `names` under `mapping`, made (as `style`) where missing. */
  descend(
    mapping: MutableMapping,
    names: readonly string[],
    at: Node,
    style: DataStyle,
    span: DataRange,
    header?: DataRange,
  ): MutableMapping | undefined {
    let current = mapping;
    for (const [i, name] of names.entries()) {
      const existing = current.entries.find((e) => e.key === name);
      if (existing) {
        existing.spans.push(span);
        let value = existing.value;
        if (value.type === "sequence" && value.style === "tables") value = value.items[value.items.length - 1]!.value;
        // Sub-tables of a section or of dotted keys may follow; an inline table or a value is closed.
        if (value.type !== "mapping" || value.style === "flow") {
          this.error(at, `the key ${names.slice(0, i + 1).join(".")} is already defined`);
          return undefined;
        }
        current = value as MutableMapping;
        continue;
      }
      const child: MutableMapping = {
        type: "mapping",
        style,
        entries: [],
        ...span,
        ...(header ? { header } : {}),
        ...(style === "dotted" ? { keyPrefix: names.slice(0, i + 1), owner: mapping } : {}),
      };
      this.#implicit.add(child);
      current.entries.push({ key: name, keyRange: range(at), spans: [span], value: child });
      current = child;
    }
    return current;
  }

  pair(mapping: MutableMapping, pair: Node): void {
    const key = pair.namedChildren.find((n) => n && /key$/.test(n.type));
    const value = pair.namedChildren.filter((n): n is Node => !!n && n !== key && n.type !== "comment").at(-1);
    if (!key || !value) return;
    const { names, last } = this.keyPath(key);
    const span = { start: pair.startIndex, end: value.endIndex };
    const parent = this.descend(mapping, names.slice(0, -1), key, mapping.style === "flow" ? "flow" : "dotted", span);
    if (!parent) return;
    const name = names[names.length - 1]!;
    if (parent.entries.some((e) => e.key === name)) {
      this.error(key, `the key ${names.join(".")} is already defined`);
      return;
    }
    parent.entries.push({ key: name, keyRange: range(last), spans: [span], value: this.value(value) });
  }

  table(root: MutableMapping, table: Node, array: boolean): void {
    const key = table.namedChildren.find((n) => n && /key$/.test(n.type));
    if (!key) return;
    const { names, last } = this.keyPath(key);
    const close = table.children.find((n) => n && (n.type === "]" || n.type === "]]"));
    const header = { start: table.startIndex, end: close ? close.endIndex : key.endIndex };
    const span = range(table);
    const parent = this.descend(root, names.slice(0, -1), key, "table", span);
    if (!parent) return;
    const name = names[names.length - 1]!;
    const existing = parent.entries.find((e) => e.key === name);
    const body: MutableMapping = { type: "mapping", style: "table", entries: [], ...span, header };
    if (array) {
      if (existing && !(existing.value.type === "sequence" && existing.value.style === "tables")) {
        this.error(key, `the key ${names.join(".")} is already defined`);
        return;
      }
      if (existing) {
        existing.spans.push(span);
        (existing.value as DataSequence).items.push({ spans: [span], value: body });
      } else
        parent.entries.push({
          key: name,
          keyRange: range(last),
          spans: [span],
          value: { type: "sequence", style: "tables", items: [{ spans: [span], value: body }], ...span },
        });
    } else if (existing) {
      // `[a]` after `[a.b]` defined a: the section extends the implicit table, once.
      if (existing.value.type !== "mapping" || !this.#implicit.has(existing.value) || existing.value.header) {
        this.error(key, `the table ${names.join(".")} is already defined`);
        return;
      }
      this.#implicit.delete(existing.value);
      existing.spans.push(span);
      Object.assign(existing.value, { header, style: "table", start: span.start, end: span.end });
      this.body(existing.value as MutableMapping, table);
      return;
    } else parent.entries.push({ key: name, keyRange: range(last), spans: [span], value: body });
    this.body(body, table);
  }

  body(mapping: MutableMapping, table: Node): void {
    for (const child of table.namedChildren) if (child && child.type === "pair") this.pair(mapping, child);
  }

  value(node: Node): DataNode {
    if (node.type === "inline_table") {
      const mapping: MutableMapping = { type: "mapping", style: "flow", entries: [], ...range(node) };
      for (const child of node.namedChildren) if (child && child.type === "pair") this.pair(mapping, child);
      return mapping;
    }
    if (node.type === "array") {
      const items = node.namedChildren
        .filter((n): n is Node => !!n && n.type !== "comment")
        .map((n) => ({ spans: [range(n)], value: this.value(n) }));
      return { type: "sequence", style: isBlock(node) ? "block" : "flow", items, ...range(node) };
    }
    return { type: "scalar", value: tomlScalar(node), ...range(node) };
  }
}

function tomlKey(node: Node): string {
  const text = node.text;
  if (node.type === "quoted_key") return text.startsWith("'") ? text.slice(1, -1) : unescapeBasic(text.slice(1, -1));
  return text;
}

function unescapeBasic(body: string): string {
  return body.replace(/\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[btnfr"\\e])/g, (_, esc: string) => {
    if (esc[0] === "u" || esc[0] === "U") return String.fromCodePoint(parseInt(esc.slice(1), 16));
    return { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\", e: "\x1b" }[esc]!;
  });
}

function tomlScalar(node: Node): string | number | boolean | null {
  const text = node.text;
  switch (node.type) {
    case "string": {
      if (text.startsWith('"""'))
        return unescapeBasic(
          text
            .slice(3, -3)
            .replace(/^\r?\n/, "")
            .replace(/\\[ \t]*\r?\n\s*/g, ""),
        );
      if (text.startsWith("'''")) return text.slice(3, -3).replace(/^\r?\n/, "");
      if (text.startsWith("'")) return text.slice(1, -1);
      return unescapeBasic(text.slice(1, -1));
    }
    case "integer": {
      const digits = text.replace(/_/g, "");
      if (/^0[xob]/.test(digits)) return parseInt(digits.slice(2), { x: 16, o: 8, b: 2 }[digits[1] as "x" | "o" | "b"]);
      return Number(digits);
    }
    case "float": {
      const digits = text.replace(/_/g, "");
      if (/inf$/.test(digits)) return digits.startsWith("-") ? -Infinity : Infinity;
      if (/nan$/.test(digits)) return NaN;
      return Number(digits);
    }
    case "boolean":
      return text === "true";
    default:
      return text;
  }
}

/** The plain value of a model node: objects, arrays and scalars, as JSON would hold them. */
export function dataValue(node: DataNode | undefined): unknown {
  if (!node) return null;
  if (node.type === "scalar") return node.value;
  if (node.type === "sequence") return node.items.map((item) => dataValue(item.value));
  const out: Record<string, unknown> = {};
  for (const entry of node.entries) out[entry.key] = dataValue(entry.value);
  return out;
}

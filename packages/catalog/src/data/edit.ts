/**
 * The data steps' edits: set a key, delete a key, append a list item, in a JSON, YAML or TOML file,
 * through its model (`parseData`) and in its own style. Everything outside the changed value keeps
 * its bytes: the result is one edit between the unchanged head and tail of the file.
 *
 * Setting a mapping to an object sets each of its keys and deletes the others, so comments and
 * the layout of what stays are kept; a TOML array of tables is set item by item the same way.
 * Every result is read again: it must parse, hold the intended value at the path and the same
 * data everywhere else, or the step fails and nothing is written.
 */
import {
  dataFormatOf,
  dataValue,
  parseData,
  type DataDocument,
  type DataFormat,
  type DataMapping,
  type DataNode,
  type DataRange,
} from "@graphplan/graph";
import {
  formatKeyPath,
  keyNotFound,
  parseKeyPath,
  walkKeyPath,
  type KeyNotFound,
  type KeySegment,
  type KeyWalk,
} from "@graphplan/locators";
import { applyEdits, type Edit } from "@graphplan/primitives";
import { DataEditBrokeFile, DataFileUnparsable, NotADataFile, ValueNotWritable, syntaxSummary } from "./errors.js";
import {
  indentRest,
  jsonValue,
  styleOf,
  tomlArrayBlock,
  tomlInline,
  tomlKey,
  tomlSections,
  yamlEntry,
  yamlInline,
  yamlItem,
  type FileStyle,
} from "./render.js";

export const DATA_OPS = ["set_key", "delete_key", "append_item"] as const;
export type DataOp = (typeof DATA_OPS)[number];

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const nest = (keys: readonly string[], value: unknown): unknown =>
  keys.reduceRight<unknown>((v, k) => ({ [k]: v }), value);

/**
 * The edits of one data step on `source` (the text of `file`). `path` is the key path of the
 * locator; `value` any JSON value (set_key, append_item). Throws the tagged errors of
 * `./errors.ts` and the locators' `KeyNotFound` / `KeyPathInvalid`.
 */
export function dataStepEdits(op: DataOp, file: string, source: string, path: string, value?: unknown): Edit[] {
  const format = dataFormatOf(file);
  if (!format) throw new NotADataFile(file, op);
  const before = parseData(source, format);
  if (before.errors.length > 0) throw new DataFileUnparsable(file, format, before.errors);
  const segments = parseKeyPath(path);
  const editor = new DataEditor(file, format, styleOf(source, format));
  const after =
    op === "set_key"
      ? editor.set(source, segments, value)
      : op === "delete_key"
        ? editor.delete(source, segments)
        : editor.append(source, segments, value);
  check(op, file, format, path, segments, before, after, value);
  return diffEdit(source, after);
}

/** The one edit that turns `before` into `after`: the text between their common head and tail. */
export function diffEdit(before: string, after: string): Edit[] {
  if (before === after) return [];
  let head = 0;
  const max = Math.min(before.length, after.length);
  while (head < max && before.charCodeAt(head) === after.charCodeAt(head)) head++;
  let tail = 0;
  while (tail < max - head && before.charCodeAt(before.length - 1 - tail) === after.charCodeAt(after.length - 1 - tail))
    tail++;
  return [{ start: head, end: before.length - tail, text: after.slice(head, after.length - tail) }];
}

function check(
  op: DataOp,
  file: string,
  format: DataFormat,
  path: string,
  segments: readonly KeySegment[],
  before: DataDocument,
  text: string,
  value: unknown,
): void {
  const after = parseData(text, format);
  if (after.errors.length > 0)
    throw new DataEditBrokeFile(op, file, path, `with syntax errors (${syntaxSummary(after.errors)})`);
  const expected = structuredClone(dataValue(before.root)) as unknown;
  const walk = walkKeyPath(before.root, segments);
  if (op === "delete_key") removeAt(expected, segments, before.root, format);
  else if (op === "set_key") setAt(expected, segments, value);
  else {
    const list = walk.rest.length === 0 && walk.container?.type === "sequence" ? getAt(expected, segments) : undefined;
    if (Array.isArray(list)) list.push(value);
    else setAt(expected, segments, [value]);
  }
  const actual = dataValue(after.root);
  if (!sameData(actual, expected))
    throw new DataEditBrokeFile(
      op,
      file,
      path,
      "with other data than intended (the format reads the written text differently)",
    );
}

function getAt(root: unknown, segments: readonly KeySegment[]): unknown {
  let node = root;
  for (const s of segments)
    node = "key" in s ? (node as Record<string, unknown>)?.[s.key] : (node as unknown[])?.at(s.index);
  return node;
}

function setAt(root: unknown, segments: readonly KeySegment[], value: unknown): void {
  const parent = getAt(root, segments.slice(0, -1)) as Record<string, unknown> | unknown[];
  const last = segments[segments.length - 1]!;
  if ("key" in last) {
    // Missing parents were made by the step, as nested mappings.
    let node = root as Record<string, unknown>;
    for (const s of segments.slice(0, -1)) {
      if ("index" in s) {
        node = (node as unknown as unknown[]).at(s.index) as Record<string, unknown>;
        continue;
      }
      if (node[s.key] === null || typeof node[s.key] !== "object") node[s.key] = {};
      node = node[s.key] as Record<string, unknown>;
    }
    node[last.key] = value;
  } else (parent as unknown[])[last.index < 0 ? (parent as unknown[]).length + last.index : last.index] = value;
}

function removeAt(
  root: unknown,
  segments: readonly KeySegment[],
  model: DataNode | undefined,
  format: DataFormat,
): void {
  const parent = getAt(root, segments.slice(0, -1)) as Record<string, unknown> | unknown[];
  const last = segments[segments.length - 1]!;
  if ("key" in last) delete (parent as Record<string, unknown>)[last.key];
  else (parent as unknown[]).splice(last.index < 0 ? (parent as unknown[]).length + last.index : last.index, 1);
  // A TOML table that only its dotted keys or sub-sections made, and an array of tables, go with their last key or item.
  if (format !== "toml") return;
  for (let n = segments.length - 1; n > 0; n--) {
    const node = walkKeyPath(model, segments.slice(0, n)).container;
    const holder = getAt(root, segments.slice(0, n));
    const implicit =
      (node?.type === "mapping" && (node.style === "dotted" || (node.style === "table" && !node.header))) ||
      (node?.type === "sequence" && node.style === "tables");
    const emptied =
      (isPlainObject(holder) && Object.keys(holder).length === 0) || (Array.isArray(holder) && holder.length === 0);
    if (!implicit || !emptied) break;
    const up = segments[n - 1]!;
    const outer = getAt(root, segments.slice(0, n - 1));
    if ("key" in up) delete (outer as Record<string, unknown>)[up.key];
    else (outer as unknown[]).splice(up.index < 0 ? (outer as unknown[]).length + up.index : up.index, 1);
  }
}

function sameData(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameData(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameData(a[k], b[k]));
  }
  return a === b;
}

// ---------------------------------------------------------------------------------------------

const lineStart = (s: string, i: number): number => s.lastIndexOf("\n", i - 1) + 1;
const lineEnd = (s: string, i: number): number => {
  const n = s.indexOf("\n", i);
  return n < 0 ? s.length : n;
};
/** The start of the line after the one `end` is on (or `end` itself when it follows a newline). */
const afterLine = (s: string, end: number): number => {
  if (end > 0 && s[end - 1] === "\n") return end;
  const e = lineEnd(s, end);
  return e < s.length ? e + 1 : e;
};
const indentAt = (s: string, i: number): string => /^[ \t]*/.exec(s.slice(lineStart(s, i)))![0];
/** The end of the value's own text: a block's final newline stays with the lines after it. */
const valueEnd = (s: string, node: DataRange): number =>
  node.end > node.start && s[node.end - 1] === "\n" ? node.end - 1 : node.end;

/** Whether the text from the line's start to `start` is blank, and from `end` to the line's end is at most a comma and a comment. */
function aloneOnLines(s: string, start: number, end: number): boolean {
  return (
    s.slice(lineStart(s, start), start).trim() === "" &&
    /^[ \t]*,?[ \t]*((#|\/\/).*)?$/.test(s.slice(end, lineEnd(s, end)))
  );
}

interface Element {
  readonly spans: readonly DataRange[];
}

class DataEditor {
  constructor(
    readonly file: string,
    readonly format: DataFormat,
    readonly style: FileStyle,
  ) {}

  get nl(): string {
    return this.style.newline;
  }

  parse(text: string): DataDocument {
    const doc = parseData(text, this.format);
    if (doc.errors.length > 0) throw new DataFileUnparsable(this.file, this.format, doc.errors);
    return doc;
  }

  notFound(walk: KeyWalk, segments: readonly KeySegment[], hint = ""): KeyNotFound | ValueNotWritable {
    const error = keyNotFound(walk, this.file, formatKeyPath(segments), segments);
    return hint
      ? new ValueNotWritable(
          this.file,
          this.format,
          formatKeyPath(segments),
          `${error.message.replace(/\.$/, "")}; ${hint}`,
        )
      : error;
  }

  // -------------------------------------------------------------------------------------------
  // set

  set(text: string, segments: readonly KeySegment[], value: unknown): string {
    const path = formatKeyPath(segments);
    if (value === undefined)
      throw new ValueNotWritable(this.file, this.format, path, "set_key needs a value (any JSON value)");
    const doc = this.parse(text);
    const walk = walkKeyPath(doc.root, segments);
    if (walk.rest.length === 0) {
      const node = walk.container!;
      if (sameData(dataValue(node), value)) return text;
      if (node.type === "mapping" && node.style !== "flow" && isPlainObject(value)) {
        for (const [k, v] of Object.entries(value)) text = this.set(text, [...segments, { key: k }], v);
        for (const entry of node.entries)
          if (!(entry.key in value)) text = this.delete(text, [...segments, { key: entry.key }]);
        return text;
      }
      if (node.type === "sequence" && node.style === "tables" && Array.isArray(value) && value.every(isPlainObject)) {
        const count = node.items.length;
        for (const [i, v] of value.slice(0, count).entries()) text = this.set(text, [...segments, { index: i }], v);
        for (let i = count - 1; i >= value.length; i--) text = this.delete(text, [...segments, { index: i }]);
        for (const v of value.slice(count)) text = this.append(text, segments, v);
        return text;
      }
      return this.replace(text, walk, segments, value);
    }
    const container = walk.container;
    const keys = walk.rest.every((s) => "key" in s) ? walk.rest.map((s) => (s as { key: string }).key) : undefined;
    if (container?.type === "scalar" && container.value === null && keys && walk.steps.length > 0) {
      // `env:` with no value (YAML), `"a": null` (JSON): the path's missing keys make a new mapping there.
      return this.set(text, segments.slice(0, walk.steps.length), nest(keys, value));
    }
    if (!container && keys && this.format === "yaml") {
      const lead = text === "" || text.endsWith("\n") ? "" : this.nl;
      return text + lead + yamlEntry(keys[0]!, nest(keys.slice(1), value), this.style, "") + this.nl;
    }
    if (container?.type !== "mapping" || !keys) {
      const hint = walk.rest.some((s) => "index" in s)
        ? "set_key does not make list items: add one with append_item"
        : "";
      throw this.notFound(walk, segments, hint);
    }
    return this.insert(text, walk, container, keys, value);
  }

  /** Replaces the value a path names (its text), keeping the key and what follows the value. */
  replace(text: string, walk: KeyWalk, segments: readonly KeySegment[], value: unknown): string {
    const step = walk.steps[walk.steps.length - 1]!;
    const node = step.node;
    const path = formatKeyPath(segments);
    const put = (start: number, end: number, with_: string): string => text.slice(0, start) + with_ + text.slice(end);
    if (this.format === "json") {
      const inline = step.parent.style === "flow" || (node.type !== "scalar" && node.style === "flow");
      const anchor = step.entry ? step.entry.spans[0]!.start : node.start;
      return put(node.start, node.end, jsonValue(value, this.style, indentAt(text, anchor), inline));
    }
    if (this.format === "toml") {
      const structural =
        (node.type === "mapping" && node.style !== "flow") || (node.type === "sequence" && node.style === "tables");
      if (structural) return this.set(this.delete(text, segments), segments, value);
      if (node.type === "sequence" && node.style === "block" && Array.isArray(value)) {
        const first = node.items[0];
        const itemIndent = first ? indentAt(text, first.value.start) : indentAt(text, node.start) + this.style.unit;
        const lastItem = node.items[node.items.length - 1];
        const trailing = lastItem ? text.slice(lastItem.value.end, node.end).includes(",") : true;
        return put(
          node.start,
          node.end,
          tomlArrayBlock(value, this.style, this.file, path, itemIndent, indentAt(text, node.end - 1), trailing),
        );
      }
      return put(node.start, node.end, tomlInline(value, this.style, this.file, path));
    }
    // YAML
    if (
      step.parent.style === "flow" ||
      (node.type !== "scalar" && node.style === "flow" && !isPlainObject(value) && !Array.isArray(value))
    ) {
      return put(node.start, valueEnd(text, node), yamlInline(value, this.style));
    }
    if (node.type !== "scalar" && node.style === "flow")
      return put(node.start, valueEnd(text, node), yamlInline(value, this.style));
    if (step.entry) {
      const key = step.entry.keyRange;
      const colon = text.indexOf(":", key.end) + 1;
      const end = Math.max(colon, valueEnd(text, node));
      const keyIndent = text.slice(lineStart(text, key.start), key.start).replace(/[^\t]/g, " ");
      return put(colon, end, yamlEntry(undefined, value, this.style, keyIndent));
    }
    return put(node.start, valueEnd(text, node), yamlItem(value, this.style, indentAt(text, node.start)));
  }

  /** Adds the missing `keys` (the first under `container`, the others nested in it) with `value`. */
  insert(text: string, walk: KeyWalk, container: DataMapping, keys: readonly string[], value: unknown): string {
    const path = formatKeyPath([...walk.steps.map((s) => s.segment), ...keys.map((key) => ({ key }))]);
    const nested = nest(keys.slice(1), value);
    const nl = this.nl;
    const last = container.entries[container.entries.length - 1];
    const lastEnd = last ? Math.max(...last.spans.map((s) => s.end)) : 0;
    if (this.format === "json") {
      const key = JSON.stringify(keys[0]);
      if (last) {
        if (container.style === "flow")
          return insertAt(text, lastEnd, `, ${key}: ${jsonValue(nested, this.style, "", true)}`);
        const indent = indentAt(text, last.spans[0]!.start);
        return insertAt(text, lastEnd, `,${nl}${indent}${key}: ${jsonValue(nested, this.style, indent, false)}`);
      }
      const outer = indentAt(text, container.start);
      const inner = outer + this.style.unit;
      const block = text.includes("\n");
      const body = block
        ? `{${nl}${inner}${key}: ${jsonValue(nested, this.style, inner, false)}${nl}${outer}}`
        : `{${key}: ${jsonValue(nested, this.style, "", true)}}`;
      return text.slice(0, container.start) + body + text.slice(container.end);
    }
    if (this.format === "yaml") {
      if (container.style === "flow") {
        const entry = `${yamlInline(keys[0], this.style)}: ${yamlInline(nested, this.style)}`;
        return last
          ? insertAt(text, valueEnd(text, { start: 0, end: lastEnd }), `, ${entry}`)
          : text.slice(0, container.start) + `{${entry}}` + text.slice(container.end);
      }
      const first = container.entries[0]!;
      const indent = text.slice(lineStart(text, first.keyRange.start), first.keyRange.start).replace(/[^\t]/g, " ");
      const at = afterLine(text, valueEnd(text, { start: 0, end: lastEnd }));
      const lead = at === text.length && !text.endsWith("\n") ? nl : "";
      return insertAt(text, at, `${lead}${indent}${yamlEntry(keys[0]!, nested, this.style, indent)}${nl}`);
    }
    return this.insertToml(text, walk, container, keys, value, path);
  }

  insertToml(
    text: string,
    walk: KeyWalk,
    container: DataMapping,
    keys: readonly string[],
    value: unknown,
    path: string,
  ): string {
    const nl = this.nl;
    const dotted = (names: readonly string[]): string => names.map(tomlKey).join(".");
    const pair = (names: readonly string[]): string =>
      `${dotted(names)} = ${tomlInline(value, this.style, this.file, path)}`;
    const spanEnd = (spans: readonly DataRange[]): number => Math.max(...spans.map((s) => s.end));
    if (container.style === "flow") {
      const last = container.entries[container.entries.length - 1];
      return last
        ? insertAt(text, spanEnd(last.spans), `, ${pair(keys)}`)
        : text.slice(0, container.start) + `{${pair(keys)}}` + text.slice(container.end);
    }
    if (container.style === "dotted") {
      const owner = container.owner!;
      const names = [...container.keyPrefix!, ...keys];
      const end = Math.max(...container.entries.flatMap((e) => e.spans.map((s) => s.end)));
      return owner.style === "flow"
        ? insertAt(text, end, `, ${pair(names)}`)
        : insertAt(text, lineEnd(text, end), `${nl}${indentAt(text, end)}${pair(names)}`);
    }
    const inArray = walk.steps.some((s) => "index" in s.segment);
    const containerPath = walk.steps.map((s) => ("key" in s.segment ? s.segment.key : ""));
    const sections = this.style.sections && !inArray;
    const isRoot = container.style === "document";
    const lastStep = walk.steps[walk.steps.length - 1];
    // Where a new section goes: after the container's last section (its own and its sub-tables'), or at the end.
    const sectionAt = (): number =>
      isRoot || !lastStep?.entry ? text.length : afterLine(text, spanEnd(lastStep.entry.spans));
    const addSection = (block: string): string => {
      const at = sectionAt();
      const before = text.slice(0, at);
      const lead = before === "" ? "" : (before.endsWith("\n") ? "" : nl) + (this.style.blankBeforeSection ? nl : "");
      const trail = at < text.length ? nl + (this.style.blankBeforeSection ? nl : "") : nl;
      return before + lead + block + trail + text.slice(at).replace(/^(\r?\n)+/, "");
    };
    if (sections && isPlainObject(value) && Object.keys(value).length > 0) {
      return addSection(tomlSections([...containerPath, ...keys], value, this.style, this.file, path));
    }
    if (sections && (keys.length >= 2 || (!isRoot && !container.header))) {
      const table = keys.length >= 2 ? [...containerPath, ...keys.slice(0, -1)] : containerPath;
      const names = keys.length >= 2 ? keys.slice(-1) : keys;
      return addSection(`[${dotted(table)}]${nl}${pair(names)}`);
    }
    // A pair in the container's own body: after its last pair, or after its header, or (the top level) before the first section.
    const body = container.header ? container.header.end : 0;
    const firstSection = isRoot ? firstHeader(text) : container.end;
    const ownEnds = container.entries
      .flatMap((e) => e.spans)
      .filter((s) => s.start >= body && s.start < firstSection && text[s.start] !== "[")
      .map((s) => s.end);
    if (ownEnds.length > 0) {
      const end = Math.max(...ownEnds);
      return insertAt(text, lineEnd(text, end), `${nl}${indentAt(text, end)}${pair(keys)}`);
    }
    if (container.header) return insertAt(text, lineEnd(text, container.header.end), `${nl}${pair(keys)}`);
    if (firstSection < text.length) {
      // Above the first section and the comment lines that open it.
      let at = lineStart(text, firstSection);
      while (at > 0 && /^\s*#/.test(text.slice(lineStart(text, at - 1), at - 1))) at = lineStart(text, at - 1);
      return insertAt(text, at, `${pair(keys)}${nl}${nl}`);
    }
    const lead = text === "" || text.endsWith("\n") ? "" : nl;
    return text + lead + pair(keys) + nl;
  }

  // -------------------------------------------------------------------------------------------
  // delete

  delete(text: string, segments: readonly KeySegment[]): string {
    const doc = this.parse(text);
    const walk = walkKeyPath(doc.root, segments);
    if (walk.rest.length > 0) throw this.notFound(walk, segments);
    const step = walk.steps[walk.steps.length - 1]!;
    const parent = step.parent;
    const elements: readonly Element[] = parent.type === "mapping" ? parent.entries : parent.items;
    const index = step.entry ? (parent.type === "mapping" ? parent.entries.indexOf(step.entry) : -1) : step.index!;
    const element = elements[index]!;
    if (this.format === "toml") {
      const edits: Edit[] = [];
      const spans = [...new Map(element.spans.map((s) => [`${s.start}:${s.end}`, s])).values()];
      for (const span of spans) {
        if (text[span.start] === "[") edits.push(sectionRemoval(text, span));
        else if (parent.style === "flow" || (parent.type === "sequence" && parent.style === "block"))
          edits.push(...listRemoval(text, parent, elements, index));
        else edits.push({ start: lineStart(text, span.start), end: afterLine(text, span.end), text: "" });
      }
      return applyEdits(text, edits);
    }
    if (this.format === "json" || parent.style === "flow")
      return applyEdits(text, listRemoval(text, parent, elements, index));
    // YAML block
    const span = element.spans[0]!;
    const end = afterLine(text, valueEnd(text, span));
    if (elements.length === 1) {
      const empty = parent.type === "mapping" ? "{}" : "[]";
      const holder = walk.steps[walk.steps.length - 2];
      const cut = end > 0 && text[end - 1] === "\n" ? end - 1 : end;
      if (holder?.entry) {
        const colon = text.indexOf(":", holder.entry.keyRange.end) + 1;
        return text.slice(0, colon) + " " + empty + text.slice(cut);
      }
      const from =
        parent.type === "sequence" ? lineStart(text, span.start) + indentAt(text, span.start).length : span.start;
      return text.slice(0, from) + empty + text.slice(cut);
    }
    const start = lineStart(text, span.start);
    if (text.slice(start, span.start).trim() !== "" && parent.type === "mapping") {
      // The first key of a mapping that is a list item (`- name: a`): the next key moves up after the dash.
      const next = elements[index + 1];
      if (next) return text.slice(0, span.start) + text.slice(next.spans[0]!.start);
    }
    return text.slice(0, start) + text.slice(end);
  }

  // -------------------------------------------------------------------------------------------
  // append

  append(text: string, segments: readonly KeySegment[], value: unknown): string {
    const path = formatKeyPath(segments);
    if (value === undefined)
      throw new ValueNotWritable(this.file, this.format, path, "append_item needs a value (any JSON value)");
    const doc = this.parse(text);
    const walk = walkKeyPath(doc.root, segments);
    const node = walk.container;
    if (walk.rest.length > 0 || (node?.type === "scalar" && node.value === null)) {
      if (walk.rest.every((s) => "key" in s) && walk.container?.type !== "sequence")
        return this.set(text, segments, [value]);
      throw this.notFound(walk, segments);
    }
    if (node?.type !== "sequence") {
      throw new ValueNotWritable(
        this.file,
        this.format,
        path,
        `it holds ${node?.type === "mapping" ? "a mapping" : `the value ${JSON.stringify(node?.type === "scalar" ? node.value : null)}`}, not a list: append_item adds to a list (use set_key to replace the value)`,
      );
    }
    const nl = this.nl;
    const last = node.items[node.items.length - 1];
    if (node.style === "tables") {
      if (!isPlainObject(value))
        throw new ValueNotWritable(
          this.file,
          this.format,
          path,
          "it is an array of tables ([[...]]): append a table (a JSON object)",
        );
      if (segments.some((s) => "index" in s))
        throw new ValueNotWritable(
          this.file,
          this.format,
          path,
          "an array of tables inside another array of tables is appended to with a text step",
        );
      const sections = tomlSections(
        segments.map((s) => (s as { key: string }).key),
        value,
        this.style,
        this.file,
        path,
        true,
      );
      const at = afterLine(text, Math.max(...node.items.flatMap((i) => i.spans.map((s) => s.end))));
      const lead = (text.slice(0, at).endsWith("\n") ? "" : nl) + (this.style.blankBeforeSection ? nl : "");
      const trail = at < text.length ? nl + (this.style.blankBeforeSection ? nl : "") : nl;
      return text.slice(0, at) + lead + sections + trail + text.slice(at).replace(/^(\r?\n)+/, "");
    }
    const render = (indent: string, inline: boolean): string =>
      this.format === "json"
        ? jsonValue(value, this.style, indent, inline)
        : this.format === "toml"
          ? tomlInline(value, this.style, this.file, path)
          : inline
            ? yamlInline(value, this.style)
            : yamlItem(value, this.style, indent);
    if (this.format === "yaml" && node.style === "block") {
      const dashIndent = indentAt(text, last!.value.start);
      const at = afterLine(text, valueEnd(text, last!.value));
      const lead = at === text.length && !text.endsWith("\n") ? nl : "";
      return insertAt(text, at, `${lead}${dashIndent}- ${render(dashIndent, false)}${nl}`);
    }
    if (!last) return text.slice(0, node.start) + `[${render("", true)}]` + text.slice(node.end);
    const lastEnd = last.value.end;
    if (node.style === "block" && aloneOnLines(text, last.value.start, lastEnd)) {
      const indent = indentAt(text, last.value.start);
      const afterLast = text.slice(lastEnd, lineEnd(text, lastEnd));
      const comma = afterLast.indexOf(",");
      if (comma >= 0) return insertAt(text, lineEnd(text, lastEnd), `${nl}${indent}${render(indent, false)},`);
      return insertAt(text, lastEnd, `,${nl}${indent}${render(indent, false)}`);
    }
    return insertAt(text, lastEnd, `, ${render("", true)}`);
  }
}

const insertAt = (text: string, at: number, what: string): string => text.slice(0, at) + what + text.slice(at);

function firstHeader(text: string): number {
  const match = /^[ \t]*\[/m.exec(text);
  return match ? match.index : text.length;
}

/** A TOML section, its lines, and the blank lines after it when a blank line (or the file's start) is before it. */
function sectionRemoval(text: string, span: DataRange): Edit {
  const start = lineStart(text, span.start);
  let end = afterLine(text, span.end);
  if (start === 0 || text.slice(0, start).endsWith("\n\n") || text.slice(0, start).endsWith("\r\n\r\n")) {
    while (end < text.length && /^[ \t]*\r?$/.test(text.slice(end, lineEnd(text, end))))
      end = afterLine(text, lineEnd(text, end));
  }
  return { start, end, text: "" };
}

/**
 * An element of a comma-separated list (a JSON object or array, a flow collection, a TOML inline
 * table or array): its lines when it stands alone on them, else its text and one comma.
 */
function listRemoval(text: string, parent: DataRange, elements: readonly Element[], index: number): Edit[] {
  const span = (i: number): DataRange => elements[i]!.spans[0]!;
  const own = span(index);
  if (elements.length === 1) {
    const open = parent.start + 1;
    let close = parent.end - 1;
    while (close > open && text[close] !== "]" && text[close] !== "}") close--;
    return [{ start: open, end: close, text: "" }];
  }
  const isLast = index === elements.length - 1;
  if (text.slice(parent.start, parent.end).includes("\n") && aloneOnLines(text, own.start, own.end)) {
    const edits: Edit[] = [{ start: lineStart(text, own.start), end: afterLine(text, own.end), text: "" }];
    const hadComma = text.slice(own.end, lineEnd(text, own.end)).includes(",");
    if (isLast && !hadComma) {
      const prev = span(index - 1);
      const comma = text.indexOf(",", prev.end);
      if (comma >= 0 && comma < own.start) edits.push({ start: comma, end: comma + 1, text: "" });
    }
    return edits;
  }
  return isLast
    ? [{ start: span(index - 1).end, end: own.end, text: "" }]
    : [{ start: own.start, end: span(index + 1).start, text: "" }];
}

export { indentRest };

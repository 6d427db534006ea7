/**
 * The pre-checks of one step against the current simulated files (the checks of `CHECKS` in
 * issues.ts): `files`, `symbols`, `lines`, `locator`, `content` (existence, near matches,
 * duplicates), `drift`, `context` (a pattern in a string or comment), `rename` (occurrences).
 */
import { inStringOrComment, LANGUAGES, type Graph, type GraphSymbol } from "@graphplan/graph";
import {
  describeMatch,
  kindOfNode,
  nodeName,
  resolveLocator,
  resolveSome,
  isLocatorError,
  type LocatorError,
  type LocatorNotFound,
} from "@graphplan/locators";
import type { Node } from "web-tree-sitter";
import { didYouMean } from "@graphplan/catalog";
import { nearMatch, preview } from "./fuzzy.js";
import type { Issue } from "./issues.js";
import { LINE_OPS, RENAME_OPS, SYMBOL_PARAMS, definedName } from "./ops.js";
import type { Edit } from "@graphplan/primitives";
import type { FileVersion, Sim } from "./sim.js";

export type Report = (issue: Omit<Issue, "step" | "op">) => void;

export interface StepView {
  readonly index: number;
  readonly op: string;
  readonly params: Record<string, unknown>;
  /** Locators of the step (params.locator, a fragment's locator, nested ones), with `$` variables left out. */
  readonly locators: readonly Record<string, unknown>[];
  /** Every `file` the step names. */
  readonly files: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);
const hasVariable = (v: unknown): boolean =>
  typeof v === "string"
    ? v.includes("$")
    : Array.isArray(v)
      ? v.some(hasVariable)
      : isObject(v)
        ? Object.values(v).some(hasVariable)
        : false;

const LOCATOR_KEYS = new Set([
  "kind",
  "name",
  "file",
  "parent",
  "field",
  "nth_child",
  "index",
  "type",
  "query",
  "capture",
]);

/** Locators anywhere in a value: objects with a `file` and a `kind`, `name`, `type` or `query`. */
export function findLocators(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(value)) for (const v of value) findLocators(v, out);
  else if (isObject(value)) {
    const looksLike =
      typeof value["file"] === "string" &&
      ("kind" in value || "name" in value || "type" in value || "query" in value || "field" in value) &&
      Object.keys(value).every((k) => LOCATOR_KEYS.has(k));
    if (looksLike && !hasVariable(value)) out.push(value);
    else for (const [k, v] of Object.entries(value)) if (k !== "parent") findLocators(v, out);
  }
  return out;
}

/** Every `file` string in a value (except "all"), and the files of an `importers` list. */
export function findFiles(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) findFiles(v, out);
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "file" && typeof v === "string" && v !== "all" && !v.includes("$")) out.add(v);
      else if (k === "importers" && Array.isArray(v)) {
        for (const f of v) if (typeof f === "string" && f) out.add(f);
      } else findFiles(v, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Checks `files`, `symbols`, `lines`

/** What is said of a step that names a file an earlier step deleted (`byStep`, 0-based). */
export function deletedFileIssue(file: string, byStep: number): { message: string; fix: string } {
  return {
    message: `File '${file}' was deleted by step ${byStep + 1} (delete_file or rename_file)`,
    fix: "address the file by the path it has now (after a rename_file, its `to`), or drop this step",
  };
}

export function checkFiles(view: StepView, sim: Sim, report: Report): boolean {
  let ok = true;
  for (const file of view.files) {
    if (sim.has(file)) continue;
    ok = false;
    const deletedBy = sim.deletedBy(file);
    if (deletedBy !== undefined) {
      report({ check: "files", severity: "error", file, ...deletedFileIssue(file, deletedBy) });
      continue;
    }
    // An absolute path that ends with a workspace path: the relative path is meant.
    const absolute = file.startsWith("/")
      ? [...sim.paths()]
          .filter((p: string) => file.endsWith(`/${p}`))
          .sort((a: string, b: string) => b.length - a.length)[0]
      : undefined;
    const suggestion = absolute ?? didYouMean(file, sim.paths());
    report({
      check: "files",
      severity: "error",
      file,
      message: absolute
        ? `File '${file}' is an absolute path; paths are relative to the workspace root`
        : `File '${file}' does not exist`,
      fix: suggestion
        ? `did you mean '${suggestion}'? Use a path relative to the workspace root ("file": "${suggestion}")`
        : "use the path of an existing file, relative to the workspace root (see the graph)",
    });
  }
  return ok;
}

interface SymbolDef {
  readonly name: string;
  readonly kind: string;
  readonly line: number;
}

/** Definitions of a file as it is now: from the graph while untouched, from the current tree once edited. */
function symbolsOf(file: string, sim: Sim, graph: Graph, kinds?: ReadonlySet<string>): SymbolDef[] {
  if (!sim.touched.has(file)) {
    const fromGraph = graph.symbols.filter((s) => s.file === file);
    if (fromGraph.length || Object.hasOwn(graph.line_kinds, file))
      return fromGraph.map((s) => ({ name: s.name, kind: s.kind, line: s.start_line }));
  }
  const doc = sim.doc(file);
  if (!doc) return [];
  const key = `symbols:${kinds ? [...kinds].join(",") : "*"}`;
  const cached = doc.memo.get(key) as SymbolDef[] | undefined;
  if (cached) return cached;
  const spec = LANGUAGES[doc.language];
  const out: SymbolDef[] = [];
  const types = Object.entries(spec.definitions)
    .filter(([, rule]) => !kinds || rule.kindOf !== undefined || kinds.has(rule.kind))
    .map(([type]) => type);
  for (const node of doc.tree.rootNode.descendantsOfType(types)) {
    if (!node) continue;
    const rule = spec.definitions[node.type]!;
    const name = rule.name ? rule.name(node) : (node.childForFieldName("name")?.text ?? null);
    if (name) out.push({ name, kind: rule.kindOf ? rule.kindOf(node) : rule.kind, line: node.startPosition.row + 1 });
  }
  doc.memo.set(key, out);
  return out;
}

/**
 * A locator that names a definition its file does not have, while other files of the graph define
 * that name: where they are (a model often addresses a method in the subclass it read, while the
 * base class in another module defines it). Only when nothing in the locator's own file has the name.
 */
function definedElsewhere(error: LocatorNotFound, graph: Graph | undefined): string | undefined {
  const name = (error.locator as Record<string, unknown>)["name"];
  if (!graph || typeof name !== "string" || error.candidates.some((c) => c.name === name)) return undefined;
  const found = graph.symbols.filter((s) => s.name === name && s.file !== error.file);
  if (found.length === 0 || found.length > 5) return undefined;
  const owner = (s: GraphSymbol): string | undefined =>
    graph.symbols.find(
      (o) => o.file === s.file && o.kind === "class" && o.start_line < s.start_line && o.end_line >= s.end_line,
    )?.name;
  const places = found.slice(0, 3).map((s) => {
    const cls = owner(s);
    return `${s.file} (${cls ? `method '${name}' of class ${cls}` : `${s.kind} '${name}'`}, line ${s.start_line})`;
  });
  return `'${name}' is not defined in ${error.file}; it is defined in ${places.join(", ")}: put that file in the locator${found.length === 1 && owner(found[0]!) ? `, and its class as the parent` : ""}`;
}

/**
 * Whether the file defines `name` as one of `kinds` now: from the graph while untouched, else
 * from the definitions around the name's occurrences in the current tree (a narrowed locator
 * search, cached per tree), not from every definition of the file.
 */
function defines(file: string, name: string, kinds: ReadonlySet<string>, sim: Sim, graph: Graph): boolean {
  if (!sim.touched.has(file)) {
    const fromGraph = graph.symbols.filter((s) => s.file === file);
    if (fromGraph.length || Object.hasOwn(graph.line_kinds, file))
      return fromGraph.some((s) => s.name === name && kinds.has(s.kind));
  }
  const doc = sim.doc(file);
  if (!doc) return false;
  const rules = LANGUAGES[doc.language].definitions;
  let candidates;
  try {
    candidates = resolveLocator(doc.tree, doc.source, doc.language, { file, name });
  } catch (error) {
    if (isLocatorError(error))
      return symbolsOf(file, sim, graph, kinds).some((s) => s.name === name && kinds.has(s.kind));
    throw error;
  }
  return candidates.some((node) => {
    const rule = rules[node.type];
    if (!rule) return false;
    const defined = rule.name ? rule.name(node) : (node.childForFieldName("name")?.text ?? null);
    return defined === name && kinds.has(rule.kindOf ? rule.kindOf(node) : rule.kind);
  });
}

const CLASS_KINDS = new Set(["class", "struct", "interface", "trait", "enum", "impl", "module"]);
const FUNCTION_KINDS = new Set(["function", "method", "constructor", "singleton_method"]);

export function checkSymbols(view: StepView, sim: Sim, graph: Graph, report: Report): boolean {
  const file = typeof view.params["file"] === "string" ? view.params["file"] : undefined;
  if (!file || !sim.has(file)) return true;
  let ok = true;
  for (const [param, want] of Object.entries(SYMBOL_PARAMS)) {
    const name = view.params[param];
    if (typeof name !== "string") continue;
    const kinds = want === "class" ? CLASS_KINDS : FUNCTION_KINDS;
    if (defines(file, name, kinds, sim, graph)) continue;
    // Missing: every symbol of the file, for the message.
    const symbols = symbolsOf(file, sim, graph);
    if (symbols.some((s) => s.name === name && kinds.has(s.kind))) continue;
    ok = false;
    const other = symbols.find((s) => s.name === name);
    const suggestion = didYouMean(
      name,
      symbols.filter((s) => kinds.has(s.kind)).map((s) => s.name),
    );
    const label = want === "class" ? "Class" : "Function";
    report({
      check: "symbols",
      severity: "error",
      file,
      message: `${label} '${name}' not found in ${file}${other ? ` (there is a ${other.kind} '${name}' at line ${other.line})` : ""}`,
      fix: suggestion
        ? `did you mean '${suggestion}'? Use the name of a ${want} defined in ${file}`
        : `use the name of a ${want} defined in ${file} (see the graph), or add it in an earlier step`,
    });
  }
  return ok;
}

export function checkBounds(view: StepView, sim: Sim, report: Report): boolean {
  const lineParams = LINE_OPS[view.op];
  const file = typeof view.params["file"] === "string" ? view.params["file"] : undefined;
  if (!lineParams || !file) return true;
  const text = sim.text(file);
  if (text === undefined) return true;
  const count = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  let ok = true;
  for (const p of lineParams) {
    const n = view.params[p];
    if (typeof n !== "number") continue;
    if (n < 1 || n > count) {
      ok = false;
      report({
        check: "lines",
        severity: "error",
        file,
        message: `${p} ${n} out of range for ${file} (1..${count} when this step runs)`,
        fix: `use a line between 1 and ${count}, or an AST locator (replace_node / insert_after_node) that does not depend on line numbers`,
      });
    }
  }
  const s = view.params["start_line"];
  const e = view.params["end_line"];
  if (typeof s === "number" && typeof e === "number" && s > e) {
    ok = false;
    report({
      check: "lines",
      severity: "error",
      file,
      message: `start_line ${s} > end_line ${e}`,
      fix: "give the first line as start_line and the last as end_line",
    });
  }
  return ok;
}

// ---------------------------------------------------------------------------------------------
// Check `locator`: locators resolve (structured and S-expression)

export function locatorMessage(error: LocatorError, graph?: Graph): { message: string; fix: string } {
  switch (error._tag) {
    case "LocatorNotFound": {
      const c = error.candidates;
      const elsewhere = definedElsewhere(error, graph);
      return {
        message: `Locator did not match any AST node in ${error.file}${error.reason ? `: ${error.reason}` : ""} (${JSON.stringify(error.locator)})`,
        fix: elsewhere
          ? elsewhere
          : c.length
            ? `did you mean ${c
                .slice(0, 3)
                .map(
                  (x) =>
                    `${x.kind} '${x.name}' (line ${x.line}${x.reason === "outside_parent" ? ", outside the given parent" : ""})`,
                )
                .join(", ")}? Correct the locator's kind, name or parent`
            : "check the kind and name against the graph; for an S-expression locator check the query against the file's syntax tree",
      };
    }
    case "LocatorAmbiguous":
      return {
        message: `Locator matches ${error.matches.length} nodes in ${error.file}: ${error.matches
          .slice(0, 4)
          .map((m, i) => `[${i}] line ${m.line}: ${m.text}`)
          .join("; ")}`,
        fix: 'add "index" (0-based, -1 for the last) or a "parent" locator to choose one',
      };
    case "InvalidQuery":
      return {
        message: `Invalid S-expression query for ${error.file}: ${error.detail}`,
        fix: 'write a valid tree-sitter query with a capture such as "@target", and name it in "capture"',
      };
    case "UnknownKind":
      return {
        message: `Unknown locator kind '${error.kind}' for ${error.language} (${error.file})`,
        fix: `did you mean '${error.validKinds[0]}'? The kinds of ${error.language}: ${[...error.validKinds].sort().join(", ")}`,
      };
    case "InvalidLocator":
      return {
        message: `Invalid locator ${JSON.stringify(error.locator)}: ${error.issues.join("; ")}`,
        fix: 'a locator is {"kind", "name", "file", "parent"?, "field"?, "nth_child"?, "index"?} or {"type": "sexp", "file", "query", "capture"}',
      };
    case "KeyNotFound":
      return {
        message: error.message,
        fix: error.nearest.length
          ? `did you mean ${error.nearest
              .slice(0, 3)
              .map((k) => `${error.found ? `${error.found}.` : ""}${k}`)
              .join(", ")}? Correct the key path`
          : "check the key path against the file (set_key adds a missing key)",
      };
    case "KeyPathInvalid":
      return {
        message: error.message,
        fix: 'write keys separated by dots, quote a key holding a dot (tool."setuptools.packages"), index list items as steps[2]',
      };
  }
}

export interface ResolvedTarget {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  readonly type: string;
}

/** Resolves every locator of the step; reports each that fails. Returns the targets that resolved. */
export function checkLocators(
  view: StepView,
  sim: Sim,
  report: Report,
  graph?: Graph,
): { ok: boolean; targets: ResolvedTarget[] } {
  const targets: ResolvedTarget[] = [];
  let ok = true;
  for (const locator of view.locators) {
    const file = locator["file"] as string;
    const doc = sim.doc(file);
    if (!doc) continue; // missing files are the `files` check's; unknown languages cannot be located
    try {
      for (const node of resolveSome(doc.tree, doc.source, doc.language, locator)) {
        targets.push({ file, start: node.startIndex, end: node.endIndex, type: node.type });
      }
    } catch (error) {
      if (!isLocatorError(error)) throw error;
      ok = false;
      const { message, fix } = locatorMessage(error, graph);
      report({ check: "locator", severity: "error", file, message, fix });
    }
  }
  return { ok, targets };
}

// ---------------------------------------------------------------------------------------------
// Check `content`: content existence, near matches, duplicates

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Pre-checks text an op quotes. Returns false when the step cannot run as written. */
export function checkContent(view: StepView, sim: Sim, report: Report): { ok: boolean; nearMiss?: string } {
  const p = view.params;
  const file = typeof p["file"] === "string" ? p["file"] : undefined;
  const content = file ? sim.text(file) : undefined;
  if (!file || content === undefined) return { ok: true };
  const quoted: [string, string][] = [];
  if (view.op === "replace_code" && typeof p["pattern"] === "string") quoted.push(["pattern", p["pattern"]]);
  if (view.op === "modify_function_signature" && typeof p["old_signature"] === "string")
    quoted.push(["old_signature", p["old_signature"]]);
  let ok = true;
  let nearMiss: string | undefined;
  for (const [param, text] of quoted) {
    if (content.includes(text)) continue;
    const near = nearMatch(content, text);
    if (near && near.ratio >= 0.8) {
      nearMiss = `${Math.round(near.ratio * 100)}% similar text at line ${near.line}: ${JSON.stringify(preview(near.text, 80))}`;
      report({
        check: "content",
        severity: "warning",
        file,
        line: near.line,
        message: `${param} not found exactly in ${file}, but a ${nearMiss}`,
        fix: `copy the file's text exactly into ${param} (the executor may otherwise match the similar text)`,
      });
    } else {
      // The executor decides (it may match whitespace-insensitively); an exact miss with no near
      // match is reported here, the executor's own failure is not repeated.
      ok = false;
      report({
        check: "content",
        severity: "error",
        file,
        message: `${param === "pattern" ? "Pattern" : "Old signature"} not found in ${file}: ${JSON.stringify(preview(text))}${near ? ` (the closest text, ${Math.round(near.ratio * 100)}% similar, is at line ${near.line}: ${JSON.stringify(preview(near.text))})` : ""}`,
        fix: `copy the exact text of ${file} into ${param}, or use an AST locator (replace_node) instead of a text pattern`,
      });
    }
  }
  const rename = RENAME_OPS[view.op];
  if (rename && typeof p[rename.old] === "string" && view.op === "rename_symbol") {
    const name = p[rename.old] as string;
    if (!new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`).test(content)) {
      ok = false;
      const ids = new Set(content.match(/[A-Za-z_$][\w$]*/g) ?? []);
      const suggestion = didYouMean(name, ids);
      report({
        check: "content",
        severity: "error",
        file,
        message: `'${name}' does not occur in ${file}`,
        fix: suggestion ? `did you mean '${suggestion}'?` : `use a name that occurs in ${file} (see the graph)`,
      });
    }
  }
  if (view.op === "add_import" && typeof p["import_statement"] === "string") {
    const statement = p["import_statement"].trim();
    if (statement && content.split("\n").some((l) => l.trim() === statement)) {
      report({
        check: "content",
        severity: "warning",
        file,
        message: `duplicate import: '${statement}' is already in ${file}`,
        fix: "drop this step",
      });
    }
  }
  const methodCode = typeof p["method_code"] === "string" ? p["method_code"] : undefined;
  if (methodCode && typeof p["class_name"] === "string") {
    const name = definedName(methodCode);
    if (
      name &&
      new RegExp(
        `(?:def|function|fn|func)\\s+${escapeRegExp(name)}\\s*\\(|^\\s*(?:(?:public|private|protected|static|async)\\s+)*${escapeRegExp(name)}\\s*\\([^)]*\\)\\s*\\{`,
        "m",
      ).test(content)
    ) {
      report({
        check: "content",
        severity: "warning",
        file,
        message: `a method '${name}' already exists in ${file}; adding another may shadow or duplicate it`,
        fix: `replace the existing '${name}' with replace_node instead, or give the new method another name`,
      });
    }
  }
  return { ok, ...(nearMiss ? { nearMiss } : {}) };
}

/** Check `content`: code a step inserts that the file already has, verbatim (a re-applied step). */
export function checkDuplicateInsert(view: StepView, sim: Sim, report: Report): void {
  if (!/^insert_|^add_class_attribute$|^insert_code$/.test(view.op)) return;
  const code = view.params["code"] ?? view.params["attribute_code"];
  if (typeof code !== "string") return;
  const file =
    (view.locators[0]?.["file"] as string | undefined) ??
    (typeof view.params["file"] === "string" ? view.params["file"] : undefined);
  const content = file ? sim.text(file) : undefined;
  if (!file || content === undefined) return;
  const lines = code
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  if (lines.length === 0 || lines.join("").length < 12) return;
  // Only the lines where the first code line occurs are compared (no split of the whole file).
  const lineAt = (start: number): { text: string; next: number } => {
    const end = content.indexOf("\n", start);
    return end < 0
      ? { text: content.slice(start), next: content.length + 1 }
      : { text: content.slice(start, end), next: end + 1 };
  };
  for (let at = content.indexOf(lines[0]!); at >= 0; at = content.indexOf(lines[0]!, at + 1)) {
    const lineStart = content.lastIndexOf("\n", at - 1) + 1;
    let cursor = lineStart;
    const same = lines.every((l) => {
      if (cursor > content.length) return false;
      const { text, next } = lineAt(cursor);
      cursor = next;
      return text.trim() === l;
    });
    if (same) {
      const i = content.slice(0, lineStart).split("\n").length - 1;
      report({
        check: "content",
        severity: "warning",
        file,
        line: i + 1,
        message: `duplicate insertion: the code to insert is already in ${file} at line ${i + 1} (${JSON.stringify(preview(code))})`,
        fix: "drop this step if it was already applied, or change the code",
      });
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Check `drift`: line drift

/** Per file, how each committed step moved lines: a list of (first old line, old line count, new line count). */
export class LineDrift {
  readonly #moves = new Map<
    string,
    { step: number; edits: { line: number; oldLines: number; newLines: number }[] }[]
  >();

  record(step: number, doc: FileVersion, edits: readonly Edit[]): void {
    const list = this.#moves.get(doc.path) ?? [];
    list.push({
      step,
      edits: edits.map((e) => {
        const removed = doc.source.slice(e.start, e.end);
        const count = (s: string) => (s.match(/\n/g) ?? []).length;
        return { line: doc.lineOf(e.start), oldLines: count(removed), newLines: count(e.text) };
      }),
    });
    this.#moves.set(doc.path, list);
  }

  /** Where line `line` of the original file is now, and which steps moved it. */
  map(file: string, line: number): { line: number; steps: number[]; rewritten: number[] } {
    let at = line;
    const steps: number[] = [];
    const rewritten: number[] = [];
    for (const { step, edits } of this.#moves.get(file) ?? []) {
      let shift = 0;
      for (const e of edits) {
        if (e.line + e.oldLines < at || (e.line < at && e.oldLines === 0)) shift += e.newLines - e.oldLines;
        else if (e.line < at && at <= e.line + e.oldLines && e.newLines !== e.oldLines) rewritten.push(step);
      }
      if (shift !== 0) steps.push(step);
      at += shift;
    }
    return { line: at, steps, rewritten };
  }
}

export function checkDrift(view: StepView, drift: LineDrift, report: Report): void {
  const lineParams = LINE_OPS[view.op];
  const file = typeof view.params["file"] === "string" ? view.params["file"] : undefined;
  if (!lineParams || !file) return;
  for (const p of lineParams) {
    const n = view.params[p];
    if (typeof n !== "number") continue;
    const moved = drift.map(file, n);
    const by = moved.line - n;
    if (by !== 0) {
      report({
        check: "drift",
        severity: "warning",
        file,
        message: `${p} ${n} may be off by ${by > 0 ? "+" : ""}${by} lines due to earlier edits on ${file} (step${moved.steps.length > 1 ? "s" : ""} ${moved.steps.map((i) => i + 1).join(", ")}): line ${n} of the original file is line ${moved.line} when this step runs`,
        fix: `use line ${moved.line} if you meant the original line ${n}, or better an AST locator (insert_after_node / delete_node / wrap_node), which does not drift`,
      });
      return;
    }
    if (moved.rewritten.length) {
      report({
        check: "drift",
        severity: "warning",
        file,
        message: `${p} ${n} is in lines that step ${moved.rewritten.map((i) => i + 1).join(", ")} rewrote in ${file}`,
        fix: "check the line against the file as the earlier steps leave it, or use an AST locator",
      });
      return;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Check `context`: is a pattern's match code, or inside a string or comment?

export function checkPatternContext(view: StepView, sim: Sim, report: Report): void {
  const pattern =
    view.op === "replace_code"
      ? view.params["pattern"]
      : view.op === "modify_function_signature"
        ? view.params["old_signature"]
        : undefined;
  const file = typeof view.params["file"] === "string" ? view.params["file"] : undefined;
  if (typeof pattern !== "string" || !file) return;
  const doc = sim.doc(file);
  if (!doc) return;
  const at = doc.source.indexOf(pattern);
  if (at < 0) return;
  const lead = pattern.length - pattern.trimStart().length;
  const probe = at + lead;
  const node = doc.tree.rootNode.descendantForIndex(probe, Math.max(probe, at + pattern.trimEnd().length - 1));
  const where = node ? inStringOrComment(node, doc.language) : undefined;
  if (!where) return;
  report({
    check: "context",
    severity: "warning",
    file,
    line: doc.lineOf(at),
    message: `Pattern match in ${file} at line ${doc.lineOf(at)} (offset ${at}) is inside a ${where} node (may not be actual code)`,
    fix: `quote the code you mean to change, not text inside a ${where}; an AST locator (replace_node) avoids this`,
  });
}

// ---------------------------------------------------------------------------------------------
// Check `rename`: where do the occurrences of a renamed symbol stand?

export interface Occurrences {
  definitions: number;
  references: number;
  inStrings: number;
  inComments: number;
}

export function classifyOccurrences(doc: FileVersion, name: string): Occurrences {
  const counts: Occurrences = { definitions: 0, references: 0, inStrings: 0, inComments: 0 };
  const re = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, "g");
  for (const m of doc.source.matchAll(re)) {
    const index = m.index ?? 0;
    const node = doc.tree.rootNode.descendantForIndex(index, index + name.length - 1);
    if (!node) continue;
    const where = inStringOrComment(node, doc.language);
    if (where === "string") counts.inStrings++;
    else if (where === "comment") counts.inComments++;
    else if (
      node.parent &&
      node.parent.childForFieldName("name")?.id === node.id &&
      LANGUAGES[doc.language].definitions[node.parent.type]
    )
      counts.definitions++;
    else counts.references++;
  }
  return counts;
}

export function checkRename(view: StepView, sim: Sim, report: Report): void {
  const names = RENAME_OPS[view.op];
  const file =
    typeof view.params["file"] === "string" ? view.params["file"] : (view.locators[0]?.["file"] as string | undefined);
  const doc = file ? sim.doc(file) : undefined;
  if (!doc) return;
  const oldName = names ? view.params[names.old] : sexpIdentifier(view);
  if (typeof oldName !== "string") return;
  const counts = classifyOccurrences(doc, oldName);
  const filtered = view.op === "replace_all_matching" && view.params["filter"] === "not_in_string_or_comment";
  if (!filtered && view.op !== "rename_identifier" && (counts.inStrings > 0 || counts.inComments > 0)) {
    const parts = [
      counts.inStrings ? `strings (${counts.inStrings}x)` : "",
      counts.inComments ? `comments (${counts.inComments}x)` : "",
    ].filter(Boolean);
    report({
      check: "rename",
      severity: "warning",
      file: doc.path,
      message: `'${oldName}' also appears in ${parts.join(" and ")} in ${doc.path} (besides ${counts.definitions} definition${counts.definitions === 1 ? "" : "s"} and ${counts.references} reference${counts.references === 1 ? "" : "s"}) -- ${view.op === "rename_symbol" ? "regex rename" : "this replacement"} will change these too`,
      fix: `use replace_all_matching with an (identifier) S-expression locator and "filter": "not_in_string_or_comment" to rename only code`,
    });
  }
  const newName = names ? view.params[names.new] : view.params["replacement"];
  if (typeof newName === "string" && /^[A-Za-z_$][\w$]*$/.test(newName) && newName !== oldName) {
    const clash = classifyOccurrences(doc, newName);
    if (clash.definitions + clash.references > 0) {
      report({
        check: "rename",
        severity: "warning",
        file: doc.path,
        message: `the new name '${newName}' is already used in ${doc.path} (${clash.definitions} definition${clash.definitions === 1 ? "" : "s"}, ${clash.references} reference${clash.references === 1 ? "" : "s"}): the rename may collide`,
        fix: "choose a name not used in the file",
      });
    }
  }
}

/** The identifier an `(identifier) @x (#eq? @x "name")` locator renames. */
function sexpIdentifier(view: StepView): string | undefined {
  if (view.op !== "replace_all_matching") return undefined;
  const locator = view.params["locator"];
  if (!isObject(locator) || locator["type"] !== "sexp" || typeof locator["query"] !== "string") return undefined;
  const m =
    /\(\s*(?:identifier|property_identifier|field_identifier|type_identifier)\s*\)\s*@\w+\s*\(#eq\?\s*@\w+\s*"([^"]+)"\s*\)/.exec(
      locator["query"],
    );
  return m?.[1];
}

export { describeMatch };

// ---------------------------------------------------------------------------------------------
// Positional locators: an index off by one is another valid plan, so say when a name or parent would do

const SCOPE_KINDS = new Set([
  "function",
  "method",
  "class",
  "interface",
  "struct",
  "impl",
  "module",
  "namespace",
  "trait",
  "enum",
]);

/**
 * Warns when a locator picks its node by position (`index`) although a name would address it
 * (the node has one and the locator does not give it) or a parent would narrow the count (the
 * node is inside a named function or class and the locator has no parent): an index that is off
 * by one edits another node silently, a name or parent fails loudly.
 */
/**
 * When a positional locator's parent matches several nodes, its index counts the nodes of all of
 * them: say which parent the picked node is in, and the parent locator (with its index) that names it.
 */
function severalParents(
  locator: Record<string, unknown>,
  node: Node,
  doc: FileVersion,
): { message: string; fix: string } | undefined {
  const parent = locator["parent"];
  if (!isObject(parent) || parent["index"] !== undefined) return undefined;
  let parents: Node[];
  try {
    parents = resolveLocator(doc.tree, doc.source, doc.language, { ...parent, file: locator["file"] } as never);
  } catch {
    return undefined;
  }
  if (parents.length < 2) return undefined;
  const at = parents.findIndex((p) => p.startIndex <= node.startIndex && node.endIndex <= p.endIndex);
  if (at < 0) return undefined;
  const lines = parents.map((p) => p.startPosition.row + 1);
  return {
    message: `its parent ${JSON.stringify(parent)} matches ${parents.length} nodes (lines ${lines.join(", ")}): index ${String(locator["index"])} counts the ${String(locator["kind"])} nodes of all of them and picked line ${node.startPosition.row + 1}, in the one at line ${lines[at]}`,
    fix: `if that is the one meant, say so: ${JSON.stringify({ ...locator, parent: { ...parent, index: at } })}; else give the parent the index of the one meant (0..${parents.length - 1})`,
  };
}

/** The longest name the positional advice quotes (a string node's "name" is its whole text: a docstring's is hundreds of characters). */
const SUGGESTED_NAME_MAX = 60;

/** A name a model can write back in a locator: one line, short. Else undefined (the advice then uses the parent and an index within it). */
function writableName(name: string | undefined): string | undefined {
  return name !== undefined && name.length <= SUGGESTED_NAME_MAX && !name.includes("\n") ? name : undefined;
}

export function checkPositional(view: StepView, sim: Sim, report: Report): void {
  for (const locator of view.locators) {
    // `-1` (the last one) is how "after the last import / member" is said; it is not an off-by-one risk.
    if (typeof locator["index"] !== "number" || locator["index"] < 0 || locator["type"] === "sexp") continue;
    const file = locator["file"] as string;
    const doc = sim.doc(file);
    if (!doc) continue;
    let node: Node | undefined;
    let count = 0;
    try {
      const all = resolveLocator(doc.tree, doc.source, doc.language, { ...locator, index: undefined } as never);
      count = all.length;
      const index = locator["index"] as number;
      node = all[index < 0 ? all.length + index : index];
    } catch {
      continue;
    }
    if (!node) continue;
    // A parent that matches several nodes (overloads, two functions of one name): the index counts across all of them.
    const parentIssue = severalParents(locator, node, doc);
    if (parentIssue) {
      report({ check: "locator", severity: "warning", file, line: node.startPosition.row + 1, ...parentIssue });
      continue;
    }
    const name = locator["name"] === undefined ? writableName(nodeName(node, doc.language)) : undefined;
    let scope: { kind: string; name: string } | undefined;
    if (locator["parent"] === undefined) {
      for (let p = node.parent; p; p = p.parent) {
        const kind = kindOfNode(p, doc.language);
        const pname = SCOPE_KINDS.has(kind) ? writableName(nodeName(p, doc.language)) : undefined;
        if (pname) {
          scope = { kind, name: pname };
          break;
        }
      }
    }
    if (!name && !scope) continue;
    // Suggest only a locator that finds this node: by name alone when the name is unique, else with the index it then needs.
    const unique = (candidate: Record<string, unknown>): Record<string, unknown> | undefined => {
      try {
        const { index: _index, ...rest } = candidate;
        const found = resolveLocator(doc.tree, doc.source, doc.language, rest as never);
        if (found.length === 1 && found[0]!.id === node!.id) return rest;
        const at = found.findIndex((n) => n.id === node!.id);
        return at >= 0 && found.length < count ? { ...rest, index: at } : undefined;
      } catch {
        return undefined;
      }
    };
    const better =
      (name && scope && unique({ ...locator, name, parent: scope })) ||
      (name && unique({ ...locator, name })) ||
      (scope && unique({ ...locator, parent: scope }));
    if (!better) continue;
    report({
      check: "locator",
      severity: "warning",
      file,
      line: node.startPosition.row + 1,
      message: `the locator picks its node by position alone (index ${String(locator["index"])} of ${count} ${String(locator["kind"])} nodes in ${file}, line ${node.startPosition.row + 1}): an index that is off by one would edit another node without an error`,
      fix: `address it by ${[better["name"] !== undefined && locator["name"] === undefined ? "name" : "", better["parent"] !== undefined && locator["parent"] === undefined ? "parent" : ""].filter(Boolean).join(" and ")}: ${JSON.stringify(better)}`,
    });
  }
}

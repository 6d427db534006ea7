/**
 * The mistakes models make in plans, one per variant: each takes a gold plan (and what the files
 * looked like before each of its steps) and returns variants whose intended result is the gold
 * result, with the words a rejection must contain to count as "says the fix".
 */
import { detectLanguage, type LanguageId } from "@graphplan/graph";
import { indentUnit, lineIndent, locate, planParts, type Step, type WrittenPlan } from "@graphplan/primitives";

export const MISTAKES = [
  "indent-absolute-first-line",
  "tabs-in-spaces-file",
  "trailing-spaces",
  "replace-code-token-off",
  "absolute-path",
  "operator-as-template",
  "fragment-wrong-action",
  "fragment-target-key",
  "operator-synonym",
  "index-off-by-one",
  "parent-dropped",
  "text-blank-line-dropped",
  "text-trailing-spaces-lost",
  "text-crlf-as-lf",
  "text-written-at-column-0",
  "text-token-off",
  "text-anchor-one-line",
  "data-key-typo",
] as const;
export type Mistake = (typeof MISTAKES)[number];

export interface Variant {
  readonly mistake: Mistake;
  readonly plan: unknown;
  /** A rejection says the fix when its message contains every one of these (case-insensitive). */
  readonly fixWords: readonly (string | RegExp)[];
  /** The mistake yields another valid plan (index, parent): exposure, not a tool error. */
  readonly mayBeValid?: boolean;
  /** The same step without the mistake; a variant counts only when it reproduces the gold result. */
  readonly baseline?: unknown;
}

/** What the files were when a step ran. */
export interface StepContext {
  readonly step: Step;
  readonly sources: ReadonlyMap<string, string>;
}

export const ROOT = "/srv/checkout";

const CODE_PARAMS = ["replacement", "code", "body", "method_code", "new_body", "attribute_code"];

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const stepsOf = (plan: WrittenPlan): Step[] => planParts(plan).steps;
const withStep = (plan: WrittenPlan, index: number, step: unknown): unknown => {
  const copy = clone(plan) as unknown;
  const steps = (Array.isArray(copy) ? copy : (copy as { plan: unknown[] }).plan) as unknown[];
  steps[index] = step;
  return copy;
};

type Locator = Record<string, unknown> & { file?: string };

function locatorOf(step: Step): Locator | undefined {
  if ("fragment" in step) return step.locator as Locator;
  const params = step.params as Record<string, unknown>;
  const loc = params.locator ?? params.target;
  return loc && typeof loc === "object" ? (loc as Locator) : undefined;
}

/** The indentation of the line where the step's locator starts (undefined when it does not resolve to one node). */
function targetIndent(ctx: StepContext): { indent: string; file: string; start: number; end: number } | undefined {
  const loc = locatorOf(ctx.step);
  const file = loc?.file;
  if (!loc || typeof file !== "string") return undefined;
  const source = ctx.sources.get(file);
  const language = detectLanguage(file) as LanguageId | undefined;
  if (source === undefined || !language) return undefined;
  const found = locate({ path: file, source, language }, { locator: loc });
  if ("_tag" in found || found.count !== 1) return undefined;
  const node = found.nodes[0]!;
  return { indent: lineIndent(source, node.start), file, start: node.start, end: node.end };
}

function codeParam(step: Step): { key: string; code: string } | undefined {
  if ("fragment" in step) return undefined;
  const params = step.params as Record<string, unknown>;
  for (const key of CODE_PARAMS) if (typeof params[key] === "string") return { key, code: params[key] as string };
  return undefined;
}

const nonBlank = (code: string): string[] => code.split("\n").filter((l) => l.trim() !== "");

/** Lines (0-based) that start or end inside a triple-quoted string: their whitespace is the string's, not the code's. */
function stringLines(lines: readonly string[]): Set<number> {
  const out = new Set<number>();
  let open: string | undefined;
  lines.forEach((line, row) => {
    if (open) out.add(row);
    for (const m of line.matchAll(/"""|'''/g)) {
      if (!open) open = m[0];
      else if (m[0] === open) open = undefined;
    }
    if (open) out.add(row);
  });
  return out;
}

const SYNONYMS: Record<string, string> = {
  replace_node: "replace",
  insert_after_node: "insert_after",
  insert_before_node: "insert_before",
  delete_node: "delete",
  wrap_node: "wrap",
  replace_all_matching: "replace_all",
  add_import: "insert_import",
  add_method: "insert_method",
  guard_clause: "add_guard",
  replace_expression: "replace_expr",
  add_parameter: "add_param",
  modify_condition: "change_condition",
  change_return_value: "change_return",
  wrap_try_except: "wrap_try",
  replace_function_body: "replace_body",
  add_decorator: "decorate",
  add_class_attribute: "add_attribute",
  add_conditional_branch: "add_branch",
  rename_identifier: "rename",
  move_node: "move",
  copy_node: "copy",
};

const WRONG_ACTION: Record<string, string> = {
  replace: "replace_node",
  insert_before: "insert_before_node",
  insert_after: "insert_after_node",
};

function renamePaths(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(renamePaths);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "file" && typeof v === "string" ? `${ROOT}/${v}` : renamePaths(v),
      ]),
    );
  }
  return value;
}

/** One token off: the identifier nearest the middle of the text loses its last character. */
function tokenOff(text: string): string | undefined {
  const ids = [...text.matchAll(/\b[A-Za-z_][A-Za-z0-9_]{3,}\b/g)];
  if (ids.length === 0) return undefined;
  const m = ids[Math.floor(ids.length / 2)]!;
  return text.slice(0, m.index + m[0].length - 1) + text.slice(m.index + m[0].length);
}

/**
 * The mistakes models make quoting a file in a text step (`replace_text`'s `find`, `insert_text`'s
 * `anchor`): a stale copy without a blank line, without its trailing spaces, with LF for CRLF, written at
 * column 0, with a typo; an anchor cut to one line. The intended result is the gold one.
 */
/** The indentation every non-blank line of `text` starts with. */
function commonIndent(text: string): string {
  const indents = text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => /^[ \t]*/.exec(l)![0]);
  return indents.reduce((a, b) => (b.startsWith(a) ? a : a.startsWith(b) ? b : ""), indents[0] ?? "");
}

function textVariants(plan: WrittenPlan, i: number, step: Step, source: string | undefined): Variant[] {
  if (!("op" in step) || source === undefined) return [];
  const params = step.params as Record<string, unknown>;
  const key = step.op === "replace_text" ? "find" : step.op === "insert_text" ? "anchor" : undefined;
  const quote = key ? params[key] : undefined;
  if (!key || typeof quote !== "string") return [];
  const out: Variant[] = [];
  const push = (
    mistake: Mistake,
    changes: Record<string, unknown>,
    fixWords: readonly (string | RegExp)[] = [],
    mayBeValid = false,
  ) =>
    out.push({
      mistake,
      plan: withStep(plan, i, { ...step, params: { ...params, ...changes } }),
      fixWords,
      ...(mayBeValid ? { mayBeValid } : {}),
    });
  const replace = typeof params["replace"] === "string" ? (params["replace"] as string) : undefined;
  // A blank line between two lines of the quote left out (and of the replacement too, when it has the
  // same lines around it: the model's copy). A blank line at the quote's end is part of what it means.
  const interior = /(\S[^\n]*\n)[ \t]*\r?\n(?=[ \t]*\S)/;
  const blank = interior.exec(quote);
  if (blank) {
    const drop = (text: string) => text.replace(blank[0], blank[1]!);
    push("text-blank-line-dropped", {
      [key]: drop(quote),
      ...(replace !== undefined && replace.includes(blank[0]) ? { replace: drop(replace) } : {}),
    });
  }
  if (/[ \t]+\r?\n/.test(quote)) push("text-trailing-spaces-lost", { [key]: quote.replace(/[ \t]+(\r?\n)/g, "$1") });
  if (quote.includes("\r\n"))
    push("text-crlf-as-lf", {
      [key]: quote.replace(/\r\n/g, "\n"),
      ...(replace !== undefined ? { replace: replace.replace(/\r\n/g, "\n") } : {}),
    });
  const common = commonIndent(quote);
  const dedent = (text: string) =>
    text
      .split("\n")
      .map((l) => (l.startsWith(common) ? l.slice(common.length) : l))
      .join("\n");
  // Skipped where writing at column 0 loses the change itself: a change of a blank line's spaces, or of
  // the lines' indentation (quote at 2 spaces, replacement at 0: both written at column 0 say no change of it).
  const replaceCommon = replace === undefined ? common : commonIndent(replace);
  if (
    common &&
    !/\t/.test(common) &&
    (replace === undefined || (dedent(quote) !== dedent(replace) && replaceCommon.startsWith(common)))
  ) {
    push("text-written-at-column-0", {
      [key]: dedent(quote),
      ...(replace !== undefined ? { replace: dedent(replace) } : {}),
    });
  }
  const off = tokenOff(quote);
  if (off && off !== quote) push("text-token-off", { [key]: off }, [], false);
  if (step.op === "insert_text") {
    const first = quote.split("\n").find((l) => l.trim() !== "");
    if (first && first !== quote.replace(/\r?\n$/, "") && source.split(first).length > 2)
      push("text-anchor-one-line", { anchor: first }, ["matches", "line"]);
  }
  return out;
}

/** A key of a data step's path misspelt by one character (the last segment loses a letter). */
function dataVariants(plan: WrittenPlan, i: number, step: Step): Variant[] {
  if (!("op" in step) || !["set_key", "delete_key", "append_item"].includes(step.op)) return [];
  const params = step.params as { locator?: { name?: unknown } };
  const name = params.locator?.name;
  if (typeof name !== "string") return [];
  const typo = name.replace(/([A-Za-z_]{3,})$/, (m) => m.slice(0, -1));
  if (typo === name) return [];
  const mutated = { ...step, params: { ...step.params, locator: { ...params.locator, name: typo } } };
  // delete_key of a missing key fails naming the nearest keys; set_key of one makes a new key (valid).
  return [
    {
      mistake: "data-key-typo",
      plan: withStep(plan, i, mutated),
      fixWords: [name.split(".").at(-1)!],
      mayBeValid: step.op !== "delete_key",
    },
  ];
}

export function variantsOf(plan: WrittenPlan, contexts: readonly StepContext[]): Variant[] {
  const out: Variant[] = [];
  const steps = stepsOf(plan);
  contexts.forEach((ctx, i) => {
    const step = ctx.step;
    const code = codeParam(step);
    const file =
      locatorOf(step)?.file ?? ((step as { params?: { file?: unknown } }).params?.file as string | undefined);
    const source = typeof file === "string" ? ctx.sources.get(file) : undefined;
    out.push(...textVariants(plan, i, step, source), ...dataVariants(plan, i, step));
    const unit = source !== undefined ? indentUnit(source) : "    ";
    if (code) {
      const lines = code.code.split("\n");
      const target = targetIndent(ctx);
      // Absolute indentation after a first line at column 0.
      // Not when the step's own code is already written so (a node inside a line, whose
      // continuation lines the compiler writes at their columns in the file, deeper than the
      // line's indentation): the mistake's form is then the correct code itself, and adding the
      // indentation once more is no mistake a model makes.
      const alreadyAbsolute = nonBlank(lines.slice(1).join("\n")).every(
        (l) => /^[ \t]*/.exec(l)![0].length > (target?.indent.length ?? 0),
      );
      if (
        target &&
        target.indent !== "" &&
        "op" in step &&
        nonBlank(code.code).length >= 2 &&
        !/^[ \t]/.test(lines[0]!) &&
        !alreadyAbsolute
      ) {
        const abs = [lines[0]!, ...lines.slice(1).map((l) => (l.trim() === "" ? l : target.indent + l))].join("\n");
        out.push({
          mistake: "indent-absolute-first-line",
          plan: withStep(plan, i, { ...step, params: { ...step.params, [code.key]: abs } }),
          fixWords: ["indent"],
        });
      }
      // Tabs for the file's unit.
      const inString = stringLines(lines);
      if (unit !== "\t" && lines.some((l, k) => l.startsWith(unit) && !inString.has(k))) {
        const tabbed = lines
          .map((l, k) => {
            if (inString.has(k)) return l;
            const ws = /^[ ]*/.exec(l)![0];
            const n = Math.floor(ws.length / unit.length);
            return "\t".repeat(n) + " ".repeat(ws.length - n * unit.length) + l.slice(ws.length);
          })
          .join("\n");
        out.push({
          mistake: "tabs-in-spaces-file",
          plan: withStep(plan, i, { ...step, params: { ...(step as { params: object }).params, [code.key]: tabbed } }),
          fixWords: ["tab"],
        });
      }
      // Trailing spaces.
      if (lines.some((l, k) => l.trim() !== "" && !inString.has(k))) {
        const trailing = lines.map((l, k) => (l.trim() === "" || inString.has(k) ? l : `${l}  `)).join("\n");
        out.push({
          mistake: "trailing-spaces",
          plan: withStep(plan, i, {
            ...step,
            params: { ...(step as { params: object }).params, [code.key]: trailing },
          }),
          fixWords: ["trailing"],
        });
      }
      // replace_node → legacy replace_code whose pattern is one token off.
      if ("op" in step && step.op === "replace_node" && target && source !== undefined) {
        const ls = source.lastIndexOf("\n", target.start - 1) + 1;
        let le = source.indexOf("\n", target.end);
        if (le < 0) le = source.length;
        const lineText = source.slice(ls, le);
        const onOwnLines = source.slice(ls, target.start).trim() === "" && source.slice(target.end, le).trim() === "";
        const off = tokenOff(lineText);
        if (onOwnLines && off && off !== lineText) {
          const relative = code.code.split("\n");
          const replacement = relative
            .map((l, k) => (l.trim() === "" ? "" : k === 0 ? target.indent + l.trimStart() : target.indent + l))
            .join("\n");
          const line = source.slice(0, ls).split("\n").length;
          const exact = { op: "replace_code", params: { file: target.file, pattern: lineText, replacement } };
          const mutated = { op: "replace_code", params: { file: target.file, pattern: off, replacement } };
          out.push({
            mistake: "replace-code-token-off",
            plan: withStep(plan, i, mutated),
            fixWords: [`line ${line}`],
            baseline: withStep(plan, i, exact),
          });
        }
        // The node's own text as the pattern (from its first token, the rest with the file's
        // indentation), as a model copies it, and the replacement written the same way.
        const nodeText = source.slice(target.start, target.end);
        const nodeOff = tokenOff(nodeText);
        if (nodeOff && nodeOff !== nodeText) {
          const line = source.slice(0, target.start).split("\n").length;
          const relative = code.code.split("\n");
          const replacement = relative
            .map((l, k) => (k === 0 ? l.trimStart() : l.trim() === "" ? "" : target.indent + l))
            .join("\n");
          const exact = { op: "replace_code", params: { file: target.file, pattern: nodeText, replacement } };
          const mutated = { op: "replace_code", params: { file: target.file, pattern: nodeOff, replacement } };
          out.push({
            mistake: "replace-code-token-off",
            plan: withStep(plan, i, mutated),
            fixWords: [`line ${line}`],
            baseline: withStep(plan, i, exact),
          });
        }
      }
    }
    // Fragment steps.
    if ("fragment" in step) {
      out.push({
        mistake: "fragment-wrong-action",
        plan: withStep(plan, i, { ...step, action: WRONG_ACTION[step.action] ?? "replace_node" }),
        fixWords: [`"${step.action}"`],
      });
      const { locator, ...rest } = step;
      out.push({
        mistake: "fragment-target-key",
        plan: withStep(plan, i, { ...rest, target: locator }),
        fixWords: ["locator"],
      });
    }
    // Locators: index off by one, parent dropped from an indexed locator.
    const loc = locatorOf(step);
    if (loc && typeof loc.index === "number") {
      const bumped = clone(step);
      const l2 = locatorOf(bumped)!;
      l2.index = (loc.index as number) + 1;
      out.push({ mistake: "index-off-by-one", plan: withStep(plan, i, bumped), fixWords: ["index"], mayBeValid: true });
      if (loc.parent) {
        const dropped = clone(step);
        delete locatorOf(dropped)!.parent;
        out.push({
          mistake: "parent-dropped",
          plan: withStep(plan, i, dropped),
          fixWords: ["parent"],
          mayBeValid: true,
        });
      }
    }
  });
  // Plan-wide mistakes, one variant per plan.
  const files = new Set<string>();
  JSON.stringify(plan, (k, v) => (k === "file" && typeof v === "string" && files.add(v), v));
  out.push({
    mistake: "absolute-path",
    plan: renamePaths(plan),
    fixWords: [...files].slice(0, 1).map((f) => `"${f}"`),
  });
  const firstOp = steps.findIndex((s) => "op" in s);
  if (firstOp >= 0) {
    const s = steps[firstOp] as { op: string; params: unknown };
    out.push({
      mistake: "operator-as-template",
      plan: withStep(plan, firstOp, { template: s.op, params: s.params }),
      fixWords: [`"op": "${s.op}"`],
    });
  }
  const syn = steps.findIndex((s) => ("op" in s && SYNONYMS[s.op]) || ("template" in s && SYNONYMS[s.template]));
  if (syn >= 0) {
    const s = steps[syn]!;
    const name = "op" in s ? s.op : (s as { template: string }).template;
    const wrong = "op" in s ? { ...s, op: SYNONYMS[name] } : { ...s, template: SYNONYMS[name] };
    // The right name as the (first) suggestion, not somewhere in a list of every operator.
    out.push({
      mistake: "operator-synonym",
      plan: withStep(plan, syn, wrong),
      fixWords: [new RegExp(`did you mean (the operator )?['"]?${name}['"]?\\?`, "i")],
    });
  }
  return out;
}

/**
 * The DSL of composed and LLM-defined operators: `$param` substitution, `bind`, `$var.field`
 * access and `{"if", "then", "else"}` with simple comparisons. Evaluated by hand: no eval.
 */
import type { DslStep } from "./plan.js";
import { InvalidCondition, UnresolvedVariable } from "./errors.js";

export type Vars = Readonly<Record<string, unknown>>;

const PATH = /\$(\$|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)/g;
const WHOLE = /^\$([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)$/;

/** Looks `a.b.0.c` up in `vars`; `undefined` root → not a variable (left as text); a known root with a missing field → error. */
function lookup(path: string, vars: Vars): { found: false } | { found: true; value: unknown } {
  const [root, ...fields] = path.split(".");
  if (!root || !Object.hasOwn(vars, root)) return { found: false };
  let value: unknown = vars[root];
  for (const field of fields) {
    if (value !== null && typeof value === "object" && Object.hasOwn(value as object, field)) {
      value = (value as Record<string, unknown>)[field];
    } else if (field === "length" && (typeof value === "string" || Array.isArray(value))) {
      value = value.length;
    } else {
      throw new UnresolvedVariable(path, Object.keys(vars));
    }
  }
  return { found: true, value };
}

const asText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/**
 * Replaces `$name` and `$name.field` in strings (deeply, in arrays and objects) by their
 * values. A string that is exactly one reference takes the value itself (a number, an object);
 * inside a longer string the value is written as text. Names that are not variables are left
 * as they are (so `$this` in PHP code survives); `$$` writes a `$`. Values are not rescanned.
 */
export function substitute(value: unknown, vars: Vars): unknown {
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole) {
      const found = lookup(whole[1]!, vars);
      return found.found ? found.value : value;
    }
    return value.replace(PATH, (match, path: string) => {
      if (path === "$") return "$";
      const found = lookup(path, vars);
      return found.found ? asText(found.value) : match;
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

type Operand = string | number | boolean | null | undefined;

function operand(token: string, vars: Vars, condition: string): unknown {
  const t = token.trim();
  if (t === "") throw new InvalidCondition(condition, "an operand is missing");
  if (t.startsWith("$")) {
    const path = t.slice(1);
    if (!/^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*$/.test(path))
      throw new InvalidCondition(condition, `${t} is not a variable reference`);
    const found = lookup(path, vars);
    if (!found.found) throw new UnresolvedVariable(path, Object.keys(vars));
    return found.value;
  }
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (/^'.*'$/s.test(t) || /^".*"$/s.test(t)) return t.slice(1, -1);
  if (t === "true") return true;
  if (t === "false") return false;
  if (t === "null" || t === "None") return null;
  throw new InvalidCondition(
    condition,
    `cannot read ${JSON.stringify(t)} (use $var, a number, 'text', true, false or null)`,
  );
}

const scalar = (v: unknown): Operand => {
  if (v === null || v === undefined || typeof v === "string" || typeof v === "number" || typeof v === "boolean")
    return v;
  if (Array.isArray(v)) return v.length;
  return JSON.stringify(v);
};

function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return Boolean(v);
}

function compare(a: unknown, op: string, b: unknown, condition: string): boolean {
  let x = scalar(a);
  let y = scalar(b);
  if (typeof x === "number" && typeof y === "string" && y.trim() !== "" && !Number.isNaN(Number(y))) y = Number(y);
  if (typeof y === "number" && typeof x === "string" && x.trim() !== "" && !Number.isNaN(Number(x))) x = Number(x);
  switch (op) {
    case "==":
      return x === y;
    case "!=":
      return x !== y;
  }
  if (typeof x !== typeof y || (typeof x !== "number" && typeof x !== "string")) {
    throw new InvalidCondition(
      condition,
      `${op} compares two numbers or two strings, not ${JSON.stringify(x)} and ${JSON.stringify(y)}`,
    );
  }
  const [p, q] = [x as number | string, y as number | string];
  switch (op) {
    case ">":
      return p > q;
    case "<":
      return p < q;
    case ">=":
      return p >= q;
    case "<=":
      return p <= q;
  }
  throw new InvalidCondition(condition, `unknown operator ${op}`);
}

/** Splits on a separator outside quotes. */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let quote: string | undefined;
  let current = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      current += ch;
    } else if (text.startsWith(separator, i)) {
      parts.push(current);
      current = "";
      i += separator.length - 1;
    } else current += ch;
  }
  if (quote) throw new InvalidCondition(text, "a quote is not closed");
  parts.push(current);
  return parts;
}

/**
 * Evaluates `"$found.count > 0"`, `"$x == 'name'"`, `"$flag"`, `"!$flag"`, combined with
 * `&&` and `||` (no parentheses; `&&` binds tighter).
 */
export function evaluateCondition(condition: string, vars: Vars): boolean {
  return splitOutsideQuotes(condition, "||").some((disjunct) =>
    splitOutsideQuotes(disjunct, "&&").every((term) => {
      let t = term.trim();
      let negate = false;
      while (t.startsWith("!") && !t.startsWith("!=")) {
        negate = !negate;
        t = t.slice(1).trim();
      }
      if (t.startsWith("not ")) {
        negate = !negate;
        t = t.slice(4).trim();
      }
      const m = /^(.+?)\s*(==|!=|>=|<=|>|<)\s*(.+)$/s.exec(t);
      const result = m
        ? compare(operand(m[1]!, vars, condition), m[2]!, operand(m[3]!, vars, condition), condition)
        : truthy(operand(t, vars, condition));
      return negate ? !result : result;
    }),
  );
}

/** Runs DSL steps: primitives through `exec`, `bind` into the variables, `if` branches. Returns the final variables. */
export function runDsl(
  steps: readonly DslStep[],
  vars: Record<string, unknown>,
  exec: (op: string, params: Record<string, unknown>) => unknown,
): Record<string, unknown> {
  for (const step of steps) {
    if ("if" in step) {
      const branch = evaluateCondition(step.if, vars) ? step.then : step.else;
      if (branch) runDsl(Array.isArray(branch) ? branch : [branch], vars, exec);
      continue;
    }
    const params = substitute(step.params, vars) as Record<string, unknown>;
    const output = exec(step.primitive, params);
    if (step.bind) vars[step.bind] = output;
  }
  return vars;
}

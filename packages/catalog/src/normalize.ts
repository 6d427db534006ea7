/**
 * Plan mistakes whose intent is certain, corrected before a plan is verified or run, each
 * correction said in one sentence: an absolute path under the root (taken as the relative path),
 * an operator given as a template (`{"template": "replace_node"}`) or a template given as an
 * operator, a fragment step whose locator is under `target` or whose action is named like the
 * operator (`insert_after_node`), a name that is both a template and an operator given the other's
 * parameters (`{"template": "add_method", "params": {"class_name", "method_code"}}`), a locator whose
 * file is under `path` (or `file_path`, `filename`), or beside it in the params of an operator that
 * takes no `file`. What is not certain is left for the verifier to reject
 * (with the fix): an unknown name, a path outside the root.
 */
import { KIND_SYNONYMS } from "@graphplan/locators";
import { OPERATOR_BY_NAME } from "@graphplan/primitives";
import { SURGERY_BY_NAME, SURGERY_OPS, TEMPLATE_BY_NAME, validateOperatorParams } from "./execute.js";
import { TEMPLATES } from "./templates/index.js";

export interface PlanCorrection {
  /** Index of the step in the plan (0-based), or null for the plan as a whole. */
  readonly step: number | null;
  readonly message: string;
}

export interface NormalizeOptions {
  /** The absolute directory the plan's paths are relative to; without it, paths are left alone. */
  readonly root?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const TEMPLATE_NAMES = new Set(TEMPLATES.map((t) => t.name));
const isOperator = (name: string): boolean =>
  OPERATOR_BY_NAME.has(name) || (SURGERY_OPS as readonly string[]).includes(name);

/** Which form of a name that is both a template and an operator (`add_method`) the params fit: only one, else undefined. */
function formOfParams(name: string, params: unknown): "op" | "template" | undefined {
  const operator = OPERATOR_BY_NAME.get(name);
  const template = TEMPLATE_BY_NAME.get(name);
  if (!operator || !template) return undefined;
  const asOperator = operator.paramsSchema.safeParse(params ?? {}).success;
  const asTemplate = validateOperatorParams(template, params).length === 0;
  return asOperator === asTemplate ? undefined : asOperator ? "op" : "template";
}

/** A fragment action written as the operator of the same placement. */
const FRAGMENT_ACTIONS: Readonly<Record<string, string>> = {
  replace_node: "replace",
  insert_before_node: "insert_before",
  insert_after_node: "insert_after",
  before: "insert_before",
  after: "insert_after",
  insert: "insert_after",
};

/** `path` relative to `root` when it is absolute and inside it (POSIX), else undefined. */
export function underRoot(path: string, root: string): string | undefined {
  if (!path.startsWith("/")) return undefined;
  const clean = (p: string): string[] => p.split("/").filter((s) => s !== "" && s !== ".");
  const r = clean(root);
  const segments = clean(path);
  if (segments.includes("..") || r.includes("..")) return undefined;
  if (segments.length <= r.length || r.some((s, i) => segments[i] !== s)) return undefined;
  return segments.slice(r.length).join("/");
}

function relativizePaths(value: unknown, root: string, changed: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => relativizePaths(v, root, changed));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const relative = PATH_KEYS.has(key) && typeof v === "string" ? underRoot(v, root) : undefined;
    if (relative !== undefined) changed.set(v as string, relative);
    out[key] =
      relative ??
      (key === "importers" && Array.isArray(v)
        ? v.map((f) => (typeof f === "string" ? relativeOrSelf(f, root, changed) : f))
        : relativizePaths(v, root, changed));
  }
  return out;
}

/** Keys whose value is a file path: a locator's `file`, file operations' `path`, `from` and `to`. */
const PATH_KEYS: ReadonlySet<string> = new Set(["file", "path", "from", "to"]);

function relativeOrSelf(path: string, root: string, changed: Map<string, string>): string {
  const relative = underRoot(path, root);
  if (relative === undefined) return path;
  changed.set(path, relative);
  return relative;
}

/**
 * The names models give the parameters of the file operations, and the names they mean. Only
 * taken when the step lacks the real name (the intent is then certain).
 */
const FILE_OP_PARAMS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  create_file: {
    file: "path",
    file_path: "path",
    filename: "path",
    content: "content",
    code: "content",
    text: "content",
    source: "content",
    contents: "content",
  },
  delete_file: { file: "path", file_path: "path", filename: "path" },
  rename_file: {
    file: "from",
    old_path: "from",
    source: "from",
    src: "from",
    old: "from",
    path: "from",
    new_path: "to",
    destination: "to",
    dest: "to",
    target: "to",
    new: "to",
    new_name: "to",
  },
};

/** A file operation's parameters under the names models give them → the real names (said once each). */
function fixFileOpParams(
  op: string,
  params: Record<string, unknown>,
  say: (message: string) => void,
): Record<string, unknown> {
  const names = FILE_OP_PARAMS[op];
  if (!names) return params;
  const out: Record<string, unknown> = { ...params };
  for (const [given, meant] of Object.entries(names)) {
    if (given === meant || !(given in out) || meant in out) continue;
    out[meant] = out[given];
    delete out[given];
    say(`${op} takes "${meant}": took ${JSON.stringify(given)} as ${JSON.stringify(meant)}`);
  }
  return out;
}

const FILE_SYNONYMS = ["path", "file_path", "filepath", "filename"] as const;
const isLocatorLike = (v: unknown): v is Record<string, unknown> =>
  isRecord(v) && ("kind" in v || "query" in v || "name" in v);

/** Whether an operator's parameters include `file` (true when unknown: then nothing is moved). */
function takesFile(op: string): boolean {
  const schema = SURGERY_BY_NAME.get(op)?.params ?? OPERATOR_BY_NAME.get(op)?.paramsSchema;
  const shape = schema && "shape" in schema ? (schema as { shape: Record<string, unknown> }).shape : undefined;
  return shape === undefined || "file" in shape;
}

/**
 * Locators under `value` written the way models write them, corrected: the file under a synonym key
 * (`path`) → `file`; `"type": "method"` (not an S-expression locator) → `kind`; a kind no language has
 * that names one (`def`, `class_definition`) → that kind; in Python, a dotted name with no parent
 * of a function, method or class (`Cart.total`, `shop.Cart.total`) → the last name, under the one
 * before it as its parent (a dotted name of an import or a call is a name). Each correction is added to `said`.
 */
function fixLocators(value: unknown, said: Set<string>, python: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => fixLocators(v, said, python));
  if (!isRecord(value)) return value;
  let out: Record<string, unknown> = Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, fixLocators(v, said, python)]),
  );
  if (!isLocatorLike(out) && !(typeof out["type"] === "string" && typeof out["name"] === "string")) return out;
  if (!("file" in out)) {
    const key = FILE_SYNONYMS.find((k) => typeof out[k] === "string");
    if (key) {
      const { [key]: file, ...rest } = out;
      out = { file, ...rest };
      said.add(`a locator names its file with "file": took ${JSON.stringify(key)} as "file"`);
    }
  }
  if (typeof out["type"] === "string" && out["type"] !== "sexp" && !("kind" in out) && !("query" in out)) {
    const { type, ...rest } = out;
    out = { ...rest, kind: type };
    said.add(`a locator names its node's kind with "kind": took "type": ${JSON.stringify(type)} as "kind"`);
  }
  const kind = out["kind"];
  if (typeof kind === "string" && Object.hasOwn(KIND_SYNONYMS, kind)) {
    out = { ...out, kind: KIND_SYNONYMS[kind] };
    said.add(`${JSON.stringify(kind)} is not a locator kind: took it as ${JSON.stringify(KIND_SYNONYMS[kind])}`);
  }
  const name = out["name"];
  const definition =
    out["kind"] === undefined || out["kind"] === "function" || out["kind"] === "method" || out["kind"] === "class";
  if (
    python &&
    definition &&
    typeof name === "string" &&
    /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$/.test(name) &&
    !("parent" in out)
  ) {
    // The file is given: a module prefix adds nothing, and the enclosing definition is the last part before the name.
    const parts = name.split(".");
    const [owner, last] = parts.slice(-2) as [string, string];
    out = { ...out, name: last, parent: { name: owner } };
    said.add(
      `a locator's name is one name: took ${JSON.stringify(name)} as ${JSON.stringify(last)} inside ${JSON.stringify(owner)} (its "parent")`,
    );
  }
  return out;
}

/** The keys a step has: `{op|template, params}` or `{fragment, action, locator}`. */
const STEP_KEYS = new Set(["op", "template", "params", "fragment", "action", "locator"]);

function normalizeStep(raw: unknown, index: number, options: NormalizeOptions, notes: PlanCorrection[]): unknown {
  if (!isRecord(raw)) return raw;
  let step: Record<string, unknown> = raw;
  const say = (message: string): void => void notes.push({ step: index, message });
  if (
    typeof step["template"] === "string" &&
    !("op" in step) &&
    !TEMPLATE_NAMES.has(step["template"]) &&
    isOperator(step["template"])
  ) {
    const { template, ...rest } = step;
    step = { op: template, ...rest };
    say(
      `${JSON.stringify(template)} is an operator, not a template: ran it as {"op": ${JSON.stringify(template)}, "params": {...}}`,
    );
  } else if (
    typeof step["op"] === "string" &&
    !("template" in step) &&
    TEMPLATE_NAMES.has(step["op"]) &&
    !isOperator(step["op"])
  ) {
    const { op, ...rest } = step;
    step = { template: op, ...rest };
    say(
      `${JSON.stringify(op)} is a template, not an operator: ran it as {"template": ${JSON.stringify(op)}, "params": {...}}`,
    );
  }
  const both =
    typeof step["template"] === "string" ? step["template"] : typeof step["op"] === "string" ? step["op"] : undefined;
  const given = "template" in step ? "template" : "op";
  if (
    both !== undefined &&
    !("op" in step && "template" in step) &&
    formOfParams(both, step["params"]) === (given === "op" ? "template" : "op")
  ) {
    const { op: _op, template: _template, ...rest } = step;
    const other = given === "op" ? "template" : "op";
    step = { [other]: both, ...rest };
    say(
      `these are the parameters of the ${other} ${JSON.stringify(both)}, not of the ${given}: ran it as {${JSON.stringify(other)}: ${JSON.stringify(both)}, "params": {...}}`,
    );
  }
  const said = new Set<string>();
  const python = /\.pyi?"/.test(JSON.stringify(step));
  // The locators are the params' values (not the params themselves: `{name, type}` of add_parameter) and a fragment step's `locator`.
  step = Object.fromEntries(
    Object.entries(step).map(([key, v]) => [
      key,
      key === "params" && isRecord(v)
        ? Object.fromEntries(Object.entries(v).map(([k, p]) => [k, fixLocators(p, said, python)]))
        : key === "locator"
          ? fixLocators(v, said, python)
          : v,
    ]),
  );
  for (const message of said) say(message);
  if (typeof step["op"] === "string" && isRecord(step["params"]))
    step = { ...step, params: fixFileOpParams(step["op"], step["params"], say) };
  const params = step["params"];
  if (
    typeof step["op"] === "string" &&
    isRecord(params) &&
    typeof params["file"] === "string" &&
    !takesFile(step["op"])
  ) {
    const { file, ...rest } = params;
    const moved = Object.entries(rest).filter(([key, v]) => key !== "parent" && isLocatorLike(v) && !("file" in v));
    if (moved.length) {
      step = {
        ...step,
        params: {
          ...rest,
          ...Object.fromEntries(moved.map(([key, v]) => [key, { file, ...(v as Record<string, unknown>) }])),
        },
      };
      say(
        `${step["op"]} takes the file in its locator: moved "file": ${JSON.stringify(file)} into ${moved.map(([key]) => `"${key}"`).join(" and ")}`,
      );
    }
  }
  if ("fragment" in step && !("op" in step) && !("template" in step)) {
    if (!("locator" in step) && isRecord(step["target"])) {
      const { target, ...rest } = step;
      step = { ...rest, locator: target };
      say('a fragment step names its target with "locator": took "target" as "locator"');
    }
    const action = step["action"];
    if (typeof action === "string" && Object.hasOwn(FRAGMENT_ACTIONS, action)) {
      step = { ...step, action: FRAGMENT_ACTIONS[action] };
      say(
        `a fragment step's action is "replace", "insert_before" or "insert_after": took ${JSON.stringify(action)} as ${JSON.stringify(FRAGMENT_ACTIONS[action])}`,
      );
    }
  }
  // Keys beside a step of the right form are notes (a "description", a "reason"): the edit is in the step's form.
  const extra = Object.entries(step).filter(([key]) => !STEP_KEYS.has(key));
  if (extra.length && (isRecord(step["params"]) || ("fragment" in step && "locator" in step))) {
    step = Object.fromEntries(Object.entries(step).filter(([key]) => !extra.some(([note]) => note === key)));
    say(
      `a step holds only its operator and ${"fragment" in step ? "fragment, action and locator" : "params"}: left out ${extra.map(([key]) => JSON.stringify(key)).join(", ")} (a note, not part of the edit)`,
    );
  }
  if (options.root) {
    const changed = new Map<string, string>();
    step = relativizePaths(step, options.root, changed) as Record<string, unknown>;
    for (const [from, to] of changed)
      say(`paths are relative to the root ${options.root}: took ${JSON.stringify(from)} as ${JSON.stringify(to)}`);
  }
  return step;
}

/**
 * The plan with the certain corrections applied (a copy; the input is not modified) and one
 * sentence per correction. Anything that is not a plan is returned as it is.
 */
export function normalizePlan(
  plan: unknown,
  options: NormalizeOptions = {},
): { plan: unknown; corrections: PlanCorrection[] } {
  const corrections: PlanCorrection[] = [];
  if (Array.isArray(plan)) return { plan: plan.map((s, i) => normalizeStep(s, i, options, corrections)), corrections };
  if (isRecord(plan) && Array.isArray(plan["plan"])) {
    const steps = (plan["plan"] as unknown[]).map((s, i) => normalizeStep(s, i, options, corrections));
    return { plan: { ...plan, plan: steps }, corrections };
  }
  return { plan, corrections };
}

/**
 * THE operator catalog: every tier described once (tier 0 from primitives' registry, tier 1
 * surgery and tier 2 templates from this package, tier 3 fragments from @graphplan/fragments),
 * with zod params. From it: step validation (execute.ts), the plan's JSON Schema, and the
 * operator catalog text of the LLM prompt, grouped by use case.
 */
import { z } from "zod";
import { LANGUAGE_IDS, type LanguageId } from "@graphplan/graph";
import { LocatorSchema } from "@graphplan/locators";
import { FRAGMENT_KINDS, FragmentSchema, KIND_SPECS, allowedChildren, codeKindOf } from "@graphplan/fragments";
import { OPERATORS, OperatorDefinitionSchema, type OperatorInfo } from "@graphplan/primitives";
import { USE_CASES, type UseCase } from "./operator.js";
import { descriptionOf, isRequired, paramKindOf } from "./params.js";
import { SURGERY } from "./surgery/operators.js";
import { TEMPLATES } from "./templates/index.js";
import { DATA_OPERATORS } from "./data/operators.js";

export interface CatalogEntry {
  readonly name: string;
  readonly tier: 0 | 1 | 2 | 3;
  readonly kind: "primitive" | "composed" | "legacy" | "file" | "text" | "surgery" | "template" | "fragment" | "data";
  readonly useCase: UseCase;
  readonly description: string;
  /** The step key: `{op}`, `{template}` or `{fragment}`. */
  readonly step: "op" | "template" | "fragment";
  /** Params of `{op|template, params}`; for the fragment entry, the whole step minus nothing (fragment, action, locator). */
  readonly params: z.ZodType;
  readonly languages?: readonly LanguageId[];
  readonly input?: readonly string[];
  readonly output?: string;
  readonly example?: Record<string, unknown>;
  /** Legacy: the operator to prefer. */
  readonly replacedBy?: string;
}

/** The tier 3 step: a fragment, where it goes, and how. */
export const FragmentStepParams = z.strictObject({
  fragment: FragmentSchema,
  action: z
    .enum(["replace", "insert_before", "insert_after"])
    .default("replace")
    .describe("Replace the target, or insert before / after it"),
  locator: LocatorSchema.describe("The target node (its indentation is the fragment's)"),
});

const FRAGMENT_ENTRY: CatalogEntry = {
  name: "fragment",
  tier: 3,
  kind: "fragment",
  useCase: "Novel Code (fragments)",
  description:
    "New code as a typed tree {kind, properties, children}, written in the target file's language (Python; JavaScript, TypeScript and Java with braces: elif_clause is else if, except_clause catch, raise_statement throw, a function in a class body a method, an assignment there a field; declaration const/let/var for a new variable; Java: modifiers, typed fields, with_statement is try-with-resources; Go: for … range, receiver for methods, := for a declaration, no classes or exceptions), validated (required properties, allowed children, code that parses in that language) then serialized with the target's indentation and applied: replace the target, or insert before/after it.",
  step: "fragment",
  params: FragmentStepParams,
  languages: ["python", "javascript", "typescript", "tsx", "java", "go"],
  input: ["statement"],
  output: "statement",
  example: {
    fragment: {
      kind: "if_statement",
      properties: { condition: "x is None" },
      children: [{ kind: "return_statement", properties: { value: "None" } }],
    },
    action: "insert_before",
    locator: {
      kind: "return",
      file: "app/parser.py",
      parent: { kind: "function", name: "parse", file: "app/parser.py" },
    },
  },
};

const SURGERY_NAMES = new Set(SURGERY.map((s) => s.name));

/** Where a tier-0 operator is listed, by its kind. */
const USE_CASE_OF_KIND: Readonly<Record<OperatorInfo["kind"], UseCase>> = {
  primitive: "Primitives",
  composed: "Primitives",
  legacy: "Legacy (still supported)",
  file: "Files (create, delete, rename)",
  text: "Text (any file: docs, changelogs, config)",
};

/** Every operator, once; catalog order is prompt order. */
export const CATALOG: readonly CatalogEntry[] = [
  ...TEMPLATES.map(
    (t): CatalogEntry => ({
      name: t.name,
      tier: 2,
      kind: "template",
      useCase: t.useCase,
      description: t.description,
      step: "template",
      params: t.params,
      languages: t.languages,
      input: t.input,
      output: t.output,
      example: t.example,
    }),
  ),
  ...SURGERY.map(
    (s): CatalogEntry => ({
      name: s.name,
      tier: 1,
      kind: "surgery",
      useCase: s.useCase,
      description: s.description,
      step: "op",
      params: s.params,
      languages: s.languages,
      input: s.input,
      output: s.output,
      example: s.example,
    }),
  ),
  FRAGMENT_ENTRY,
  ...DATA_OPERATORS.map(
    (d): CatalogEntry => ({
      name: d.name,
      tier: 1,
      kind: "data",
      useCase: "Data files (JSON, YAML, TOML)",
      description: d.description,
      step: "op",
      params: d.params,
      example: d.example,
    }),
  ),
  // Tier 0: delete_node is listed once, as surgery (detectTier says 1; it runs as the primitive).
  ...OPERATORS.filter((o) => !SURGERY_NAMES.has(o.name)).map(
    (o): CatalogEntry => ({
      name: o.name,
      tier: 0,
      kind: o.kind,
      useCase: USE_CASE_OF_KIND[o.kind],
      description: o.description,
      step: "op",
      params: o.paramsSchema,
      ...(o.replacedBy ? { replacedBy: o.replacedBy } : {}),
    }),
  ),
];

/** A catalog entry by step key and name (`op` names and `template` names are separate namespaces). */
export function catalogEntry(step: "op" | "template" | "fragment", name: string): CatalogEntry | undefined {
  return CATALOG.find((e) => e.step === step && (step === "fragment" || e.name === name));
}

let cachedPlanSchema: z.ZodType | undefined;

/** The zod schema of a whole plan with every operator's own params (the generic `{op, params}` only inside `define_operators` plans). */
export function planSchema(): z.ZodType {
  if (cachedPlanSchema) return cachedPlanSchema;
  const steps = CATALOG.map((e) => {
    if (e.step === "fragment") return FragmentStepParams.describe(`Tier 3 — ${e.description}`);
    return z
      .strictObject({ [e.step]: z.literal(e.name), params: e.params })
      .describe(`Tier ${e.tier} ${e.kind} — ${e.description}`);
  }) as unknown as [z.ZodType, z.ZodType, ...z.ZodType[]];
  const Step = z.union(steps);
  const CustomStep = z.strictObject({
    op: z.string().min(1).describe("An operator defined in define_operators"),
    params: z.record(z.string(), z.unknown()),
  });
  cachedPlanSchema = z.union([
    z.array(Step).min(1).describe("A plan: steps run in order, all or nothing"),
    z.strictObject({
      define_operators: z.array(OperatorDefinitionSchema).default([]),
      plan: z.array(z.union([Step, CustomStep])).min(1),
    }),
  ]);
  return cachedPlanSchema;
}

/** JSON Schema (draft 2020-12) of a plan, from {@link planSchema}; repeated subschemas (locators, fragments) are shared through `$defs`. */
export function planJsonSchema(): Record<string, unknown> {
  cachedJsonSchema ??= JSON.stringify(
    shareRepeated(z.toJSONSchema(planSchema(), { io: "input", unrepresentable: "any" }) as Record<string, unknown>),
  );
  return JSON.parse(cachedJsonSchema) as Record<string, unknown>;
}
let cachedJsonSchema: string | undefined;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const SINGLE = [
  "items",
  "additionalProperties",
  "propertyNames",
  "not",
  "contains",
  "if",
  "then",
  "else",
  "unevaluatedItems",
  "unevaluatedProperties",
];
const LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];
const MAPS = ["properties", "patternProperties", "$defs", "dependentSchemas"];

/** Rebuilds a schema, mapping each direct subschema (never keyword-level objects such as `properties` itself). */
function mapSubschemas(schema: Json, f: (sub: unknown) => unknown): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SINGLE.includes(key) && isObject(value)) out[key] = f(value);
    else if (LISTS.includes(key) && Array.isArray(value)) out[key] = value.map(f);
    else if (MAPS.includes(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, f(v)]));
    else out[key] = value;
  }
  return out;
}

/**
 * Moves every subschema that occurs more than once (and is not tiny) into `$defs`, replacing
 * its occurrences with `$ref`s. zod inlines a schema at each use; the plan uses the locator
 * schema dozens of times.
 */
function shareRepeated(schema: Json, minSize = 200): Json {
  const { $defs: existing = {}, ...root } = schema as { $defs?: Json };
  const counts = new Map<string, number>();
  const count = (sub: unknown): void => {
    if (!isObject(sub)) return;
    const key = JSON.stringify(sub);
    if (key.length >= minSize) counts.set(key, (counts.get(key) ?? 0) + 1);
    mapSubschemas(sub, (s) => (count(s), s));
  };
  count(root);
  Object.values(existing).forEach(count);
  const defs: Json = {};
  const names = new Map<string, string>();
  const replace = (sub: unknown, top = false): unknown => {
    if (!isObject(sub)) return sub;
    const key = JSON.stringify(sub);
    if (!top && (counts.get(key) ?? 0) > 1) {
      let name = names.get(key);
      if (!name) {
        name = `shared${names.size}`;
        names.set(key, name);
        defs[name] = mapSubschemas(sub, (s) => replace(s));
      }
      return { $ref: `#/$defs/${name}` };
    }
    return mapSubschemas(sub, (s) => replace(s));
  };
  const out = replace(root, true) as Json;
  for (const [name, def] of Object.entries(existing)) defs[name] = replace(def, true);
  return Object.keys(defs).length ? { ...out, $defs: defs } : out;
}

// ------------------------------------------------------------------------------------------
// Prompt text

function objectShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  return shape && typeof shape === "object" ? shape : undefined;
}

function typeLabel(schema: z.ZodType): string {
  const kind = paramKindOf(schema);
  const code = codeKindOf(schema);
  if (kind === "expression" && code && code !== "expression") return `expression: ${code.replace("_", " ")}`;
  if (kind === "statements" && code && code !== "statements")
    return `statements: ${code === "function" ? "one function definition" : "one import statement"}`;
  if (kind) return kind;
  // Tier 0 params: read the JSON Schema type.
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
    type?: string;
    enum?: unknown[];
    anyOf?: unknown[];
  };
  if (json.enum) return json.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (json.anyOf) return "locator";
  return json.type ?? "value";
}

function paramLines(schema: z.ZodType): string[] {
  const shape = objectShape(schema);
  if (!shape) return [];
  return Object.entries(shape).map(([name, s]) => {
    const description = descriptionOf(s);
    return `  - ${name} (${typeLabel(s)}${isRequired(s) ? "" : ", optional"})${description ? `: ${description}` : ""}`;
  });
}

function signature(entry: CatalogEntry): string {
  const shape = objectShape(entry.params) ?? {};
  return Object.entries(shape)
    .map(([name, s]) => (isRequired(s) ? name : `${name}?`))
    .join(", ");
}

function templateOrSurgery(entry: CatalogEntry): string[] {
  const step = entry.example ? JSON.stringify({ [entry.step]: entry.name, params: entry.example }) : undefined;
  const langs =
    entry.languages && entry.languages.length < LANGUAGE_IDS.length ? ` [${entry.languages.join(", ")}]` : "";
  return [
    `### ${entry.name}${langs}`,
    entry.description,
    ...paramLines(entry.params),
    ...(step ? [`  e.g. ${step}`] : []),
  ];
}

function fragmentSection(): string[] {
  const lines = [
    '{"fragment": {"kind": K, "properties": {...}, "children": [...]}, "action": "replace" | "insert_before" | "insert_after", "locator": LOCATOR}',
    FRAGMENT_ENTRY.description,
    "Kinds (properties; * = required):",
  ];
  for (const kind of FRAGMENT_KINDS) {
    const spec = KIND_SPECS[kind];
    const props = Object.entries(spec.properties.shape as Record<string, z.ZodType>)
      .map(([name, s]) => `${name}${isRequired(s) ? "*" : ""}${codeKindOf(s) ? `:${codeKindOf(s)}` : ""}`)
      .join(", ");
    const children =
      allowedChildren(kind).length === 0
        ? "no children"
        : spec.clauses.length
          ? `children: statements, then ${spec.clauses.join(", ")}`
          : "children: statements";
    lines.push(`  - ${kind} (${props || "no properties"}; ${children}) — ${spec.description}`);
  }
  lines.push(`  e.g. ${JSON.stringify(FRAGMENT_ENTRY.example)}`);
  return lines;
}

export interface CatalogPromptOptions {
  /** Leave out the legacy section. */
  readonly legacy?: boolean;
  /**
   * The compact prompt: only the operators that apply to files of these languages (operators of any file —
   * text, data, files — always), the fragments only for Python, the shell/CSS/HTML locators only for those.
   * Absent: every language. A plan may still use any operator: this only leaves out what the files cannot use.
   */
  readonly languages?: readonly LanguageId[];
}

/**
 * Operators the compact prompt leaves out, valid in a plan all the same: the read-only ones (a plan's
 * steps change code; `locate` answers nothing a plan can use) and the primitive forms of `add_method` and
 * `add_class_attribute`, whose templates of the same names the prompt offers.
 */
const NOT_IN_COMPACT_PROMPT: ReadonlySet<string> = new Set(["locate", "locate_region"]);
const hasTemplateOfSameName = (e: CatalogEntry): boolean =>
  e.step === "op" && CATALOG.some((t) => t.step === "template" && t.name === e.name);

/** Whether the compact prompt shows `e` for files of `languages` (absent: all). */
function shownFor(e: CatalogEntry, languages: readonly LanguageId[] | undefined): boolean {
  if (NOT_IN_COMPACT_PROMPT.has(e.name) || hasTemplateOfSameName(e)) return false;
  return !languages || !e.languages || e.languages.some((l) => languages.includes(l));
}

/** The catalog's entries per use case, in the prompt's order, without empty ones (and without legacy when asked). */
function sections(options: CatalogPromptOptions): [UseCase, CatalogEntry[]][] {
  return USE_CASES.filter((useCase) => !(useCase === "Legacy (still supported)" && options.legacy === false))
    .map((useCase): [UseCase, CatalogEntry[]] => [useCase, CATALOG.filter((e) => e.useCase === useCase)])
    .filter(([, entries]) => entries.length > 0);
}

/** How a plan names the nodes of shell scripts, CSS and HTML (docs/design.md, "Shell, CSS and HTML"); in both prompts. */
const MARKUP_LOCATORS =
  'Shell, CSS, HTML nodes for the primitives: {"kind": "function", "name": "build"} in .sh; {"kind": "rule", "name": ".nav > a, .link"} (its selectors, spaces collapsed), {"kind": "declaration", "name": "color", "parent": RULE}, {"kind": "at_rule", "name": "@media (max-width: 600px)"} in .css; {"kind": "element", "name": ID}, {"kind": "heading", "name": TEXT} in .html (template markup {% %} {{ }}: text steps).';

/** The operator catalog for the LLM prompt, grouped by use case (Adding, Modifying, Wrapping, Restructuring, AST Surgery, Novel Code, Primitives, Legacy). */
export function catalogPrompt(options: CatalogPromptOptions = {}): string {
  const out: string[] = [
    "# Operators",
    "A plan is a JSON array of steps, run in order, all or nothing. Prefer templates; use fragments for new Python code no template covers; primitives for other code; text steps for docs, changelogs, config and code no node fits; legacy only as a last resort.",
    'Step forms: {"template": NAME, "params": {...}} (tier 2) | {"op": NAME, "params": {...}} (tier 1 surgery, primitives, legacy) | {"fragment": {...}, "action": ..., "locator": ...} (tier 3).',
    'A LOCATOR finds a node without line numbers: {"kind": "function", "name": "parse", "file": "app/parser.py", "parent": {"kind": "class", "name": "Parser"}, "field": "body", "nth_child": 0, "index": 0} (kind, name, parent, field, nth_child, index optional), or {"type": "sexp", "file": ..., "query": "(call) @c", "capture": "c"}.',
    "Code parameters are parsed before anything runs: an `expression` must be one expression, `statements` one or more statements written at column 0 (they are re-indented), `identifier` a plain name, `type` an annotation. Errors name the parameter.",
  ];
  for (const [useCase, entries] of sections(options)) {
    out.push("", `## ${useCase}`);
    if (useCase === "Novel Code (fragments)") out.push(...fragmentSection());
    else if (useCase === "Primitives") {
      out.push('Steps {"op": NAME, "params": {...}} on one located node; code is written at column 0 and re-indented.');
      for (const e of entries)
        out.push(`- ${e.name}(${signature(e)})${e.kind === "composed" ? " [composed]" : ""}: ${e.description}`);
      out.push("- delete_node(locator): see AST Surgery.", MARKUP_LOCATORS);
    } else if (useCase === "Text (any file: docs, changelogs, config)") {
      out.push(
        "For files with no grammar, and code no node fits. Addressed by content, never by line: `find`/`anchor` is copied from the file and must occur once (exact, then ignoring line endings and trailing spaces, then re-indented; a similar text only when clearly closest, reported as a correction). New text is written verbatim.",
      );
      for (const e of entries) out.push(`- ${e.name}(${signature(e)}): ${e.description}`);
    } else if (useCase === "Legacy (still supported)") {
      out.push(
        "Text- and line-based; line numbers drift after earlier steps. Each also accepts {locator, ...} and then runs as its primitive.",
      );
      for (const e of entries)
        out.push(`- ${e.name}(${signature(e)}): ${e.description}${e.replacedBy ? ` Prefer ${e.replacedBy}.` : ""}`);
    } else {
      for (const e of entries) out.push(...templateOrSurgery(e));
    }
  }
  return out.join("\n");
}

// ------------------------------------------------------------------------------------------
// Compact prompt text

/** The first sentence of a description (up to the first ". " or the end), for one-line entries. */
function firstSentence(text: string): string {
  const at = text.search(/(?<!\be\.g|\bi\.e)\.(\s|$)/);
  return at < 0 ? text : text.slice(0, at + 1);
}

/** Short language names for one-line entries (tsx is TypeScript's JSX dialect: listed as ts). */
const LANGUAGE_ABBREVIATIONS: Partial<Record<LanguageId, string>> = {
  python: "py",
  javascript: "js",
  typescript: "ts",
  tsx: "ts",
};

/** `name: type` per parameter, `?` marking an optional one. */
function compactParams(schema: z.ZodType): string {
  const shape = objectShape(schema) ?? {};
  return Object.entries(shape)
    .map(([name, s]) => `${name}${isRequired(s) ? "" : "?"}: ${typeLabel(s)}`)
    .join(", ");
}

/**
 * The operator catalog in one line per operator — name, parameters with their kinds, languages, and the
 * first sentence of its description — for the PLAN prompt. The full JSON Schema ({@link planJsonSchema})
 * is where a tool definition can carry it; validation errors name what a step got wrong either way.
 */
export function compactCatalogPrompt(options: CatalogPromptOptions = {}): string {
  const out: string[] = [
    "# Operators",
    `A plan is a JSON array of steps, run in order, all or nothing: {"template": NAME, "params": {...}} | {"op": NAME, "params": {...}} | {"fragment": {...}, "action": "replace"|"insert_before"|"insert_after", "locator": LOCATOR}. Prefer templates; fragments for new Python code; primitives for other code; text steps for docs, changelogs and config, and code no node fits${options.legacy === false ? "" : "; legacy last"}.`,
    'LOCATOR: {"kind": "function", "name": "parse", "file": "app/parser.py", "parent": {"kind": "class", "name": "Parser"}} (also field, nth_child, index), or {"type": "sexp", "file": ..., "query": "(call) @c", "capture": "c"}.',
    "Code parameters are parsed first: expression = one expression; statements = statements at column 0 (re-indented); identifier = a name.",
  ];
  const { languages } = options;
  if (!languages || languages.some((l) => l === "bash" || l === "css" || l === "html")) out.push(MARKUP_LOCATORS);
  for (const [useCase, all] of sections(options)) {
    const entries = all.filter((e) => shownFor(e, languages));
    if (entries.length === 0) continue;
    out.push(`## ${useCase}`);
    if (useCase === "Novel Code (fragments)") {
      const kinds = FRAGMENT_KINDS.map((kind) => {
        const props = Object.entries(KIND_SPECS[kind].properties.shape as Record<string, z.ZodType>).map(
          ([name, s]) => `${name}${isRequired(s) ? "*" : ""}`,
        );
        return props.length ? `${kind}(${props.join(",")})` : kind;
      });
      out.push(
        `{"fragment": {"kind", "properties", "children": [...]}, "action", "locator"} [py] kinds: ${kinds.join(" ")} (* = required)`,
      );
      continue;
    }
    for (const e of entries) {
      const langs =
        e.languages && e.languages.length < LANGUAGE_IDS.length
          ? ` [${e.languages
              .map((l) => LANGUAGE_ABBREVIATIONS[l] ?? l)
              .filter((l, i, all) => all.indexOf(l) === i)
              .join(",")}]`
          : "";
      const prefer = e.replacedBy ? ` Prefer ${e.replacedBy}.` : "";
      out.push(`- ${e.name}(${compactParams(e.params)})${langs}: ${firstSentence(e.description)}${prefer}`);
    }
  }
  return out.join("\n");
}

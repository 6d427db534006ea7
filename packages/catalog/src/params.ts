/**
 * Typed parameters of tier 1/2 operators, described once with zod. Each parameter carries its
 * kind (identifier, expression, statements, type, locator, string, boolean) and, for code, the
 * code kind it must parse as; validation collects every problem, each naming its parameter.
 */
import { z } from "zod";
import { LocatorSchema, SexpLocatorSchema, StructuredLocatorSchema } from "@graphplan/locators";
import { checkCode, closest, codeKindOf, isCodeLanguage, type CodeKind } from "@graphplan/fragments";
import { detectLanguage, type LanguageId, TaggedError } from "@graphplan/graph";

export const PARAM_KINDS = [
  "identifier",
  "expression",
  "statements",
  "type",
  "locator",
  "string",
  "boolean",
  "order",
  "choice",
  "files",
] as const;
export type ParamKind = (typeof PARAM_KINDS)[number];
export const PARAM_META = "x-param";

type Meta = { description: string; [key: string]: unknown };

const code = (param: ParamKind, codeKind: CodeKind, description: string) =>
  z.string().meta({ description, [PARAM_META]: param, "x-code": codeKind } satisfies Meta);

/** Parameter builders: the kind and the code check travel with the schema. */
export const p = {
  locator: (description: string) => LocatorSchema.meta({ description, [PARAM_META]: "locator" }),
  identifier: (description: string) => code("identifier", "identifier", description),
  expression: (description: string, check: CodeKind = "expression") => code("expression", check, description),
  statements: (description: string, check: CodeKind = "statements") => code("statements", check, description),
  type: (description: string) => code("type", "type", description),
  string: (description: string) =>
    z
      .string()
      .min(1)
      .meta({ description, [PARAM_META]: "string" }),
  boolean: (description: string) => z.boolean().meta({ description, [PARAM_META]: "boolean" }),
  files: (description: string) => z.array(z.string().min(1)).meta({ description, [PARAM_META]: "files" }),
  choice: <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
    z.enum(values).meta({ description, [PARAM_META]: "choice" }),
  order: (description: string) =>
    z
      .array(z.union([z.number().int().min(0), z.string().min(1)]))
      .min(2)
      .meta({ description, [PARAM_META]: "order" }),
};

/** The parameter kind of a schema made by {@link p} (through optional/default wrappers). */
export function paramKindOf(schema: z.ZodType): ParamKind | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 5; depth++) {
    const meta = current.meta() as Record<string, unknown> | undefined;
    const kind = meta?.[PARAM_META];
    if (typeof kind === "string") return kind as ParamKind;
    const def: { innerType?: z.ZodType } = (current as unknown as { _zod: { def: { innerType?: z.ZodType } } })._zod
      .def;
    current = def.innerType;
  }
  return undefined;
}

export function descriptionOf(schema: z.ZodType): string | undefined {
  let current: z.ZodType | undefined = schema;
  for (let depth = 0; current && depth < 5; depth++) {
    const meta = current.meta() as { description?: string } | undefined;
    if (meta?.description) return meta.description;
    if (current.description) return current.description;
    const def: { innerType?: z.ZodType } = (current as unknown as { _zod: { def: { innerType?: z.ZodType } } })._zod
      .def;
    current = def.innerType;
  }
  return undefined;
}

export const isRequired = (schema: z.ZodType): boolean => !schema.safeParse(undefined).success;

/** One problem with one parameter. */
export interface ParamIssue {
  readonly param: string;
  readonly problem: "missing" | "unknown" | "type" | "syntax" | "language" | "value";
  readonly message: string;
}

/** A tier 1/2 step's parameters are wrong; `issues` names every wrong parameter. */
export class ParamsInvalid extends TaggedError("ParamsInvalid") {
  constructor(
    readonly op: string,
    readonly issues: readonly ParamIssue[],
  ) {
    super(`Invalid parameters for ${op}:\n${issues.map((i) => `- ${i.param}: ${i.message}`).join("\n")}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function locatorProblem(value: unknown): string | undefined {
  if (LocatorSchema.safeParse(value).success) return undefined;
  if (!isRecord(value))
    return `a locator is an object such as {"kind": "function", "name": "f", "file": "a.py"}, got ${Array.isArray(value) ? "an array" : typeof value}`;
  const schema = value["type"] === "sexp" ? SexpLocatorSchema : StructuredLocatorSchema;
  const result = schema.safeParse(value);
  if (result.success) return undefined;
  return result.error.issues
    .map((i) => {
      const at = i.path.join(".");
      if (i.code === "unrecognized_keys")
        return `unknown locator field${i.keys.length > 1 ? "s" : ""} ${i.keys.join(", ")} (fields: kind, name, file, parent, field, nth_child, index)`;
      return `${at ? `${at}: ` : ""}${i.message}`;
    })
    .join("; ");
}

/** The file a step works on: the `file` param, or the file of its first locator param (in schema order). */
export function primaryFile(shape: Record<string, z.ZodType>, params: Record<string, unknown>): string | undefined {
  if (typeof params["file"] === "string") return params["file"];
  for (const [name, schema] of Object.entries(shape)) {
    if (paramKindOf(schema) !== "locator") continue;
    const value = params[name];
    if (isRecord(value) && typeof value["file"] === "string") return value["file"];
  }
  return undefined;
}

export interface ValidateOptions {
  /** Languages the operator supports (code params are checked in the language of the primary file). */
  readonly languages: readonly LanguageId[];
  /** Overrides the language (otherwise taken from the primary file's extension). */
  readonly language?: LanguageId | undefined;
}

/**
 * Validates `params` against an operator's parameter object: missing, unknown and ill-typed
 * parameters, locators, and every code-valued parameter parsed as its code kind in the target
 * language. Returns all issues (empty when valid). Needs the grammars loaded.
 */
export function validateParams(
  shape: Record<string, z.ZodType>,
  params: unknown,
  options: ValidateOptions,
): ParamIssue[] {
  const issues: ParamIssue[] = [];
  if (!isRecord(params)) {
    return [
      {
        param: "params",
        problem: "type",
        message: `params must be an object, got ${Array.isArray(params) ? "an array" : typeof params}`,
      },
    ];
  }
  const names = Object.keys(shape);
  for (const key of Object.keys(params)) {
    if (key in shape) continue;
    const hint = closest(key, names);
    issues.push({
      param: key,
      problem: "unknown",
      message: `unknown parameter${hint ? ` (did you mean ${hint}?)` : ""}; parameters: ${names.join(", ")}`,
    });
  }

  const file = primaryFile(shape, params);
  const detected = options.language ?? (file ? detectLanguage(file) : undefined);
  let language: LanguageId | undefined = detected;
  if (file && detected && !options.languages.includes(detected)) {
    issues.push({
      param: "file",
      problem: "language",
      message: `${file} is ${detected}; this operator supports ${options.languages.join(", ")}`,
    });
    language = undefined;
  } else if (file && !detected) {
    issues.push({ param: "file", problem: "language", message: `${file}: not a file GraphPlan can parse` });
  }

  for (const [name, schema] of Object.entries(shape)) {
    const value = params[name];
    const kind = paramKindOf(schema);
    const description = descriptionOf(schema);
    if (value === undefined || value === null) {
      if (isRequired(schema))
        issues.push({ param: name, problem: "missing", message: `required${description ? `: ${description}` : ""}` });
      continue;
    }
    if (kind === "locator") {
      const problem = locatorProblem(value);
      if (problem) issues.push({ param: name, problem: "type", message: `not a valid locator: ${problem}` });
      continue;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      const expected =
        kind === "boolean"
          ? "true or false"
          : kind === "order"
            ? "an array of child indices or names"
            : kind === "files"
              ? "an array of file paths"
              : kind === "choice"
                ? first?.message
                : "a string";
      issues.push({
        param: name,
        problem: "type",
        message: `expected ${expected}, got ${JSON.stringify(value)}${description ? ` (${description})` : ""}`,
      });
      continue;
    }
    const codeKind = codeKindOf(schema);
    if (codeKind && typeof value === "string" && language && isCodeLanguage(language)) {
      const result = checkCode(value, codeKind, language);
      if (!result.ok)
        issues.push({
          param: name,
          problem: "syntax",
          message: `${kind === "statements" ? "" : `claims to be ${kind === "expression" && codeKind !== "expression" ? codeKind.replace("_", " ") : kind}, but `}${result.message}`,
        });
    }
  }
  return issues;
}

/** Normalizes a code param the way validation saw it (trimmed; blocks dedented; decorators without @). */
export function codeParam(value: unknown, kind: CodeKind, language: LanguageId): string {
  if (typeof value !== "string") return "";
  if (!isCodeLanguage(language)) return value.trim();
  const result = checkCode(value, kind, language);
  return result.ok ? result.code : value.trim();
}

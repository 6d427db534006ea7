/**
 * Fragment validation: the kind is known, properties are the kind's (required present, no unknown
 * ones, right JSON types), each code-valued property parses as the code kind it holds, and
 * children are allowed for the parent and in order. All issues are collected, each with a path.
 */
import { TaggedError } from "@graphplan/graph";
import type { z } from "zod";
import { distance } from "fastest-levenshtein";
import { checkCode, type CodeKind, type CodeLanguage } from "./code.js";
import { JS_ONLY_OPERATORS } from "./javascript.js";
import { FRAGMENT_LANGUAGE, type Place } from "./languages.js";
import {
  CLAUSE_KINDS,
  FRAGMENT_KINDS,
  KIND_SPECS,
  allowedChildren,
  codeKindOf,
  type ClauseKind,
  type Fragment,
  type FragmentKind,
} from "./schema.js";

/** One thing wrong with a fragment. `path` is JSON-ish: `children[1].properties.condition`. */
export interface FragmentIssue {
  readonly path: string;
  readonly code:
    | "kind"
    | "shape"
    | "missing_property"
    | "unknown_property"
    | "property_type"
    | "syntax"
    | "child_kind"
    | "child_order"
    | "structure";
  readonly message: string;
}

/** A fragment that cannot be serialized as written; `issues` says every problem and where. */
export class FragmentInvalid extends TaggedError("FragmentInvalid") {
  constructor(readonly issues: readonly FragmentIssue[]) {
    super(`The fragment is invalid:\n${issues.map((i) => `- ${i.path || "(root)"}: ${i.message}`).join("\n")}`);
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
const isClause = (kind: string): kind is ClauseKind => (CLAUSE_KINDS as readonly string[]).includes(kind);

/** The option nearest to `word` (edit distance), when near enough to suggest. */
export function closest(word: string, options: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const option of options) {
    const score = distance(word.toLowerCase(), option.toLowerCase());
    if (score < bestScore) [best, bestScore] = [option, score];
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

const KIND_ALIASES: Record<string, FragmentKind> = {
  function: "function_definition",
  def: "function_definition",
  method: "function_definition",
  class: "class_definition",
  if: "if_statement",
  elif: "elif_clause",
  else: "else_clause",
  for: "for_statement",
  while: "while_statement",
  with: "with_statement",
  try: "try_statement",
  except: "except_clause",
  finally: "finally_clause",
  return: "return_statement",
  raise: "raise_statement",
  assign: "assignment",
  expression: "expression_statement",
  call: "expression_statement",
  pass: "pass_statement",
};

export interface ValidateOptions {
  /** The language the fragment will be written in (default Python); its grammar must be loaded. */
  readonly language?: CodeLanguage;
  /**
   * JavaScript/TypeScript: whether the fragment goes in a class body (a method, a field). Left out
   * when the place is not known yet (a plan checked before its files are read): the rules that
   * depend on it are then left to the run, which knows.
   */
  readonly inClass?: boolean;
  /** Go: whether the fragment goes at the top of the file (declarations only). Left out when not known yet. */
  readonly topLevel?: boolean;
}

/**
 * Validates a fragment (any JSON value) for `language` (default Python; JavaScript, TypeScript and
 * TSX too). Needs that grammar loaded. Returns every issue found; empty when valid.
 */
export function validateFragment(fragment: unknown, options: ValidateOptions = {}): FragmentIssue[] {
  const language = options.language ?? "python";
  const place: Place = { inClass: options.inClass, topLevel: options.topLevel };
  const issues: FragmentIssue[] = [];
  visit(fragment, "", issues, language, place);
  // What the kinds allow but the language cannot say (JavaScript's with, Java's untyped catch, Go's top-level statements, ...).
  const own = FRAGMENT_LANGUAGE[language].issues;
  if (issues.length === 0 && own) issues.push(...own(fragment as Fragment, "", place));
  return issues;
}

/** Validates and returns the fragment typed, or throws {@link FragmentInvalid}. */
export function assertFragment(fragment: unknown, options: ValidateOptions = {}): Fragment {
  const issues = validateFragment(fragment, options);
  if (issues.length > 0) throw new FragmentInvalid(issues);
  return fragment as Fragment;
}

function visit(node: unknown, path: string, issues: FragmentIssue[], language: CodeLanguage, place: Place): void {
  if (!isRecord(node)) {
    issues.push({
      path,
      code: "shape",
      message: `a fragment is an object {kind, properties, children}, got ${Array.isArray(node) ? "an array" : typeof node}`,
    });
    return;
  }
  for (const key of Object.keys(node)) {
    if (key === "kind" || key === "properties" || key === "children") continue;
    const hint =
      key === "body" || key === "statements"
        ? ": put body statements in children"
        : ": a fragment has only kind, properties and children";
    issues.push({ path: join(path, key), code: "shape", message: `unknown field ${JSON.stringify(key)}${hint}` });
  }
  const kind = node["kind"];
  if (typeof kind !== "string" || !(FRAGMENT_KINDS as readonly string[]).includes(kind)) {
    const alias = typeof kind === "string" ? (KIND_ALIASES[kind] ?? closest(kind, FRAGMENT_KINDS)) : undefined;
    issues.push({
      path: join(path, "kind"),
      code: "kind",
      message: `${JSON.stringify(kind)} is not a fragment kind${alias ? ` (did you mean ${alias}?)` : ""}; kinds: ${FRAGMENT_KINDS.join(", ")}`,
    });
    return;
  }
  const noForm = FRAGMENT_LANGUAGE[language].noForm?.[kind as FragmentKind];
  if (noForm) {
    issues.push({ path: join(path, "kind"), code: "kind", message: noForm });
    return;
  }
  checkProperties(kind as FragmentKind, node["properties"], join(path, "properties"), issues, language, place);
  checkChildren(kind as FragmentKind, node["children"], path, issues, language);
}

// Long on purpose: one pass over a kind's properties: unknown names, then each property's type, shape and language rules, all reported together.
function checkProperties(
  kind: FragmentKind,
  properties: unknown,
  path: string,
  issues: FragmentIssue[],
  language: CodeLanguage,
  place: Place,
): void {
  const spec = KIND_SPECS[kind];
  const shape = spec.properties.shape as Record<string, z.ZodType>;
  const names = Object.keys(shape);
  if (properties !== undefined && !isRecord(properties)) {
    issues.push({
      path,
      code: "shape",
      message: `properties must be an object, got ${Array.isArray(properties) ? "an array" : typeof properties}`,
    });
    return;
  }
  const given = (properties ?? {}) as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (key in shape) continue;
    const hint = closest(key, names);
    issues.push({
      path: join(path, key),
      code: "unknown_property",
      message: `${kind} has no property ${JSON.stringify(key)}${hint ? ` (did you mean ${hint}?)` : ""}; its properties: ${names.length ? names.join(", ") : "none"}`,
    });
  }
  for (const [name, schema] of Object.entries(shape)) {
    const value = given[name];
    const where = join(path, name);
    const description = schema.description ?? (schema.meta() as { description?: string } | undefined)?.description;
    if (value === undefined || value === null) {
      if (!schema.safeParse(undefined).success) {
        issues.push({
          path: where,
          code: "missing_property",
          message: `${kind} needs property ${name}${description ? ` (${description})` : ""}`,
        });
      }
      continue;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const expected = parsed.error.issues[0]?.message ?? "wrong type";
      issues.push({
        path: where,
        code: "property_type",
        message: `${name} of ${kind} is invalid: ${expected}${description ? ` (${description})` : ""}`,
      });
      continue;
    }
    if (name === "receiver" && language !== "go") {
      issues.push({ path: where, code: "structure", message: "a receiver is Go's: leave it out" });
      continue;
    }
    // The language may read the property as another code kind, or check it by its own rules.
    const slot = FRAGMENT_LANGUAGE[language].slot?.(kind, name, value, place);
    if (slot === "own") continue;
    checkCodeValues(schema, slot?.code ?? value, where, issues, language, slot?.kind);
  }
  if (language !== "python") return; // the other languages' own rules: FRAGMENT_LANGUAGE[language].issues
  // Cross-property rules the shapes cannot say.
  if (given["declaration"] !== undefined) {
    issues.push({
      path: join(path, "declaration"),
      code: "structure",
      message: "Python has no const/let/var: leave declaration out",
    });
  }
  if (given["modifiers"] !== undefined) {
    issues.push({
      path: join(path, "modifiers"),
      code: "structure",
      message: "modifiers are Java's: leave them out in Python",
    });
  }
  if (typeof given["operator"] === "string" && JS_ONLY_OPERATORS.has(given["operator"])) {
    issues.push({
      path: join(path, "operator"),
      code: "structure",
      message: `${given["operator"]} is JavaScript's; Python has no such operator`,
    });
  }
  if (kind === "except_clause" && given["alias"] !== undefined && given["exception"] === undefined) {
    issues.push({
      path: join(path, "alias"),
      code: "structure",
      message: "alias needs exception: a bare except binds no name",
    });
  }
  if (kind === "raise_statement" && given["cause"] !== undefined && given["exception"] === undefined) {
    issues.push({
      path: join(path, "cause"),
      code: "structure",
      message: "cause needs exception: `raise from x` is not Python",
    });
  }
  if (kind === "assignment") {
    const op = given["operator"] ?? "=";
    if (given["value"] === undefined && given["type"] === undefined) {
      issues.push({
        path: join(path, "value"),
        code: "missing_property",
        message: "assignment needs value (or type, for a bare annotation)",
      });
    }
    if (op !== "=" && given["type"] !== undefined)
      issues.push({
        path: join(path, "type"),
        code: "structure",
        message: `an augmented assignment (${String(op)}) cannot have a type`,
      });
    if (op !== "=" && given["value"] === undefined)
      issues.push({
        path: join(path, "value"),
        code: "missing_property",
        message: `an augmented assignment (${String(op)}) needs value`,
      });
  }
}

function checkCodeValues(
  schema: z.ZodType,
  value: unknown,
  path: string,
  issues: FragmentIssue[],
  language: CodeLanguage,
  asKind?: CodeKind,
): void {
  const codeKind = asKind ?? codeKindOf(schema);
  if (typeof value === "string" && codeKind) {
    const result = checkCode(value, codeKind, language);
    if (!result.ok) issues.push({ path, code: "syntax", message: result.message });
    return;
  }
  if (Array.isArray(value)) {
    const element = (schema as unknown as { _zod: { def: { innerType?: z.ZodType; element?: z.ZodType } } })._zod.def;
    const array = element.innerType
      ? (element.innerType as unknown as { _zod: { def: { element?: z.ZodType } } })._zod.def.element
      : element.element;
    if (!array) return;
    value.forEach((v, i) => checkCodeValues(array, v, `${path}[${i}]`, issues, language));
  }
}

function checkChildren(
  kind: FragmentKind,
  children: unknown,
  path: string,
  issues: FragmentIssue[],
  language: CodeLanguage,
): void {
  if (children === undefined || children === null) children = [];
  const where = join(path, "children");
  if (!Array.isArray(children)) {
    issues.push({
      path: where,
      code: "shape",
      message: `children must be an array of fragments, got ${typeof children}`,
    });
    return;
  }
  const spec = KIND_SPECS[kind];
  const allowed = allowedChildren(kind);
  if (!spec.body && children.length > 0) {
    issues.push({
      path: where,
      code: "child_kind",
      message: `${kind} is a leaf: it has no children (found ${children.length})`,
    });
    return;
  }
  // Body statements first, then clauses in the order the spec lists them.
  let clauseRank = -1;
  let lastClause: ClauseKind | undefined;
  const counts = new Map<string, number>();
  children.forEach((child, i) => {
    const childPath = `${where}[${i}]`;
    const childKind = isRecord(child) ? child["kind"] : undefined;
    if (typeof childKind === "string" && (FRAGMENT_KINDS as readonly string[]).includes(childKind)) {
      if (!allowed.includes(childKind as FragmentKind)) {
        const where =
          childKind === "elif_clause"
            ? "only inside if_statement"
            : childKind === "else_clause"
              ? "only inside if_statement, for_statement, while_statement or try_statement"
              : "only inside try_statement";
        issues.push({
          path: join(childPath, "kind"),
          code: "child_kind",
          message: `${childKind} cannot be a child of ${kind}: it goes ${where}`,
        });
      } else if (isClause(childKind)) {
        const rank = spec.clauses.indexOf(childKind);
        const repeatable = childKind === "elif_clause" || childKind === "except_clause";
        counts.set(childKind, (counts.get(childKind) ?? 0) + 1);
        if (rank < clauseRank || (rank === clauseRank && !repeatable)) {
          issues.push({
            path: join(childPath, "kind"),
            code: "child_order",
            message: `${childKind} cannot come after ${lastClause}: ${kind} children are body statements, then ${spec.clauses.map((c) => (c === "elif_clause" || c === "except_clause" ? `${c}*` : `${c}?`)).join(", ")}`,
          });
        }
        clauseRank = Math.max(clauseRank, rank);
        lastClause = childKind;
      } else if (clauseRank >= 0) {
        issues.push({
          path: join(childPath, "kind"),
          code: "child_order",
          message: `the statement ${childKind} comes after ${lastClause}: put body statements before the clauses, or inside the clause's children`,
        });
      }
    }
    visit(child, childPath, issues, language, { inClass: kind === "class_definition", topLevel: false });
  });
  if (kind === "try_statement" && !counts.get("except_clause") && !counts.get("finally_clause")) {
    issues.push({
      path: where,
      code: "structure",
      message: "try_statement needs at least one except_clause or a finally_clause among its children",
    });
  }
  if (kind === "try_statement" && counts.get("else_clause") && !counts.get("except_clause")) {
    issues.push({ path: where, code: "structure", message: "try_statement with else_clause needs an except_clause" });
  }
}

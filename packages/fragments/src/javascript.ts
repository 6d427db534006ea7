/**
 * Fragments in JavaScript and TypeScript: the same kinds as Python's, written with braces. What
 * a kind means there (`elif_clause` → `else if`, `except_clause` → `catch`, `raise_statement` →
 * `throw`, a `function_definition` in a class body → a method, an `assignment` there → a field),
 * and what has no JavaScript form (`with`, a typed `catch`, `else` after a loop or a `try`,
 * `raise ... from`, a bare re-raise), said as issues before anything is written.
 */
import {
  bodyAndClauses,
  braceBlock,
  classBodyPlace,
  decoratorLines,
  docComment,
  isClause,
  sharedBraceLines,
  str,
} from "./braces.js";
import { indentLine } from "./place.js";
import type { FragmentLanguage } from "./languages.js";
import type { FragmentIssue } from "./validate.js";

/** A template literal, which may span lines: its continuation lines are kept as written. */
const TEMPLATE_LITERAL = /`/;
import type { Fragment, FragmentKind } from "./schema.js";

/** Assignment operators of Python only, and of JavaScript only. */
export const PYTHON_ONLY_OPERATORS: ReadonlySet<string> = new Set(["//=", "@="]);
export const JS_ONLY_OPERATORS: ReadonlySet<string> = new Set(["??=", "||=", "&&=", ">>>="]);

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** Kinds JavaScript has no form for: what to write instead. */
export const JS_NO_FORM: Readonly<Partial<Record<FragmentKind, string>>> = {
  with_statement:
    "JavaScript has no with statement (and strict code forbids it): use try_statement with a finally_clause that releases the resource",
};

/** Where a fragment stands: a class body holds methods and fields, not statements. */
export interface JsPlace {
  /** undefined: not known yet (the rules that depend on it are skipped). */
  readonly inClass: boolean | undefined;
}

/** The kinds a JavaScript class body may hold, as fragments. */
const CLASS_MEMBERS: ReadonlySet<FragmentKind> = new Set(["function_definition", "assignment", "pass_statement"]);

/**
 * What a valid (by the kind description) fragment cannot be in JavaScript/TypeScript, at `path`;
 * `place` is where this fragment stands. Checks the children too. (Kinds with no JavaScript form
 * at all, {@link JS_NO_FORM}, are refused by the validation before.)
 */
export function jsIssues(fragment: Fragment, path: string, place: JsPlace): FragmentIssue[] {
  const issues: FragmentIssue[] = [];
  const p = fragment.properties ?? {};
  const say = (key: string, message: string, code: FragmentIssue["code"] = "structure"): void =>
    void issues.push({ path: join(path, key), code, message });
  if (place.inClass === true && !CLASS_MEMBERS.has(fragment.kind)) {
    say(
      "kind",
      `a JavaScript class body holds methods (function_definition) and fields (assignment), not ${fragment.kind}`,
      "child_kind",
    );
  }
  if (p["modifiers"] !== undefined) say("properties.modifiers", "modifiers are Java's: leave them out in JavaScript");
  switch (fragment.kind) {
    case "function_definition":
      if (place.inClass === false && Array.isArray(p["decorators"]) && p["decorators"].length > 0) {
        say(
          "properties.decorators",
          "JavaScript decorates classes and methods, not functions: leave decorators out, or write the function as a method inside a class_definition",
        );
      }
      break;
    case "raise_statement":
      if (p["exception"] === undefined)
        say(
          "properties.exception",
          "JavaScript has no bare re-raise: throw the caught error by name (the alias of the catch clause)",
          "missing_property",
        );
      if (p["cause"] !== undefined)
        say(
          "properties.cause",
          'JavaScript has no `raise ... from`: pass the cause to the error, e.g. "new Error(\\"failed\\", { cause: err })"',
        );
      break;
    case "assignment": {
      const operator = typeof p["operator"] === "string" ? p["operator"] : "=";
      if (PYTHON_ONLY_OPERATORS.has(operator))
        say("properties.operator", `${operator} is Python's; JavaScript has no such operator`);
      if (place.inClass === undefined) break;
      if (place.inClass) {
        if (p["declaration"] !== undefined) say("properties.declaration", "a class field takes no const/let/var");
        if (operator !== "=") say("properties.operator", "a class field is declared with =");
        if (typeof p["target"] === "string" && !/^#?[\p{L}_$][\p{L}\p{N}_$]*$/u.test(p["target"].trim()))
          say("properties.target", "a class field's target is its name");
      } else if (operator !== "=" && p["value"] === undefined) {
        say("properties.value", `an augmented assignment (${operator}) needs value`, "missing_property");
      } else if (p["declaration"] !== undefined && operator !== "=") {
        say("properties.operator", `a declaration (${String(p["declaration"])}) is made with =`);
      } else if (p["declaration"] === undefined && p["value"] === undefined) {
        say(
          "properties.declaration",
          'an assignment without value declares a variable: give declaration ("let")',
          "missing_property",
        );
      } else if (p["declaration"] === "const" && p["value"] === undefined) {
        say("properties.value", "a const needs a value", "missing_property");
      }
      break;
    }
    default:
      break;
  }
  const children = fragment.children ?? [];
  const clauses = children.filter((c) => isClause(c.kind));
  if (
    (fragment.kind === "for_statement" || fragment.kind === "while_statement") &&
    clauses.some((c) => c.kind === "else_clause")
  ) {
    say("children", `JavaScript loops have no else clause: test after the loop instead`, "child_kind");
  }
  if (fragment.kind === "try_statement") {
    if (clauses.some((c) => c.kind === "else_clause"))
      say("children", "JavaScript's try has no else clause: put that code at the end of the try block", "child_kind");
    if (clauses.filter((c) => c.kind === "except_clause").length > 1)
      say(
        "children",
        "JavaScript's try has one catch clause: test the error inside it (err instanceof TypeError)",
        "child_kind",
      );
  }
  const inClass = fragment.kind === "class_definition";
  children.forEach((child, i) => issues.push(...jsIssues(child, `${join(path, "children")}[${i}]`, { inClass })));
  return issues;
}

/**
 * Serializes a fragment as JavaScript (or TypeScript, with its types). Lines are unindented at the
 * fragment's own level; nested lines carry `unit`s. Trusts the shape: check with {@link jsIssues} first.
 */
export function jsLines(
  fragment: Fragment,
  unit: string,
  place: { readonly inClass: boolean },
  typescript: boolean,
): string[] {
  const p = fragment.properties ?? {};
  const { body, clauses } = bodyAndClauses(fragment);
  const inner = (list: readonly Fragment[], inClass = false): string[] =>
    list.flatMap((c) => jsLines(c, unit, { inClass }, typescript)).map((l) => indentLine(l, unit, TEMPLATE_LITERAL));
  const compound = (header: string, inClass = false): string[] =>
    braceBlock(
      header,
      inner(body, inClass),
      clauses.map((c) => jsLines(c, unit, { inClass: false }, typescript)),
    );
  const type = (key: string): string => {
    const t = str(p[key]);
    return typescript && t ? `: ${t}` : "";
  };
  const decorators = decoratorLines(p);
  const docs = str(p["docstring"]) ? docComment(p["docstring"] as string) : [];
  const asyncPrefix = p["is_async"] === true ? "async " : "";

  // What C-family languages write alike first (if, while, try, return, throw, ...), then this language's own.
  const shared = sharedBraceLines(fragment, (header) => compound(header));
  if (shared) return shared;
  switch (fragment.kind) {
    case "function_definition": {
      const signature = `${str(p["name"])}(${str(p["parameters"]) ?? ""})${type("return_type")}`;
      return [
        ...docs,
        ...decorators,
        ...compound(place.inClass ? `${asyncPrefix}${signature}` : `${asyncPrefix}function ${signature}`),
      ];
    }
    case "class_definition": {
      const bases = str(p["bases"]);
      return [...docs, ...decorators, ...compound(`class ${str(p["name"])}${bases ? ` extends ${bases}` : ""}`, true)];
    }
    case "for_statement":
      return compound(
        `for ${p["is_async"] === true ? "await " : ""}(const ${str(p["target"])} of ${str(p["iterable"])})`,
      );
    case "except_clause": {
      const alias = str(p["alias"]);
      return compound(`catch${alias ? ` (${alias})` : ""}`);
    }
    case "assignment": {
      const value = str(p["value"]);
      if (place.inClass) return [`${str(p["target"])}${type("type")}${value !== undefined ? ` = ${value}` : ""};`];
      const declaration = typeof p["declaration"] === "string" ? `${p["declaration"]} ` : "";
      const operator = typeof p["operator"] === "string" ? p["operator"] : "=";
      const statement = `${declaration}${str(p["target"])}${type("type")}${value !== undefined ? ` ${operator} ${value}` : ""}`;
      // An object pattern at the start of a statement would read as a block: ({ a, b } = pair);
      return [!declaration && str(p["target"])?.startsWith("{") ? `(${statement});` : `${statement};`];
    }
    case "with_statement":
      throw new Error(JS_NO_FORM.with_statement);
    default:
      throw new Error(`${fragment.kind} is written by sharedBraceLines`);
  }
}

/** JavaScript (or, with `typescript`, TypeScript and TSX) as a fragment language. */
export function javascript(typescript: boolean): FragmentLanguage {
  return {
    noForm: JS_NO_FORM,
    // `extends` takes one expression; a class field's target is its name (jsIssues checks it).
    slot: (kind, property, _value, place) =>
      kind === "class_definition" && property === "bases"
        ? { kind: "expression" }
        : kind === "assignment" && property === "target" && place.inClass !== false
          ? "own"
          : undefined,
    issues: (fragment, path, place) => jsIssues(fragment, path, { inClass: place.inClass }),
    lines: (fragment, unit, place) => jsLines(fragment, unit, { inClass: place.inClass }, typescript),
    multilineString: TEMPLATE_LITERAL,
    place: classBodyPlace,
  };
}

/**
 * Fragments in Go: the kinds Go has, written as gofmt writes them (tabs come from the file). A
 * `function_definition` is `func (receiver) name(params) results {`, `for_statement` is
 * `for k, v := range xs {`, `while_statement` is `for cond {`, an `assignment` with a declaration is
 * `x := v` (`var x T = v` with a type, `const` for const). Go has no classes, exceptions, `with` or
 * decorators: those kinds and properties are refused with the Go way to write them.
 */
import { bodyAndClauses, braceBlock, str } from "./braces.js";
import { indentLine } from "./place.js";
import type { Fragment, FragmentKind } from "./schema.js";
import type { FragmentLanguage } from "./languages.js";
import type { FragmentIssue } from "./validate.js";

/** Kinds Go has no form for: what to write instead. */
export const GO_NO_FORM: Readonly<Partial<Record<FragmentKind, string>>> = {
  class_definition:
    "Go has no classes: declare a struct type with replace_node, and its methods as function_definition with a receiver",
  with_statement:
    'Go has no with statement: acquire, then `defer release()` (an expression_statement "defer f.Close()")',
  try_statement:
    'Go has no exceptions: return the error and test it (if_statement "err != nil" with return_statement "err")',
  except_clause: "Go has no exceptions: test the returned error with an if_statement",
  finally_clause: "Go has no finally: use defer",
  raise_statement:
    "Go returns errors instead of raising them: return_statement with the error (panic, as an expression_statement, only for bugs)",
  pass_statement: "Go has no pass: leave the block empty",
};

/** Go's assignment operators. */
export const GO_OPERATORS: ReadonlySet<string> = new Set([
  "=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "&=",
  "|=",
  "^=",
  "<<=",
  ">>=",
]);
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
/** A raw string literal may span lines: its continuation lines are kept as written. */
const RAW_STRING = /`/;

/**
 * What a valid (by the kind description) fragment cannot be in Go, at `path`; `topLevel` is whether
 * it stands at the top of the file (undefined: not known yet, those rules are left to the run).
 * Checks the children too. (Kinds Go has no form for at all, {@link GO_NO_FORM}, are refused by the
 * validation before.)
 */
export function goIssues(fragment: Fragment, path: string, topLevel: boolean | undefined): FragmentIssue[] {
  const issues: FragmentIssue[] = [];
  const p = fragment.properties ?? {};
  const say = (key: string, message: string, code: FragmentIssue["code"] = "structure"): void =>
    void issues.push({ path: join(path, key), code, message });
  if (
    topLevel === true &&
    fragment.kind !== "function_definition" &&
    !(fragment.kind === "assignment" && p["declaration"] !== undefined)
  ) {
    say(
      "kind",
      `the top of a Go file holds declarations (func, var, const), not ${fragment.kind}: place it inside a function`,
      "child_kind",
    );
  }
  if (topLevel === false && fragment.kind === "function_definition")
    say(
      "kind",
      "Go declares functions at the top of the file: insert it after a function, or write a function literal as an expression",
      "child_kind",
    );
  if (Array.isArray(p["decorators"]) && p["decorators"].length > 0)
    say("properties.decorators", "Go has no decorators: call the wrapper explicitly");
  if (p["modifiers"] !== undefined) say("properties.modifiers", "Go has no modifiers: a capitalised name is exported");
  if (p["is_async"] === true)
    say("properties.is_async", 'Go has no async: start a goroutine (expression_statement "go f()")');
  if (fragment.kind === "assignment") {
    const operator = typeof p["operator"] === "string" ? p["operator"] : "=";
    if (!GO_OPERATORS.has(operator))
      say("properties.operator", `${operator} is not a Go operator (Go's: ${[...GO_OPERATORS].join(" ")})`);
    if (p["declaration"] !== undefined && operator !== "=")
      say("properties.operator", "a declaration is made with = (written := or var)");
    if (p["type"] !== undefined && p["declaration"] === undefined)
      say(
        "properties.declaration",
        'a typed assignment declares a variable: give declaration ("var", or "const")',
        "missing_property",
      );
    if (p["value"] === undefined && (p["type"] === undefined || p["declaration"] === "const"))
      say("properties.value", "the assignment needs value (only a var with a type may omit it)", "missing_property");
  }
  const { clauses } = bodyAndClauses(fragment);
  if (
    (fragment.kind === "for_statement" || fragment.kind === "while_statement") &&
    clauses.some((c) => c.kind === "else_clause")
  )
    say("children", "Go loops have no else clause: test after the loop instead", "child_kind");
  (fragment.children ?? []).forEach((child, i) =>
    issues.push(...goIssues(child, `${join(path, "children")}[${i}]`, false)),
  );
  return issues;
}

/** A Go doc comment: `// ` before each line. */
const docLines = (text: string): string[] =>
  text
    .trim()
    .split("\n")
    .map((l) => (l.trim() === "" ? "//" : `// ${l}`));

/** Serializes a fragment as Go. Lines are unindented at the fragment's own level; nested lines carry `unit`s. Trusts the shape: check with {@link goIssues} first. */
export function goLines(fragment: Fragment, unit: string, topLevel = false): string[] {
  const p = fragment.properties ?? {};
  const { body, clauses } = bodyAndClauses(fragment);
  const compound = (header: string): string[] =>
    braceBlock(
      header,
      body.flatMap((c) => goLines(c, unit)).map((l) => indentLine(l, unit, RAW_STRING)),
      clauses.map((c) => goLines(c, unit)),
    );
  switch (fragment.kind) {
    case "function_definition": {
      const receiver = str(p["receiver"]);
      const results = str(p["return_type"]);
      const docs = str(p["docstring"]) ? docLines(p["docstring"] as string) : [];
      return [
        ...docs,
        ...compound(
          `func ${receiver ? `(${receiver}) ` : ""}${str(p["name"])}(${str(p["parameters"]) ?? ""})${results ? ` ${results}` : ""}`,
        ),
      ];
    }
    case "if_statement":
      return compound(`if ${str(p["condition"])}`);
    case "elif_clause":
      return compound(`else if ${str(p["condition"])}`);
    case "else_clause":
      return compound("else");
    case "for_statement":
      return compound(`for ${str(p["target"])} := range ${str(p["iterable"])}`);
    case "while_statement":
      return compound(`for ${str(p["condition"])}`);
    case "return_statement": {
      const value = str(p["value"]);
      return [value ? `return ${value}` : "return"];
    }
    case "assignment": {
      const value = str(p["value"]);
      const type = str(p["type"]);
      const declaration = p["declaration"];
      if (declaration === "const") return [`const ${str(p["target"])}${type ? ` ${type}` : ""} = ${value}`];
      if (declaration !== undefined && type !== undefined)
        return [`var ${str(p["target"])} ${type}${value !== undefined ? ` = ${value}` : ""}`];
      // := only inside a function; at the top of the file a variable is declared with var.
      if (declaration !== undefined)
        return [topLevel ? `var ${str(p["target"])} = ${value}` : `${str(p["target"])} := ${value}`];
      return [`${str(p["target"])} ${typeof p["operator"] === "string" ? p["operator"] : "="} ${value}`];
    }
    case "expression_statement":
      return [str(p["expression"]) ?? ""];
    case "break_statement":
      return ["break"];
    case "continue_statement":
      return ["continue"];
    default:
      throw new Error(GO_NO_FORM[fragment.kind] ?? `${fragment.kind} has no Go form`);
  }
}

/** Go as a fragment language. */
export const GO: FragmentLanguage = {
  noForm: GO_NO_FORM,
  slot: (kind, property, value) => {
    if (property === "decorators") return "own"; // Go has none: goIssues says so
    // An expression statement is any simple statement (x++, defer f(), go run(), a += b).
    if (kind === "expression_statement" && property === "expression") return { kind: "statement" };
    // Results may be a list in parentheses, "(int, error)": checked as a parameter list.
    if (property === "return_type" && typeof value === "string" && /^\(.*\)$/s.test(value.trim()))
      return { kind: "parameters", code: value.trim().slice(1, -1) };
    return undefined;
  },
  issues: (fragment, path, place) => goIssues(fragment, path, place.topLevel),
  lines: (fragment, unit, place) => goLines(fragment, unit, place.topLevel),
  multilineString: RAW_STRING,
  // The top of a Go file holds declarations only.
  place: (anchor) => ({ topLevel: anchor.parent?.type === "source_file" }),
};

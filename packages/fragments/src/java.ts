/**
 * Fragments in Java: the same kinds, written as Java writes them. A `function_definition` is a
 * method (Java has no function outside a class: `modifiers`, `return_type` default `void`,
 * annotations for decorators), an `assignment` in a class body a field (it needs its `type`),
 * elsewhere a local variable when it has a `type` or a `declaration` (`var`; `const` is `final`),
 * `with_statement` is try-with-resources, `except_clause` is `catch (Type e)`, `raise_statement`
 * is `throw`, `for_statement` is `for (var x : xs)`. What Java cannot say (`async`, a loop's
 * `else`, a `try`'s `else`, `raise … from`, a bare re-raise, a catch without its type) is said as
 * an issue with the way to write it.
 */
import {
  bodyAndClauses,
  braceBlock,
  classBodyPlace,
  decoratorLines,
  docComment,
  sharedBraceLines,
  str,
} from "./braces.js";
import { indentLine } from "./place.js";
import type { Fragment, FragmentKind } from "./schema.js";
import type { FragmentLanguage } from "./languages.js";
import type { FragmentIssue } from "./validate.js";

/** Java's modifiers, in the order its style guides write them. */
export const JAVA_MODIFIERS = [
  "public",
  "protected",
  "private",
  "abstract",
  "static",
  "final",
  "transient",
  "volatile",
  "synchronized",
  "native",
  "strictfp",
  "default",
  "sealed",
  "non-sealed",
] as const;
/** Java's assignment operators. */
export const JAVA_OPERATORS: ReadonlySet<string> = new Set([
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
  ">>>=",
]);

const CLASS_MEMBERS: ReadonlySet<FragmentKind> = new Set([
  "function_definition",
  "assignment",
  "class_definition",
  "pass_statement",
]);
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);
/** Java has no multi-line string that re-indenting would change, except text blocks ("""). */
const TEXT_BLOCK = /"""/;

/**
 * What a valid (by the kind description) fragment cannot be in Java, at `path`; `inClass` is
 * whether it stands in a class body (undefined: not known yet; those rules are left to the run).
 */
export function javaIssues(fragment: Fragment, path: string, inClass: boolean | undefined): FragmentIssue[] {
  const issues: FragmentIssue[] = [];
  const p = fragment.properties ?? {};
  const say = (key: string, message: string, code: FragmentIssue["code"] = "structure"): void =>
    void issues.push({ path: join(path, key), code, message });
  if (inClass === true && !CLASS_MEMBERS.has(fragment.kind))
    say(
      "kind",
      `a Java class body holds methods (function_definition), fields (assignment) and classes, not ${fragment.kind}`,
      "child_kind",
    );
  if (inClass === false && fragment.kind === "function_definition")
    say(
      "kind",
      "Java has no function outside a class: place the method in a class body (insert it after a method, or inside a class_definition)",
      "child_kind",
    );
  if (p["is_async"] === true) say("properties.is_async", "Java has no async: return a CompletableFuture instead");
  if (typeof p["modifiers"] === "string") {
    const unknown = p["modifiers"]
      .trim()
      .split(/\s+/)
      .filter((m) => m && !(JAVA_MODIFIERS as readonly string[]).includes(m));
    if (unknown.length)
      say(
        "properties.modifiers",
        `not Java modifiers: ${unknown.join(", ")} (modifiers: ${JAVA_MODIFIERS.join(", ")})`,
        "property_type",
      );
    if (
      fragment.kind !== "function_definition" &&
      fragment.kind !== "class_definition" &&
      !(fragment.kind === "assignment" && inClass !== false)
    )
      say("properties.modifiers", "only methods, fields and classes take modifiers");
  }
  switch (fragment.kind) {
    case "raise_statement":
      if (p["exception"] === undefined)
        say(
          "properties.exception",
          "Java has no bare re-throw: throw the caught exception by name (the alias of the catch clause)",
          "missing_property",
        );
      if (p["cause"] !== undefined)
        say(
          "properties.cause",
          'Java has no `raise ... from`: pass the cause to the exception, e.g. "new IllegalStateException(\\"failed\\", e)"',
        );
      break;
    case "except_clause":
      if (p["exception"] === undefined)
        say(
          "properties.exception",
          'a Java catch names the exception type: "IOException" or "IOException | TimeoutException"',
          "missing_property",
        );
      break;
    case "assignment": {
      const operator = typeof p["operator"] === "string" ? p["operator"] : "=";
      if (!JAVA_OPERATORS.has(operator))
        say("properties.operator", `${operator} is not a Java operator (Java's: ${[...JAVA_OPERATORS].join(" ")})`);
      const declares = p["type"] !== undefined || p["declaration"] !== undefined;
      if (inClass === true) {
        if (p["type"] === undefined)
          say("properties.type", 'a Java field needs its type: "int", "List<String>"', "missing_property");
        if (p["declaration"] !== undefined)
          say("properties.declaration", 'a field takes modifiers ("private final"), not a declaration');
      }
      if ((declares || inClass === true) && operator !== "=")
        say("properties.operator", "a declaration is made with =");
      if (declares && typeof p["target"] === "string" && !/^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(p["target"].trim()))
        say("properties.target", "a Java declaration declares one name");
      if (inClass !== true && p["declaration"] !== undefined && p["type"] === undefined && p["value"] === undefined)
        say("properties.value", "a var needs a value (or give the type)", "missing_property");
      if (!declares && inClass !== true && p["value"] === undefined)
        say(
          "properties.value",
          "an assignment needs value (or a type or declaration, to declare the variable)",
          "missing_property",
        );
      break;
    }
    default:
      break;
  }
  const { clauses } = bodyAndClauses(fragment);
  if (
    (fragment.kind === "for_statement" || fragment.kind === "while_statement") &&
    clauses.some((c) => c.kind === "else_clause")
  )
    say("children", "Java loops have no else clause: test after the loop instead", "child_kind");
  if (fragment.kind === "try_statement" && clauses.some((c) => c.kind === "else_clause"))
    say("children", "Java's try has no else clause: put that code at the end of the try block", "child_kind");
  const childInClass = fragment.kind === "class_definition";
  (fragment.children ?? []).forEach((child, i) =>
    issues.push(...javaIssues(child, `${join(path, "children")}[${i}]`, childInClass)),
  );
  return issues;
}

/**
 * Serializes a fragment as Java. Lines are unindented at the fragment's own level; nested lines
 * carry `unit`s. `inClass`: the fragment stands in a class body. Trusts the shape: check with
 * {@link javaIssues} first.
 */
export function javaLines(fragment: Fragment, unit: string, inClass: boolean): string[] {
  const p = fragment.properties ?? {};
  const { body, clauses } = bodyAndClauses(fragment);
  const inner = (list: readonly Fragment[], memberOf = false): string[] =>
    list.flatMap((c) => javaLines(c, unit, memberOf)).map((l) => indentLine(l, unit, TEXT_BLOCK));
  const compound = (header: string, members = false): string[] =>
    braceBlock(
      header,
      inner(body, members),
      clauses.map((c) => javaLines(c, unit, false)),
    );
  const modifiers = str(p["modifiers"]) ? `${str(p["modifiers"])} ` : "";
  const docs = str(p["docstring"]) ? docComment(p["docstring"] as string) : [];

  // What C-family languages write alike first (if, while, try, return, throw, ...), then this language's own.
  const shared = sharedBraceLines(fragment, (header) => compound(header));
  if (shared) return shared;
  switch (fragment.kind) {
    case "function_definition":
      return [
        ...docs,
        ...decoratorLines(p),
        ...compound(`${modifiers}${str(p["return_type"]) ?? "void"} ${str(p["name"])}(${str(p["parameters"]) ?? ""})`),
      ];
    case "class_definition": {
      const base = str(p["bases"]);
      return [
        ...docs,
        ...decoratorLines(p),
        ...compound(`${modifiers}class ${str(p["name"])}${base ? ` extends ${base}` : ""}`, true),
      ];
    }
    case "for_statement":
      return compound(`for (var ${str(p["target"])} : ${str(p["iterable"])})`);
    case "with_statement":
      return compound(`try (${str(p["items"])})`);
    case "except_clause":
      return compound(`catch (${str(p["exception"])} ${str(p["alias"]) ?? "e"})`);
    case "assignment": {
      const value = str(p["value"]);
      const type = str(p["type"]);
      const init = value !== undefined ? ` = ${value}` : "";
      if (inClass) return [`${modifiers}${type} ${str(p["target"])}${init};`];
      if (type !== undefined || p["declaration"] !== undefined)
        return [`${p["declaration"] === "const" ? "final " : ""}${type ?? "var"} ${str(p["target"])}${init};`];
      return [`${str(p["target"])} ${typeof p["operator"] === "string" ? p["operator"] : "="} ${value};`];
    }
    default:
      throw new Error(`${fragment.kind} is written by sharedBraceLines`);
  }
}

/** Java as a fragment language. */
export const JAVA: FragmentLanguage = {
  // `extends` takes one type; a method may return void (no type a field could have); a field's target is its name (javaIssues checks it).
  slot: (kind, property, value, place) =>
    kind === "class_definition" && property === "bases"
      ? { kind: "type" }
      : (property === "return_type" && value === "void") ||
          (kind === "assignment" && property === "target" && place.inClass !== false)
        ? "own"
        : undefined,
  issues: (fragment, path, place) => javaIssues(fragment, path, place.inClass),
  lines: (fragment, unit, place) => javaLines(fragment, unit, place.inClass),
  multilineString: TEXT_BLOCK,
  place: classBodyPlace,
};

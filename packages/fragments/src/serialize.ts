/**
 * Fragment → Python source. Pure string building from the one kind description; it trusts the
 * fragment's shape (run `validateFragment` first to check the code inside it). The other
 * languages' writers sit beside it (javascript.ts, java.ts, go.ts); `serialize` (languages.ts)
 * picks one.
 */
import { str } from "./braces.js";
import type { FragmentLanguage } from "./languages.js";
import { indentLine } from "./place.js";
import type { Fragment } from "./schema.js";
import { CLAUSE_KINDS } from "./schema.js";

/** A Python string that may span lines: its continuation lines are kept as written. */
const PY_MULTILINE_STRING = /"""|'''/;

/** Python as a fragment language: its rules beyond the shapes are part of the validation (validate.ts). */
export const PYTHON: FragmentLanguage = {
  lines: (fragment, unit) => lines(fragment, unit),
  multilineString: PY_MULTILINE_STRING,
};

/** Python docstring literal for `text`. */
export function docstringLiteral(text: string): string {
  const escaped = text.replace(/\\/g, "\\\\").replace(/"""/g, '\\"\\"\\"');
  const body = escaped.endsWith('"') ? `${escaped.slice(0, -1)}\\"` : escaped;
  return `"""${body}"""`;
}

function block(children: readonly Fragment[], unit: string, docstring?: string): string[] {
  const out: string[] = [];
  if (docstring !== undefined) {
    const literal = docstringLiteral(docstring);
    out.push(...literal.split("\n").map((l) => (l === "" ? "" : unit + l)));
  }
  for (const child of children) out.push(...lines(child, unit).map((l) => indentLine(l, unit, PY_MULTILINE_STRING)));
  if (out.length === 0) out.push(unit + "pass");
  return out;
}

/** The fragment's lines, unindented at its own level (nested lines carry their indentation). */
function lines(fragment: Fragment, unit: string): string[] {
  const p = fragment.properties ?? {};
  const children = fragment.children ?? [];
  const body = children.filter((c) => !(CLAUSE_KINDS as readonly string[]).includes(c.kind));
  const clauses = children.filter((c) => (CLAUSE_KINDS as readonly string[]).includes(c.kind));
  const asyncPrefix = p["is_async"] === true ? "async " : "";
  const clauseLines = clauses.flatMap((c) => lines(c, unit));
  const compound = (header: string, docstring?: string): string[] => [
    header,
    ...block(body, unit, docstring),
    ...clauseLines,
  ];
  const decorators = Array.isArray(p["decorators"])
    ? p["decorators"].map((d) => `@${String(d).trim().replace(/^@/, "")}`)
    : [];
  const docstring = typeof p["docstring"] === "string" ? p["docstring"] : undefined;

  switch (fragment.kind) {
    case "function_definition": {
      const returns = str(p["return_type"]);
      const header = `${asyncPrefix}def ${str(p["name"])}(${str(p["parameters"]) ?? ""})${returns ? ` -> ${returns}` : ""}:`;
      return [...decorators, ...compound(header, docstring)];
    }
    case "class_definition": {
      const bases = str(p["bases"]);
      return [...decorators, ...compound(`class ${str(p["name"])}${bases ? `(${bases})` : ""}:`, docstring)];
    }
    case "if_statement":
      return compound(`if ${str(p["condition"])}:`);
    case "elif_clause":
      return compound(`elif ${str(p["condition"])}:`);
    case "else_clause":
      return compound("else:");
    case "for_statement":
      return compound(`${asyncPrefix}for ${str(p["target"])} in ${str(p["iterable"])}:`);
    case "while_statement":
      return compound(`while ${str(p["condition"])}:`);
    case "with_statement":
      return compound(`${asyncPrefix}with ${str(p["items"])}:`);
    case "try_statement":
      return compound("try:");
    case "except_clause": {
      const exception = str(p["exception"]);
      const alias = str(p["alias"]);
      return compound(`except${exception ? ` ${exception}` : ""}${exception && alias ? ` as ${alias}` : ""}:`);
    }
    case "finally_clause":
      return compound("finally:");
    case "return_statement": {
      const value = str(p["value"]);
      return [value ? `return ${value}` : "return"];
    }
    case "raise_statement": {
      const exception = str(p["exception"]);
      const cause = str(p["cause"]);
      return [exception ? `raise ${exception}${cause ? ` from ${cause}` : ""}` : "raise"];
    }
    case "assignment": {
      const type = str(p["type"]);
      const value = str(p["value"]);
      const operator = typeof p["operator"] === "string" ? p["operator"] : "=";
      const left = `${str(p["target"])}${type && operator === "=" ? `: ${type}` : ""}`;
      return [value !== undefined ? `${left} ${operator} ${value}` : left];
    }
    case "expression_statement":
      return [str(p["expression"]) ?? ""];
    case "pass_statement":
      return ["pass"];
    case "break_statement":
      return ["break"];
    case "continue_statement":
      return ["continue"];
  }
}

/**
 * What JavaScript, TypeScript and Java fragments share: blocks in braces, clauses that continue the
 * block they follow (`} else {`, `} catch (e) {`), and doc comments (`/** … *\/`).
 */
import type { Node } from "@graphplan/graph";
import { CLAUSE_KINDS, type Fragment } from "./schema.js";

export const isClause = (kind: string): boolean => (CLAUSE_KINDS as readonly string[]).includes(kind);

/** A fragment's body statements (`pass_statement` writes nothing in a block) and its clauses. */
export function bodyAndClauses(fragment: Fragment): { body: Fragment[]; clauses: Fragment[] } {
  const children = fragment.children ?? [];
  return {
    body: children.filter((c) => !isClause(c.kind) && c.kind !== "pass_statement"),
    clauses: children.filter((c) => isClause(c.kind)),
  };
}

/**
 * `header {`, the body's lines (already indented), each clause as `} clause {` with its body, and
 * `}`; an empty block without clauses is `header {}`. `clauseLines` are each clause's own lines as
 * its writer gives them (`else {` … `}`, or `else {}`).
 */
export function braceBlock(
  header: string,
  body: readonly string[],
  clauseLines: readonly (readonly string[])[],
): string[] {
  if (body.length === 0 && clauseLines.length === 0) return [`${header} {}`];
  const out = [`${header} {`, ...body];
  for (const [head, ...rest] of clauseLines) {
    const empty = head!.endsWith("{}");
    out.push(`} ${empty ? head!.replace(/ \{\}$/, " {") : head!}`, ...(empty ? rest : rest.slice(0, -1)));
  }
  out.push("}");
  return out;
}

/** A doc comment (JSDoc, Javadoc) for `text`, one line when it fits on one. */
export function docComment(text: string): string[] {
  const lines = text.replace(/\*\//g, "*\\/").trim().split("\n");
  if (lines.length === 1) return [`/** ${lines[0]} */`];
  return ["/**", ...lines.map((l) => (l.trim() === "" ? " *" : ` * ${l}`)), " */"];
}

/** The text of a string property, trimmed; undefined when absent or blank. */
export const str = (v: unknown): string | undefined =>
  typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;

/** Where code placed at `anchor` stands in JavaScript and Java: in a class body (a method, a field) or not. */
export const classBodyPlace = (anchor: Node): { inClass: boolean } => ({
  inClass: anchor.parent?.type === "class_body",
});

/** `@name` lines of a fragment's decorators (annotations). */
export const decoratorLines = (p: Record<string, unknown>): string[] =>
  Array.isArray(p["decorators"]) ? p["decorators"].map((d) => `@${String(d).trim().replace(/^@/, "")}`) : [];

/**
 * The kinds JavaScript, TypeScript and Java write alike: `if (c) {`, `} else if (c) {`, `} else {`,
 * `while (c) {`, `try {`, `} finally {`, `return x;`, `throw x;`, `x;`, `;`, `break;`,
 * `continue;`. `compound` writes a block with the fragment's body and clauses. undefined: the kind
 * is written the language's own way.
 */
export function sharedBraceLines(fragment: Fragment, compound: (header: string) => string[]): string[] | undefined {
  const p = fragment.properties ?? {};
  switch (fragment.kind) {
    case "if_statement":
      return compound(`if (${str(p["condition"])})`);
    case "elif_clause":
      return compound(`else if (${str(p["condition"])})`);
    case "else_clause":
      return compound("else");
    case "while_statement":
      return compound(`while (${str(p["condition"])})`);
    case "try_statement":
      return compound("try");
    case "finally_clause":
      return compound("finally");
    case "return_statement": {
      const value = str(p["value"]);
      return [value ? `return ${value};` : "return;"];
    }
    case "raise_statement":
      return [`throw ${str(p["exception"])};`];
    case "expression_statement":
      return [`${str(p["expression"]) ?? ""};`];
    case "pass_statement":
      return [";"];
    case "break_statement":
      return ["break;"];
    case "continue_statement":
      return ["continue;"];
    default:
      return undefined;
  }
}

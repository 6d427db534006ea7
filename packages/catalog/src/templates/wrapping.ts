/** Tier 2 templates that wrap existing statements: try/except and with. */
import { z } from "zod";
import type { Node } from "@graphplan/graph";
import { reindent } from "@graphplan/fragments";
import { indentUnit, lineIndent, type Edit } from "@graphplan/primitives";
import { defineOperator } from "../operator.js";
import { codeParam, p } from "../params.js";
import { TransformRejected, type FileEdits, type Target } from "../workspace.js";
import {
  ANY_FUNCTION,
  BRACED_BODIES,
  PY_AND_JS,
  PY_ONLY,
  bodyAfterDocstring,
  endOf,
  enclosingStatement,
  functionParts,
  startsLine,
} from "./syntax.js";

const line = (n: Node): number => n.startPosition.row + 1;
const FUNCTION_TYPES = new Set([...ANY_FUNCTION, "decorated_definition"]);
const BLOCK_TYPES = BRACED_BODIES;

export interface Wrapped {
  readonly statements: Node[];
  readonly start: number;
  readonly end: number;
  /** The wrapped code at column 0. */
  readonly code: string;
  readonly indent: string;
}

/**
 * The statements a wrapping template wraps: a function's body (after its docstring), a
 * block's statements, or the one statement the target is in.
 */
export function wrappedStatements(t: Target, op: string): Wrapped {
  let statements: Node[];
  if (
    FUNCTION_TYPES.has(t.node.type) ||
    (t.node.type === "variable_declarator" && FUNCTION_TYPES.has(t.node.childForFieldName("value")?.type ?? ""))
  ) {
    const parts = functionParts(t, op);
    if (!BLOCK_TYPES.has(parts.body.type))
      throw new TransformRejected(
        op,
        t.file,
        `the function at line ${line(parts.fn)} has an expression body; give it a block first with replace_function_body`,
      );
    statements = bodyAfterDocstring(parts.body, t.language).rest;
    // A Java constructor's this(...)/super(...) call must stay its first statement, outside any try.
    if (statements[0]?.type === "explicit_constructor_invocation") statements = statements.slice(1);
  } else if (BLOCK_TYPES.has(t.node.type)) {
    statements = bodyAfterDocstring(t.node, t.language).rest;
  } else {
    const statement = enclosingStatement(t.node, t.language);
    if (!statement)
      throw new TransformRejected(op, t.file, `the target at line ${line(t.node)} is not inside a statement`);
    statements = [statement];
  }
  const first = statements[0];
  const last = statements[statements.length - 1];
  if (!first || !last)
    throw new TransformRejected(op, t.file, "there is no statement to wrap (the body holds only a docstring)");
  if (!startsLine(t.source, first.startIndex)) {
    throw new TransformRejected(
      op,
      t.file,
      `the statement at line ${line(first)} shares its line with other code; put it on its own line first`,
    );
  }
  const start = first.startIndex;
  const end = endOf(last, t.language);
  const indent = lineIndent(t.source, start);
  const code = reindent(indent + t.source.slice(start, end), "", t.language);
  return { statements, start, end, code, indent };
}

/** JS/TS and Java: a `const`/`let` (a Java local variable) declared inside the wrapped range and used after it would go out of scope. */
function checkBlockScoped(t: Target, wrapped: Wrapped, op: string): void {
  if (t.language === "python") return;
  const declared = new Set<string>();
  for (const s of wrapped.statements) {
    if (s.type !== "lexical_declaration" && s.type !== "local_variable_declaration") continue;
    for (const d of s.namedChildren) {
      const name = d?.type === "variable_declarator" ? d.childForFieldName("name") : null;
      if (name?.type === "identifier") declared.add(name.text);
    }
  }
  if (declared.size === 0) return;
  const parent = wrapped.statements[0]!.parent;
  if (!parent) return;
  for (const id of parent.descendantsOfType("identifier")) {
    if (id && id.startIndex >= wrapped.end && declared.has(id.text)) {
      throw new TransformRejected(
        op,
        t.file,
        `${id.text} is declared inside the wrapped code and used after it (line ${line(id)}); wrapping would put it out of scope — wrap the uses too, or declare it before`,
      );
    }
  }
}

/** Java's `with`: a try-with-resources, closing the resource after the wrapped statements. */
function javaTryWithResources(t: Target, wrapped: Wrapped, context: string, aliasParam: unknown, unit: string): string {
  const op = "wrap_context_manager";
  checkBlockScoped(t, wrapped, op);
  const alias = aliasParam === undefined ? undefined : codeParam(aliasParam, "identifier", t.language);
  if (alias === undefined && !/^(this\.)?[\p{L}_$][\p{L}\p{N}_$]*$/u.test(context)) {
    throw new TransformRejected(
      op,
      t.file,
      `a Java resource that is not a variable needs a name: give "alias" (try (var alias = ${context}) {…})`,
    );
  }
  if (alias !== undefined) {
    // A resource variable may not shadow a local or parameter of the method (JLS §6.4).
    let fn: Node | null = wrapped.statements[0]!.parent;
    while (
      fn &&
      !["method_declaration", "constructor_declaration", "lambda_expression", "class_body"].includes(fn.type)
    )
      fn = fn.parent;
    const clash = (fn ?? t.tree.rootNode).descendantsOfType("identifier").find((id) => id?.text === alias);
    if (clash)
      throw new TransformRejected(
        op,
        t.file,
        `${alias} is already used in this method (line ${line(clash)}); choose another name`,
      );
  }
  return `try (${alias === undefined ? context : `var ${alias} = ${context}`}) {\n${reindent(wrapped.code, unit, t.language)}\n}`;
}

function replaceWrapped(t: Target, wrapped: Wrapped, code: string): FileEdits {
  const text = reindent(code, wrapped.indent, t.language).slice(wrapped.indent.length);
  const edit: Edit = { start: wrapped.start, end: wrapped.end, text };
  return new Map([[t.file, [edit]]]);
}

export const wrapTryExcept = defineOperator({
  name: "wrap_try_except",
  tier: 2,
  useCase: "Wrapping Code",
  description:
    "Wrap statements in try/except (try/catch): the target statement, a block, or a whole function body (after its docstring). Python and Java: `exception` defaults to Exception (Java: `alias` to e); JavaScript/TypeScript catch has no type, so leave `exception` out.",
  params: z.strictObject({
    target: p.locator("The statement to wrap, or a function / block whose statements are wrapped"),
    exception: p
      .expression(
        'What to catch: "ValueError" or "(KeyError, IndexError)" (Python; Java "IOException | SQLException"; default Exception)',
        "exception",
      )
      .optional(),
    alias: p.identifier('Name bound to the exception: "err"').optional(),
    handler: p.statements('The handler\'s statements: "logger.warning(\\"bad value: %s\\", err)\\nreturn None"'),
    finally_body: p.statements('Statements for a finally block: "conn.close()"').optional(),
  }),
  languages: [...PY_AND_JS, "java"],
  input: ["statement", "block", "function_definition"],
  output: "try_statement",
  example: {
    target: {
      kind: "statement",
      file: "app/config.py",
      parent: { kind: "function", name: "load", file: "app/config.py" },
      index: 0,
    },
    exception: "FileNotFoundError",
    handler: "return {}",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const wrapped = wrappedStatements(t, "wrap_try_except");
    checkBlockScoped(t, wrapped, "wrap_try_except");
    const unit = indentUnit(t.source);
    const handler = codeParam(params["handler"], "statements", t.language);
    const alias = params["alias"] === undefined ? undefined : codeParam(params["alias"], "identifier", t.language);
    const finallyBody =
      params["finally_body"] === undefined ? undefined : codeParam(params["finally_body"], "statements", t.language);
    const block = (code: string): string => reindent(code, unit, t.language);
    let code: string;
    if (t.language === "python") {
      const exception =
        params["exception"] === undefined ? "Exception" : codeParam(params["exception"], "exception", t.language);
      code = `try:\n${block(wrapped.code)}\nexcept ${exception}${alias ? ` as ${alias}` : ""}:\n${block(handler)}`;
      if (finallyBody) code += `\nfinally:\n${block(finallyBody)}`;
    } else if (t.language === "java") {
      // Java names what it catches, and the exception: Exception and `e` unless given.
      const exception =
        params["exception"] === undefined ? "Exception" : codeParam(params["exception"], "exception", t.language);
      code = `try {\n${block(wrapped.code)}\n} catch (${exception} ${alias ?? "e"}) {\n${block(handler)}\n}`;
      if (finallyBody) code += ` finally {\n${block(finallyBody)}\n}`;
    } else {
      if (params["exception"] !== undefined) {
        throw new TransformRejected(
          "wrap_try_except",
          t.file,
          "JavaScript/TypeScript catch clauses have no exception type: leave `exception` out and test the error inside the handler",
        );
      }
      code = `try {\n${block(wrapped.code)}\n} catch${alias ? ` (${alias})` : ""} {\n${block(handler)}\n}`;
      if (finallyBody) code += ` finally {\n${block(finallyBody)}\n}`;
    }
    return replaceWrapped(t, wrapped, code);
  },
});

export const wrapContextManager = defineOperator({
  name: "wrap_context_manager",
  tier: 2,
  useCase: "Wrapping Code",
  description:
    "Wrap statements in a `with` block (Python) or a try-with-resources (Java: `try (var alias = context) {…}`, or `try (context) {…}` for a variable): the target statement, a block, or a whole function body (after its docstring).",
  params: z.strictObject({
    target: p.locator("The statement to wrap, or a function / block whose statements are wrapped"),
    context: p.expression(
      'The context manager: "open(path)" or "self._lock" (Java: an AutoCloseable, "Files.newBufferedReader(path)")',
    ),
    alias: p
      .expression(
        'Name bound by `as`: "handle" (Java: the resource variable, required unless `context` is a variable)',
        "target",
      )
      .optional(),
  }),
  languages: [...PY_ONLY, "java"],
  input: ["statement", "block", "function_definition"],
  output: "with_statement",
  example: { target: { kind: "function", name: "update", file: "app/cache.py" }, context: "self._lock" },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const wrapped = wrappedStatements(t, "wrap_context_manager");
    const unit = indentUnit(t.source);
    const context = codeParam(params["context"], "expression", t.language);
    if (t.language === "java")
      return replaceWrapped(t, wrapped, javaTryWithResources(t, wrapped, context, params["alias"], unit));
    const alias = params["alias"] === undefined ? undefined : codeParam(params["alias"], "target", t.language);
    const code = `with ${context}${alias ? ` as ${alias}` : ""}:\n${reindent(wrapped.code, unit, t.language)}`;
    return replaceWrapped(t, wrapped, code);
  },
});

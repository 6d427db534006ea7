/** Tier 2 templates that change existing code in place: expressions, conditions, return values, bodies. */
import { z } from "zod";
import type { Node } from "@graphplan/graph";
import { placeBlock, reindent } from "@graphplan/fragments";
import { indentUnit, lineIndent, type Edit } from "@graphplan/primitives";
import { defineOperator } from "../operator.js";
import { codeParam, p } from "../params.js";
import { TransformRejected, type FileEdits, type Target } from "../workspace.js";
import {
  ANY_FUNCTION,
  BRACED_BODIES,
  PY_JS_JAVA_GO,
  bodyAfterDocstring,
  endOf,
  expressionType,
  fieldOf,
  functionParts,
  parenthesizeFor,
  startsLine,
  statementsOf,
} from "./syntax.js";

const line = (n: Node): number => n.startPosition.row + 1;
const one = (file: string, ...edits: Edit[]): FileEdits => new Map([[file, edits]]);

const NOT_EXPRESSIONS =
  /(_statement|_definition|_declaration|_clause|^block$|^module$|^program$|^source_file$|^class_body$|^constructor_body$|^statement_block$|^decorated_definition$)/;

/** Replaces an expression node with `code`, re-indenting continuation lines and adding parentheses when grouping needs them. */
export function replaceExpressionEdit(t: Target, node: Node, code: string): Edit {
  const text = parenthesizeFor(node, code, expressionType(code, t.language), t.language);
  return placeBlock(t.source, t.language, node, "replace", text);
}

export const replaceExpression = defineOperator({
  name: "replace_expression",
  tier: 2,
  useCase: "Modifying Code",
  description:
    "Replace one expression (a call, an argument, an operand, a value) with another; parentheses are added when the surrounding operator needs them.",
  params: z.strictObject({
    target: p.locator("The expression to replace (e.g. an S-expression locator of a call)"),
    expression: p.expression('The new expression: "max(0, value)"'),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["expression"],
  output: "expression",
  example: {
    target: {
      type: "sexp",
      file: "app/math.py",
      query: '((call function: (identifier) @f) @call (#eq? @f "int"))',
      capture: "call",
    },
    expression: "round(value)",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    let node = t.node;
    // An expression statement's expression is what the step means.
    if (node.type === "expression_statement" && node.namedChildCount === 1) node = node.namedChildren[0]!;
    if (NOT_EXPRESSIONS.test(node.type)) {
      throw new TransformRejected(
        "replace_expression",
        t.file,
        `the target (line ${line(node)}) is a ${node.type}, not an expression; use replace_function_body, a fragment or replace_node`,
      );
    }
    return one(t.file, replaceExpressionEdit(t, node, codeParam(params["expression"], "expression", t.language)));
  },
});

/** The condition node of an if/elif/while/ternary/assert/for (the inner expression of JS parentheses). */
function conditionOf(node: Node, language: Target["language"]): Node | null {
  switch (node.type) {
    case "if_statement":
    case "elif_clause":
    case "while_statement":
    case "do_statement": {
      const condition = node.childForFieldName("condition");
      // JS `if (c)` (a parenthesized_expression) and Java's (a `condition` node): the parentheses belong to the statement.
      if (language !== "python" && (condition?.type === "parenthesized_expression" || condition?.type === "condition"))
        return condition.namedChildren.find((c) => c?.type !== "comment") ?? null;
      return condition;
    }
    case "for_statement": {
      const condition = node.childForFieldName("condition");
      if (!condition) return null;
      return condition.type === "expression_statement" ? condition.namedChildren[0]! : condition;
    }
    case "ternary_expression":
      return node.childForFieldName("condition");
    case "conditional_expression":
      return node.namedChildren[1] ?? null;
    case "assert_statement":
      return node.namedChildren[0] ?? null;
    default:
      return null;
  }
}

export const modifyCondition = defineOperator({
  name: "modify_condition",
  tier: 2,
  useCase: "Modifying Code",
  description:
    "Replace the condition of an if / elif / while (or ternary, assert, C-style for) with a new one; the body is untouched.",
  params: z.strictObject({
    target: p.locator('The if / elif / while statement (e.g. {"kind": "if", "parent": ...}), or its condition'),
    condition: p.expression('The new condition: "value is None or not value.strip()"', "condition"),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["if_statement", "elif_clause", "while_statement"],
  output: "expression",
  example: {
    target: { kind: "if", file: "app/parser.py", parent: { kind: "function", name: "parse", file: "app/parser.py" } },
    condition: "text is None or not text.strip()",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    let condition = conditionOf(t.node, t.language);
    // The locator may name the condition itself (field: "condition").
    if (!condition && t.node.parent && fieldOf(t.node) === "condition")
      condition = conditionOf(t.node.parent, t.language) ?? t.node;
    if (!condition) {
      throw new TransformRejected(
        "modify_condition",
        t.file,
        `the target (line ${line(t.node)}) is a ${t.node.type}; point the locator at an if, elif, while or ternary`,
      );
    }
    const code = codeParam(params["condition"], "condition", t.language);
    return one(t.file, placeBlock(t.source, t.language, condition, "replace", code));
  },
});

const FUNCTION_BOUNDARIES = new Set([
  ...ANY_FUNCTION,
  "lambda",
  "class_definition",
  "class_declaration",
  "class",
  "interface_declaration",
  "enum_declaration",
  "record_declaration",
]);

/** The return statements that belong to `fn` (not to nested functions or classes). */
export function ownReturns(fn: Node): Node[] {
  const out: Node[] = [];
  const visit = (node: Node): void => {
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "return_statement") out.push(child);
      if (FUNCTION_BOUNDARIES.has(child.type)) continue;
      visit(child);
    }
  };
  visit(fn.childForFieldName("body") ?? fn);
  return out;
}

export const changeReturnValue = defineOperator({
  name: "change_return_value",
  tier: 2,
  useCase: "Modifying Code",
  description:
    "Change what a return statement returns. Target a return statement, or a function with exactly one return (all: true changes every return of the function).",
  params: z.strictObject({
    target: p.locator("The return statement, or the function"),
    value: p.expression('The new return value: "result or []"'),
    all: p.boolean("With a function target: change every one of its return statements").optional(),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["return_statement", "function_definition"],
  output: "return_statement",
  example: { target: { kind: "function", name: "load", file: "app/store.py" }, value: "items or []" },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const value = codeParam(params["value"], "expression", t.language);
    let returns: Node[];
    if (t.node.type === "return_statement") returns = [t.node];
    else {
      const fn = functionParts(t, "change_return_value").fn;
      returns = ownReturns(fn);
      if (returns.length === 0)
        throw new TransformRejected(
          "change_return_value",
          t.file,
          `the function at line ${line(fn)} has no return statement; add one with a fragment or replace_function_body`,
        );
      if (returns.length > 1 && params["all"] !== true) {
        throw new TransformRejected(
          "change_return_value",
          t.file,
          `the function at line ${line(fn)} has ${returns.length} return statements (lines ${returns.map(line).join(", ")}); target one with {"kind": "return", "parent": <the function>, "index": i} or pass "all": true`,
        );
      }
    }
    const semicolon = t.language !== "python";
    return one(
      t.file,
      ...returns.map((r) =>
        placeBlock(
          t.source,
          t.language,
          r,
          "replace",
          `return ${value}${semicolon && r.text.trimEnd().endsWith(";") ? ";" : ""}`,
        ),
      ),
    );
  },
});

export const replaceFunctionBody = defineOperator({
  name: "replace_function_body",
  tier: 2,
  useCase: "Modifying Code",
  description:
    "Replace all statements of a function's body, keeping its signature, decorators and (by default) its docstring.",
  params: z.strictObject({
    target: p.locator("The function or method"),
    body: p.statements('The new body at column 0: "if not items:\\n    return []\\nreturn sorted(items)"'),
    keep_docstring: p
      .boolean("Keep the existing docstring (default true; ignored when the new body starts with one)")
      .optional(),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["function_definition"],
  output: "block",
  example: {
    target: { kind: "function", name: "normalize", file: "app/text.py" },
    body: "if not text:\n    return ''\nreturn text.strip().lower()",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const parts = functionParts(t, "replace_function_body");
    const body = codeParam(params["body"], "statements", t.language);
    const unit = indentUnit(t.source);
    const header = lineIndent(t.source, parts.outer.startIndex);
    if (t.language === "python") {
      const { docstring, rest } = bodyAfterDocstring(parts.body, t.language);
      const newHasDocstring = /^[rRuUbBfF]*("""|'''|"|')/.test(body);
      const keep = params["keep_docstring"] !== false && !newHasDocstring && docstring;
      const all = statementsOf(parts.body);
      const first = keep ? rest[0] : all[0];
      const end = endOf(parts.body, t.language);
      if (!first) {
        // Only a docstring, kept: the new statements go after it.
        return one(t.file, placeBlock(t.source, t.language, docstring!, "insert_after", body));
      }
      if (!startsLine(t.source, first.startIndex)) {
        // `def f(): return 1` — the body moves to its own lines.
        const colon = parts.fn.children.find((c) => c?.type === ":" && c.startIndex < parts.body.startIndex);
        const start = colon ? colon.endIndex : parts.body.startIndex;
        return one(t.file, { start, end, text: `\n${reindent(body, header + unit, t.language)}` });
      }
      const indent = lineIndent(t.source, first.startIndex);
      return one(t.file, {
        start: first.startIndex,
        end,
        text: reindent(body, indent, t.language).slice(indent.length),
      });
    }
    const inner = header + unit;
    if (!BRACED_BODIES.has(parts.body.type)) {
      // An arrow function's (or a Java lambda's) expression body becomes a block.
      return one(t.file, {
        start: parts.body.startIndex,
        end: parts.body.endIndex,
        text: `{\n${reindent(body, inner, t.language)}\n${header}}`,
      });
    }
    const open = parts.body.child(0)!;
    const close = parts.body.child(parts.body.childCount - 1)!;
    return one(t.file, {
      start: open.endIndex,
      end: close.startIndex,
      text: `\n${reindent(body, inner, t.language)}\n${header}`,
    });
  },
});

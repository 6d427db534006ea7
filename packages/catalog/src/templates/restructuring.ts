/** Tier 2 templates that restructure without changing behaviour: extract and inline a variable. */
import { z } from "zod";
import type { Node } from "@graphplan/graph";
import { placeBlock } from "@graphplan/fragments";
import type { Edit } from "@graphplan/primitives";
import { defineOperator } from "../operator.js";
import { codeParam, p } from "../params.js";
import { analyzePython, scopeLabel, type Occurrence } from "@graphplan/scope";
import { addEdit, TransformRejected, type FileEdits, type Target } from "../workspace.js";
import { deletionEdits } from "../surgery/nodes.js";
import { inlineLexical } from "./inline-lexical.js";
import { PY_JS_JAVA_GO, enclosingStatement, fieldOf, parenthesizeFor, within } from "./syntax.js";

const line = (n: Node): number => n.startPosition.row + 1;

const SCOPE_BOUNDARIES = new Set([
  "lambda",
  "list_comprehension",
  "set_comprehension",
  "dictionary_comprehension",
  "generator_expression",
  "arrow_function",
  "function_expression",
  "function",
  "generator_function",
  "lambda_expression",
  "func_literal",
]);
const NOT_EXPRESSIONS =
  /(_statement|_definition|_declaration|_clause|^block$|^module$|^program$|^source_file$|^class_body$|^constructor_body$|^statement_block$|^decorated_definition$|^variable_declarator$|^assignment$)/;

/** Python builtins an extracted variable must not shadow. */
const PY_BUILTINS = new Set(
  "abs all any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod enumerate eval exec filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip self cls".split(
    " ",
  ),
);

/** Why evaluating `node` before `statement` would change behaviour, if it would. */
function conditionalEvaluation(node: Node, statement: Node): string | undefined {
  for (
    let child: Node = node, parent = node.parent;
    parent && child.id !== statement.id;
    child = parent, parent = parent.parent
  ) {
    if (SCOPE_BOUNDARIES.has(parent.type))
      return `it is inside a ${parent.type.replace(/_/g, " ")} (line ${line(parent)}), whose variables it may use`;
    const field = fieldOf(child);
    if (parent.type === "boolean_operator" && field === "right")
      return `it is the right operand of \`${parent.children.find((c) => c && !c.isNamed)?.text}\`, evaluated only sometimes`;
    if (
      parent.type === "binary_expression" &&
      field === "right" &&
      ["&&", "||", "??"].includes(parent.childForFieldName("operator")?.text ?? "")
    )
      return "it is the right operand of a short-circuit operator, evaluated only sometimes";
    if (parent.type === "conditional_expression" && parent.namedChildren[1]?.id !== child.id)
      return "it is a branch of a conditional expression, evaluated only sometimes";
    if (parent.type === "ternary_expression" && field !== "condition")
      return "it is a branch of a ternary, evaluated only sometimes";
    if ((parent.type === "while_statement" || parent.type === "do_statement") && field === "condition")
      return "it is a loop condition, evaluated on every iteration";
    if (
      (parent.type === "for_statement" || parent.type === "for_clause") &&
      (field === "condition" || field === "increment" || field === "update")
    )
      return "it is evaluated on every iteration of the loop";
    if (parent.type === "if_statement" && field === "alternative" && child.type === "if_statement")
      return "it is in an else-if condition, evaluated only when the earlier conditions fail";
    if (parent.type === "elif_clause" && field === "condition")
      return "it is an elif condition, evaluated only when the earlier conditions fail";
    if (parent.type === "else_clause" && parent.parent?.type === "if_statement" && child.type === "if_statement")
      return "it is in an else-if condition, evaluated only when the earlier conditions fail";
  }
  return undefined;
}

export const extractVariable = defineOperator({
  name: "extract_variable",
  tier: 2,
  useCase: "Restructuring",
  description:
    "Move an expression into a new variable assigned just before the statement that uses it, and use the variable in its place.",
  params: z.strictObject({
    target: p.locator("The expression to extract"),
    name: p.identifier('The new variable\'s name (must be unused in that scope): "total"'),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["expression"],
  output: "assignment + identifier",
  example: {
    target: { type: "sexp", file: "app/cart.py", query: "((binary_operator) @sum)", capture: "sum", index: 0 },
    name: "subtotal",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const name = codeParam(params["name"], "identifier", t.language);
    let node = t.node;
    if (node.type === "expression_statement" && node.namedChildCount === 1) node = node.namedChildren[0]!;
    if (NOT_EXPRESSIONS.test(node.type))
      throw new TransformRejected(
        "extract_variable",
        t.file,
        `the target (line ${line(node)}) is a ${node.type}, not an expression`,
      );
    const statement = enclosingStatement(node, t.language);
    if (
      !statement ||
      statement.id === node.id ||
      (statement.namedChildren[0]?.id === node.id && statement.type === "expression_statement")
    ) {
      throw new TransformRejected("extract_variable", t.file, "the target is a whole statement; extract a part of it");
    }
    const reason = conditionalEvaluation(node, statement);
    if (reason)
      throw new TransformRejected(
        "extract_variable",
        t.file,
        `cannot move the expression at line ${line(node)} before its statement: ${reason}`,
      );
    checkNameFree(t, node, name);
    // Java: a local `var` (Java 10); Go: a short variable declaration.
    const declaration =
      t.language === "python"
        ? `${name} = ${node.text}`
        : t.language === "java"
          ? `var ${name} = ${node.text};`
          : t.language === "go"
            ? `${name} := ${node.text}`
            : `const ${name} = ${node.text};`;
    const edits: FileEdits = new Map();
    addEdit(edits, t.file, placeBlock(t.source, t.language, statement, "insert_before", declaration), {
      start: node.startIndex,
      end: node.endIndex,
      text: name,
    });
    return edits;
  },
});

function checkNameFree(t: Target, node: Node, name: string): void {
  if (t.language === "python") {
    const analysis = analyzePython(t.tree);
    const scope = analysis.scopeAt(node);
    const bound = analysis.lookup(name, scope);
    if (bound)
      throw new TransformRejected(
        "extract_variable",
        t.file,
        `${name} already names something visible here (bound in ${scopeLabel(bound)}); choose another name`,
      );
    if (PY_BUILTINS.has(name))
      throw new TransformRejected(
        "extract_variable",
        t.file,
        `${name} would shadow the builtin ${name}; choose another name`,
      );
    return;
  }
  // JS/TS, Java, Go: no scope analysis; the name must not occur in the enclosing function at all
  // (an identifier of that name there may be a field, a package or a variable the new one would shadow).
  let fn: Node | null = node.parent;
  while (
    fn &&
    ![
      "function_declaration",
      "function_expression",
      "arrow_function",
      "method_definition",
      "function",
      "program",
      "generator_function_declaration",
      "method_declaration",
      "constructor_declaration",
      "func_literal",
      "source_file",
    ].includes(fn.type)
  )
    fn = fn.parent;
  // (Go: a variable shadows a type of the same name too.)
  const kinds =
    t.language === "go" ? ["identifier", "type_identifier"] : ["identifier", "shorthand_property_identifier"];
  const clash = (fn ?? t.tree.rootNode).descendantsOfType(kinds).find((id) => id?.text === name);
  if (clash)
    throw new TransformRejected(
      "extract_variable",
      t.file,
      `${name} is already used in this function (line ${line(clash)}); choose another name`,
    );
}

// ------------------------------------------------------------------------------------------
// inline_variable

const LOOPS = new Set(["for_statement", "while_statement", "for_in_clause"]);

export const inlineVariable = defineOperator({
  name: "inline_variable",
  tier: 2,
  useCase: "Restructuring",
  description:
    "Replace every use of a variable assigned once with its value (parenthesized where needed) and delete the assignment (Python) or declaration (JS/TS `const`/`let`, Java `var`, Go `:=`). Refused when that could change behaviour: reassignment, uses in nested functions, a value that reads names changed in between, a call evaluated several times, a declared type the value would lose.",
  params: z.strictObject({
    target: p.locator(
      'The assignment statement or declaration (e.g. {"kind": "assignment", "name": "tmp", "parent": ...})',
    ),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["assignment"],
  output: "expression",
  example: {
    target: {
      kind: "assignment",
      name: "tmp",
      file: "app/cart.py",
      parent: { kind: "function", name: "total", file: "app/cart.py" },
    },
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    if (t.language !== "python") return new Map([[t.file, inlineLexical(t)]]);
    const op = "inline_variable";
    let assignment: Node | null = t.node;
    if (assignment.type === "expression_statement") assignment = assignment.namedChildren[0] ?? null;
    if (assignment?.type === "identifier" && assignment.parent?.type === "assignment") assignment = assignment.parent;
    if (!assignment || assignment.type !== "assignment")
      throw new TransformRejected(
        op,
        t.file,
        `the target (line ${line(t.node)}) is a ${t.node.type}, not an assignment`,
      );
    const left = assignment.childForFieldName("left");
    const value = assignment.childForFieldName("right");
    if (left?.type !== "identifier" || !value || value.type === "assignment") {
      throw new TransformRejected(
        op,
        t.file,
        `only \`name = value\` can be inlined; line ${line(assignment)} assigns ${left?.type ?? "nothing"}`,
      );
    }
    const statement = assignment.parent;
    if (statement?.type !== "expression_statement")
      throw new TransformRejected(op, t.file, "the assignment is not a statement of its own");
    const analysis = analyzePython(t.tree);
    const binding = analysis.occurrences.find((o) => o.node.id === left.id);
    const scope = binding ? analysis.resolve(binding) : undefined;
    if (!binding || !scope) throw new TransformRejected(op, t.file, `cannot resolve ${left.text}`);
    const name = left.text;
    const bindings = scope.bound.get(name) ?? [];
    if (bindings.length !== 1) {
      throw new TransformRejected(
        op,
        t.file,
        `${name} is assigned ${bindings.length} times in ${scopeLabel(scope)} (lines ${bindings.map(line).join(", ")}); only a variable assigned once can be inlined`,
      );
    }
    if (scope.kind === "module" || scope.kind === "class") {
      throw new TransformRejected(
        op,
        t.file,
        `${name} is a ${scope.kind === "module" ? "module-level" : "class"} name, which other code may import or read; inline only function locals`,
      );
    }
    const uses: Occurrence[] = analysis.occurrences.filter(
      (o) => o.role !== "binding" && o.name === name && analysis.resolve(o)?.id === scope.id,
    );
    if (uses.length === 0)
      throw new TransformRejected(op, t.file, `${name} is never used; remove the assignment with delete_node`);
    for (const use of uses) {
      if (use.role === "declaration")
        throw new TransformRejected(op, t.file, `${name} is declared nonlocal/global at line ${line(use.node)}`);
      if (use.scope.id !== scope.id)
        throw new TransformRejected(
          op,
          t.file,
          `${name} is used inside a nested ${use.scope.kind} (line ${line(use.node)}); inlining could change when its value is computed`,
        );
      if (use.node.startIndex < assignment.endIndex)
        throw new TransformRejected(
          op,
          t.file,
          `${name} is used at line ${line(use.node)} before (or in) its assignment`,
        );
    }
    // Names the value reads must not be rebound between the assignment and the last use.
    const lastUse = Math.max(...uses.map((u) => u.node.endIndex));
    const reads = analysis.occurrences.filter((o) => o.role === "reference" && within(value, o.node));
    for (const read of reads) {
      const rebound = analysis.occurrences.find(
        (o) =>
          o.role === "binding" &&
          o.name === read.name &&
          o.node.startIndex > assignment.endIndex &&
          o.node.startIndex < lastUse &&
          analysis.resolve(o)?.id === analysis.resolve(read)?.id,
      );
      if (rebound)
        throw new TransformRejected(
          op,
          t.file,
          `the value reads ${read.name}, which is reassigned at line ${line(rebound.node)} before ${name} is used`,
        );
    }
    const hasCall = value.type === "call" || value.descendantsOfType(["call", "await", "yield"]).length > 0;
    if (hasCall) {
      const inLoop = uses.some((u) => {
        for (let n = u.node.parent; n && n.id !== scope.node.id; n = n.parent)
          if (LOOPS.has(n.type) && !within(n, assignment)) return true;
        return false;
      });
      if (uses.length > 1 || inLoop)
        throw new TransformRejected(
          op,
          t.file,
          `the value calls a function and would be evaluated ${uses.length > 1 ? `${uses.length} times` : "on every loop iteration"}; extract or keep the variable`,
        );
    }
    const code = value.text;
    const edits: Edit[] = uses.map((u) => ({
      start: u.node.startIndex,
      end: u.node.endIndex,
      text: parenthesizeFor(u.node, code, value.type, t.language),
    }));
    edits.push(...deletionEdits(t, statement));
    return new Map([[t.file, edits]]);
  },
});

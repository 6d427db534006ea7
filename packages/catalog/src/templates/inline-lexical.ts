/**
 * inline_variable on JavaScript/TypeScript, Java and Go, over their scope models in
 * @graphplan/scope (`analyzeJavaScript`, `analyzeJava`, `analyzeGo`): the declaration of one local
 * with a value (`const x = v;`, `var x = v;` in Java, `x := v` in Go), every use resolving to it
 * replaced by the value (parenthesized where needed; `{x}` becomes `{x: v}`), and the declaration
 * deleted. Refused, as in Python, where that could change behaviour: a variable written again, a
 * use in a nested function, a use before the declaration, a value that reads a local written
 * between the declaration and a use, a call that would run several times; and, since the value
 * would lose it, a declared type (TypeScript's annotation; Java's, where the assignment may convert
 * the value — only `var` is inlined; Go's `var x T = v`).
 */
import type { Node, Tree } from "@graphplan/graph";
import { analyzeGo, analyzeJava, analyzeJavaScript } from "@graphplan/scope";
import type { Edit } from "@graphplan/primitives";
import { TransformRejected, type Target } from "../workspace.js";
import { deletionEdits } from "../surgery/nodes.js";
import { parenthesizeFor } from "./syntax.js";

const OP = "inline_variable";
const line = (n: Node): number => n.startPosition.row + 1;
const named = (node: Node | null | undefined): Node[] => (node ? node.namedChildren.filter((c): c is Node => !!c) : []);
const FUNCTIONS = new Set([
  "function_declaration",
  "generator_function_declaration",
  "function_expression",
  "function",
  "generator_function",
  "arrow_function",
  "method_definition",
  "lambda_expression",
  "method_declaration",
  "constructor_declaration",
  "func_literal",
  "class_body",
]);
const LOOPS = new Set([
  "for_statement",
  "for_in_statement",
  "while_statement",
  "do_statement",
  "enhanced_for_statement",
]);
const CALLS = [
  "call_expression",
  "new_expression",
  "await_expression",
  "yield_expression",
  "method_invocation",
  "object_creation_expression",
  "unary_expression",
];
/** Code whose evaluation runs something: a call, `new`, `await`, `yield`, Go's receive `<-ch`. */
const isCall = (n: Node): boolean =>
  n.type === "unary_expression" ? n.childForFieldName("operator")?.text === "<-" : CALLS.includes(n.type);

/** One local as the language's scope model sees it: where it is declared, and every occurrence of it. */
interface Local {
  readonly statement: Node;
  readonly name: Node;
  readonly value: Node;
  /** Every occurrence of the variable but its declaration, in source order. */
  readonly occurrences: readonly Node[];
  /** Where the local an identifier names is written (nothing for a name that is not a local). */
  readonly writesOf: (node: Node) => readonly Node[];
}

/** Whether an identifier is written here (assigned, incremented, declared again). */
function isWrite(node: Node): boolean {
  const parent = node.parent;
  if (!parent) return false;
  const left = parent.childForFieldName("left");
  if (["assignment_expression", "augmented_assignment_expression"].includes(parent.type) && left?.id === node.id)
    return true;
  if (parent.type === "update_expression" || parent.type === "inc_statement" || parent.type === "dec_statement")
    return true;
  // Go: `a, b = …` and `a, b := …` hold their left sides in an expression list.
  if (
    parent.type === "expression_list" &&
    ["assignment_statement", "short_var_declaration"].includes(parent.parent?.type ?? "") &&
    parent.parent?.childForFieldName("left")?.id === parent.id
  )
    return true;
  if (["assignment_statement", "short_var_declaration"].includes(parent.type) && left?.id === node.id) return true;
  return false;
}

/**
 * The local a declaration declares, by the language's occurrences: its uses, and where each local
 * its value reads is written. `topLevel` says why a binding is not a function's local (a refusal).
 */
function localOf<B>(
  t: Target,
  statement: Node,
  name: Node,
  value: Node,
  occurrences: readonly { node: Node; binding: B | undefined }[],
  topLevel: (binding: B) => string | undefined,
): Local {
  const bindingAt = new Map<number, B>();
  const nodes = new Map<B, Node[]>();
  for (const o of occurrences) {
    if (!o.binding) continue;
    bindingAt.set(o.node.id, o.binding);
    nodes.set(o.binding, [...(nodes.get(o.binding) ?? []), o.node]);
  }
  const binding = bindingAt.get(name.id);
  if (!binding) throw new TransformRejected(OP, t.file, `cannot resolve ${name.text}`);
  const refusal = topLevel(binding);
  if (refusal) throw new TransformRejected(OP, t.file, refusal);
  const writesOf = (node: Node): Node[] => {
    const b = bindingAt.get(node.id);
    return b ? (nodes.get(b) ?? []).filter(isWrite) : [];
  };
  return { statement, name, value, occurrences: (nodes.get(binding) ?? []).filter((n) => n.id !== name.id), writesOf };
}

function javascriptLocal(t: Target, tree: Tree): Local {
  let declarator: Node | null = t.node;
  if (declarator.type === "lexical_declaration" || declarator.type === "variable_declaration") {
    const all = named(declarator).filter((n) => n.type === "variable_declarator");
    if (all.length !== 1)
      throw new TransformRejected(
        OP,
        t.file,
        `the declaration at line ${line(t.node)} declares ${all.length} variables; only one can be inlined`,
      );
    declarator = all[0]!;
  }
  if (declarator?.type === "identifier" && declarator.parent?.type === "variable_declarator")
    declarator = declarator.parent;
  if (declarator?.type !== "variable_declarator")
    throw new TransformRejected(
      OP,
      t.file,
      `the target (line ${line(t.node)}) is a ${t.node.type}, not a variable declaration`,
    );
  const statement = declarator.parent!;
  const name = declarator.childForFieldName("name");
  const value = declarator.childForFieldName("value");
  if (name?.type !== "identifier" || !value)
    throw new TransformRejected(
      OP,
      t.file,
      `only \`const name = value\` can be inlined; line ${line(declarator)} declares ${name?.type === "identifier" ? "no value" : "a pattern"}`,
    );
  if (declarator.childForFieldName("type"))
    throw new TransformRejected(
      OP,
      t.file,
      `${name.text} has a type annotation (${declarator.childForFieldName("type")!.text.replace(/^:\s*/, "")}), which the inlined value would lose`,
    );
  if (statement.parent?.type === "export_statement")
    throw new TransformRejected(OP, t.file, `${name.text} is exported: other modules may use it`);
  return localOf(t, statement, name, value, analyzeJavaScript(tree).occurrences, (b) =>
    b.scope.kind === "program"
      ? `${name.text} is declared at the top of the module; inline only function locals`
      : undefined,
  );
}

function javaLocal(t: Target, tree: Tree): Local {
  let statement: Node | null = t.node;
  if (statement.type === "variable_declarator" || statement.type === "identifier")
    statement = statement.type === "identifier" ? (statement.parent?.parent ?? null) : statement.parent;
  if (statement?.type !== "local_variable_declaration")
    throw new TransformRejected(
      OP,
      t.file,
      `the target (line ${line(t.node)}) is a ${t.node.type}, not a local variable declaration`,
    );
  const declarators = statement.childrenForFieldName("declarator").filter((n): n is Node => !!n);
  if (declarators.length !== 1)
    throw new TransformRejected(
      OP,
      t.file,
      `the declaration at line ${line(statement)} declares ${declarators.length} variables; only one can be inlined`,
    );
  const name = declarators[0]!.childForFieldName("name");
  const value = declarators[0]!.childForFieldName("value");
  if (!name || !value)
    throw new TransformRejected(
      OP,
      t.file,
      `${name?.text ?? "the variable"} is declared without a value at line ${line(statement)}`,
    );
  const type = statement.childForFieldName("type");
  if (type && type.text !== "var") {
    throw new TransformRejected(
      OP,
      t.file,
      `${name.text} is declared as ${type.text}: the assignment may convert the value (widening, boxing, a target type for a lambda or \`<>\`), which inlining would lose; only a \`var\` declaration is inlined`,
    );
  }
  if (value.type === "array_initializer")
    throw new TransformRejected(OP, t.file, `an array initializer ({…}) is only valid in a declaration`);
  return localOf(t, statement, name, value, analyzeJava(tree).occurrences, () => undefined);
}

function goLocal(t: Target, tree: Tree): Local {
  let statement: Node | null = t.node;
  if (statement.type === "identifier" && statement.parent?.type === "expression_list")
    statement = statement.parent.parent;
  if (
    statement?.type === "var_spec" &&
    statement.parent?.type === "var_declaration" &&
    named(statement.parent).length === 1
  )
    statement = statement.parent;
  let name: Node | undefined;
  let value: Node | undefined;
  if (statement?.type === "short_var_declaration") {
    const left = named(statement.childForFieldName("left"));
    const right = named(statement.childForFieldName("right"));
    if (left.length !== 1 || right.length !== 1)
      throw new TransformRejected(
        OP,
        t.file,
        `the declaration at line ${line(statement)} declares ${left.length} variables; only one can be inlined`,
      );
    [name, value] = [left[0], right[0]];
  } else if (statement?.type === "var_declaration") {
    const spec = named(statement)[0]!;
    const names = spec.childrenForFieldName("name").filter((n): n is Node => !!n);
    const values = named(spec.childForFieldName("value"));
    if (spec.type !== "var_spec" || names.length !== 1 || values.length !== 1)
      throw new TransformRejected(
        OP,
        t.file,
        `only \`var x = v\` or \`x := v\` of one variable can be inlined (line ${line(statement)})`,
      );
    if (spec.childForFieldName("type"))
      throw new TransformRejected(
        OP,
        t.file,
        `${names[0]!.text} is declared as ${spec.childForFieldName("type")!.text}: the value's own type may differ (an untyped constant), which inlining would lose`,
      );
    [name, value] = [names[0], values[0]];
  } else {
    throw new TransformRejected(
      OP,
      t.file,
      `the target (line ${line(t.node)}) is a ${t.node.type}, not a variable declaration (\`x := v\` or \`var x = v\`)`,
    );
  }
  if (name?.type !== "identifier" || !value)
    throw new TransformRejected(OP, t.file, `line ${line(statement)} declares no variable with a value`);
  return localOf(t, statement, name, value, analyzeGo(tree).occurrences, (b) =>
    b.scope.kind === "package"
      ? `${name.text} is a package-level name, which other files may use; inline only function locals`
      : undefined,
  );
}

/** The function-like node around `node` (a nested function, lambda or class body ends the search at `stop`). */
function nestedBoundary(node: Node, stop: Node): Node | undefined {
  for (let n = node.parent; n && n.id !== stop.id; n = n.parent) if (FUNCTIONS.has(n.type)) return n;
  return undefined;
}

/** The innermost function-like node (or the file) holding `node`. */
function functionOf(node: Node): Node {
  let n: Node = node;
  while (n.parent && !FUNCTIONS.has(n.type)) n = n.parent;
  return n;
}

/** inline_variable's edits for a JS/TS, Java or Go target. */
export function inlineLexical(t: Target): Edit[] {
  const local =
    t.language === "java"
      ? javaLocal(t, t.tree)
      : t.language === "go"
        ? goLocal(t, t.tree)
        : javascriptLocal(t, t.tree);
  const { statement, name, value } = local;
  const writes = local.occurrences.filter(isWrite);
  if (writes.length)
    throw new TransformRejected(
      OP,
      t.file,
      `${name.text} is written again at line ${writes.map(line).join(", ")}; only a variable assigned once can be inlined`,
    );
  const uses = local.occurrences;
  if (uses.length === 0)
    throw new TransformRejected(OP, t.file, `${name.text} is never used; remove the declaration with delete_node`);
  const home = functionOf(statement);
  for (const use of uses) {
    if (use.startIndex < statement.endIndex)
      throw new TransformRejected(
        OP,
        t.file,
        `${name.text} is used at line ${line(use)} before (or in) its declaration`,
      );
    const nested = nestedBoundary(use, home);
    if (nested)
      throw new TransformRejected(
        OP,
        t.file,
        `${name.text} is used inside a nested ${nested.type.replace(/_/g, " ")} (line ${line(use)}); inlining could change when its value is computed`,
      );
  }
  // Locals the value reads must not be written between the declaration and the last use.
  const lastUse = Math.max(...uses.map((u) => u.endIndex));
  for (const read of value.descendantsOfType(["identifier"]).filter((n): n is Node => !!n)) {
    const rebound = local.writesOf(read).find((w) => w.startIndex > statement.endIndex && w.startIndex < lastUse);
    if (rebound)
      throw new TransformRejected(
        OP,
        t.file,
        `the value reads ${read.text}, which is written at line ${line(rebound)} before ${name.text} is used`,
      );
  }
  if (isCall(value) || value.descendantsOfType(CALLS).some((n) => n && isCall(n))) {
    const inLoop = uses.some((u) => {
      for (let n = u.parent; n && n.id !== home.id; n = n.parent)
        if (LOOPS.has(n.type) && !(n.startIndex <= statement.startIndex && statement.endIndex <= n.endIndex))
          return true;
      return false;
    });
    if (uses.length > 1 || inLoop)
      throw new TransformRejected(
        OP,
        t.file,
        `the value calls a function and would be evaluated ${uses.length > 1 ? `${uses.length} times` : "on every loop iteration"}; extract or keep the variable`,
      );
  }
  const code = value.text;
  const edits: Edit[] = uses.map((u) =>
    u.type === "shorthand_property_identifier"
      ? { start: u.startIndex, end: u.endIndex, text: `${u.text}: ${code}` }
      : { start: u.startIndex, end: u.endIndex, text: parenthesizeFor(u, code, value.type, t.language) },
  );
  edits.push(...deletionEdits(t, statement));
  return edits;
}

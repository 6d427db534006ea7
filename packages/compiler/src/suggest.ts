/**
 * Tier 1–3 candidates for a change, tried before the primitives: templates where a change has
 * their shape (a changed condition → modify_condition, a changed return value →
 * change_return_value, a changed expression → replace_expression, an added parameter →
 * add_parameter, ...), then a typed fragment for a statement added or replaced whole. Each is
 * only a candidate: the compiler keeps it when running it gives exactly the expected text.
 */
import { codeEnd, LANGUAGES, type LanguageId } from "@graphplan/graph";
import type { Step } from "@graphplan/primitives";
import type { Node } from "web-tree-sitter";
import type { NodeRef, SpliceChange } from "./treediff.js";
import type { Candidate, ChangeView, Suggester } from "./view.js";

const lineIndentOf = (s: string, i: number): string => /^[ \t]*/.exec(s.slice(s.lastIndexOf("\n", i - 1) + 1))![0];

/** `text` (whose first line starts at a node) at column 0: the node line's indentation removed from its other lines. */
function relative(text: string, indent: string): string {
  if (!indent) return text;
  const [head, ...rest] = text.split("\n");
  return [head!, ...rest.map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trim() === "" ? "" : l))].join(
    "\n",
  );
}

/** A block's statements as code at column 0. */
function blockCode(source: string, block: Node, language: LanguageId): string {
  const start = block.startIndex;
  const text = source.slice(start, codeEnd(block, language).endIndex);
  return relative(text, lineIndentOf(source, start));
}

const template = (name: string, params: Record<string, unknown>): Candidate => ({
  step: { template: name, params } as Step,
  form: `template:${name}`,
});

/** The new text of `node` (which holds the change) once the change is made. */
function lifted(view: ChangeView, node: Node): string {
  return (
    view.source.slice(node.startIndex, view.range.start) + view.text + view.source.slice(view.range.end, node.endIndex)
  );
}

const holds = (node: Node, view: ChangeView): boolean =>
  node.startIndex <= view.range.start &&
  view.range.end <= node.endIndex &&
  (view.range.start < view.range.end || (node.startIndex < view.range.start && view.range.end < node.endIndex));

/** The smallest node of the current tree that holds the change: the replaced node, or the splice's parent. */
function holder(view: ChangeView): Node | undefined {
  let n: Node | null =
    view.node ?? view.tree.rootNode.descendantForIndex(view.range.start, Math.max(view.range.start, view.range.end));
  while (n && !holds(n, view)) n = n.parent;
  return n ?? undefined;
}

const PY_STATEMENT = /(_statement|_definition|^block$|^module$|_clause$)/;

/**
 * The node standing for the change: the replaced node, the one sibling a splice replaces (by
 * other nodes), else the smallest node holding the change.
 */
function changed(view: ChangeView): Node | undefined {
  if (view.change.kind === "splice" && view.removed.length === 1 && view.change.added.some((a) => a.named))
    return view.removed[0];
  return holder(view);
}

/** The new text of `node` once the change is made (`node` holds the change, or is the sibling it replaces). */
function newText(view: ChangeView, node: Node): string | undefined {
  if (node.startIndex <= view.range.start && view.range.end <= node.endIndex) return lifted(view, node);
  const head = view.source.slice(view.range.start, node.startIndex);
  const tail = view.source.slice(node.endIndex, view.range.end);
  if (!view.text.startsWith(head) || !view.text.endsWith(tail) || view.text.length < head.length + tail.length)
    return undefined;
  return view.text.slice(head.length, view.text.length - tail.length);
}

/** Ancestors of the changed node up to (and including) the enclosing statement. */
function ancestorsToStatement(view: ChangeView): Node[] {
  const out: Node[] = [];
  for (let n: Node | null = changed(view) ?? null; n; n = n.parent) {
    out.push(n);
    if (PY_STATEMENT.test(n.type)) break;
  }
  return out;
}

const EXPRESSIONS = new Set([
  "identifier",
  "attribute",
  "call",
  "subscript",
  "binary_operator",
  "boolean_operator",
  "comparison_operator",
  "not_operator",
  "unary_operator",
  "conditional_expression",
  "string",
  "concatenated_string",
  "integer",
  "float",
  "true",
  "false",
  "none",
  "list",
  "tuple",
  "dictionary",
  "set",
  "list_comprehension",
  "dictionary_comprehension",
  "set_comprehension",
  "generator_expression",
  "lambda",
  "parenthesized_expression",
  "await",
  "named_expression",
  // JavaScript
  "call_expression",
  "member_expression",
  "binary_expression",
  "unary_expression",
  "ternary_expression",
  "template_string",
  "number",
  "object",
  "array",
  "arrow_function",
  "new_expression",
  "subscript_expression",
  "null",
  "undefined",
]);

/** modify_condition, change_return_value, replace_expression, replace_function_body: a change inside such a node. */
const modifying: Suggester = (view) => {
  const out: Candidate[] = [];
  const chain = ancestorsToStatement(view);
  const statement = chain[chain.length - 1];
  // The smallest expression that holds the change: replace_expression, unless it is the whole
  // condition or return value (then the more specific template says the same thing).
  const expression = chain.find((n) => EXPRESSIONS.has(n.type));
  const smallest: Candidate[] = [];
  const expressionText = expression ? newText(view, expression) : undefined;
  if (expression && expressionText !== undefined) {
    const [target] = view.locate(expression);
    if (target)
      smallest.push(
        template("replace_expression", {
          target,
          expression: relative(expressionText, lineIndentOf(view.source, expression.startIndex)),
        }),
      );
  }
  const isWhole = (n: Node | null | undefined) => !!n && !!expression && n.id === expression.id;
  // A condition.
  for (const n of chain) {
    const parent = n.parent;
    if (!parent || !["if_statement", "elif_clause", "while_statement"].includes(parent.type)) continue;
    if (parent.childForFieldName("condition")?.id !== n.id) continue;
    if (!isWhole(n) && smallest.length) break;
    const [target] = view.locate(parent);
    const condition = newText(view, n);
    if (target && condition !== undefined)
      out.push(
        template("modify_condition", {
          target,
          condition: relative(condition, lineIndentOf(view.source, n.startIndex)),
        }),
      );
    break;
  }
  // A return value.
  if (statement?.type === "return_statement") {
    const value = statement.namedChildren.find((c) => c && c.type !== "comment");
    const [target] = view.locate(statement);
    const valueText = value ? newText(view, value) : undefined;
    if (target && value && valueText !== undefined && (isWhole(value) || !smallest.length)) {
      out.push(
        template("change_return_value", {
          target,
          value: relative(valueText, lineIndentOf(view.source, value.startIndex)),
        }),
      );
    }
  }
  out.push(...smallest);
  // A function body replaced whole.
  const node = view.node;
  if (
    view.change.kind === "replace" &&
    node?.type === "block" &&
    node.parent?.type === "function_definition" &&
    node.parent.childForFieldName("body")?.id === node.id
  ) {
    const [target] = view.locate(node.parent);
    const body = relative(view.text, lineIndentOf(view.source, node.startIndex));
    if (target)
      out.push(
        template("replace_function_body", { target, body }),
        template("replace_function_body", { target, body, keep_docstring: false }),
      );
  }
  return out;
};

const PARAMETER_TYPES = new Set(["identifier", "default_parameter", "typed_parameter", "typed_default_parameter"]);

/** The function a parameter list, body or decorator belongs to. */
function functionOf(node: Node | null | undefined): Node | undefined {
  for (let n = node ?? null; n; n = n.parent)
    if (n.type === "function_definition" || n.type === "class_definition") return n;
  return undefined;
}

/** A splice with its parent, its named added nodes and their text: what the rules of {@link adding} read. */
interface Addition {
  readonly view: ChangeView;
  readonly change: SpliceChange;
  readonly parent: Node;
  readonly added: readonly NodeRef[];
  readonly addedText: readonly string[];
  /** The block's owner when the parent is a block (a class, a function, ...). */
  readonly owner: Node | null;
}

/**
 * One shape of an addition and its template: the candidates when the addition has that shape,
 * `undefined` when it does not. The shapes exclude each other; the first that has the addition's owns it.
 */
type AdditionRule = (a: Addition) => Candidate[] | undefined;

/** A parameter added: add_parameter, after its previous sibling when it is not the last. */
const parameterAdded: AdditionRule = ({ view, change, parent, added, addedText }) => {
  if (
    parent.type !== "parameters" ||
    change.removed.length !== 0 ||
    added.length !== 1 ||
    !PARAMETER_TYPES.has(added[0]!.type)
  )
    return undefined;
  const out: Candidate[] = [];
  const fn = functionOf(parent);
  const [target] = fn ? view.locate(fn) : [];
  const m = /^(\w+)\s*(?::\s*(.+?))?\s*(?:=\s*([\s\S]+))?$/.exec(addedText[0]!);
  if (target && m) {
    const params: Record<string, unknown> = { target, name: m[1] };
    if (m[2]) params["type"] = m[2].trim();
    if (m[3] !== undefined) params["default"] = m[3].trim();
    // The parameters around it: the splice's siblings are the commas (and the closing parenthesis).
    const named = (node: Node | undefined, step: (n: Node) => Node | null): Node | undefined => {
      let n = node ?? null;
      while (n && !n.isNamed) n = step(n);
      return n ?? undefined;
    };
    const prev = named(view.prev, (n) => n.previousSibling);
    const prevName =
      prev && PARAMETER_TYPES.has(prev.type)
        ? prev.type === "identifier"
          ? prev.text
          : prev.namedChild(0)?.text
        : undefined;
    if (named(view.next, (n) => n.nextSibling) && prevName)
      out.push(template("add_parameter", { ...params, after: prevName }));
    out.push(template("add_parameter", params));
  }
  return out;
};

/** A decorator added to a definition that has some: add_decorator, innermost or outermost. */
const decoratorAdded: AdditionRule = ({ view, change, parent, added, addedText }) => {
  if (
    parent.type !== "decorated_definition" ||
    change.removed.length !== 0 ||
    added.length !== 1 ||
    added[0]!.type !== "decorator"
  )
    return undefined;
  const def = parent.childForFieldName("definition");
  const [target] = def ? view.locate(def) : [];
  const decorator = addedText[0]!.replace(/^@\s*/, "");
  return target
    ? [template("add_decorator", { target, decorator, position: view.prev ? "innermost" : "outermost" })]
    : [];
};

/** A member added to a class body: add_method (after its previous sibling, or last), add_class_attribute. */
const memberAdded: AdditionRule = ({ view, change, added, addedText, owner }) => {
  if (owner?.type !== "class_definition" || change.removed.length !== 0 || added.length !== 1) return undefined;
  const out: Candidate[] = [];
  const [target] = view.locate(owner);
  const a = added[0]!;
  const code = relative(addedText[0]!, lineIndentOf(view.post, a.start));
  if (target && (a.type === "function_definition" || a.type === "decorated_definition")) {
    const prevName = view.prev ? memberName(view.prev) : undefined;
    if (view.next && prevName) out.push(template("add_method", { target, code, after: prevName }));
    if (!view.next) out.push(template("add_method", { target, code }));
  }
  if (target && a.type === "expression_statement") {
    const m = /^(\w+)\s*(?::\s*([^=]+?))?\s*=\s*([\s\S]+)$/.exec(addedText[0]!);
    if (m && !m[3]!.includes("\n"))
      out.push(
        template("add_class_attribute", {
          target,
          name: m[1],
          value: m[3]!.trim(),
          ...(m[2] ? { type: m[2].trim() } : {}),
        }),
      );
  }
  return out;
};

/** An `if` without elif/else added first in a function body (or after its docstring): guard_clause. */
const guardAdded: AdditionRule = ({ view, change, added, owner }) => {
  if (
    owner?.type !== "function_definition" ||
    change.removed.length !== 0 ||
    added.length !== 1 ||
    added[0]!.type !== "if_statement"
  )
    return undefined;
  const ifNode = postNode(view, added[0]!);
  const firstOrAfterDoc = !view.prev || isDocstring(view.prev);
  const body = ifNode?.childForFieldName("consequence");
  if (
    !ifNode ||
    !body ||
    !firstOrAfterDoc ||
    ifNode.namedChildren.some((c) => c?.type === "elif_clause" || c?.type === "else_clause")
  )
    return [];
  const [target] = view.locate(owner);
  const condition = ifNode.childForFieldName("condition")?.text;
  return target && condition
    ? [template("guard_clause", { target, condition, body: blockCode(view.post, body, "python") })]
    : [];
};

/** An elif or else added to an if statement: add_conditional_branch. */
const branchAdded: AdditionRule = ({ view, change, parent, added }) => {
  if (
    parent.type !== "if_statement" ||
    change.removed.length !== 0 ||
    added.length !== 1 ||
    (added[0]!.type !== "elif_clause" && added[0]!.type !== "else_clause")
  )
    return undefined;
  const clause = postNode(view, added[0]!);
  const body =
    clause?.childForFieldName(clause.type === "elif_clause" ? "consequence" : "body") ??
    clause?.namedChildren.find((c) => c?.type === "block");
  const [target] = view.locate(parent);
  if (!clause || !body || !target) return [];
  const condition = clause.type === "elif_clause" ? clause.childForFieldName("condition")?.text : undefined;
  return [
    template("add_conditional_branch", {
      target,
      ...(condition ? { condition } : {}),
      body: blockCode(view.post, body, "python"),
    }),
  ];
};

/** A statement wrapped, unchanged, in a `with` (wrap_context_manager) or a `try` with one handler (wrap_try_except). */
const wrapped: AdditionRule = ({ view, change, parent, added }) => {
  if (
    parent.type !== "block" ||
    change.removed.length !== 1 ||
    added.length !== 1 ||
    (added[0]!.type !== "try_statement" && added[0]!.type !== "with_statement")
  )
    return undefined;
  const wrapper = postNode(view, added[0]!);
  const removed = view.removed[0]!;
  const [target] = view.locate(removed);
  const body = wrapper?.namedChildren.find((c) => c?.type === "block");
  const unchanged =
    wrapper &&
    body &&
    blockCode(view.post, body, "python") ===
      relative(view.source.slice(removed.startIndex, removed.endIndex), lineIndentOf(view.source, removed.startIndex));
  if (!wrapper || !target || !unchanged) return [];
  return wrapper.type === "with_statement" ? withWrap(wrapper, target) : tryWrap(view, wrapper, target);
};

function withWrap(wrapper: Node, target: unknown): Candidate[] {
  const items =
    wrapper.namedChildren.find((c) => c?.type === "with_clause")?.namedChildren.filter((c): c is Node => !!c) ?? [];
  if (items.length !== 1) return [];
  const item = items[0]!.namedChild(0);
  const asPattern = item?.type === "as_pattern" ? item : null;
  const context = asPattern ? asPattern.namedChild(0)?.text : item?.text;
  const alias = asPattern ? asPattern.childForFieldName("alias")?.text : undefined;
  return context ? [template("wrap_context_manager", { target, context, ...(alias ? { alias } : {}) })] : [];
}

function tryWrap(view: ChangeView, wrapper: Node, target: unknown): Candidate[] {
  const handlers = wrapper.namedChildren.filter((c): c is Node => c?.type === "except_clause");
  if (handlers.length !== 1) return [];
  const h = handlers[0]!;
  const hBody = h.namedChildren.find((c) => c?.type === "block");
  if (!hBody) return [];
  const value = h.namedChildren.find((c) => c && c.type !== "block" && c.type !== "comment");
  const exception = value?.type === "as_pattern" ? value.namedChild(0)?.text : value?.text;
  const alias = value?.type === "as_pattern" ? value.childForFieldName("alias")?.text : undefined;
  const finBody = wrapper.namedChildren
    .find((c) => c?.type === "finally_clause")
    ?.namedChildren.find((c) => c?.type === "block");
  return [
    template("wrap_try_except", {
      target,
      ...(exception ? { exception } : {}),
      ...(alias ? { alias } : {}),
      handler: blockCode(view.post, hBody, "python"),
      ...(finBody ? { finally_body: blockCode(view.post, finBody, "python") } : {}),
    }),
  ];
}

const ADDITION_RULES: readonly AdditionRule[] = [
  parameterAdded,
  decoratorAdded,
  memberAdded,
  guardAdded,
  branchAdded,
  wrapped,
];

/** A decorator added to an undecorated definition (the definition becomes a decorated_definition): add_decorator. */
function decoratorOnBareDefinition(view: ChangeView): Candidate[] | undefined {
  const { change, node: parent } = view;
  if (
    change.kind !== "replace" ||
    !parent ||
    !["function_definition", "class_definition"].includes(change.pre.type) ||
    change.post.type !== "decorated_definition"
  )
    return undefined;
  let decorated: Node | null = view.postTree.rootNode.descendantForIndex(change.post.start, change.post.end);
  while (decorated && decorated.type !== "decorated_definition") decorated = decorated.parent;
  const decorators = decorated?.namedChildren.filter((c): c is Node => c?.type === "decorator") ?? [];
  const [target] = view.locate(parent);
  return target && decorators.length === 1
    ? [template("add_decorator", { target, decorator: decorators[0]!.text.replace(/^@\s*/, "") })]
    : [];
}

/** Python additions with a template of their own: the first rule whose shape the change has gives the candidates. */
const adding: Suggester = (view) => {
  if (view.language !== "python") return [];
  const bare = decoratorOnBareDefinition(view);
  if (bare) return bare;
  const { change, node: parent } = view;
  if (change.kind !== "splice" || !parent) return [];
  const added = change.added.filter((a) => a.named);
  const addition: Addition = {
    view,
    change,
    parent,
    added,
    addedText: added.map((a) => view.post.slice(a.start, a.end)),
    owner: parent.type === "block" ? parent.parent : null,
  };
  for (const rule of ADDITION_RULES) {
    const candidates = rule(addition);
    if (candidates) return candidates;
  }
  return [];
};

function memberName(node: Node): string | undefined {
  const def = node.type === "decorated_definition" ? node.childForFieldName("definition") : node;
  if (def && (def.type === "function_definition" || def.type === "class_definition"))
    return def.childForFieldName("name")?.text;
  return undefined;
}

const isDocstring = (node: Node): boolean =>
  node.type === "expression_statement" && node.namedChild(0)?.type === "string";

/** The post-image node of a NodeRef. */
function postNode(view: ChangeView, ref: { start: number; end: number; type: string }): Node | undefined {
  let n: Node | null = view.postTree.rootNode.descendantForIndex(ref.start, ref.end);
  while (n && (n.startIndex > ref.start || n.endIndex < ref.end)) n = n.parent;
  for (; n && n.startIndex === ref.start && n.endIndex === ref.end; n = n.parent) if (n.type === ref.type) return n;
  return undefined;
}

// ------------------------------------------------------------------------------------------------
// Fragments (tier 3): a statement described as a typed JSON tree.

type Fragment = { kind: string; properties?: Record<string, unknown>; children?: Fragment[] };

const text = (n: Node | null | undefined): string | undefined => n?.text;

/**
 * The fragment of a Python statement node, when every part of it has a fragment kind (no comments).
 * Long on purpose: one case per statement kind of the fragment schema, each a few lines.
 */
export function fragmentOf(node: Node): Fragment | undefined {
  const body = (block: Node | null | undefined): Fragment[] | undefined => {
    if (!block) return undefined;
    const out: Fragment[] = [];
    for (const c of block.namedChildren) {
      if (!c) continue;
      const f = fragmentOf(c);
      if (!f) return undefined;
      out.push(f);
    }
    return out;
  };
  const clauses = (n: Node, types: readonly string[]): Fragment[] | undefined => {
    const out: Fragment[] = [];
    for (const c of n.namedChildren) {
      if (!c || !types.includes(c.type)) continue;
      const f = fragmentOf(c);
      if (!f) return undefined;
      out.push(f);
    }
    return out;
  };
  const withChildren = (
    kind: string,
    properties: Record<string, unknown>,
    children: Fragment[] | undefined,
  ): Fragment | undefined =>
    children ? { kind, ...(Object.keys(properties).length ? { properties } : {}), children } : undefined;
  switch (node.type) {
    case "return_statement": {
      const value = node.namedChildren.find((c) => c && c.type !== "comment");
      return { kind: "return_statement", ...(value ? { properties: { value: value.text } } : {}) };
    }
    case "raise_statement": {
      const exception = node.namedChild(0);
      const cause = node.childForFieldName("cause");
      return {
        kind: "raise_statement",
        ...(exception ? { properties: { exception: exception.text, ...(cause ? { cause: cause.text } : {}) } } : {}),
      };
    }
    case "pass_statement":
      return { kind: "pass_statement" };
    case "break_statement":
      return { kind: "break_statement" };
    case "continue_statement":
      return { kind: "continue_statement" };
    case "expression_statement": {
      const inner = node.namedChild(0);
      if (node.namedChildCount !== 1 || !inner) return undefined;
      if (inner.type === "assignment") {
        const left = inner.childForFieldName("left");
        const right = inner.childForFieldName("right");
        const type = inner.childForFieldName("type");
        if (!left) return undefined;
        return {
          kind: "assignment",
          properties: {
            target: left.text,
            ...(right ? { value: right.text } : {}),
            ...(type ? { type: type.text } : {}),
          },
        };
      }
      if (inner.type === "augmented_assignment") {
        const operator = inner.childForFieldName("operator")?.text;
        return {
          kind: "assignment",
          properties: {
            target: text(inner.childForFieldName("left")),
            value: text(inner.childForFieldName("right")),
            operator,
          },
        };
      }
      return { kind: "expression_statement", properties: { expression: inner.text } };
    }
    case "if_statement":
      return withChildren(
        "if_statement",
        { condition: text(node.childForFieldName("condition")) },
        concat(body(node.childForFieldName("consequence")), clauses(node, ["elif_clause", "else_clause"])),
      );
    case "elif_clause":
      return withChildren(
        "elif_clause",
        { condition: text(node.childForFieldName("condition")) },
        body(node.childForFieldName("consequence")),
      );
    case "else_clause":
      return withChildren("else_clause", {}, body(node.childForFieldName("body")));
    case "for_statement":
      return withChildren(
        "for_statement",
        {
          target: text(node.childForFieldName("left")),
          iterable: text(node.childForFieldName("right")),
          ...(node.text.startsWith("async") ? { is_async: true } : {}),
        },
        concat(body(node.childForFieldName("body")), clauses(node, ["else_clause"])),
      );
    case "while_statement":
      return withChildren(
        "while_statement",
        { condition: text(node.childForFieldName("condition")) },
        concat(body(node.childForFieldName("body")), clauses(node, ["else_clause"])),
      );
    case "with_statement": {
      const items = node.namedChildren.find((c) => c?.type === "with_clause");
      return withChildren(
        "with_statement",
        { items: items?.text, ...(node.text.startsWith("async") ? { is_async: true } : {}) },
        body(node.childForFieldName("body")),
      );
    }
    case "try_statement":
      return withChildren(
        "try_statement",
        {},
        concat(body(node.childForFieldName("body")), clauses(node, ["except_clause", "else_clause", "finally_clause"])),
      );
    case "except_clause": {
      const value = node.namedChildren.find((c) => c && c.type !== "block" && c.type !== "comment");
      const block = node.namedChildren.find((c) => c?.type === "block");
      const props: Record<string, unknown> = {};
      if (value?.type === "as_pattern") {
        props["exception"] = value.namedChild(0)?.text;
        props["alias"] = value.childForFieldName("alias")?.text;
      } else if (value) props["exception"] = value.text;
      return withChildren("except_clause", props, body(block));
    }
    case "finally_clause":
      return withChildren("finally_clause", {}, body(node.namedChildren.find((c) => c?.type === "block")));
    case "function_definition": {
      const params = node.childForFieldName("parameters");
      const returns = node.childForFieldName("return_type");
      return withChildren(
        "function_definition",
        {
          name: text(node.childForFieldName("name")),
          ...(params && params.text.length > 2 ? { parameters: params.text.slice(1, -1) } : {}),
          ...(returns ? { return_type: returns.text } : {}),
          ...(node.text.startsWith("async") ? { is_async: true } : {}),
        },
        body(node.childForFieldName("body")),
      );
    }
    case "class_definition": {
      const bases = node.childForFieldName("superclasses");
      return withChildren(
        "class_definition",
        {
          name: text(node.childForFieldName("name")),
          ...(bases && bases.text.length > 2 ? { bases: bases.text.slice(1, -1) } : {}),
        },
        body(node.childForFieldName("body")),
      );
    }
    case "decorated_definition": {
      const def = node.childForFieldName("definition");
      const inner = def ? fragmentOf(def) : undefined;
      if (!inner) return undefined;
      const decorators = node.namedChildren
        .filter((c): c is Node => c?.type === "decorator")
        .map((d) => d.text.replace(/^@\s*/, ""));
      return { ...inner, properties: { ...(inner.properties ?? {}), decorators } };
    }
    default:
      return undefined;
  }
}

const concat = (a: Fragment[] | undefined, b: Fragment[] | undefined): Fragment[] | undefined =>
  a && b ? [...a, ...b] : undefined;

/** A fragment for one statement added (next to a sibling) or replaced whole. */
const fragments: Suggester = (view) => {
  if (view.language !== "python") return [];
  const { change } = view;
  const out: Candidate[] = [];
  if (change.kind === "replace") {
    const node = view.node;
    if (!node || !/_statement$|_definition$/.test(node.type)) return out;
    const post = postNode(view, change.post);
    const fragment = post ? fragmentOf(post) : undefined;
    const [locator] = view.locate(node);
    if (fragment && locator)
      out.push({ step: { fragment, action: "replace", locator } as Step, form: "fragment:replace" });
    return out;
  }
  const added = change.added.filter((a) => a.named);
  if (
    change.removed.length > 0 ||
    added.length !== 1 ||
    !view.node ||
    !LANGUAGES.python.blockTypes.includes(view.node.type)
  )
    return out;
  const post = postNode(view, added[0]!);
  const fragment = post ? fragmentOf(post) : undefined;
  if (!fragment) return out;
  if (view.prev) {
    const [locator] = view.locate(view.prev);
    if (locator)
      out.push({ step: { fragment, action: "insert_after", locator } as Step, form: "fragment:insert_after" });
  }
  if (view.next) {
    const [locator] = view.locate(view.next);
    if (locator)
      out.push({ step: { fragment, action: "insert_before", locator } as Step, form: "fragment:insert_before" });
  }
  return out;
};

export const suggesters: readonly Suggester[] = [modifying, adding, fragments];

/** Tier 2 templates that add code: guards, parameters, imports, methods, branches, decorators, attributes. */
import { z } from "zod";
import type { Node } from "@graphplan/graph";
import { placeBlock, reindent } from "@graphplan/fragments";
import { indentUnit, lineIndent, type Edit } from "@graphplan/primitives";
import { nodeName } from "@graphplan/locators";
import { defineOperator } from "../operator.js";
import { goAddField, goAddMethod } from "./go-members.js";
import { codeParam, p } from "../params.js";
import { addEdit, TransformRejected, type FileEdits, type Target } from "../workspace.js";
import {
  ANY_FUNCTION,
  BRACED_BODIES,
  PY_AND_JS,
  PY_JS_JAVA_GO,
  bodyAfterDocstring,
  classParts,
  fillBraces,
  functionParts,
  isDocstring,
  isJs,
  isPlaceholder,
  memberEnd,
  parenthesizeFor,
  expressionType,
  startsLine,
  statementsOf,
  enclosingStatement,
} from "./syntax.js";

const line = (n: Node): number => n.startPosition.row + 1;
const one = (file: string, edit: Edit): FileEdits => new Map([[file, [edit]]]);
const FUNCTION_TYPES = new Set([...ANY_FUNCTION, "decorated_definition"]);

/** `if cond: body` in the target's language, at column 0. */
function ifBlock(t: Target, condition: string, body: string, keyword = "if"): string {
  const unit = indentUnit(t.source);
  if (t.language === "python") return `${keyword} ${condition}:\n${reindent(body, unit, t.language)}`;
  if (t.language === "go") return `${keyword} ${condition} {\n${reindent(body, unit, t.language)}\n}`;
  return `${keyword} (${condition}) {\n${reindent(body, unit, t.language)}\n}`;
}

/** Where code goes at the top of a function body: before its first statement (after a docstring). */
function atBodyStart(t: Target, op: string, code: string): Edit {
  const parts = functionParts(t, op);
  if (!BRACED_BODIES.has(parts.body.type)) {
    throw new TransformRejected(
      op,
      t.file,
      `the function at line ${line(parts.fn)} has an expression body; give it a block first with replace_function_body`,
    );
  }
  const { docstring, rest } = bodyAfterDocstring(parts.body, t.language);
  // A Java constructor's this(...)/super(...) call must stay its first statement.
  const first = rest[0]?.type === "explicit_constructor_invocation" ? rest[1] : rest[0];
  if (!first && rest[0]) return placeBlock(t.source, t.language, rest[0], "insert_after", code);
  if (first && !startsLine(t.source, first.startIndex)) {
    throw new TransformRejected(
      op,
      t.file,
      `the body of the function at line ${line(parts.fn)} is on its header line; rewrite it with replace_function_body`,
    );
  }
  if (first) return placeBlock(t.source, t.language, first, "insert_before", code);
  if (docstring) return placeBlock(t.source, t.language, docstring, "insert_after", code);
  return fillBraces(t, parts.body, code, parts.outer.startIndex);
}

export const guardClause = defineOperator({
  name: "guard_clause",
  tier: 2,
  useCase: "Adding Code",
  description:
    "Insert `if <condition>: <body>` at the start of a function (after its docstring) or before a statement; for early returns and argument checks.",
  params: z.strictObject({
    target: p.locator("The function to guard (the guard goes first in its body), or a statement to guard"),
    condition: p.expression('When the guard fires: "value is None"', "condition"),
    body: p.statements('What the guard does: "return None" or "raise ValueError(\\"value is required\\")"'),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["function_definition", "statement"],
  output: "if_statement",
  example: {
    target: { kind: "function", name: "parse", file: "app/parser.py" },
    condition: "text is None",
    body: "return None",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const code = ifBlock(
      t,
      codeParam(params["condition"], "condition", t.language),
      codeParam(params["body"], "statements", t.language),
    );
    if (
      FUNCTION_TYPES.has(t.node.type) ||
      (t.node.type === "variable_declarator" &&
        t.node.childForFieldName("value") &&
        FUNCTION_TYPES.has(t.node.childForFieldName("value")!.type))
    ) {
      return one(t.file, atBodyStart(t, "guard_clause", code));
    }
    const statement = enclosingStatement(t.node, t.language);
    if (!statement)
      throw new TransformRejected(
        "guard_clause",
        t.file,
        `the target at line ${line(t.node)} is not inside a statement`,
      );
    return one(t.file, placeBlock(t.source, t.language, statement, "insert_before", code));
  },
});

// ------------------------------------------------------------------------------------------
// add_parameter

interface ParamInfo {
  readonly node: Node;
  readonly name: string | undefined;
  /** positional / star (`*args` or bare `*`) / kwargs (`**kw`) / slash (`/`) */
  readonly role: "positional" | "star" | "kwargs" | "slash";
  readonly hasDefault: boolean;
  /** Every name it declares, when it declares several (Go's `a, b int`); `name` is the last. */
  readonly names?: readonly string[];
}

function pythonParams(list: Node): ParamInfo[] {
  return list.namedChildren
    .filter((n): n is Node => !!n && n.type !== "comment")
    .map((n) => {
      switch (n.type) {
        case "identifier":
          return { node: n, name: n.text, role: "positional", hasDefault: false } as const;
        case "typed_parameter":
          return n.namedChildren[0]?.type === "list_splat_pattern"
            ? ({ node: n, name: n.namedChildren[0].namedChildren[0]?.text, role: "star", hasDefault: false } as const)
            : n.namedChildren[0]?.type === "dictionary_splat_pattern"
              ? ({
                  node: n,
                  name: n.namedChildren[0].namedChildren[0]?.text,
                  role: "kwargs",
                  hasDefault: false,
                } as const)
              : ({ node: n, name: n.namedChildren[0]?.text, role: "positional", hasDefault: false } as const);
        case "default_parameter":
        case "typed_default_parameter":
          return { node: n, name: n.childForFieldName("name")?.text, role: "positional", hasDefault: true } as const;
        case "list_splat_pattern":
        case "keyword_separator":
          return { node: n, name: n.namedChildren[0]?.text, role: "star", hasDefault: false } as const;
        case "dictionary_splat_pattern":
          return { node: n, name: n.namedChildren[0]?.text, role: "kwargs", hasDefault: false } as const;
        case "positional_separator":
          return { node: n, name: undefined, role: "slash", hasDefault: false } as const;
        default:
          return { node: n, name: n.text, role: "positional", hasDefault: false } as const;
      }
    });
}

function jsParams(list: Node): ParamInfo[] {
  return list.namedChildren
    .filter((n): n is Node => !!n && n.type !== "comment" && n.type !== "decorator")
    .map((n) => {
      const pattern =
        n.childForFieldName("pattern") ?? (n.type === "assignment_pattern" ? n.childForFieldName("left") : n);
      const rest = pattern?.type === "rest_pattern";
      const name = rest ? pattern?.namedChildren[0]?.text : pattern?.type === "identifier" ? pattern.text : undefined;
      const hasDefault = n.type === "assignment_pattern" || !!n.childForFieldName("value");
      return { node: n, name, role: rest ? "kwargs" : "positional", hasDefault } as const;
    });
}

function javaParams(list: Node): ParamInfo[] {
  return list.namedChildren
    .filter((n): n is Node => !!n && (n.type === "formal_parameter" || n.type === "spread_parameter"))
    .map((n) => {
      const spread = n.type === "spread_parameter";
      const name = spread
        ? n.namedChildren.find((c) => c?.type === "variable_declarator")?.childForFieldName("name")?.text
        : n.childForFieldName("name")?.text;
      return { node: n, name, role: spread ? "kwargs" : "positional", hasDefault: false } as const;
    });
}

/** Go's parameters, one per declaration: `a, b int` is one, named by its last name (a new parameter goes before or after it, not inside). */
function goParams(list: Node): ParamInfo[] {
  return list.namedChildren
    .filter(
      (n): n is Node => !!n && (n.type === "parameter_declaration" || n.type === "variadic_parameter_declaration"),
    )
    .map((n) => {
      const names = n.children
        .filter((c): c is Node => !!c && c.type === "identifier" && n.childForFieldName("type")?.id !== c.id)
        .map((c) => c.text);
      return {
        node: n,
        name: names[names.length - 1],
        role: n.type === "variadic_parameter_declaration" ? "kwargs" : "positional",
        hasDefault: false,
        ...(names.length > 1 ? { names } : {}),
      } as const;
    });
}

export const addParameter = defineOperator({
  name: "add_parameter",
  tier: 2,
  useCase: "Adding Code",
  description:
    "Add a parameter to a function's signature (before **kwargs / ...rest, else last; or right after the parameter named in `after`). Call sites are not changed: give a default to keep them working.",
  params: z.strictObject({
    target: p.locator("The function or method"),
    name: p.identifier('The new parameter\'s name: "timeout"'),
    default: p.expression('Default value: "None"').optional(),
    type: p.type('Type annotation: "Optional[float]" (Python, TypeScript; required in Java and Go)').optional(),
    after: p.identifier("Insert right after this existing parameter").optional(),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["function_definition"],
  output: "parameters",
  example: { target: { kind: "method", name: "fetch", file: "app/client.py" }, name: "timeout", default: "None" },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const parts = functionParts(t, "add_parameter");
    const name = codeParam(params["name"], "identifier", t.language);
    const type = params["type"] === undefined ? undefined : codeParam(params["type"], "type", t.language);
    const dflt = params["default"] === undefined ? undefined : codeParam(params["default"], "expression", t.language);
    const after = params["after"] === undefined ? undefined : codeParam(params["after"], "identifier", t.language);
    const py = t.language === "python";
    const typed = t.language === "java" || t.language === "go";
    if (typed && type === undefined)
      throw new TransformRejected(
        "add_parameter",
        t.file,
        `a ${t.language === "java" ? "Java" : "Go"} parameter needs a type: give "type"`,
      );
    if (typed && dflt !== undefined)
      throw new TransformRejected(
        "add_parameter",
        t.file,
        `${t.language === "java" ? "Java" : "Go"} has no default parameter values: leave "default" out (and update the call sites)`,
      );
    const text =
      t.language === "java"
        ? `${type} ${name}`
        : t.language === "go"
          ? `${name} ${type}`
          : py
            ? `${name}${type ? `: ${type}` : ""}${dflt !== undefined ? (type ? ` = ${dflt}` : `=${dflt}`) : ""}`
            : `${name}${type ? `: ${type}` : ""}${dflt !== undefined ? ` = ${dflt}` : ""}`;
    const list = parts.parameters;
    if (!list)
      throw new TransformRejected(
        "add_parameter",
        t.file,
        `the function at line ${line(parts.fn)} has no parameter list`,
      );
    // `x => x`: a single unparenthesized arrow parameter.
    if (list.type === "identifier")
      return one(t.file, { start: list.startIndex, end: list.endIndex, text: `(${list.text}, ${text})` });
    const infos = py
      ? pythonParams(list)
      : t.language === "java"
        ? javaParams(list)
        : t.language === "go"
          ? goParams(list)
          : jsParams(list);
    if (infos.some((i) => i.name === name || i.names?.includes(name)))
      throw new TransformRejected("add_parameter", t.file, `the function already has a parameter named ${name}`);
    let index: number; // the new parameter's position in the list
    if (after !== undefined) {
      const at = infos.findIndex((i) => i.name === after);
      const group = infos.find((i) => i.names?.includes(after));
      if (at < 0 && group)
        throw new TransformRejected(
          "add_parameter",
          t.file,
          `${group.names!.join(", ")} share one type (${group.node.text}): add the parameter after ${group.name}, or before the group`,
        );
      if (at < 0)
        throw new TransformRejected(
          "add_parameter",
          t.file,
          `no parameter named ${after}; parameters: ${infos.map((i) => i.node.text).join(", ")}`,
        );
      index = at + 1;
    } else {
      const kwargs = infos.findIndex((i) => i.role === "kwargs");
      index = kwargs >= 0 ? kwargs : infos.length;
    }
    if (index > 0 && infos[index - 1]!.role === "kwargs") {
      throw new TransformRejected(
        "add_parameter",
        t.file,
        `nothing may follow ${infos[index - 1]!.node.text}; choose another "after"`,
      );
    }
    if (py && dflt === undefined) {
      const keywordOnly = infos.slice(0, index).some((i) => i.role === "star");
      const defaultBefore = infos.slice(0, index).some((i) => i.role === "positional" && i.hasDefault);
      if (!keywordOnly && defaultBefore) {
        throw new TransformRejected(
          "add_parameter",
          t.file,
          `${name} would follow a parameter with a default value, which Python forbids; give "default" or place it with "after"`,
        );
      }
    }
    const multiline = infos.length > 0 && infos[0]!.node.startPosition.row !== list.startPosition.row;
    if (index < infos.length) {
      const before = infos[index]!.node;
      const sep = multiline ? `,\n${lineIndent(t.source, before.startIndex)}` : ", ";
      return one(t.file, { start: before.startIndex, end: before.startIndex, text: `${text}${sep}` });
    }
    if (infos.length === 0) {
      const open = list.child(0);
      const at = open && open.type === "(" ? open.endIndex : list.startIndex;
      return one(t.file, { start: at, end: at, text });
    }
    const last = infos[infos.length - 1]!.node;
    const sep = multiline ? `,\n${lineIndent(t.source, last.startIndex)}` : ", ";
    return one(t.file, { start: last.endIndex, end: last.endIndex, text: `${sep}${text}` });
  },
});

// ------------------------------------------------------------------------------------------
// add_import_and_use

const PY_IMPORT_TYPES = new Set(["import_statement", "import_from_statement", "future_import_statement"]);
const normalize = (code: string): string => code.replace(/\s+/g, " ").replace(/;\s*$/, "").trim();

/** The edit that adds an import statement at the top of a file (after the last top-level import), or none when present. */
export function importEdit(
  t: { source: string; language: Target["language"]; tree: Target["tree"] },
  statement: string,
): Edit | undefined {
  if (t.language === "go") return goImportEdit(t, statement);
  const root = t.tree.rootNode;
  const top = statementsOf(root);
  const imports = top.filter((n) =>
    t.language === "python"
      ? PY_IMPORT_TYPES.has(n.type)
      : t.language === "java"
        ? n.type === "import_declaration"
        : n.type === "import_statement",
  );
  if (imports.some((n) => normalize(n.text) === normalize(statement))) return undefined;
  const last = imports[imports.length - 1];
  if (last) return placeBlock(t.source, t.language, last, "insert_after", statement);
  // Java: the first import goes after the package declaration, a blank line between them.
  const pkg = t.language === "java" ? top.find((n) => n.type === "package_declaration") : undefined;
  if (pkg) return placeBlock(t.source, t.language, pkg, "insert_after", statement, { blankLines: 1 });
  // No import yet: after a module docstring / directive prologue, before the first statement.
  let index = 0;
  if (t.language === "python" && isDocstring(top[0])) index = 1;
  if (t.language !== "python")
    while (top[index]?.type === "expression_statement" && /^["']use /.test(top[index]!.text)) index++;
  const before = top[index];
  if (before) return placeBlock(t.source, t.language, before, "insert_before", index === 0 ? statement : statement);
  const anchor = top[index - 1];
  if (anchor) return placeBlock(t.source, t.language, anchor, "insert_after", statement);
  return {
    start: t.source.length,
    end: t.source.length,
    text: `${t.source.length && !t.source.endsWith("\n") ? "\n" : ""}${statement}\n`,
  };
}

/** The path of a Go import spec (`"strings"`, or `s "strings"`), without its quotes. */
const goPath = (spec: string): string =>
  /"([^"]*)"|`([^`]*)`/
    .exec(spec)
    ?.slice(1)
    .find((p) => p !== undefined) ?? spec;
/** Go's standard library: a path whose first element has no dot. */
const goStd = (path: string): boolean => !path.split("/")[0]!.includes(".");

/**
 * Go: a spec added to the file's `import (...)` group, in the run of its kind (the standard library
 * first, then the others) at the place gofmt sorts it to; without a group, a declaration after the
 * last import, or after the package clause.
 */
function goImportEdit(
  t: { source: string; language: Target["language"]; tree: Target["tree"] },
  statement: string,
): Edit | undefined {
  const spec = statement.replace(/^\s*import\s+/, "").trim();
  const path = goPath(spec);
  const top = statementsOf(t.tree.rootNode);
  const declarations = top.filter((n) => n.type === "import_declaration");
  const specs = declarations.flatMap((d) => d.descendantsOfType("import_spec").filter((n): n is Node => !!n));
  if (specs.some((n) => normalize(n.text) === normalize(spec))) return undefined;
  const group = declarations
    .map((d) => d.namedChildren.find((c) => c?.type === "import_spec_list"))
    .find((g): g is Node => !!g);
  if (group) {
    const list = group.namedChildren.filter((n): n is Node => n?.type === "import_spec");
    // Runs of specs are separated by blank lines; gofmt sorts each run by path.
    const runs: Node[][] = [];
    for (const n of list) {
      const prev = runs.at(-1)?.at(-1);
      if (prev && n.startPosition.row === prev.endPosition.row + 1) runs.at(-1)!.push(n);
      else runs.push([n]);
    }
    const run = runs.find((r) => goStd(goPath(r[0]!.text)) === goStd(path)) ?? (goStd(path) ? runs[0] : runs.at(-1));
    if (run) {
      const next = run.find((n) => goPath(n.text) > path);
      if (next) return placeBlock(t.source, t.language, next, "insert_before", spec);
      return placeBlock(t.source, t.language, run.at(-1)!, "insert_after", spec);
    }
    const close = group.child(group.childCount - 1)!;
    return { start: close.startIndex, end: close.startIndex, text: `\t${spec}\n` };
  }
  const last = declarations.at(-1);
  if (last) return placeBlock(t.source, t.language, last, "insert_after", `import ${spec}`);
  const pkg =
    top.find((n) => n.type === "package_clause") ??
    t.tree.rootNode.namedChildren.find((n) => n?.type === "package_clause");
  if (pkg) return placeBlock(t.source, t.language, pkg, "insert_after", `import ${spec}`, { blankLines: 1 });
  return { start: 0, end: 0, text: `import ${spec}\n\n` };
}

export const addImportAndUse = defineOperator({
  name: "add_import_and_use",
  tier: 2,
  useCase: "Adding Code",
  description:
    "Add an import (after the file's last top-level import; skipped if already there) and replace the target expression with code that uses it.",
  params: z.strictObject({
    target: p.locator("The expression to replace with code that uses the import"),
    import: p.statements('One import statement: "from collections import OrderedDict"', "import"),
    expression: p.expression('The new expression, using the import: "OrderedDict(items)"'),
  }),
  languages: [...PY_AND_JS, "java", "go"],
  input: ["expression"],
  output: "import_statement + expression",
  example: {
    target: {
      type: "sexp",
      file: "app/store.py",
      query: '((call function: (identifier) @f) @call (#eq? @f "dict"))',
      capture: "call",
    },
    import: "from collections import OrderedDict",
    expression: "OrderedDict(items)",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const statement = codeParam(params["import"], "import", t.language);
    const expression = codeParam(params["expression"], "expression", t.language);
    const edits: FileEdits = new Map();
    const replacement = parenthesizeFor(t.node, expression, expressionType(expression, t.language), t.language);
    addEdit(edits, t.file, placeBlock(t.source, t.language, t.node, "replace", replacement));
    const imp = importEdit(t, statement);
    if (imp) addEdit(edits, t.file, imp);
    return edits;
  },
});

// ------------------------------------------------------------------------------------------
// add_method

/** Members of a class body by name (methods, fields, assignments). */
function memberNamed(body: Node, name: string, language: Target["language"]): Node | undefined {
  for (const member of statementsOf(body)) {
    const def = member.type === "decorated_definition" ? member.childForFieldName("definition") : member;
    if (!def) continue;
    if (nodeName(def, language) === name) return member;
    // A Java field declares its names in its declarators (`int a = 1, b;`).
    if (
      def.type === "field_declaration" &&
      def.namedChildren.some((d) => d?.type === "variable_declarator" && d.childForFieldName("name")?.text === name)
    )
      return member;
    if (language === "python" && def.type === "expression_statement") {
      const assignment = def.namedChildren[0];
      if (
        (assignment?.type === "assignment" || assignment?.type === "augmented_assignment") &&
        assignment.childForFieldName("left")?.text === name
      )
        return member;
    }
  }
  return undefined;
}

/** Appends a member to a class body: after `after` (a member name) or at the end; a body of only `pass` is replaced. */
function appendMember(t: Target, op: string, body: Node, header: Node, code: string, after?: string): Edit {
  const members = statementsOf(body);
  if (t.language === "python") {
    const real = members.filter((m) => !isPlaceholder(m));
    if (real.length === 0 || (real.length === 1 && isDocstring(real[0]))) {
      const placeholder = members.find(isPlaceholder);
      if (placeholder) return placeBlock(t.source, t.language, placeholder, "replace", code);
    }
  } else if (members.length === 0) {
    return fillBraces(t, body, code, header.startIndex);
  }
  let anchor = members[members.length - 1]!;
  if (after !== undefined) {
    const named = memberNamed(body, after, t.language);
    if (!named) throw new TransformRejected(op, t.file, `the class has no member named ${after}`);
    anchor = named;
  }
  if (!startsLine(t.source, anchor.startIndex))
    throw new TransformRejected(
      op,
      t.file,
      `the class body at line ${line(body)} is on its header line; rewrite the class with replace_node`,
    );
  const edit = placeBlock(t.source, t.language, anchor, "insert_after", code, { blankLines: 1 });
  const end = isJs(t.language) ? memberEnd(anchor, t.language) : edit.start;
  return { start: end, end, text: edit.text };
}

export const addMethod = defineOperator({
  name: "add_method",
  tier: 2,
  useCase: "Adding Code",
  description:
    "Add a method to a class: at the end of the body, or right after the member named in `after`. Fails if a member of that name exists. Go: the target is the type, the code a method with that receiver, placed after the type's last method in the file.",
  params: z.strictObject({
    target: p.locator("The class"),
    code: p.statements('The whole method at column 0: "def close(self):\\n    self._conn.close()"', "function"),
    after: p.identifier("Put the method right after this member (default: last)").optional(),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["class_definition"],
  output: "function_definition",
  example: {
    target: { kind: "class", name: "Client", file: "app/client.py" },
    code: "def close(self):\n    self._conn.close()",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    if (t.language === "go") {
      const after = params["after"] === undefined ? undefined : codeParam(params["after"], "identifier", t.language);
      return one(t.file, goAddMethod(t, codeParam(params["code"], "function", t.language), after));
    }
    const { body, outer } = classParts(t, "add_method");
    const code = codeParam(params["code"], "function", t.language);
    const name = methodName(code, t.language);
    if (name && memberNamed(body, name, t.language)) {
      throw new TransformRejected(
        "add_method",
        t.file,
        `the class already has a member named ${name}; change it with replace_function_body or replace_node`,
      );
    }
    const after = params["after"] === undefined ? undefined : codeParam(params["after"], "identifier", t.language);
    return one(t.file, appendMember(t, "add_method", body, outer, code, after));
  },
});

function methodName(code: string, language: Target["language"]): string | undefined {
  // Java: the identifier before the parameter list, after the annotations, modifiers and return type.
  if (language === "java") return /([A-Za-z_$][\w$]*)\s*\(/.exec(code.replace(/^\s*@\w+(?:\([^)]*\))?\s*/gm, ""))?.[1];
  const match =
    language === "python"
      ? /^\s*(?:@.*\n\s*)*(?:async\s+)?def\s+([A-Za-z_]\w*)/.exec(code)
      : /^\s*(?:@.*\n\s*)*(?:(?:public|private|protected|static|async|get|set|readonly|override)\s+)*\*?\s*([A-Za-z_$#][\w$]*)\s*[(<]/.exec(
          code,
        );
  return match?.[1];
}

// ------------------------------------------------------------------------------------------
// add_conditional_branch

export const addConditionalBranch = defineOperator({
  name: "add_conditional_branch",
  tier: 2,
  useCase: "Adding Code",
  description:
    "Add a branch to an if statement: `elif`/`else if` with a condition (before the else), or the final `else` when no condition is given.",
  params: z.strictObject({
    target: p.locator("The if statement"),
    condition: p
      .expression('The new branch\'s condition; omit to add the else: "mode == \\"strict\\""', "condition")
      .optional(),
    body: p.statements('The branch\'s statements: "return strict_parse(text)"'),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["if_statement"],
  output: "elif_clause | else_clause",
  example: {
    target: { kind: "if", file: "app/parser.py", parent: { kind: "function", name: "parse", file: "app/parser.py" } },
    condition: 'mode == "strict"',
    body: "return strict_parse(text)",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    let ifNode: Node | null = t.node;
    if (ifNode.type === "elif_clause" || ifNode.type === "else_clause") ifNode = ifNode.parent;
    if (!ifNode || ifNode.type !== "if_statement")
      throw new TransformRejected(
        "add_conditional_branch",
        t.file,
        `the target (line ${line(t.node)}) is a ${t.node.type}, not an if statement`,
      );
    const condition =
      params["condition"] === undefined ? undefined : codeParam(params["condition"], "condition", t.language);
    const body = codeParam(params["body"], "statements", t.language);
    const unit = indentUnit(t.source);
    if (t.language === "python") {
      const clauses = ifNode.namedChildren.filter(
        (c): c is Node => !!c && (c.type === "elif_clause" || c.type === "else_clause"),
      );
      const elseClause = clauses.find((c) => c.type === "else_clause");
      if (condition === undefined) {
        if (elseClause)
          throw new TransformRejected(
            "add_conditional_branch",
            t.file,
            `the if statement at line ${line(ifNode)} already has an else (line ${line(elseClause)}); give a condition to add an elif`,
          );
        return one(
          t.file,
          placeBlock(t.source, t.language, ifNode, "insert_after", `else:\n${reindent(body, unit, t.language)}`),
        );
      }
      const code = `elif ${condition}:\n${reindent(body, unit, t.language)}`;
      if (elseClause) return one(t.file, placeBlock(t.source, t.language, elseClause, "insert_before", code));
      return one(t.file, placeBlock(t.source, t.language, ifNode, "insert_after", code));
    }
    // JS/TS, Java, Go: walk the else-if chain to its last if (JS wraps it in an else_clause; Java and Go do not).
    let last = ifNode;
    for (;;) {
      const alt = last.childForFieldName("alternative");
      const nested = alt?.type === "if_statement" ? alt : alt?.namedChildren.find((c) => c?.type === "if_statement");
      if (!alt || !nested) break;
      last = nested;
    }
    const alternative = last.childForFieldName("alternative");
    const consequence = last.childForFieldName("consequence")!;
    const indent = lineIndent(t.source, ifNode.startIndex);
    const block = `{\n${reindent(body, indent + unit, t.language)}\n${indent}}`;
    if (condition === undefined) {
      if (alternative)
        throw new TransformRejected(
          "add_conditional_branch",
          t.file,
          `the if statement at line ${line(ifNode)} already has an else (line ${line(alternative)}); give a condition to add an else if`,
        );
      return one(t.file, { start: consequence.endIndex, end: consequence.endIndex, text: ` else ${block}` });
    }
    const test = t.language === "go" ? condition : `(${condition})`;
    return one(t.file, { start: consequence.endIndex, end: consequence.endIndex, text: ` else if ${test} ${block}` });
  },
});

// ------------------------------------------------------------------------------------------
// add_decorator

const normalizeDecorator = (text: string): string => text.replace(/^@/, "").replace(/\s+/g, "");

export const addDecorator = defineOperator({
  name: "add_decorator",
  tier: 2,
  useCase: "Adding Code",
  description:
    "Add a decorator to a function, method or class (TypeScript/JavaScript: classes and class members; Java: an annotation on a class, method, constructor or field). Outermost (top) by default; fails if the same decorator is already there.",
  params: z.strictObject({
    target: p.locator("The function, method or class"),
    decorator: p.expression('The decorator without @: "functools.lru_cache(maxsize=None)"', "decorator"),
    position: p
      .choice(["outermost", "innermost"], "outermost (top, default) or innermost (closest to the def)")
      .optional(),
  }),
  languages: [...PY_AND_JS, "java"],
  input: ["function_definition", "class_definition"],
  output: "decorated_definition",
  example: { target: { kind: "method", name: "area", file: "app/shapes.py" }, decorator: "property" },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const decorator = codeParam(params["decorator"], "decorator", t.language);
    const innermost = params["position"] === "innermost";
    let def: Node | null = t.node.type === "decorated_definition" ? t.node.childForFieldName("definition") : t.node;
    if (def?.type === "export_statement") def = def.childForFieldName("declaration");
    if (def?.type === "variable_declarator") def = null;
    const decorators: Node[] = [];
    let declaration: Node; // where the innermost decorator goes
    let outer: Node; // where the outermost goes when there is none
    if (t.language === "python") {
      if (!def || (def.type !== "function_definition" && def.type !== "class_definition"))
        throw new TransformRejected(
          "add_decorator",
          t.file,
          `the target (line ${line(t.node)}) is a ${t.node.type}, not a function or class`,
        );
      const wrapper = def.parent?.type === "decorated_definition" ? def.parent : undefined;
      if (wrapper) decorators.push(...wrapper.namedChildren.filter((c): c is Node => c?.type === "decorator"));
      declaration = def;
      outer = def;
    } else if (t.language === "java") {
      // Java: annotations are modifiers; the innermost goes before the first other modifier (or the type).
      const JAVA_ANNOTATED = [
        "method_declaration",
        "constructor_declaration",
        "field_declaration",
        "class_declaration",
        "interface_declaration",
        "enum_declaration",
        "record_declaration",
      ];
      if (!def || !JAVA_ANNOTATED.includes(def.type))
        throw new TransformRejected(
          "add_decorator",
          t.file,
          `${def?.type ?? t.node.type} (line ${line(t.node)}) cannot be annotated here: target a class, method, constructor or field`,
        );
      const modifiers = def.namedChildren.find((c) => c?.type === "modifiers") ?? undefined;
      const parts = modifiers?.children.filter((c): c is Node => !!c) ?? [];
      decorators.push(...parts.filter((c) => c.type === "marker_annotation" || c.type === "annotation"));
      const firstOther = parts.find(
        (c) =>
          c.type !== "marker_annotation" &&
          c.type !== "annotation" &&
          c.type !== "line_comment" &&
          c.type !== "block_comment",
      );
      declaration = firstOther ?? (modifiers ? (modifiers.nextSibling ?? def) : def);
      outer = def;
    } else {
      const member =
        def &&
        [
          "method_definition",
          "public_field_definition",
          "field_definition",
          "abstract_method_signature",
          "method_signature",
        ].includes(def.type);
      const cls = def && ["class_declaration", "abstract_class_declaration", "class"].includes(def.type);
      if (!def || (!member && !cls))
        throw new TransformRejected(
          "add_decorator",
          t.file,
          `${def?.type ?? t.node.type} (line ${line(t.node)}) cannot be decorated: JavaScript/TypeScript decorators apply to classes and class members`,
        );
      if (member) {
        for (let s = def.previousNamedSibling; s && s.type === "decorator"; s = s.previousNamedSibling)
          decorators.unshift(s);
        declaration = def;
        outer = def;
      } else {
        decorators.push(...def.namedChildren.filter((c): c is Node => c?.type === "decorator"));
        const exported = def.parent?.type === "export_statement" ? def.parent : undefined;
        if (exported) decorators.unshift(...exported.namedChildren.filter((c): c is Node => c?.type === "decorator"));
        const keyword = def.children.find((c) => c && !c.isNamed && (c.type === "class" || c.type === "abstract"));
        declaration = exported && decorators.length === 0 ? exported : (keyword ?? def);
        outer = exported ?? def;
      }
    }
    if (decorators.some((d) => normalizeDecorator(d.text) === normalizeDecorator(decorator))) {
      throw new TransformRejected(
        "add_decorator",
        t.file,
        `@${decorator} is already there (line ${line(decorators[0]!)})`,
      );
    }
    const anchor = innermost ? declaration : (decorators[0] ?? outer);
    if (!startsLine(t.source, anchor.startIndex)) {
      return one(t.file, { start: anchor.startIndex, end: anchor.startIndex, text: `@${decorator} ` });
    }
    const indent = lineIndent(t.source, anchor.startIndex);
    return one(t.file, { start: anchor.startIndex, end: anchor.startIndex, text: `@${decorator}\n${indent}` });
  },
});

// ------------------------------------------------------------------------------------------
// add_class_attribute

/** A Java field `type name = value;` after the fields that open the class body, else first. */
function javaField(t: Target, body: Node, outer: Node, name: string, value: string, type: string | undefined): Edit {
  if (type === undefined)
    throw new TransformRejected("add_class_attribute", t.file, `a Java field needs a type: give "type"`);
  const code = `${type} ${name} = ${value};`;
  const members = statementsOf(body);
  let index = 0;
  while (members[index]?.type === "field_declaration") index++;
  const previous = members[index - 1];
  const next = members[index];
  if (previous) return placeBlock(t.source, t.language, previous, "insert_after", code);
  if (!next) return fillBraces(t, body, code, outer.startIndex);
  if (!startsLine(t.source, next.startIndex))
    throw new TransformRejected(
      "add_class_attribute",
      t.file,
      `the class body at line ${line(body)} is on one line; rewrite the class with replace_node`,
    );
  return placeBlock(t.source, t.language, next, "insert_before", code, { blankLines: 1 });
}

export const addClassAttribute = defineOperator({
  name: "add_class_attribute",
  tier: 2,
  useCase: "Adding Code",
  description:
    "Add a class attribute (Python) or field (JavaScript/TypeScript, Java; a Go struct's field, with no value) at the top of a class body, after its docstring and existing attributes (Go: after the last field). Fails if the name exists.",
  params: z.strictObject({
    target: p.locator("The class"),
    name: p.identifier('Attribute name: "max_retries"'),
    value: p.expression('Its value: "3" (required, except for a Go struct field, which has none)').optional(),
    type: p.type('Annotation: "int" (Python, TypeScript; required in Java and Go)').optional(),
  }),
  languages: PY_JS_JAVA_GO,
  input: ["class_definition"],
  output: "assignment",
  example: {
    target: { kind: "class", name: "Client", file: "app/client.py" },
    name: "max_retries",
    value: "3",
    type: "int",
  },
  run(ws, params) {
    const t = ws.one(params["target"]);
    const name = codeParam(params["name"], "identifier", t.language);
    const type = params["type"] === undefined ? undefined : codeParam(params["type"], "type", t.language);
    if (t.language === "go")
      return new Map([
        [
          t.file,
          goAddField(
            t,
            name,
            type,
            params["value"] === undefined ? undefined : codeParam(params["value"], "expression", t.language),
          ),
        ],
      ]);
    if (params["value"] === undefined)
      throw new TransformRejected(
        "add_class_attribute",
        t.file,
        `a ${t.language} class attribute needs a value: give "value"`,
      );
    const value = codeParam(params["value"], "expression", t.language);
    const { body, outer } = classParts(t, "add_class_attribute");
    const existing = memberNamed(body, name, t.language);
    if (existing)
      throw new TransformRejected(
        "add_class_attribute",
        t.file,
        `the class already has a member named ${name} (line ${line(existing)})`,
      );
    const members = statementsOf(body);
    if (t.language === "python") {
      const code = `${name}${type ? `: ${type}` : ""} = ${value}`;
      const real = members.filter((m) => !isPlaceholder(m));
      const placeholder = members.find(isPlaceholder);
      if (placeholder && (real.length === 0 || (real.length === 1 && isDocstring(real[0]))))
        return one(t.file, placeBlock(t.source, t.language, placeholder, "replace", code));
      let index = isDocstring(members[0]) ? 1 : 0;
      while (
        members[index]?.type === "expression_statement" &&
        ["assignment", "augmented_assignment"].includes(members[index]!.namedChildren[0]?.type ?? "")
      )
        index++;
      const previous = members[index - 1];
      const next = members[index];
      if (previous) return one(t.file, placeBlock(t.source, t.language, previous, "insert_after", code));
      if (next && startsLine(t.source, next.startIndex))
        return one(t.file, placeBlock(t.source, t.language, next, "insert_before", code));
      throw new TransformRejected(
        "add_class_attribute",
        t.file,
        `the class body at line ${line(body)} is on its header line; rewrite the class with replace_node`,
      );
    }
    if (t.language === "java") return one(t.file, javaField(t, body, outer, name, value, type));
    const code = `${name}${type ? `: ${type}` : ""} = ${value};`;
    const first = body.namedChildren.find((c): c is Node => !!c && c.type !== "comment");
    if (!first) return one(t.file, fillBraces(t, body, code, outer.startIndex));
    if (!startsLine(t.source, first.startIndex))
      throw new TransformRejected(
        "add_class_attribute",
        t.file,
        `the class body at line ${line(body)} is on one line; rewrite the class with replace_node`,
      );
    return one(t.file, placeBlock(t.source, t.language, first, "insert_before", code));
  },
});

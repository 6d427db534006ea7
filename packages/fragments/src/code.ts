/**
 * Checking that a piece of code is what it claims to be (an expression, a type, a block of
 * statements, ...) by parsing it with tree-sitter in the exact syntactic position it will take.
 * Shared by fragments (properties) and templates (parameters).
 */
import { syntaxErrors, withTree, type LanguageId, type Node } from "@graphplan/graph";

/** Languages whose code slots can be checked. */
export const CODE_LANGUAGES = ["python", "javascript", "typescript", "tsx", "java", "go"] as const;
export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

export function isCodeLanguage(language: LanguageId): language is CodeLanguage {
  return (CODE_LANGUAGES as readonly string[]).includes(language);
}

/**
 * What a code-valued string claims to be.
 * - `identifier`: a name (not a keyword).
 * - `expression`: any expression, e.g. the right side of an assignment (`a, b` and `yield x` included in Python).
 * - `condition`: the condition of an `if` / `while`.
 * - `type`: a type annotation (Python annotation, TypeScript type).
 * - `target`: the left side of an assignment or the target of a `for` (`x`, `self.x`, `a, b`).
 * - `parameters`: the inside of a parameter list (`self, x, y=1`).
 * - `arguments`: the inside of an argument list / class bases (`Base, metaclass=Meta`).
 * - `with_items`: the items of a `with` (`open(p) as f, lock`).
 * - `exception`: what an `except` catches (`ValueError`, `(KeyError, IndexError)`).
 * - `decorator`: a decorator without its `@` (`functools.lru_cache(maxsize=None)`).
 * - `statements`: one or more statements (a block body).
 * - `import`: exactly one import statement.
 * - `function`: exactly one function (or method) definition, decorators allowed.
 * - `statement`: one simple statement (Go's expression statements: `x++`, `defer f.Close()`, `go run()`, `a += b`).
 */
export type CodeKind =
  | "identifier"
  | "expression"
  | "condition"
  | "type"
  | "target"
  | "parameters"
  | "arguments"
  | "with_items"
  | "exception"
  | "decorator"
  | "statements"
  | "import"
  | "function"
  | "statement";

/** Why a code string is not the kind it claims; `null` when it is. */
export type CodeCheck = { readonly ok: true; readonly code: string } | { readonly ok: false; readonly message: string };

const PY_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);
const JS_RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await".split(
    " ",
  ),
);

const PY_IDENTIFIER = /^[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*$/u;
const JS_IDENTIFIER = /^[\p{L}\p{Nl}_$][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}$\u200c\u200d]*$/u;

/** Python node types that may stand where an expression is expected but are not expressions. */
const PY_NOT_EXPRESSION = new Set(["assignment", "augmented_assignment", "keyword_argument", "pattern_list", "ERROR"]);
const JS_NOT_EXPRESSION = new Set(["ERROR", "statement_block", "expression_statement"]);

/** A probe: the code is parsed as `prefix + code + suffix`; `accept` judges the node that spans the code. */
interface Probe {
  readonly prefix: string;
  readonly suffix: string;
  /** The node whose range must equal the code's range: found by `locate` (default: the smallest named node covering it). */
  readonly locate?: (root: Node, start: number, end: number) => Node | null;
  readonly accept: (node: Node) => string | null;
}

function exactNode(root: Node, start: number, end: number): Node | null {
  let node: Node | null = root.namedDescendantForIndex(start, Math.max(start, end - 1));
  // Walk up to the outermost node that still has exactly this range (e.g. a `type` around an identifier).
  while (
    node &&
    node.parent &&
    node.parent.startIndex === start &&
    node.parent.endIndex === end &&
    node.parent.type !== "expression_statement" &&
    node.parent.type !== "module" &&
    node.parent.type !== "program"
  ) {
    node = node.parent;
  }
  if (!node || node.startIndex !== start || node.endIndex !== end) return null;
  return node;
}

const notOneOf =
  (banned: ReadonlySet<string>, what: string) =>
  (node: Node): string | null =>
    banned.has(node.type) || node.type.endsWith("_statement")
      ? `it reads as ${an(node.type.replace(/_/g, " "))}, not ${what}`
      : null;

const an = (noun: string): string => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** The node of `type` whose range is [start-1, end+1] (the brackets around a list). */
const bracketed =
  (type: string) =>
  (root: Node, start: number, end: number): Node | null => {
    const found = root.descendantsOfType(type).find((n) => n && n.startIndex === start - 1 && n.endIndex === end + 1);
    return found ?? null;
  };

/**
 * What CPython rejects but tree-sitter-python accepts: a block with no statement (`if x:`
 * followed by a dedented line parses as an empty block) and a parameter without a default after
 * one with a default (before `*`). Returns one message per problem, with its 1-based line.
 */
export function pythonProblems(root: Node): { line: number; message: string }[] {
  const out: { line: number; message: string }[] = [];
  const visit = (node: Node): void => {
    if (node.type === "block" && !node.namedChildren.some((c) => c && c.type !== "comment")) {
      out.push({ line: node.startPosition.row + 1, message: "expected an indented block" });
    }
    if (node.type === "parameters" || node.type === "lambda_parameters") {
      let seenDefault = false;
      for (const p of node.namedChildren) {
        if (!p) continue;
        if (
          p.type === "keyword_separator" ||
          p.type === "list_splat_pattern" ||
          p.type === "dictionary_splat_pattern" ||
          (p.type === "typed_parameter" && /^\*/.test(p.text))
        )
          break;
        if (p.type === "default_parameter" || p.type === "typed_default_parameter") seenDefault = true;
        else if ((p.type === "identifier" || p.type === "typed_parameter") && seenDefault) {
          out.push({
            line: p.startPosition.row + 1,
            message: `parameter ${p.text} without a default follows a parameter with a default`,
          });
        }
      }
    }
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(root);
  return out;
}

const PY_PROBES: Partial<Record<CodeKind, Probe>> = {
  expression: { prefix: "_ = ", suffix: "\n", accept: notOneOf(PY_NOT_EXPRESSION, "an expression") },
  condition: { prefix: "if ", suffix: ":\n    pass\n", accept: notOneOf(PY_NOT_EXPRESSION, "a condition") },
  type: {
    prefix: "_: ",
    suffix: " = 0\n",
    accept: (n) => (n.type === "type" ? null : `it reads as ${an(n.type)}, not a type`),
  },
  target: {
    prefix: "",
    suffix: " = 0\n",
    accept: notOneOf(new Set(["ERROR", "augmented_assignment"]), "an assignment target"),
  },
  parameters: {
    prefix: "def _(",
    suffix: "):\n    pass\n",
    locate: bracketed("parameters"),
    accept: (n) => pythonProblems(n)[0]?.message ?? null,
  },
  arguments: { prefix: "class _(", suffix: "):\n    pass\n", locate: bracketed("argument_list"), accept: () => null },
  with_items: {
    prefix: "with ",
    suffix: ":\n    pass\n",
    accept: (n) =>
      n.type === "with_clause" || n.type === "with_item" ? null : `it reads as ${an(n.type)}, not with-items`,
  },
  exception: {
    prefix: "try:\n    pass\nexcept ",
    suffix: ":\n    pass\n",
    accept: notOneOf(new Set([...PY_NOT_EXPRESSION, "as_pattern"]), "an exception expression"),
  },
  decorator: {
    prefix: "@",
    suffix: "\ndef _():\n    pass\n",
    accept: notOneOf(PY_NOT_EXPRESSION, "a decorator expression"),
  },
};

const JS_PROBES: Partial<Record<CodeKind, Probe>> = {
  expression: {
    prefix: "_ = ",
    suffix: ";\n",
    accept: notOneOf(new Set([...JS_NOT_EXPRESSION, "sequence_expression"]), "an expression"),
  },
  condition: { prefix: "if (", suffix: ") {}\n", accept: notOneOf(JS_NOT_EXPRESSION, "a condition") },
  type: {
    prefix: "let _: ",
    suffix: ";\n",
    accept: (n) => (n.parent?.type === "type_annotation" ? null : `it reads as ${an(n.type)}, not a type`),
  },
  // In parentheses, so that an object pattern ({ a, b }) is a target and not a block.
  target: { prefix: "(", suffix: " = 0);\n", accept: notOneOf(new Set(["ERROR"]), "an assignment target") },
  parameters: { prefix: "function _(", suffix: ") {}\n", locate: bracketed("formal_parameters"), accept: () => null },
  arguments: { prefix: "_(", suffix: ");\n", locate: bracketed("arguments"), accept: () => null },
  decorator: {
    prefix: "class _ {\n  @",
    suffix: "\n  m() {}\n}\n",
    accept: notOneOf(JS_NOT_EXPRESSION, "a decorator expression"),
  },
};

/** Java code only stands inside a class (and statements inside a method): each probe puts it there. */
const IN_METHOD = "class _C {\n  void _m() {\n    ";
const JAVA_NOT_EXPRESSION = new Set(["ERROR"]);

const JAVA_PROBES: Partial<Record<CodeKind, Probe>> = {
  expression: {
    prefix: `${IN_METHOD}Object _x = `,
    suffix: ";\n  }\n}\n",
    accept: notOneOf(JAVA_NOT_EXPRESSION, "an expression"),
  },
  condition: {
    prefix: `${IN_METHOD}if (`,
    suffix: ") {}\n  }\n}\n",
    accept: notOneOf(JAVA_NOT_EXPRESSION, "a condition"),
  },
  type: {
    prefix: "class _C {\n  ",
    suffix: " _f;\n}\n",
    accept: (n) =>
      n.parent?.type === "field_declaration" && n.parent.childForFieldName("type")?.id === n.id
        ? null
        : `it reads as ${an(n.type)}, not a type`,
  },
  target: {
    prefix: IN_METHOD,
    suffix: " = null;\n  }\n}\n",
    accept: (n) =>
      ["identifier", "field_access", "array_access"].includes(n.type)
        ? null
        : `it reads as ${an(n.type.replace(/_/g, " "))}, not a variable, field or array element`,
  },
  parameters: {
    prefix: "class _C {\n  void _m(",
    suffix: ") {}\n}\n",
    locate: bracketed("formal_parameters"),
    accept: () => null,
  },
  arguments: {
    prefix: `${IN_METHOD}_f(`,
    suffix: ");\n  }\n}\n",
    locate: bracketed("argument_list"),
    accept: () => null,
  },
  // The annotation's node starts at its "@", one character before the code.
  decorator: {
    prefix: "class _C {\n  @",
    suffix: "\n  void _m() {}\n}\n",
    locate: (root, start, end) =>
      root
        .descendantsOfType(["marker_annotation", "annotation"])
        .find((n) => n && n.startIndex === start - 1 && n.endIndex === end) ?? null,
    accept: () => null,
  },
  exception: {
    prefix: `${IN_METHOD}try {} catch (`,
    suffix: " _e) {}\n  }\n}\n",
    accept: (n) =>
      n.type === "catch_type" || n.parent?.type === "catch_type"
        ? null
        : `it reads as ${an(n.type)}, not an exception type`,
  },
  with_items: {
    prefix: `${IN_METHOD}try (`,
    suffix: ") {}\n  }\n}\n",
    locate: bracketed("resource_specification"),
    accept: () => null,
  },
};

/** Go code stands in a file with a package clause, statements inside a function. */
const GO_IN_FUNC = "package _p\n\nfunc _f() {\n\t";
const GO_PROBES: Partial<Record<CodeKind, Probe>> = {
  // Go returns and assigns several values: an expression list is an expression here (`a, err`).
  expression: { prefix: `${GO_IN_FUNC}_ = `, suffix: "\n}\n", accept: notOneOf(new Set(["ERROR"]), "an expression") },
  condition: {
    prefix: `${GO_IN_FUNC}if `,
    suffix: " {\n\t}\n}\n",
    accept: notOneOf(new Set(["ERROR", "expression_list"]), "a condition"),
  },
  type: {
    prefix: "package _p\n\nvar _v ",
    suffix: "\n",
    accept: (n) =>
      n.parent?.type === "var_spec" && n.parent.childForFieldName("type")?.id === n.id
        ? null
        : `it reads as ${an(n.type)}, not a type`,
  },
  target: { prefix: GO_IN_FUNC, suffix: " = nil\n}\n", accept: notOneOf(new Set(["ERROR"]), "an assignment target") },
  parameters: {
    prefix: "package _p\n\nfunc _f(",
    suffix: ") {\n}\n",
    locate: bracketed("parameter_list"),
    accept: () => null,
  },
  arguments: { prefix: `${GO_IN_FUNC}_g(`, suffix: ")\n}\n", locate: bracketed("argument_list"), accept: () => null },
  statement: {
    prefix: GO_IN_FUNC,
    suffix: "\n}\n",
    accept: (n) => (n.type === "ERROR" || n.type === "block" ? `it is not one statement` : null),
  },
};
const GO_KEYWORDS = new Set(
  "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var".split(
    " ",
  ),
);

/**
 * What a Java identifier may not be (JLS §3.8, §3.9): the reserved keywords, `_`, and the literals
 * true, false and null. The restricted identifiers var, yield, record, sealed and permits are not
 * among them: they may not name a type (and yield not an unqualified method call), but they are
 * legal method, field and variable names, and real code uses them (a method `record(...)`).
 */
const JAVA_KEYWORDS = new Set(
  "abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while _ true false null".split(
    " ",
  ),
);
const JAVA_IDENTIFIER = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

function errorSummary(source: string, language: LanguageId, offset: number): string | null {
  return withTree(source, language, (tree) => {
    const errors = syntaxErrors(tree, 3);
    if (errors.length === 0) return null;
    const first = errors[0]!;
    const lineStart =
      source
        .split("\n")
        .slice(0, first.line - 1)
        .join("\n").length + (first.line > 1 ? 1 : 0);
    const at = Math.max(0, lineStart + first.column - offset);
    return first.kind === "MISSING"
      ? `a ${first.text} is missing near character ${at}`
      : `syntax error near character ${at} (${JSON.stringify(first.text)})`;
  });
}

function checkIdentifier(code: string, language: CodeLanguage): CodeCheck {
  const [pattern, reserved] =
    language === "python"
      ? [PY_IDENTIFIER, PY_KEYWORDS]
      : language === "java"
        ? [JAVA_IDENTIFIER, JAVA_KEYWORDS]
        : language === "go"
          ? [PY_IDENTIFIER, GO_KEYWORDS]
          : [JS_IDENTIFIER, JS_RESERVED];
  if (!pattern.test(code))
    return {
      ok: false,
      message: `${JSON.stringify(code)} is not an identifier (letters, digits and _, not starting with a digit)`,
    };
  if (reserved.has(code)) return { ok: false, message: `${JSON.stringify(code)} is a reserved word of ${language}` };
  return { ok: true, code };
}

function checkProbe(code: string, language: CodeLanguage, kind: CodeKind, probe: Probe): CodeCheck {
  const source = probe.prefix + code + probe.suffix;
  const start = probe.prefix.length;
  const end = start + code.length;
  return withTree(source, language, (tree) => {
    const comment = tree.rootNode
      .descendantsOfType("comment")
      .find((n) => n && n.startIndex >= start && n.startIndex < end);
    if (comment)
      return {
        ok: false,
        message: `${JSON.stringify(code)} contains a comment (${JSON.stringify(comment.text)}): leave comments out of ${article(kind)}`,
      };
    const errors = syntaxErrors(tree, 1);
    if (errors.length > 0) {
      return {
        ok: false,
        message: `${JSON.stringify(code)} does not parse as ${article(kind)}: ${errorSummary(source, language, start)}`,
      };
    }
    const node = (probe.locate ?? exactNode)(tree.rootNode, start, end);
    if (!node)
      return {
        ok: false,
        message: `${JSON.stringify(code)} is not a single ${kind.replace("_", " ")}: it does not stay in one piece where ${article(kind)} goes`,
      };
    const complaint = probe.accept(node);
    return complaint
      ? { ok: false, message: `${JSON.stringify(code)} is not ${article(kind)}: ${complaint}` }
      : { ok: true, code };
  });
}

const ARTICLES: Record<CodeKind, string> = {
  identifier: "an identifier",
  expression: "an expression",
  condition: "a condition",
  type: "a type",
  target: "an assignment target",
  parameters: "a parameter list",
  arguments: "an argument list",
  with_items: "with-items",
  exception: "an exception expression",
  decorator: "a decorator",
  statements: "statements",
  import: "an import statement",
  function: "a function definition",
  statement: "a simple statement",
};
const article = (kind: CodeKind): string => ARTICLES[kind];

const PY_IMPORTS = new Set(["import_statement", "import_from_statement", "future_import_statement"]);
const JS_FUNCTIONS = new Set(["function_declaration", "generator_function_declaration", "method_definition"]);

function checkBlock(code: string, language: CodeLanguage, kind: "statements" | "import" | "function"): CodeCheck {
  const block = dedent(code).replace(/\s+$/, "");
  if (block.trim() === "") return { ok: false, message: `${ARTICLES[kind]} cannot be empty` };
  // A JS/TS method only parses inside a class body; Java and Go statements only inside a method or function body.
  const wrapMethod =
    kind === "function" &&
    language !== "python" &&
    language !== "go" &&
    !/^\s*(export\s+)?(async\s+)?function\b/.test(block);
  const inBody = kind === "statements" && (language === "java" || language === "go");
  // A Go import or function stands after a package clause.
  const goImport = (kind === "import" || kind === "function") && language === "go";
  const prefix = wrapMethod
    ? "class _ {\n"
    : goImport
      ? "package _p\n"
      : !inBody
        ? ""
        : language === "java"
          ? "class _C {\n  void _m() {\n"
          : "package _p\n\nfunc _f() {\n";
  const source = `${prefix}${block}\n${wrapMethod ? "}\n" : !inBody ? "" : language === "java" ? "  }\n}\n" : "}\n"}`;
  return withTree(source, language, (tree) => {
    const errors = syntaxErrors(tree, 1);
    if (errors.length > 0) {
      return {
        ok: false,
        message: `${JSON.stringify(truncate(code))} does not parse as ${ARTICLES[kind]}: ${errorSummary(source, language, prefix.length)}`,
      };
    }
    const body = wrapMethod
      ? tree.rootNode.namedChildren[0]?.childForFieldName("body")
      : inBody && language === "java"
        ? tree.rootNode.namedChildren[0]
            ?.childForFieldName("body")
            ?.namedChildren.find((n) => n?.type === "method_declaration")
            ?.childForFieldName("body")
        : inBody
          ? tree.rootNode.namedChildren.find((n) => n?.type === "function_declaration")?.childForFieldName("body")
          : tree.rootNode;
    const statements =
      body?.namedChildren.filter((n): n is Node => !!n && n.type !== "comment" && n.type !== "package_clause") ?? [];
    if (language === "python") {
      const problem = pythonProblems(tree.rootNode)[0];
      if (problem)
        return {
          ok: false,
          message: `${JSON.stringify(truncate(code))} is not valid Python: ${problem.message} (line ${problem.line})`,
        };
    }
    if (kind === "statements")
      return statements.length > 0
        ? { ok: true, code: block }
        : { ok: false, message: "the block has no statement (only comments)" };
    if (statements.length !== 1)
      return {
        ok: false,
        message: `expected exactly one ${kind === "import" ? "import statement" : "definition"}, found ${statements.length} statements`,
      };
    const only = statements[0]!;
    if (kind === "import") {
      const ok =
        language === "python"
          ? PY_IMPORTS.has(only.type)
          : language === "java" || language === "go"
            ? only.type === "import_declaration"
            : only.type === "import_statement";
      return ok
        ? { ok: true, code: block }
        : { ok: false, message: `expected an import statement, found a ${only.type}` };
    }
    const definition =
      language === "python" && only.type === "decorated_definition" ? only.childForFieldName("definition") : only;
    const isFunction =
      language === "python"
        ? definition?.type === "function_definition"
        : language === "java"
          ? only.type === "method_declaration" || only.type === "constructor_declaration"
          : language === "go"
            ? only.type === "function_declaration" || only.type === "method_declaration"
            : JS_FUNCTIONS.has(only.type) ||
              (only.type === "export_statement" &&
                JS_FUNCTIONS.has(only.namedChildren.find((n) => n?.type !== "decorator")?.type ?? ""));
    return isFunction
      ? { ok: true, code: block }
      : { ok: false, message: `expected a function definition, found a ${only.type}` };
  });
}

const truncate = (text: string): string => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/**
 * Checks that `code` is `kind` in `language`. Expression-like kinds are trimmed; blocks are dedented.
 * Needs the language's grammar loaded (`loadGrammars`). Returns the normalized code.
 */
export function checkCode(code: string, kind: CodeKind, language: CodeLanguage): CodeCheck {
  if (kind === "statements" || kind === "import" || kind === "function") {
    return checkBlock(code, language, kind);
  }
  const trimmed = kind === "decorator" ? code.trim().replace(/^@\s*/, "") : code.trim();
  if (kind === "identifier") return checkIdentifier(trimmed, language);
  if (kind === "type" && language === "javascript")
    return {
      ok: false,
      message: "JavaScript has no type annotations: leave the type out (types are for Python and TypeScript files)",
    };
  if (trimmed === "" && kind !== "parameters" && kind !== "arguments")
    return { ok: false, message: `${ARTICLES[kind]} cannot be empty` };
  const probe = (
    language === "python" ? PY_PROBES : language === "java" ? JAVA_PROBES : language === "go" ? GO_PROBES : JS_PROBES
  )[kind];
  if (!probe) {
    if (kind === "exception")
      return {
        ok: false,
        message:
          "JavaScript/TypeScript catch clauses have no exception type: leave it out and test the error inside the handler",
      };
    return { ok: false, message: `${language} has no ${kind.replace("_", " ")}` };
  }
  return checkProbe(trimmed, language, kind, probe);
}

/** Strips the common leading whitespace of every non-blank line (lines inside multi-line strings count too). */
export function dedent(code: string): string {
  const lines = code.replace(/\r\n/g, "\n").split("\n");
  while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
  let common: string | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const lead = /^[ \t]*/.exec(line)![0];
    if (common === undefined || !lead.startsWith(common)) {
      let i = 0;
      while (common !== undefined && i < common.length && i < lead.length && common[i] === lead[i]) i++;
      common = common === undefined ? lead : common.slice(0, i);
    }
  }
  if (!common) return lines.join("\n");
  const cut = common.length;
  return lines.map((line) => (line.trim() === "" ? "" : line.slice(cut))).join("\n");
}

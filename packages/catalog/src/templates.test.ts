import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, parse, syntaxErrors, type LanguageId } from "@graphplan/graph";
import { executeStep } from "./execute.js";
import { TEMPLATES } from "./templates/index.js";
import { cpythonParse } from "@graphplan/testkit";
import ts from "typescript";
import { JS, PY, TS } from "./fixtures/sources.js";

beforeAll(() => loadGrammars(["python", "javascript", "typescript"]));

const P = "app/m.py";
const T = "src/m.ts";
const J = "src/m.js";
const fn = (name: string, file = P) => ({ kind: "function", name, file });
const method = (name: string, file = P) => ({ kind: "method", name, file });
const cls = (name: string, file = P) => ({ kind: "class", name, file });
/** Every Python file a template produced in this test file, for one CPython run at the end. */
const pythonOutputs: string[] = [];
const run = (file: string, source: string, template: string, params: Record<string, unknown>): string => {
  const out = executeStep({ template, params }, { [file]: source }).files.get(file)!;
  if (file.endsWith(".py")) pythonOutputs.push(out);
  return out;
};

/** [template, params, the expected file as a replacement of a piece of the fixture] */
type Case = [string, Record<string, unknown>, string, string, ([string, string] | undefined)?];

const PY_CASES: Case[] = [
  [
    "guard_clause",
    { target: fn("parse"), condition: "not text", body: "return ''" },
    '    """Parse text."""\n',
    '    """Parse text."""\n    if not text:\n        return \'\'\n',
  ],
  [
    "add_import_and_use",
    {
      target: { type: "sexp", file: P, query: '((call function: (identifier) @f) @c (#eq? @f "len"))', capture: "c" },
      import: "from collections import Counter",
      expression: "Counter(tmp).total()",
    },
    "import os\n",
    "import os\nfrom collections import Counter\n",
    ["len(tmp) * 2", "Counter(tmp).total() * 2"],
  ],
  [
    "add_method",
    { target: cls("Client"), code: "def close(self):\n    self._conn.close()" },
    "        return data\n",
    "        return data\n\n    def close(self):\n        self._conn.close()\n",
  ],
  [
    "add_parameter",
    { target: method("fetch"), name: "timeout", default: "None", type: "float" },
    "verbose=False)",
    "verbose=False, timeout: float = None)",
  ],
  [
    "add_class_attribute",
    { target: cls("Client"), name: "max_retries", value: "3", type: "int" },
    "    retries = 2\n",
    "    retries = 2\n    max_retries: int = 3\n",
  ],
  [
    "add_decorator",
    { target: method("fetch"), decorator: "@functools.cache" },
    "    def fetch",
    "    @functools.cache\n    def fetch",
  ],
  [
    "add_conditional_branch",
    { target: { kind: "if", file: P }, condition: "mode == 'y'", body: "return 2" },
    "        return 1\n",
    "        return 1\n    elif mode == 'y':\n        return 2\n",
  ],
  [
    "replace_expression",
    {
      target: { type: "sexp", file: P, query: '((call function: (identifier) @f) @c (#eq? @f "len"))', capture: "c" },
      expression: "a + b",
    },
    "len(tmp) * 2",
    "(a + b) * 2",
  ],
  [
    "modify_condition",
    { target: { kind: "if", file: P }, condition: "text is None or not text" },
    "if text is None:",
    "if text is None or not text:",
  ],
  [
    "change_return_value",
    { target: method("fetch"), value: "data or {}" },
    "        return data\n",
    "        return data or {}\n",
  ],
  [
    "replace_function_body",
    { target: method("fetch"), body: "return self.get(path, verbose)" },
    "        data = self.get(path)\n        return data\n",
    "        return self.get(path, verbose)\n",
  ],
  [
    "wrap_try_except",
    {
      target: method("fetch"),
      exception: "KeyError",
      alias: "e",
      handler: "raise ValueError(e)",
      finally_body: "self.done()",
    },
    "        data = self.get(path)\n        return data\n",
    "        try:\n            data = self.get(path)\n            return data\n        except KeyError as e:\n            raise ValueError(e)\n        finally:\n            self.done()\n",
  ],
  [
    "wrap_context_manager",
    { target: method("fetch"), context: "self.lock", alias: "held" },
    "        data = self.get(path)\n        return data\n",
    "        with self.lock as held:\n            data = self.get(path)\n            return data\n",
  ],
  [
    "extract_variable",
    { target: { type: "sexp", file: P, query: "((binary_operator) @b)", capture: "b", index: 2 }, name: "doubled" },
    "    result = len(tmp) * 2 + 1\n",
    "    doubled = len(tmp) * 2\n    result = doubled + 1\n",
  ],
  [
    "inline_variable",
    { target: { kind: "assignment", name: "tmp", file: P } },
    '    tmp = text.strip() + "!"\n    result = len(tmp) * 2 + 1\n',
    '    result = len(text.strip() + "!") * 2 + 1\n',
  ],
];

describe("templates on Python", () => {
  test("every template has a Python case", () => {
    expect(new Set(PY_CASES.map(([name]) => name))).toEqual(new Set(TEMPLATES.map((t) => t.name)));
  });

  test.each(PY_CASES)("%s", (template, params, before, after, also) => {
    expect(PY).toContain(before);
    const out = run(P, PY, template, params);
    expect(out).toBe(expected(PY, before, after, also));
  });
});

describe("more Python behaviour", () => {
  test("guard before a statement; add_method replaces a lone pass; add_class_attribute after a docstring", () => {
    const src =
      'class A:\n    pass\n\n\nclass B:\n    """Doc."""\n\n    def m(self):\n        x = 1\n        return x\n';
    expect(
      run(P, src, "guard_clause", {
        target: { kind: "return", file: P },
        condition: "x > 3",
        body: "raise ValueError(x)",
      }),
    ).toBe(src.replace("        return x", "        if x > 3:\n            raise ValueError(x)\n        return x"));
    expect(run(P, src, "add_method", { target: cls("A"), code: "def go(self):\n    return 1" })).toBe(
      src.replace("class A:\n    pass", "class A:\n    def go(self):\n        return 1"),
    );
    expect(run(P, src, "add_class_attribute", { target: cls("B"), name: "n", value: "0" })).toBe(
      src.replace('    """Doc."""\n', '    """Doc."""\n    n = 0\n'),
    );
  });

  test("add_parameter: placement before **kwargs, after a named parameter, into an empty list", () => {
    const src = "def f(a, b=1, **kw):\n    pass\n\n\ndef g():\n    pass\n";
    expect(run(P, src, "add_parameter", { target: fn("f"), name: "c", default: "2" })).toContain(
      "def f(a, b=1, c=2, **kw):",
    );
    expect(run(P, src, "add_parameter", { target: fn("f"), name: "z", after: "a" })).toContain(
      "def f(a, z, b=1, **kw):",
    );
    expect(run(P, src, "add_parameter", { target: fn("g"), name: "x" })).toContain("def g(x):");
  });

  test("add_parameter keeps a one-per-line parameter list one per line", () => {
    const src = "def f(\n    a,\n    b,\n):\n    pass\n";
    expect(run(P, src, "add_parameter", { target: fn("f"), name: "c", default: "None" })).toBe(
      "def f(\n    a,\n    b,\n    c=None,\n):\n    pass\n",
    );
  });

  test("add_decorator: innermost goes next to the def", () => {
    const src = "class A:\n    @property\n    def x(self):\n        return 1\n";
    expect(run(P, src, "add_decorator", { target: method("x"), decorator: "cache", position: "innermost" })).toBe(
      src.replace("    def x", "    @cache\n    def x"),
    );
    expect(run(P, src, "add_decorator", { target: method("x"), decorator: "deprecated()" })).toBe(
      src.replace("    @property", "    @deprecated()\n    @property"),
    );
  });

  test("add_conditional_branch: elif goes before an existing else; else goes last", () => {
    const src =
      "def f(x):\n    if x:\n        return 1\n    else:\n        return 2\n\n\ndef g(x):\n    if x:\n        return 1\n    return 0\n";
    expect(
      run(P, src, "add_conditional_branch", {
        target: { kind: "if", file: P, parent: fn("f") },
        condition: "x is None",
        body: "return 3",
      }),
    ).toBe(
      src.replace("        return 1\n    else:", "        return 1\n    elif x is None:\n        return 3\n    else:"),
    );
    expect(
      run(P, src, "add_conditional_branch", { target: { kind: "if", file: P, parent: fn("g") }, body: "x = 0" }),
    ).toBe(src.replace("        return 1\n    return 0", "        return 1\n    else:\n        x = 0\n    return 0"));
  });

  test("replace_function_body: keeps the docstring, handles one-line bodies", () => {
    const src = 'def f(x):\n    """Doc."""\n    return x\n\n\ndef g(): return 1\n';
    expect(run(P, src, "replace_function_body", { target: fn("f"), body: "y = x * 2\nreturn y" })).toBe(
      src.replace("    return x\n", "    y = x * 2\n    return y\n"),
    );
    expect(run(P, src, "replace_function_body", { target: fn("f"), body: "return 0", keep_docstring: false })).toBe(
      src.replace('    """Doc."""\n    return x\n', "    return 0\n"),
    );
    expect(run(P, src, "replace_function_body", { target: fn("g"), body: "return 2" })).toBe(
      src.replace("def g(): return 1", "def g():\n    return 2"),
    );
  });

  test("change_return_value: all returns, and a return target", () => {
    const src = "def f(x):\n    if x:\n        return 1\n    def inner():\n        return 5\n    return 2\n";
    expect(run(P, src, "change_return_value", { target: fn("f"), value: "None", all: true })).toBe(
      src.replace("return 1", "return None").replace("return 2", "return None"),
    );
    expect(run(P, src, "change_return_value", { target: { kind: "return", file: P, index: -1 }, value: "3" })).toBe(
      src.replace("return 2", "return 3"),
    );
  });

  test("wrap_try_except: a single statement, default exception", () => {
    const src = "def f(p):\n    data = open(p).read()\n    return data\n";
    expect(
      run(P, src, "wrap_try_except", {
        target: { kind: "statement", file: P, parent: fn("f"), index: 0 },
        handler: "data = ''",
      }),
    ).toBe(
      "def f(p):\n    try:\n        data = open(p).read()\n    except Exception:\n        data = ''\n    return data\n",
    );
  });

  test("inline_variable parenthesizes where precedence needs it and inlines every use", () => {
    const src = "def f(a, b):\n    s = a + b\n    return s * s\n";
    expect(run(P, src, "inline_variable", { target: { kind: "assignment", name: "s", file: P } })).toBe(
      "def f(a, b):\n    return (a + b) * (a + b)\n",
    );
  });
});

/** [template, params] run on TS, with the expected file as a replacement. */
const TS_CASES: Case[] = [
  [
    "guard_clause",
    { target: fn("parse", T), condition: "!text", body: "return '';" },
    "  if (text === null) {",
    "  if (!text) {\n    return '';\n  }\n  if (text === null) {",
  ],
  [
    "add_import_and_use",
    {
      target: { type: "sexp", file: T, query: '((member_expression) @m (#eq? @m "text.length"))', capture: "m" },
      import: 'import { size } from "./size";',
      expression: "size(text)",
    },
    'import { a } from "./a";\n',
    'import { a } from "./a";\nimport { size } from "./size";\n',
    ["text.length * 2", "size(text) * 2"],
  ],
  [
    "add_method",
    { target: cls("Client", T), code: "close(): void {\n  this.conn.close();\n}" },
    "    return data;\n  }\n",
    "    return data;\n  }\n\n  close(): void {\n    this.conn.close();\n  }\n",
  ],
  [
    "add_parameter",
    { target: method("fetch", T), name: "timeout", default: "1000", type: "number" },
    "verbose = false)",
    "verbose = false, timeout: number = 1000)",
  ],
  [
    "add_class_attribute",
    { target: cls("Client", T), name: "maxRetries", value: "3", type: "number" },
    "  retries = 2;",
    "  maxRetries: number = 3;\n  retries = 2;",
  ],
  [
    "add_decorator",
    { target: cls("Client", T), decorator: "injectable" },
    "export class Client",
    "@injectable\nexport class Client",
  ],
  [
    "add_conditional_branch",
    { target: { kind: "if", file: T, index: 0 }, body: "console.log(text);" },
    "    return 1;\n  }\n",
    "    return 1;\n  } else {\n    console.log(text);\n  }\n",
  ],
  [
    "replace_expression",
    {
      target: { type: "sexp", file: T, query: '((member_expression) @m (#eq? @m "text.length"))', capture: "m" },
      expression: "a ?? b",
    },
    "text.length * 2",
    "(a ?? b) * 2",
  ],
  [
    "modify_condition",
    { target: { kind: "if", file: T, index: 0 }, condition: "text == null" },
    "if (text === null)",
    "if (text == null)",
  ],
  [
    "change_return_value",
    { target: method("fetch", T), value: "data ?? ''" },
    "    return data;",
    "    return data ?? '';",
  ],
  [
    "replace_function_body",
    { target: fn("f", T), body: "return x * 3;" },
    "const f = (x) => x * 2;",
    "const f = (x) => {\n  return x * 3;\n};",
  ],
  [
    "wrap_try_except",
    { target: method("fetch", T), alias: "e", handler: "throw new Error(String(e));" },
    "    const data = this.get(path);\n    return data;\n",
    "    try {\n      const data = this.get(path);\n      return data;\n    } catch (e) {\n      throw new Error(String(e));\n    }\n",
  ],
  [
    "extract_variable",
    { target: { type: "sexp", file: T, query: "((binary_expression) @b)", capture: "b", index: 3 }, name: "doubled" },
    "  const result = text.length * 2 + 1;",
    "  const doubled = text.length * 2;\n  const result = doubled + 1;",
  ],
];

describe("templates on TypeScript / JavaScript", () => {
  test.each(TS_CASES)("%s (TypeScript)", (template, params, before, after, also) => {
    expect(TS).toContain(before);
    const out = run(T, TS, template, params);
    expect(out).toBe(expected(TS, before, after, also));
    expectParses(out, "typescript");
  });

  test("JavaScript: guard, else-if branch, method, try/catch without binding", () => {
    const guard = run(J, JS, "guard_clause", {
      target: fn("load", J),
      condition: "typeof path !== 'string'",
      body: "throw new TypeError('path');",
    });
    expect(guard).toBe(
      JS.replace(
        "  if (!path) {",
        "  if (typeof path !== 'string') {\n    throw new TypeError('path');\n  }\n  if (!path) {",
      ),
    );
    const branch = run(J, JS, "add_conditional_branch", {
      target: { kind: "if", file: J },
      condition: "path === '-'",
      body: "return fs.readFileSync(0, 'utf8');",
    });
    expect(branch).toBe(
      JS.replace(
        "    return null;\n  }\n",
        "    return null;\n  } else if (path === '-') {\n    return fs.readFileSync(0, 'utf8');\n  }\n",
      ),
    );
    const added = run(J, JS, "add_method", {
      target: cls("Cache", J),
      code: "set(key, value) {\n  this.map[key] = value;\n}",
    });
    expect(added).toBe(
      JS.replace(
        "    return this.map[key];\n  }\n",
        "    return this.map[key];\n  }\n\n  set(key, value) {\n    this.map[key] = value;\n  }\n",
      ),
    );
    const wrapped = run(J, JS, "wrap_try_except", {
      target: { kind: "return", file: J, index: -1 },
      handler: "return null;",
    });
    expect(wrapped).toBe(
      JS.replace(
        '  return fs.readFileSync(path, "utf8");',
        '  try {\n    return fs.readFileSync(path, "utf8");\n  } catch {\n    return null;\n  }',
      ),
    );
    for (const out of [guard, branch, added, wrapped]) expectParses(out, "javascript");
  });
});

describe("CPython", () => {
  test("every instantiated Python template in this file parses with CPython's ast (one python3 run)", () => {
    expect(pythonOutputs.length).toBeGreaterThan(PY_CASES.length);
    expect(cpythonParse(pythonOutputs)).toEqual(pythonOutputs.map(() => null));
  });
});

function expected(source: string, before: string, after: string, also?: [string, string]): string {
  const once = source.replace(before, after);
  return also ? once.replace(also[0], also[1]) : once;
}

/**
 * The result parses with no error node, and, for JavaScript and TypeScript, with no syntax error of
 * the language's own parser (TypeScript's compiler API; tree-sitter's grammar accepts some code tsc does not).
 */
function expectParses(source: string, language: LanguageId): void {
  const tree = parse(source, language);
  try {
    expect(syntaxErrors(tree)).toEqual([]);
  } finally {
    tree.delete();
  }
  if (language !== "typescript" && language !== "javascript") return;
  const { diagnostics } = ts.transpileModule(source, {
    reportDiagnostics: true,
    fileName: language === "typescript" ? "a.ts" : "a.js",
    compilerOptions: { allowJs: true },
  });
  expect((diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([]);
}

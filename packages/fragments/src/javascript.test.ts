import { beforeAll, describe, expect, test } from "vitest";
import ts from "typescript";
import { loadGrammars, type LanguageId } from "@graphplan/graph";
import { placeFragment, treeSitterErrors } from "./fixtures/place.js";
import { serialize, validateFragment, type Fragment, type PlaceAction } from "./index.js";
import { executeFragment } from "./execute.js";

beforeAll(() => loadGrammars(["python", "javascript", "typescript", "tsx"]));

const ret = (value?: string): Fragment => ({ kind: "return_statement", ...(value ? { properties: { value } } : {}) });
const expr = (expression: string): Fragment => ({ kind: "expression_statement", properties: { expression } });

/** Hand-written fragments of every kind JavaScript has, as a model would write them for a .js file. */
const JS_FRAGMENTS: readonly Fragment[] = [
  {
    kind: "function_definition",
    properties: { name: "area", parameters: "w, h = 1", docstring: "The area.\nIn square metres." },
    children: [ret("w * h")],
  },
  {
    kind: "function_definition",
    properties: { name: "drain", parameters: "source", is_async: true },
    children: [
      {
        kind: "for_statement",
        properties: { target: "chunk", iterable: "source", is_async: true },
        children: [expr("sink.push(chunk)")],
      },
    ],
  },
  {
    kind: "class_definition",
    properties: { name: "Point", bases: "Base", decorators: ["sealed"], docstring: "A point." },
    children: [
      { kind: "assignment", properties: { target: "x", value: "0" } },
      { kind: "assignment", properties: { target: "#cache" } },
      {
        kind: "function_definition",
        properties: { name: "norm", decorators: ["memo"] },
        children: [ret("Math.hypot(this.x, this.y)")],
      },
      { kind: "function_definition", properties: { name: "load", parameters: "url", is_async: true } },
    ],
  },
  {
    kind: "if_statement",
    properties: { condition: "x === null" },
    children: [
      ret("null"),
      {
        kind: "elif_clause",
        properties: { condition: "x < 0" },
        children: [{ kind: "raise_statement", properties: { exception: 'new RangeError("negative")' } }],
      },
      { kind: "elif_clause", properties: { condition: "x === 0" } },
      { kind: "else_clause", children: [expr("log(x)")] },
    ],
  },
  { kind: "if_statement", properties: { condition: "done" } },
  {
    kind: "for_statement",
    properties: { target: "[key, value]", iterable: "Object.entries(options)" },
    children: [
      {
        kind: "if_statement",
        properties: { condition: "value === undefined" },
        children: [{ kind: "continue_statement" }],
      },
      expr("set(key, value)"),
    ],
  },
  {
    kind: "while_statement",
    properties: { condition: "queue.length > 0" },
    children: [expr("queue.shift()()"), { kind: "break_statement" }],
  },
  {
    kind: "try_statement",
    children: [
      expr("risky()"),
      {
        kind: "except_clause",
        properties: { alias: "err" },
        children: [{ kind: "raise_statement", properties: { exception: 'new Error("risky failed", { cause: err })' } }],
      },
      { kind: "finally_clause", children: [expr("cleanup()")] },
    ],
  },
  {
    kind: "try_statement",
    children: [expr("JSON.parse(text)"), { kind: "except_clause", children: [ret("undefined")] }],
  },
  { kind: "assignment", properties: { target: "limit", value: "10", declaration: "const" } },
  { kind: "assignment", properties: { target: "{ a, b }", value: "pair", declaration: "let" } },
  { kind: "assignment", properties: { target: "seen", declaration: "let" } },
  { kind: "assignment", properties: { target: "this.count", operator: "+=", value: "1" } },
  { kind: "assignment", properties: { target: "options.retries", operator: "??=", value: "3" } },
  expr("console.log(`a\n  multi-line ${template}`)"),
  { kind: "pass_statement" },
];

/** TypeScript adds types: return types, annotated variables and fields. */
const TS_FRAGMENTS: readonly Fragment[] = [
  {
    kind: "function_definition",
    properties: { name: "area", parameters: "w: number, h = 1", return_type: "number" },
    children: [ret("w * h")],
  },
  {
    kind: "class_definition",
    properties: { name: "Cache", bases: "Map<string, number>" },
    children: [
      { kind: "assignment", properties: { target: "hits", type: "number", value: "0" } },
      {
        kind: "function_definition",
        properties: { name: "hit", parameters: "key: string", return_type: "boolean" },
        children: [ret("this.has(key)")],
      },
    ],
  },
  { kind: "assignment", properties: { target: "total", type: "number", value: "0", declaration: "let" } },
  { kind: "assignment", properties: { target: "pending", type: "Promise<void>[]", declaration: "let" } },
];

/** TypeScript's own parser on a whole file: its syntactic diagnostics (none for valid code). */
function typescriptErrors(source: string, language: LanguageId): string[] {
  const fileName = language === "javascript" ? "a.js" : language === "tsx" ? "a.tsx" : "a.ts";
  const { diagnostics } = ts.transpileModule(source, {
    reportDiagnostics: true,
    fileName,
    compilerOptions: { allowJs: true, target: ts.ScriptTarget.ES2022 },
  });
  return (diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/** Inside an async function, as statements (a top-level return or break would not be valid anywhere). */
const inFunction = (code: string): string =>
  `async function host(x, queue, options, source, sink, text, pair) {\n${code}\n}\n`;

describe("fragments in JavaScript and TypeScript", () => {
  const cases: [LanguageId, Fragment][] = [
    ...JS_FRAGMENTS.flatMap((f): [LanguageId, Fragment][] => [
      ["javascript", f],
      ["typescript", f],
      ["tsx", f],
    ]),
    ...TS_FRAGMENTS.flatMap((f): [LanguageId, Fragment][] => [
      ["typescript", f],
      ["tsx", f],
    ]),
  ];

  test.each(cases.map(([language, f], i) => [i, language, f.kind, f] as const))(
    "%i: %s %s is valid, and what is written parses with tree-sitter and TypeScript's compiler",
    (_i, language, _kind, fragment) => {
      expect(validateFragment(fragment, { language: language as "javascript" })).toEqual([]);
      const code = serialize(fragment, 1, { unit: "  ", language: language as "javascript" });
      const source = inFunction(code);
      expect(treeSitterErrors(source, language), source).toEqual([]);
      expect(typescriptErrors(source, language), source).toEqual([]);
    },
  );

  test("writes each kind as JavaScript writes it", () => {
    const [, , klass, ifs, , , , tryCatch, optionalCatch] = JS_FRAGMENTS;
    expect(serialize(klass!, 0, { unit: "  ", language: "javascript" })).toBe(
      [
        "/** A point. */",
        "@sealed",
        "class Point extends Base {",
        "  x = 0;",
        "  #cache;",
        "  @memo",
        "  norm() {",
        "    return Math.hypot(this.x, this.y);",
        "  }",
        "  async load(url) {}",
        "}",
      ].join("\n"),
    );
    expect(serialize(ifs!, "  ", { unit: "  ", language: "javascript" }).split("\n")).toEqual([
      "  if (x === null) {",
      "    return null;",
      "  } else if (x < 0) {",
      '    throw new RangeError("negative");',
      "  } else if (x === 0) {",
      "  } else {",
      "    log(x);",
      "  }",
    ]);
    expect(serialize(tryCatch!, 0, { language: "javascript" })).toBe(
      'try {\n    risky();\n} catch (err) {\n    throw new Error("risky failed", { cause: err });\n} finally {\n    cleanup();\n}',
    );
    expect(serialize(optionalCatch!, 0, { language: "javascript" })).toBe(
      "try {\n    JSON.parse(text);\n} catch {\n    return undefined;\n}",
    );
    expect(serialize(JS_FRAGMENTS[0]!, 0, { unit: "  ", language: "javascript" })).toBe(
      "/**\n * The area.\n * In square metres.\n */\nfunction area(w, h = 1) {\n  return w * h;\n}",
    );
    expect(serialize(TS_FRAGMENTS[0]!, 0, { unit: "  ", language: "typescript" })).toBe(
      "function area(w: number, h = 1): number {\n  return w * h;\n}",
    );
    // A template literal's continuation lines are part of the string: indenting the code leaves them as written.
    expect(serialize(expr("log(`a\nb`)"), 2, { unit: "  ", language: "javascript" })).toBe("    log(`a\nb`);");
    // The same fragment in a class body is a method.
    expect(serialize(TS_FRAGMENTS[0]!, 0, { unit: "  ", language: "typescript", inClass: true })).toBe(
      "area(w: number, h = 1): number {\n  return w * h;\n}",
    );
  });

  test("refuses what has no JavaScript form, each with the way to write it", () => {
    const issues = (
      fragment: unknown,
      language: "javascript" | "typescript" | "python" = "javascript",
      inClass = false,
    ) => validateFragment(fragment, { language, inClass }).map((i) => `${i.path}: ${i.message}`);
    expect(issues({ kind: "with_statement", properties: { items: "lock" } })).toEqual([
      expect.stringMatching(/^kind: JavaScript has no with statement .* use try_statement with a finally_clause/),
    ]);
    expect(
      issues({
        kind: "try_statement",
        children: [expr("f()"), { kind: "except_clause", properties: { exception: "TypeError", alias: "e" } }],
      }),
    ).toEqual([expect.stringMatching(/^children\[1\]\.properties\.exception: .*catch clauses have no exception type/)]);
    expect(
      issues({
        kind: "for_statement",
        properties: { target: "x", iterable: "xs" },
        children: [expr("f(x)"), { kind: "else_clause", children: [expr("g()")] }],
      }),
    ).toEqual([expect.stringMatching(/^children: JavaScript loops have no else clause/)]);
    expect(issues({ kind: "raise_statement" })).toEqual([
      expect.stringMatching(/^properties\.exception: JavaScript has no bare re-raise/),
    ]);
    expect(issues({ kind: "raise_statement", properties: { exception: "err", cause: "e" } })).toEqual([
      expect.stringMatching(/^properties\.cause: .*\{ cause: err \}/),
    ]);
    expect(issues({ kind: "function_definition", properties: { name: "f", decorators: ["memo"] } })).toEqual([
      expect.stringMatching(/^properties\.decorators: JavaScript decorates classes and methods, not functions/),
    ]);
    expect(issues({ kind: "function_definition", properties: { name: "f", return_type: "number" } })).toEqual([
      expect.stringMatching(/^properties\.return_type: JavaScript has no type annotations/),
    ]);
    expect(
      issues({ kind: "function_definition", properties: { name: "f", return_type: "number" } }, "typescript"),
    ).toEqual([]);
    expect(issues({ kind: "assignment", properties: { target: "x", operator: "//=", value: "2" } })).toEqual([
      expect.stringMatching(/^properties\.operator: \/\/= is Python's/),
    ]);
    expect(issues({ kind: "assignment", properties: { target: "x" } })).toEqual([
      expect.stringMatching(/^properties\.declaration: an assignment without value declares a variable/),
    ]);
    expect(issues({ kind: "assignment", properties: { target: "x", declaration: "const" } })).toEqual([
      "properties.value: a const needs a value",
    ]);
    expect(
      issues({
        kind: "class_definition",
        properties: { name: "A" },
        children: [{ kind: "if_statement", properties: { condition: "x" } }],
      }),
    ).toEqual([
      expect.stringMatching(
        /^children\[0\]\.kind: a JavaScript class body holds methods .* and fields .*, not if_statement/,
      ),
    ]);
    expect(issues({ kind: "class_definition", properties: { name: "A", bases: "B, C" } })).toEqual([
      expect.stringMatching(/^properties\.bases: "B, C" is not a single expression/),
    ]);
    expect(issues(expr("log(x)"), "javascript", true)).toEqual([
      expect.stringMatching(/^kind: a JavaScript class body holds methods/),
    ]);
    expect(issues({ kind: "if_statement", properties: { condition: "x is None" } })[0]).toMatch(
      /^properties\.condition: "x is None" does not parse as a condition/,
    );
    // A plan is checked before its files are read: what depends on the place is left to the run.
    const method = { kind: "function_definition", properties: { name: "m", decorators: ["memo"] } };
    expect(validateFragment(method, { language: "javascript" })).toEqual([]);
    expect(
      validateFragment(
        { kind: "assignment", properties: { target: "#count", value: "0" } },
        { language: "javascript" },
      ),
    ).toEqual([]);
    expect(issues({ kind: "assignment", properties: { target: "#count", value: "0" } })[0]).toMatch(
      /^properties\.target: "#count" does not parse as an assignment target/,
    );
    // And Python refuses JavaScript's own forms.
    expect(
      issues({ kind: "assignment", properties: { target: "x", value: "1", declaration: "const" } }, "python"),
    ).toEqual(["properties.declaration: Python has no const/let/var: leave declaration out"]);
    expect(issues({ kind: "assignment", properties: { target: "x", operator: "??=", value: "1" } }, "python")).toEqual([
      "properties.operator: ??= is JavaScript's; Python has no such operator",
    ]);
  });
});

const JS_FILE = `export class Store {
  constructor(cache) {
    this.cache = cache;
  }

  load(key) {
    const value = this.cache.get(key);
    return value;
  }
}

export function open(path) {
  return new Store(read(path));
}
`;

const TS_FILE = `interface Options {
  retries?: number;
}

export function fetchAll(urls: string[], options: Options = {}): Promise<string[]> {
  return Promise.all(urls.map((u) => get(u, options)));
}
`;

describe("fragments placed in JavaScript and TypeScript files", () => {
  function place(
    source: string,
    language: LanguageId,
    file: string,
    locator: Record<string, unknown>,
    action: PlaceAction,
    fragment: Fragment,
  ): string {
    const after = placeFragment(source, language, file, locator, action, fragment);
    expect(treeSitterErrors(after, language), after).toEqual([]);
    expect(typescriptErrors(after, language), after).toEqual([]);
    return after;
  }

  test("a guard before a method's first statement takes the file's two-space indentation", () => {
    const guard: Fragment = {
      kind: "if_statement",
      properties: { condition: "key == null" },
      children: [{ kind: "raise_statement", properties: { exception: 'new TypeError("key is required")' } }],
    };
    const out = place(
      JS_FILE,
      "javascript",
      "store.js",
      { kind: "statement", parent: { kind: "method", name: "load" }, index: 0 },
      "insert_before",
      guard,
    );
    expect(out).toBe(
      JS_FILE.replace(
        "  load(key) {\n",
        '  load(key) {\n    if (key == null) {\n      throw new TypeError("key is required");\n    }\n',
      ),
    );
  });

  test("a function inserted after a method is written as a method, a blank line apart", () => {
    const clear: Fragment = {
      kind: "function_definition",
      properties: { name: "clear" },
      children: [expr("this.cache.clear()")],
    };
    const out = place(JS_FILE, "javascript", "store.js", { kind: "method", name: "load" }, "insert_after", clear);
    expect(out).toBe(
      JS_FILE.replace(
        "    return value;\n  }\n",
        "    return value;\n  }\n\n  clear() {\n    this.cache.clear();\n  }\n",
      ),
    );
  });

  test("a TypeScript function replaced with typed parameters and a try/catch", () => {
    const fragment: Fragment = {
      kind: "function_definition",
      properties: {
        name: "fetchAll",
        parameters: "urls: string[], options: Options = {}",
        return_type: "Promise<string[]>",
        is_async: true,
      },
      children: [
        {
          kind: "try_statement",
          children: [
            ret("await Promise.all(urls.map((u) => get(u, options)))"),
            { kind: "except_clause", properties: { alias: "err" }, children: [ret("[]")] },
          ],
        },
      ],
    };
    const out = place(TS_FILE, "typescript", "fetch.ts", { kind: "function", name: "fetchAll" }, "replace", fragment);
    expect(out).toContain(
      "export async function fetchAll(urls: string[], options: Options = {}): Promise<string[]> {\n  try {\n    return await Promise.all(urls.map((u) => get(u, options)));\n  } catch (err) {\n    return [];\n  }\n}\n",
    );
  });

  test("executeFragment on a .ts file checks the result parses; a statement in a class body is refused before", () => {
    const files = { "fetch.ts": TS_FILE, "store.js": JS_FILE };
    const result = executeFragment(
      {
        fragment: { kind: "assignment", properties: { target: "calls", value: "0", declaration: "let" } },
        action: "insert_before",
        locator: { file: "fetch.ts", kind: "function", name: "fetchAll" },
      },
      files,
    );
    expect(result.source).toContain("let calls = 0;\nexport function fetchAll");
    expect(() =>
      executeFragment(
        {
          fragment: expr("log()"),
          action: "insert_after",
          locator: { file: "store.js", kind: "method", name: "load" },
        },
        files,
      ),
    ).toThrow(/a JavaScript class body holds methods/);
  });
});

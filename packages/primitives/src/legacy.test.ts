import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars } from "@graphplan/graph";
import { runPlan } from "./run.js";
import { findPattern } from "./legacy.js";
import type { PatternNotFound } from "./errors.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["python", "javascript"]));

const PY = `def load(path):
    with open(path) as fh:
        data = fh.read()
    return data


def save(path, data):
    print("save data")
    return None
`;

function run(plan: unknown, source = PY, file = "m.py") {
  return runPlan(planOf(plan), new Map([[file, source]]));
}
function out(plan: unknown, source = PY, file = "m.py"): string {
  const r = run(plan, source, file);
  if (!r.ok) throw r.error;
  return r.files.get(file)!;
}

describe("layered pattern matching", () => {
  test("exact first", () => {
    expect(findPattern(PY, "data = fh.read()")).toMatchObject({ layer: "exact" });
  });
  test("then whitespace-insensitive", () => {
    const m = findPattern(PY, "data  =  fh.read( )".replace("( )", "()"))!;
    expect(m.layer).toBe("whitespace");
    expect(PY.slice(m.start, m.end)).toBe("data = fh.read()");
  });
  test("then indentation-preserving", () => {
    const m = findPattern(PY, "with open(path) as fh:\n  data = fh.read()")!;
    expect(m.layer).toBe("indentation");
    expect(PY.slice(m.start, m.end)).toBe("    with open(path) as fh:\n        data = fh.read()");
    expect(findPattern(PY, "with open(path)  as fh:\n        data = fh.read()  ")!.layer).toBe("whitespace");
  });
  test("then similarity above the threshold", () => {
    const m = findPattern(PY, "data = fh.readall()", 0.8)!;
    expect(m.layer).toBe("similar");
    expect(m.score).toBeGreaterThan(0.8);
    expect(PY.slice(m.start, m.end)).toBe("        data = fh.read()");
    expect(findPattern(PY, "completely different text", 0.8)).toBeUndefined();
  });
});

describe("legacy operators", () => {
  test("replace_code replaces the first occurrence and reports the layer", () => {
    const r = run([
      { op: "replace_code", params: { file: "m.py", pattern: "return None", replacement: "return True" } },
    ]);
    expect(r.ok && r.files.get("m.py")).toContain("    return True\n");
    expect(r.ok && r.results[0]).toMatchObject({ ok: true, output: { match: "exact" } });
  });

  test("replace_code with a similar pattern re-indents the replacement to the matched lines", () => {
    expect(
      out([
        {
          op: "replace_code",
          params: { file: "m.py", pattern: "data = fh.readall()", replacement: "data = fh.read().strip()" },
        },
      ]),
    ).toContain("        data = fh.read().strip()\n");
  });

  test("a near match keeps the blank lines the replacement adds beyond the pattern's, and writes no indentation on an emptied line", () => {
    // A stale pattern (`fh.reed()`, one token off): matched by similarity, as whole lines.
    const stale = "    with open(path) as fh:\n        data = fh.reed()";
    // The replacement adds a blank line before and after the block.
    expect(
      out([
        {
          op: "replace_code",
          params: {
            file: "m.py",
            pattern: stale,
            replacement: "\n    with open(path) as fh:\n        data = fh.read()\n\n",
          },
        },
      ]),
    ).toBe(
      'def load(path):\n\n    with open(path) as fh:\n        data = fh.read()\n\n    return data\n\n\ndef save(path, data):\n    print("save data")\n    return None\n',
    );
    // Blank lines the pattern has too are not added again.
    expect(
      out([
        {
          op: "replace_code",
          params: {
            file: "m.py",
            pattern: `\n${stale}\n\n`,
            replacement: "\n    with open(path) as fh:\n        data = fh.read()\n\n",
          },
        },
      ]),
    ).toBe(PY);
    // Emptied: the line stays, without the matched lines' indentation as trailing spaces.
    const emptied = out([
      { op: "replace_code", params: { file: "m.py", pattern: "    print('save data')", replacement: "" } },
    ]);
    expect(emptied.split("\n").filter((l) => l !== l.trimEnd())).toEqual([]);
  });

  test("replace_code failure names the most similar lines", () => {
    const r = run([
      {
        op: "replace_code",
        params: { file: "m.py", pattern: "print('saving data')", replacement: "x", similarity_threshold: 0.95 },
      },
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const cause = r.error.cause as PatternNotFound;
    expect(cause._tag).toBe("PatternNotFound");
    expect(cause.similar[0]).toMatchObject({ line: 8, text: 'print("save data")' });
    expect(r.error.message).toContain("Most similar text: line 8");
  });

  test("an edit placed at a similar match that then fails says where the match was, so the place can be checked", () => {
    const r = run([
      { op: "replace_code", params: { file: "m.py", pattern: "data = fh.readall()", replacement: "data = fh.read(" } },
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toContain("it was matched to the closest text, at line 3 (similar, similarity 0.");
    expect(r.error.message).toContain("new syntax error");
    // An exact match that fails the same way says nothing of matching.
    const exact = run([
      { op: "replace_code", params: { file: "m.py", pattern: "data = fh.read()", replacement: "data = fh.read(" } },
    ]);
    expect(!exact.ok && exact.error.message).not.toContain("matched to the closest text");
  });

  test("a one-line pattern quoted from mid-line, one token off, is refused naming the line it is part of", () => {
    // Line 5 is more like the pattern as a whole line; line 3 holds it.
    const source =
      "def f(items):\n    for i in items:\n        if isinstance(i, str) and i:\n            yield i\n    inst(i, st)\n";
    const r = run(
      [
        {
          op: "replace_code",
          params: { file: "m.py", pattern: "isinstanc(i, str)", replacement: "isinstance(i, bytes)" },
        },
      ],
      source,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect((r.error.cause as PatternNotFound).similar[0]).toMatchObject({ line: 3 });
    expect(r.error.message).toContain("Most similar text: line 3");
  });

  test("insert_code and delete_lines work by line, with range checks", () => {
    expect(
      out([
        {
          op: "insert_code",
          params: { file: "m.py", anchor_line: 4, position: "before", code: "    data = data.strip()" },
        },
      ]),
    ).toContain("        data = fh.read()\n    data = data.strip()\n    return data\n");
    expect(out([{ op: "delete_lines", params: { file: "m.py", start_line: 8, end_line: 8 } }])).toContain(
      "def save(path, data):\n    return None\n",
    );
    const bad = run([{ op: "delete_lines", params: { file: "m.py", start_line: 8, end_line: 99 } }]);
    expect(!bad.ok && bad.error.cause).toMatchObject({ _tag: "LineOutOfRange", line: 99 });
    const reversed = run([{ op: "delete_lines", params: { file: "m.py", start_line: 8, end_line: 7 } }]);
    expect(!reversed.ok && reversed.error.message).toContain("start_line 8 > end_line 7");
  });

  test("modify_function_signature edits only the function's header", () => {
    expect(
      out([
        {
          op: "modify_function_signature",
          params: {
            file: "m.py",
            func_name: "save",
            old_signature: "save(path, data)",
            new_signature: "save(path, data, mode='w')",
          },
        },
      ]),
    ).toContain("def save(path, data, mode='w'):");
    const r = run([
      {
        op: "modify_function_signature",
        params: { file: "m.py", func_name: "save", old_signature: "load(path)", new_signature: "x" },
      },
    ]);
    expect(!r.ok && r.error.cause).toMatchObject({ _tag: "PatternNotFound" });
  });

  test("rename_symbol renames whole words", () => {
    const text = out([{ op: "rename_symbol", params: { file: "m.py", old_name: "data", new_name: "payload" } }]);
    expect(text).toContain("payload = fh.read()");
    expect(text).toContain('print("save payload")'); // legacy: also in strings
    expect(text).not.toMatch(/\bdata\b/);
  });

  test("wrap_block indents the lines between before and after", () => {
    expect(
      out([
        {
          op: "wrap_block",
          params: { file: "m.py", start_line: 8, end_line: 8, before_code: "if verbose:", after_code: "" },
        },
      ]),
    ).toContain('def save(path, data):\n    if verbose:\n        print("save data")\n    return None\n');
  });

  test("replace_function_body replaces the statements (python) or the braces' content (js)", () => {
    expect(
      out([{ op: "replace_function_body", params: { file: "m.py", func_name: "save", new_body: "return path" } }]),
    ).toContain("def save(path, data):\n    return path\n");
    const js = "function f(a) {\n  return a;\n}\n";
    expect(
      out(
        [
          {
            op: "replace_function_body",
            params: { file: "m.js", func_name: "f", new_body: "const b = a + 1;\nreturn b;" },
          },
        ],
        js,
        "m.js",
      ),
    ).toBe("function f(a) {\n  const b = a + 1;\n  return b;\n}\n");
  });

  test("a legacy op with a locator runs as its primitive", () => {
    expect(
      out([
        {
          op: "rename_symbol",
          params: { locator: { kind: "identifier", name: "data", file: "m.py" }, new_name: "payload" },
        },
      ]),
    ).toContain('print("save data")');
    expect(
      out([
        {
          op: "replace_function_body",
          params: { locator: { kind: "function", name: "save", file: "m.py", field: "body" }, new_body: "return 1" },
        },
      ]),
    ).toContain("def save(path, data):\n    return 1\n");
  });

  test("legacy ops are checked for syntax like primitives", () => {
    const r = run([{ op: "replace_code", params: { file: "m.py", pattern: "return None", replacement: "return (" } }]);
    expect(!r.ok && r.error.cause).toMatchObject({ _tag: "PostconditionFailed" });
    expect(!r.ok && r.files.get("m.py")).toBe(PY);
  });
});

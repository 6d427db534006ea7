import { beforeAll, describe, expect, test } from "vitest";
import { loadGrammars, withTree } from "@graphplan/graph";
import { cpythonParse, sample } from "@graphplan/testkit";
import { indentProblemsAfter, pythonIndentProblems, scanPython } from "./pyindent.js";

beforeAll(() => loadGrammars(["python"]));

const TRICKY = `import os


class Config(object):
    """A docstring
  whose lines are not indented
like code."""

    values = {
        "a": 1,
            "b": [
  2, 3],
    }

    def load(self, path,
                 strict=False):  # continuation lines are exempt
        text = open(path).read() \\
  .strip()
        if not text:
            return None
        # a comment at any column
# even column 0
        for line in text.splitlines():
            if line.startswith("#"): continue
            key, _, value = line.partition("=")
            self.values[key] = value
        else:
            pass
        s = 'a \\'quoted\\' # not a comment'
        m = "a long \\
message, continued by a backslash"
        t = r"raw \\\\" + """
  triple
"""
        return self.values


def main():
    try:
        Config().load(os.environ.get("CFG", "cfg"))
    except (OSError,
ValueError) as error:
        print(error)
    finally:
        pass
`;

describe("CPython's indentation rules", () => {
  test("a file CPython compiles has no indentation problem, whatever its strings, brackets and comments", () => {
    expect(cpythonParse([TRICKY, sample("sample.py")])).toEqual([null, null]);
    expect(pythonIndentProblems(TRICKY)).toEqual([]);
    expect(pythonIndentProblems(sample("sample.py"))).toEqual([]);
  });

  test.each([
    ["an indented line after a line that opens no block", "x = 1\n    y = 2\n", 2, "unexpected indent"],
    ["the first line indented", "  x = 1\n", 1, "unexpected indent"],
    [
      "a dedent to a column no block started at",
      "if x:\n        a = 1\n    b = 2\n",
      3,
      "unindent does not match any outer indentation level",
    ],
    ["a block opener followed by a line at the same column", "def f():\nreturn 1\n", 1, "expected an indented block"],
    ["a block opener at the end of the file", "class A:\n", 1, "expected an indented block"],
    ["a tab where the block used eight spaces", "if x:\n        a = 1\n\tb = 2\n", 3, "TabError"],
    ["an unterminated string", "x = 'abc\n", 1, "unterminated string"],
    [
      "an else left behind by a dedented line",
      "for x in y:\n    a(x)\npass\nelse:\n    b()\n",
      4,
      "'else' does not follow",
    ],
    ["a statement that ends with an operator outside brackets", "meta = a and\n# note\nnot b\n", 1, 'ends with "and"'],
    ["an assignment that ends with =", "x =\ny = 1\n", 1, 'ends with "="'],
    [
      "an except inside its try block",
      "try:\n    a()\n    except E:\n        b()\n",
      3,
      "'except' does not follow 'try'",
    ],
    ["an unterminated triple-quoted string", 'x = """abc\n', 1, "unterminated triple-quoted"],
  ])("reports %s", (_what, source, line, message) => {
    const problems = pythonIndentProblems(source);
    expect(problems[0]).toMatchObject({ line });
    expect(problems[0]!.message).toContain(message);
    expect(cpythonParse([source])[0]).not.toBeNull();
  });

  test("a float like `3.`, an Ellipsis and `import *` do not end a statement with an operator", () => {
    const source = "from os import *\nx = 3.\ny = ...\nz = a.b\n";
    expect(cpythonParse([source])).toEqual([null]);
    expect(pythonIndentProblems(source)).toEqual([]);
  });

  test("lines inside a triple-quoted string are known (their whitespace is the string's)", () => {
    expect([...scanPython('x = 1\ns = """a  \n  b\n"""\ny = 2\n').inString].sort()).toEqual([2, 3]);
  });

  test("agrees with CPython (with tree-sitter for the other syntax errors) on 800 files whose indentation was mutated", () => {
    // A fixed-seed generator: the same mutants every run.
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const bases = [TRICKY, sample("sample.py")];
    const mutants: string[] = [];
    for (let k = 0; k < 800; k++) {
      const lines = bases[k % bases.length]!.split("\n");
      const edits = 1 + random(2);
      for (let e = 0; e < edits; e++) {
        const at = random(lines.length);
        const line = lines[at]!;
        const indent = /^[ \t]*/.exec(line)![0];
        const body = line.slice(indent.length);
        switch (random(7)) {
          case 0:
            lines[at] = `${indent}${" ".repeat(1 + random(8))}${body}`;
            break;
          case 1:
            lines[at] = `${indent.slice(0, Math.max(0, indent.length - 1 - random(8)))}${body}`;
            break;
          case 2:
            lines[at] = `${indent.replace(/ {4}/, "\t")}${body}`;
            break;
          case 3:
            lines[at] = `${indent.replace(/ {8}/, "\t")}${body}`;
            break;
          case 4:
            lines.splice(at, 0, `${" ".repeat(random(12))}pass`);
            break;
          case 5:
            lines.splice(at, 0, `${" ".repeat(random(12))}# note`);
            break;
          default:
            lines[at] = `\t${line}`;
        }
      }
      mutants.push(lines.join("\n"));
    }
    const oracle = cpythonParse(mutants);
    const disagreements: string[] = [];
    mutants.forEach((source, k) => {
      const treeError = withTree(source, "python", (tree) => tree.rootNode.hasError);
      const ours = pythonIndentProblems(source);
      const rejected = treeError || ours.length > 0;
      if (rejected !== (oracle[k] !== null))
        disagreements.push(`${oracle[k] ?? "CPython compiles it"} / ours: ${ours[0]?.message ?? "none"}\n${source}`);
    });
    expect(disagreements.slice(0, 3)).toEqual([]);
  });

  test("the incremental check (only the top-level statements around an edit) equals a full scan, on 600 random edits", () => {
    let seed = 777;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pieces = [
      "    x = 1\n",
      "if a:\n",
      "        pass\n",
      "else:\n",
      '"""\n',
      "  )\n",
      "def g():\n    return (1,\n",
      "\tb = 2\n",
      "# c\n",
      "y = 3\n",
      "",
    ];
    const bases = [TRICKY, sample("sample.py"), `${TRICKY}\n\n${sample("sample.py")}`];
    const mismatches: string[] = [];
    for (let k = 0; k < 600; k++) {
      const before = bases[k % bases.length]!;
      const at = random(before.length + 1);
      const cut = Math.min(before.length, at + random(3) * random(40));
      const text = pieces[random(pieces.length)]!;
      const after = before.slice(0, at) + text + before.slice(cut);
      const incremental = indentProblemsAfter(before, after, at, at + text.length, after.length - before.length);
      const full = pythonIndentProblems(after);
      if (JSON.stringify(incremental) !== JSON.stringify(full))
        mismatches.push(
          `${at}..${cut} ${JSON.stringify(text)}: ${JSON.stringify(incremental)} vs ${JSON.stringify(full)}`,
        );
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
  });
});

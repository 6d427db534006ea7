/** The text tier: content-addressed steps on any text file, with layered matching that never loses the file's own bytes. */
import { loadGrammars } from "@graphplan/graph";
import { beforeAll, describe, expect, it } from "vitest";
import { PostconditionFailed, runPlan, StepFailed } from "./index.js";
import { BinaryFile, PatternAmbiguous, PatternNotFound, PreconditionFailed } from "./errors.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(async () => {
  await loadGrammars(["python", "go", "bash"]); // `.sh` scripts are shell code
});

const CHANGES = [
  "Version 3.2.0",
  "-------------",
  "",
  "Unreleased",
  "",
  "-   Drop support for Python 3.9.",
  "-   Remove previously deprecated code.",
  "",
  "",
  "Version 3.1.1",
  "-------------",
  "",
  "Released 2025-05-13",
  "",
  "-   Fix signing key selection order.",
  "",
].join("\n");

const files = (extra: Record<string, string> = {}) =>
  new Map(Object.entries({ "CHANGES.rst": CHANGES, "src/app.py": "def f():\n    return 1\n", ...extra }));

function run(plan: unknown, given = files()) {
  const result = runPlan(planOf(plan), given);
  return { result, text: (path: string) => (result.ok ? result.files.get(path) : undefined) };
}

function cause(plan: unknown, given = files()): Error | undefined {
  const result = runPlan(planOf(plan), given);
  if (result.ok) return undefined;
  expect(result.files).toBe(given); // all or nothing: the files as given
  return result.error instanceof StepFailed ? result.error.cause : result.error;
}

describe("replace_text", () => {
  it("replaces the one exact occurrence verbatim and leaves every other byte", () => {
    const { result, text } = run([
      {
        op: "replace_text",
        params: {
          file: "CHANGES.rst",
          find: "-   Remove previously deprecated code.\n",
          replace: "-   Remove previously deprecated code.\n-   Call every teardown function despite errors.\n",
        },
      },
    ]);
    expect(result.ok).toBe(true);
    expect(text("CHANGES.rst")).toBe(
      CHANGES.replace("code.\n", "code.\n-   Call every teardown function despite errors.\n"),
    );
  });

  it("refuses a snippet that occurs twice, listing both places with their lines", () => {
    const error = cause([
      { op: "replace_text", params: { file: "CHANGES.rst", find: "-------------", replace: "=============" } },
    ]);
    expect(error).toBeInstanceOf(PatternAmbiguous);
    expect(error?.message).toMatch(
      /replace_text: pattern "-------------" matches 2 places in CHANGES\.rst.*line 2: .*line 11: /,
    );
  });

  it("says a snippet that is nowhere, with the nearest lines", () => {
    const error = cause([
      { op: "replace_text", params: { file: "CHANGES.rst", find: "Fix the signing key selection", replace: "x" } },
    ]);
    expect(error).toBeInstanceOf(PatternNotFound);
    expect(error?.message).toMatch(/line 15 \(\d+%\): "- {3}Fix signing key selection order\."/);
  });

  it("matches across line endings and trailing spaces, keeps the file's CRLF and reports the correction", () => {
    const crlf = "[metadata]\r\nname = demo  \r\nversion = 1.0\r\n";
    const { result, text } = run(
      [
        {
          op: "replace_text",
          params: { file: "setup.cfg", find: "name = demo\nversion = 1.0\n", replace: "name = demo\nversion = 1.1\n" },
        },
      ],
      files({ "setup.cfg": crlf }),
    );
    expect(text("setup.cfg")).toBe("[metadata]\r\nname = demo  \r\nversion = 1.1\r\n");
    expect(result.ok && result.results[0]).toMatchObject({
      ok: true,
      output: {
        match: "whitespace",
        corrected: expect.stringMatching(/line 2 once line endings and spaces were ignored/),
      },
    });
  });

  it("keeps the blank line and trailing spaces of a similar (stale) snippet's lines it does not change", () => {
    const given = "intro\n\nalpha = 1   \n\nbeta = 2\ngamma = 3\nend\n";
    // The model's copy dropped the blank line, lost the trailing spaces and misspelt `beta`.
    const { result, text } = run(
      [
        {
          op: "replace_text",
          params: {
            file: "notes.txt",
            find: "alpha = 1\n\nbeta = 2\ngama = 3",
            replace: "alpha = 1\n\nbeta = 2\ngama = 4",
          },
        },
      ],
      files({ "notes.txt": given }),
    );
    expect(result.ok).toBe(true);
    expect(text("notes.txt")).toBe("intro\n\nalpha = 1   \n\nbeta = 2\ngama = 4\nend\n");
  });

  it("refuses a stale snippet whose blank lines do not pair with the file's, instead of editing the neighbouring lines", () => {
    const given =
      "    terminates the stream, then no data is read to avoid an infinite stream.\n\n    Default: ``None``\n\n.. py:data:: MAX_FORM_MEMORY_SIZE\n";
    // The copy lost the blank line between its two lines; the replacement adds a paragraph between them.
    const error = cause(
      [
        {
          op: "replace_text",
          params: {
            file: "config.rst",
            find: "    terminates the stream, then no data is read to avoid an infinite stream.\n    Default: ``None``\n\n",
            replace:
              "    terminates the stream, then no data is read to avoid an infinite stream.\n    Each request defaults to this.\n    Default: ``None``\n\n",
          },
        },
      ],
      files({ "config.rst": given }),
    );
    expect(error).toBeInstanceOf(PatternNotFound);
    expect(error?.message).toMatch(
      /line 1 \(\d+%\): "terminates the stream, then no data is read to avoid an infinite stream\."/,
    );
  });

  it("deletes the blank lines a corrected snippet quoted after its lines", () => {
    const given = "Async\n\n    When using gevent, greenlet>=1.0 is\n    required.\n\n\nNext section\n";
    // Written at column 0, with its two trailing blank lines: the whole paragraph goes.
    const { result, text } = run(
      [
        {
          op: "replace_text",
          params: { file: "async.rst", find: "When using gevent, greenlet>=1.0 is\nrequired.\n\n\n", replace: "" },
        },
      ],
      files({ "async.rst": given }),
    );
    expect(result.ok).toBe(true);
    expect(text("async.rst")).toBe("Async\n\nNext section\n");
  });

  it("shifts new lines by the indentation the matched lines have over the snippet's", () => {
    const given = "Changes\n\n    * one\n    * two\n";
    const { text } = run(
      [
        {
          op: "replace_text",
          params: { file: "notes.txt", find: "* one\n* two", replace: "* one\n* one and a half\n* two" },
        },
      ],
      files({ "notes.txt": given }),
    );
    expect(text("notes.txt")).toBe("Changes\n\n    * one\n    * one and a half\n    * two\n");
  });

  it("refuses a corrected match where the replacement changes nothing, instead of silently doing nothing", () => {
    // The change removes trailing spaces, but the quote was written with too few of them: matched once
    // trailing spaces are ignored, the replacement equals the file's line there.
    const given = "steps:\n  - name: Node.js 22.x   \n    run: npm test\n";
    const error = cause(
      [
        {
          op: "replace_text",
          params: { file: "ci.yml", find: "  - name: Node.js 22.x \n", replace: "  - name: Node.js 22.x\n" },
        },
      ],
      files({ "ci.yml": given }),
    );
    expect(error).toBeInstanceOf(PreconditionFailed);
    expect(error?.message).toMatch(
      /line 2 only once line endings and trailing spaces were ignored.*changes nothing.*quote the lines exactly as the file has them/,
    );
    // A quote that, stripped the same way, is found exactly is no better: find and replace are one text.
    const same = cause(
      [
        {
          op: "replace_text",
          params: { file: "ci.yml", find: "\n  - name: Node.js 22.x\n", replace: "\n  - name: Node.js 22.x\n" },
        },
      ],
      files({ "ci.yml": "steps:   \n  - name: Node.js 22.x\n" }),
    );
    expect(same?.message).toMatch(
      /find and replace are the same text.*quote the lines exactly as the file has them \(trailing spaces, CRLF\)/,
    );
    // Quoted exactly, the same change is made.
    const exact = run(
      [
        {
          op: "replace_text",
          params: { file: "ci.yml", find: "  - name: Node.js 22.x   \n", replace: "  - name: Node.js 22.x\n" },
        },
      ],
      files({ "ci.yml": given }),
    );
    expect(exact.text("ci.yml")).toBe("steps:\n  - name: Node.js 22.x\n    run: npm test\n");
  });

  it("keeps a change of spaces inside a line (re-aligned columns) when the quote needed a correction", () => {
    const given = 'r := HTML{\n\tFiles:   []string{"a.tmpl"},\n\tGlob:    "",\n}\n';
    const want = 'r := HTML{\n\tFiles:      []string{"a.tmpl"},\n\tGlob:       "",\n\tPatterns:   nil,\n}\n';
    // A stale quote (one token off) matched by similarity: the re-aligned lines are part of the change.
    const { result, text } = run(
      [
        {
          op: "replace_text",
          params: {
            file: "r.txt",
            find: 'r := HTML{\n\tFiles:   []string{"a.tmp"},\n\tGlob:    "",\n',
            replace: 'r := HTML{\n\tFiles:      []string{"a.tmpl"},\n\tGlob:       "",\n\tPatterns:   nil,\n',
          },
        },
      ],
      files({ "r.txt": given }),
    );
    expect(result.ok && result.results[0]).toMatchObject({
      output: { corrected: expect.stringMatching(/closest text/) },
    });
    expect(text("r.txt")).toBe(want);
  });

  it("keeps the indentation of new lines indented less than a corrected quote's first line", () => {
    const given =
      "Example::\n\n    with app.test_request_context(\n            '/report', data={'format': 'short'}):\n        report()\n";
    // A stale quote (one token off) matched by similarity; the new lines close the call at 4 spaces.
    const { result, text } = run(
      [
        {
          op: "replace_text",
          params: {
            file: "ctx.rst",
            find: "            '/report', data={'forma': 'short'}):\n",
            replace: '        "/report", query_string={"format": "short"}\n    ):\n',
          },
        },
      ],
      files({ "ctx.rst": given }),
    );
    expect(text("ctx.rst")).toBe(
      'Example::\n\n    with app.test_request_context(\n        "/report", query_string={"format": "short"}\n    ):\n        report()\n',
    );
    expect(result.ok && result.results[0]).toMatchObject({
      output: { corrected: expect.stringMatching(/closest text, at line 4/) },
    });
    // Shifted by the file: every new line moves by the same amount, the less indented ones too.
    const shifted = run(
      [
        {
          op: "replace_text",
          params: {
            file: "ctx.rst",
            find: "        '/report', data={'forma': 'short'}):\n",
            replace: '    "/report", query_string={"format": "short"}\n):\n',
          },
        },
      ],
      files({ "ctx.rst": given }),
    );
    expect(shifted.text("ctx.rst")).toBe(text("ctx.rst"));
  });

  it("indents a replacement written relative to a quote that starts after its line's indentation", () => {
    const given = "jobs:\n  tests:\n    steps:\n      - run: tox run -e py\n      - run: echo done\n";
    const { result, text } = run(
      [
        {
          op: "replace_text",
          params: {
            file: "ci.yaml",
            find: "- run: tox run -e py\n",
            replace: "- run: tox run\n  env:\n    TOX_ENV: py\n",
          },
        },
      ],
      files({ "ci.yaml": given }),
    );
    expect(text("ci.yaml")).toBe(
      "jobs:\n  tests:\n    steps:\n      - run: tox run\n        env:\n          TOX_ENV: py\n      - run: echo done\n",
    );
    expect(result.ok && result.results[0]).toMatchObject({
      output: { corrected: expect.stringMatching(/relative to the quoted line \(line 4\)/) },
    });
    // Written with the file's own indentation, it is taken as it is.
    const absolute = run(
      [
        {
          op: "replace_text",
          params: {
            file: "ci.yaml",
            find: "- run: tox run -e py\n",
            replace: "- run: tox run\n        env:\n          TOX_ENV: py\n",
          },
        },
      ],
      files({ "ci.yaml": given }),
    );
    expect(absolute.text("ci.yaml")).toBe(text("ci.yaml"));
  });

  it("deletes the line break a corrected quote ends with when the replacement does not end with one", () => {
    // The change removes the blank line after a function: the quote ends with "}\n", the replacement with "}".
    const given = "func A() {\n\treturn 1\n}\n\nfunc B() {}\n";
    const want = "func A() {\n\treturn 2\n}\nfunc B() {}\n";
    const exact = run(
      [
        {
          op: "replace_text",
          params: { file: "notes.txt", find: "func A() {\n\treturn 1\n}\n", replace: "func A() {\n\treturn 2\n}" },
        },
      ],
      files({ "notes.txt": given }),
    );
    expect(exact.text("notes.txt")).toBe(want);
    // The same step with a stale quote (one token off), matched by similarity, makes the same change.
    const similar = run(
      [
        {
          op: "replace_text",
          params: {
            file: "notes.txt",
            find: "func A() {\n\treturn 1\n}\n".replace("func A", "fun A"),
            replace: "func A() {\n\treturn 2\n}",
          },
        },
      ],
      files({ "notes.txt": given }),
    );
    expect(similar.result.ok && similar.result.results[0]).toMatchObject({
      output: { corrected: expect.stringMatching(/closest text/) },
    });
    expect(similar.text("notes.txt")).toBe(want);
  });

  it("drops the trailing blank lines a similar quote ended with when the replacement does not keep them", () => {
    const given =
      "Setup\n\n        $ pip install --upgrade pip setuptools\n\n-   Install the dependencies, then Flask.\n\n\nNext\n";
    // A typo makes the quote merely similar; its last line is blank, and the replacement has one line.
    const { text } = run(
      [
        {
          op: "replace_text",
          params: {
            file: "CONTRIBUTING.rst",
            find: "        $ pip install --upgrade pip setuptools\n\n-   Install the dependencies, the Flask.\n\n",
            replace: "        $ pip install -U pip setuptools wheel\n",
          },
        },
      ],
      files({ "CONTRIBUTING.rst": given }),
    );
    expect(text("CONTRIBUTING.rst")).toBe("Setup\n\n        $ pip install -U pip setuptools wheel\n\nNext\n");
  });

  it("deletes whole lines with their line break", () => {
    const { text } = run([
      { op: "replace_text", params: { file: "CHANGES.rst", find: "-   Drop support for Python 3.9.\n", replace: "" } },
    ]);
    expect(text("CHANGES.rst")).toBe(CHANGES.replace("-   Drop support for Python 3.9.\n", ""));
  });

  it("finds a long stale quote by its lines: a whole file quoted with one token off is corrected, not searched for minutes", () => {
    const body = Array.from({ length: 3000 }, (_, k) => `func handler${k}(c *Context) { c.JSON(200, H{"n": ${k}}) }`);
    const given = `package gin\n\n${body.join("\n")}\n`;
    const stale = given.replace("handler1500(", "handlr1500(");
    const { result, text } = run(
      [
        {
          op: "replace_text",
          params: {
            file: "routes.go",
            find: stale,
            replace: stale.replace('c.JSON(200, H{"n": 7})', 'c.JSON(201, H{"n": 7})'),
          },
        },
      ],
      files({ "routes.go": given }),
    );
    expect(text("routes.go")).toBe(given.replace('c.JSON(200, H{"n": 7})', 'c.JSON(201, H{"n": 7})'));
    expect(result.ok && result.results[0]).toMatchObject({
      output: { corrected: expect.stringMatching(/closest text, at line 1 /) },
    });
    // Nowhere in the file: the error names the closest lines, as for a short quote.
    const elsewhere = cause(
      [
        {
          op: "replace_text",
          params: {
            file: "routes.go",
            find: body.map((l) => l.replace("func ", "fn ").replace("c.JSON", "ctx.Render")).join("\n"),
            replace: "",
          },
        },
      ],
      files({ "routes.go": given }),
    );
    expect(elsewhere).toBeInstanceOf(PatternNotFound);
  });

  it("refuses a similar match when another place is nearly as close", () => {
    const given = "[server]\ntimeout = 30\ntimeouts = 30\n";
    const error = cause(
      [{ op: "replace_text", params: { file: "a.ini", find: "timeouts= 30", replace: "timeout = 60" } }],
      files({ "a.ini": given }),
    );
    expect(error).toBeInstanceOf(PatternAmbiguous);
  });

  it("on a code file, refuses an edit that would break its syntax", () => {
    const error = cause([
      { op: "replace_text", params: { file: "src/app.py", find: "return 1", replace: "return (1" } },
    ]);
    expect(error).toBeInstanceOf(PostconditionFailed);
  });

  it("keeps a missing final newline", () => {
    const { text } = run(
      [{ op: "replace_text", params: { file: "VERSION", find: "1.0", replace: "1.1" } }],
      files({ VERSION: "1.0" }),
    );
    expect(text("VERSION")).toBe("1.1");
  });
});

describe("insert_text and append_text", () => {
  it("inserts before and after an anchor, verbatim", () => {
    const { text } = run([
      {
        op: "insert_text",
        params: {
          file: "CHANGES.rst",
          anchor: "Version 3.1.1\n",
          position: "before",
          text: "Version 3.1.2\n-------------\n\nReleased 2025-08-01\n\n\n",
        },
      },
      {
        op: "insert_text",
        params: {
          file: "CHANGES.rst",
          anchor: "Released 2025-05-13\n\n",
          position: "after",
          text: "-   Fix a race in teardown.\n",
        },
      },
    ]);
    expect(text("CHANGES.rst")).toBe(
      CHANGES.replace(
        "Version 3.1.1\n",
        "Version 3.1.2\n-------------\n\nReleased 2025-08-01\n\n\nVersion 3.1.1\n",
      ).replace("Released 2025-05-13\n\n", "Released 2025-05-13\n\n-   Fix a race in teardown.\n"),
    );
  });

  it("inserts whole lines before the line of an anchor quoted without its indentation", () => {
    const given =
      "<dependencies>\n    <dependency>\n      <groupId>junit</groupId>\n    </dependency>\n</dependencies>\n";
    const { text } = run(
      [
        {
          op: "insert_text",
          params: {
            file: "pom.xml",
            anchor: "<groupId>junit</groupId>\n",
            position: "before",
            text: "      <!-- tests -->\n",
          },
        },
      ],
      files({ "pom.xml": given }),
    );
    expect(text("pom.xml")).toBe(given.replace("      <groupId>junit", "      <!-- tests -->\n      <groupId>junit"));
    // Inline text (no line break) still goes right before the quoted text.
    const inline = run(
      [{ op: "insert_text", params: { file: "pom.xml", anchor: "junit</groupId>", position: "before", text: "org." } }],
      files({ "pom.xml": given }),
    );
    expect(inline.text("pom.xml")).toBe(given.replace("<groupId>junit", "<groupId>org.junit"));
  });

  it("inserts at offset 0, before a file's first line", () => {
    const { text } = run([
      {
        op: "insert_text",
        params: {
          file: "CHANGES.rst",
          anchor: "Version 3.2.0\n-------------\n\nUnreleased",
          position: "before",
          text: ".. _changes:\n\n",
        },
      },
    ]);
    expect(text("CHANGES.rst")).toBe(`.. _changes:\n\n${CHANGES}`);
  });

  it("appends at the very end", () => {
    const { text } = run(
      [{ op: "append_text", params: { file: "AUTHORS", text: "Ada Lovelace\n" } }],
      files({ AUTHORS: "Alan Turing\n" }),
    );
    expect(text("AUTHORS")).toBe("Alan Turing\nAda Lovelace\n");
  });
});

describe("write_file, create_file and set_file_mode", () => {
  it("rewrites a whole file and creates a text file, verbatim", () => {
    const { result, text } = run([
      { op: "write_file", params: { path: "CHANGES.rst", content: "Changes\r\n=======\r\n" } },
      { op: "create_file", params: { path: "docs/teardown.md", content: "# Teardown\n\nEvery callback runs.\n" } },
    ]);
    expect(result.ok && result.changed).toEqual(["CHANGES.rst", "docs/teardown.md"]);
    expect(text("CHANGES.rst")).toBe("Changes\r\n=======\r\n");
    expect(text("docs/teardown.md")).toBe("# Teardown\n\nEvery callback runs.\n");
  });

  it("sets a file's mode, and a rename keeps the mode a step gave it", () => {
    const result = runPlan(
      planOf([
        { op: "create_file", params: { path: "scripts/release", content: "#!/bin/sh\necho release\n" } },
        { op: "set_file_mode", params: { path: "scripts/release", mode: "100755" } },
        { op: "rename_file", params: { from: "scripts/release", to: "scripts/release.sh" } },
        { op: "set_file_mode", params: { path: "src/app.py", mode: "100755" } },
      ]),
      files(),
    );
    expect(result.ok && Object.fromEntries(result.modes)).toEqual({
      "scripts/release.sh": "100755",
      "src/app.py": "100755",
    });
    expect(result.ok && result.files.get("src/app.py")).toBe("def f():\n    return 1\n");
  });

  it("refuses a mode on a missing file, and text steps on a binary file", () => {
    expect(cause([{ op: "set_file_mode", params: { path: "nope.sh", mode: "100755" } }])?.message).toMatch(
      /"nope\.sh" is not among the plan's files/,
    );
    expect(cause([{ op: "set_file_mode", params: { path: "src/app.py", mode: "755" } }])?.message).toMatch(
      /Invalid parameters for set_file_mode/,
    );
    const binary = files({ "logo.png": "\u0089PNG\u0000\u0000" });
    for (const step of [
      { op: "replace_text", params: { file: "logo.png", find: "PNG", replace: "GIF" } },
      { op: "append_text", params: { file: "logo.png", text: "x" } },
      { op: "write_file", params: { path: "logo.png", content: "x" } },
    ]) {
      const error = cause([step], binary);
      expect(error).toBeInstanceOf(BinaryFile);
      expect(error?.message).toMatch(/logo\.png is a binary file .*GraphPlan edits text files only/);
    }
  });

  it("node operators on a text file say to use a text step", () => {
    const error = cause([
      {
        op: "replace_node",
        params: { locator: { kind: "function", name: "f", file: "CHANGES.rst" }, replacement: "x" },
      },
    ]);
    expect(error?.message).toMatch(
      /CHANGES\.rst: not a language GraphPlan parses.*text steps \(replace_text, insert_text, append_text, write_file\)/,
    );
  });
});

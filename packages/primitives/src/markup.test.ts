/**
 * The node primitives on shell scripts, CSS and HTML, addressed by the names the graph gives
 * (a function, a rule's selectors, a declaration's property, an element's id, a heading's text).
 * Each result is checked byte for byte, and with the format's own judge: `bash -n` for a script,
 * a re-parse without ERROR or MISSING nodes for CSS and HTML.
 */
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { loadGrammars, parse, syntaxErrors, type LanguageId } from "@graphplan/graph";
import { runPlan } from "./run.js";
import { planOf } from "./fixtures/plan.js";

beforeAll(() => loadGrammars(["bash", "css", "html"]));

const SCRIPT =
  "#!/bin/bash\nset -e\n\n# build it\nbuild() {\n  make all\n}\n\ndeploy() {\n  build\n  scp out host:\n}\n\nbuild\n";
const STYLE =
  "/* theme */\n.btn > a,\n.link {\n  color: red; /* brand */\n  margin: 0;\n}\n\n@media (max-width: 600px) {\n  .btn > a {\n    color: blue;\n  }\n}\n";
const PAGE =
  '<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Welcome home</h1>\n    <div id="main">\n      <p>Hello</p>\n    </div>\n    <footer id="foot">x</footer>\n  </body>\n</html>\n';
const FILES = new Map([
  ["deploy.sh", SCRIPT],
  ["site.css", STYLE],
  ["index.html", PAGE],
]);
const LANGUAGE: Record<string, LanguageId> = { "deploy.sh": "bash", "site.css": "css", "index.html": "html" };

/** Runs `plan`; the one file it changed, after checking that file with its format's judge. */
function run(plan: unknown[]): string {
  const result = runPlan(planOf(plan), FILES);
  if (!result.ok) throw new Error(result.error.message);
  const changed = [...result.files].filter(([file, text]) => text !== FILES.get(file));
  expect(changed).toHaveLength(1);
  const [file, text] = changed[0]!;
  const tree = parse(text, LANGUAGE[file]!);
  try {
    expect(syntaxErrors(tree, 5)).toEqual([]);
  } finally {
    tree.delete();
  }
  if (file.endsWith(".sh")) execFileSync("bash", ["-n"], { input: text });
  return text;
}

const rule = { kind: "rule", name: ".btn > a, .link" };

describe("node primitives on shell scripts", () => {
  it("replaces a function by name, and the script still passes bash -n", () => {
    const out = run([
      {
        op: "replace_node",
        params: {
          locator: { kind: "function", name: "build", file: "deploy.sh" },
          replacement: "build() {\n  make -j4 all\n}",
        },
      },
    ]);
    expect(out).toBe(SCRIPT.replace("make all", "make -j4 all"));
  });

  it("inserts a function after another, separated as the script separates them", () => {
    const out = run([
      {
        op: "insert_after_node",
        params: { locator: { kind: "function", name: "build", file: "deploy.sh" }, code: "clean() {\n  rm -rf out\n}" },
      },
    ]);
    expect(out).toBe(SCRIPT.replace("}\n\ndeploy", "}\n\nclean() {\n  rm -rf out\n}\n\ndeploy"));
  });

  it("deletes a function with the blank line that separated it", () => {
    expect(
      run([{ op: "delete_node", params: { locator: { kind: "function", name: "deploy", file: "deploy.sh" } } }]),
    ).toBe(SCRIPT.replace("deploy() {\n  build\n  scp out host:\n}\n\n", ""));
  });

  it("refuses a replacement that bash cannot read, and changes nothing", () => {
    const result = runPlan(
      planOf([
        {
          op: "replace_node",
          params: {
            locator: { kind: "function", name: "build", file: "deploy.sh" },
            replacement: "build() {\n  if true; then make\n}",
          },
        },
      ]),
      FILES,
    );
    expect(result.ok).toBe(false);
    expect(result.files).toBe(FILES);
  });
});

describe("node primitives on CSS", () => {
  it("replaces a declaration by property inside a rule named by its selectors, keeping the comment beside it", () => {
    const out = run([
      {
        op: "replace_node",
        params: {
          locator: { kind: "declaration", name: "color", parent: rule, file: "site.css" },
          replacement: "color: green;",
        },
      },
    ]);
    expect(out).toBe(STYLE.replace("color: red;", "color: green;"));
  });

  it("adds a declaration after another at its indentation, and deletes one with its line", () => {
    expect(
      run([
        {
          op: "insert_after_node",
          params: {
            locator: { kind: "declaration", name: "margin", parent: rule, file: "site.css" },
            code: "padding: 2px;",
          },
        },
      ]),
    ).toBe(STYLE.replace("  margin: 0;\n", "  margin: 0;\n  padding: 2px;\n"));
    expect(
      run([
        {
          op: "delete_node",
          params: { locator: { kind: "declaration", name: "margin", parent: rule, file: "site.css" } },
        },
      ]),
    ).toBe(STYLE.replace("  margin: 0;\n", ""));
  });

  it("reaches a rule inside an at-rule through its parent, and the rule with the same selectors outside is not confused with it", () => {
    const media = { kind: "rule", name: ".btn > a", parent: { kind: "at_rule", name: "@media (max-width: 600px)" } };
    expect(
      run([
        {
          op: "replace_node",
          params: {
            locator: { kind: "declaration", name: "color", parent: media, file: "site.css" },
            replacement: "color: navy;",
          },
        },
      ]),
    ).toBe(STYLE.replace("color: blue;", "color: navy;"));
  });

  it("inserts a rule set after another", () => {
    expect(
      run([
        { op: "insert_after_node", params: { locator: { ...rule, file: "site.css" }, code: ".x {\n  top: 0;\n}" } },
      ]),
    ).toBe(STYLE.replace("}\n\n@media", "}\n\n.x {\n  top: 0;\n}\n\n@media"));
  });
});

describe("node primitives on HTML", () => {
  it("replaces an element by id, re-indenting its lines to the element's place", () => {
    expect(
      run([
        {
          op: "replace_node",
          params: {
            locator: { kind: "element", name: "main", file: "index.html" },
            replacement: '<div id="main">\n  <p>Bye</p>\n</div>',
          },
        },
      ]),
    ).toBe(PAGE.replace("<p>Hello</p>", "<p>Bye</p>"));
  });

  it("inserts an element after one, deletes one by id, and inserts before a heading named by its text", () => {
    expect(
      run([
        {
          op: "insert_after_node",
          params: { locator: { kind: "element", name: "main", file: "index.html" }, code: '<nav id="nav"></nav>' },
        },
      ]),
    ).toBe(PAGE.replace("    </div>\n", '    </div>\n    <nav id="nav"></nav>\n'));
    expect(
      run([{ op: "delete_node", params: { locator: { kind: "element", name: "foot", file: "index.html" } } }]),
    ).toBe(PAGE.replace('    <footer id="foot">x</footer>\n', ""));
    expect(
      run([
        {
          op: "insert_before_node",
          params: { locator: { kind: "heading", name: "Welcome home", file: "index.html" }, code: "<hr>" },
        },
      ]),
    ).toBe(PAGE.replace("    <h1>", "    <hr>\n    <h1>"));
  });
});

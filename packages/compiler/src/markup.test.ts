/**
 * Diffs of shell scripts, CSS and HTML, made by real git, compiled into plans: node steps where they
 * reproduce the change exactly; an HTML template is a text file. Every result is the post-image
 * byte for byte, passes `bash -n` (scripts) or re-parses without errors (CSS, HTML that is no template).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runFormalPlan } from "@graphplan/catalog";
import { isHtmlTemplate, loadGrammars, parse, syntaxErrors, type LanguageId } from "@graphplan/graph";
import { makeRepo } from "@graphplan/testkit";
import { beforeAll, describe, expect, it } from "vitest";
import { compile, type CompiledPlan } from "./compile.js";
import { parsePlanOrThrow } from "@graphplan/catalog/testing";

beforeAll(() => loadGrammars(["bash", "css", "html"]));

const SCRIPT =
  "#!/bin/bash\nset -e\n\n# build it\nbuild() {\n  make all\n}\n\ndeploy() {\n  build\n  scp out host:\n}\n\nbuild\n";
const STYLE =
  "/* theme */\n.btn > a,\n.link {\n  color: red; /* brand */\n  margin: 0;\n}\n\n@media (max-width: 600px) {\n  .btn > a {\n    color: blue;\n  }\n}\n";
const PAGE =
  '<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Welcome home</h1>\n    <div id="main">\n      <p>Hello</p>\n    </div>\n    <footer id="foot">x</footer>\n  </body>\n</html>\n';
const TEMPLATE =
  '{% extends "base.html" %}\n{% block content %}\n<div id="intro">\n  <p class="lead">Hello</p>\n</div>\n<ul id="items">\n  {% for item in items %}<li>{{ item }}</li>{% endfor %}\n</ul>\n{% endblock %}\n';
const LANGUAGE: Record<string, LanguageId> = { sh: "bash", css: "css", html: "html" };

/** Commits `files`, writes `after`, and compiles `git diff` of the change. */
function compiled(files: Record<string, string>, after: Record<string, string>): CompiledPlan {
  const repo = makeRepo();
  repo.commit(files, "base");
  for (const [file, text] of Object.entries(after)) writeFileSync(join(repo.dir, file), text);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo.dir, encoding: "utf8" });
  git("add", "-A");
  const result = compile(new Map(Object.entries(files)), git("diff", "--cached"));
  // The plan, read back as JSON as a model's would be, gives every post-image exactly; each parses.
  const run = runFormalPlan(parsePlanOrThrow(JSON.parse(JSON.stringify(result.plan))), new Map(Object.entries(files)));
  expect(run.ok, run.ok ? "" : run.error.message).toBe(true);
  if (!run.ok) return result;
  for (const [file, text] of Object.entries(after)) {
    expect(run.files.get(file)).toBe(text);
    if (isHtmlTemplate(text)) continue;
    const tree = parse(text, LANGUAGE[file.split(".").pop()!]!);
    expect(syntaxErrors(tree, 5)).toEqual([]);
    tree.delete();
    if (file.endsWith(".sh")) execFileSync("bash", ["-n"], { input: text });
  }
  return result;
}

const ops = (plan: CompiledPlan) =>
  plan.records.map((r) => `${r.file} ${"op" in r.step ? r.step.op : "?"}${r.text ? " (text)" : ""}`);

describe("compiling changes of shell scripts, CSS and HTML", () => {
  it("expresses a function's change, a new function, declarations changed and added, an element's text and a deleted element as node steps", () => {
    const plan = compiled(
      { "deploy.sh": SCRIPT, "site.css": STYLE, "index.html": PAGE },
      {
        "deploy.sh": SCRIPT.replace("make all", "make -j4 all").replace(
          "deploy() {",
          "clean() {\n  rm -rf out\n}\n\ndeploy() {",
        ),
        "site.css": STYLE.replace("color: red", "color: green").replace(
          "color: blue;",
          "color: navy;\n    margin: 1px;",
        ),
        "index.html": PAGE.replace("<p>Hello</p>", "<p>Bye</p>").replace('    <footer id="foot">x</footer>\n', ""),
      },
    );
    expect(plan.records.filter((r) => r.text)).toEqual([]);
    expect(ops(plan)).toEqual([
      "deploy.sh insert_after_node",
      "deploy.sh insert_after_node",
      "index.html replace_node",
      "index.html delete_node",
      "site.css replace_node",
      "site.css replace_node",
    ]);
    expect(JSON.stringify(plan.plan)).toContain('"kind":"element","name":"foot"');
  });

  it("compiles an HTML template (Jinja, EJS markup) as a text file: text steps, and no syntax judgement of markup tree-sitter-html cannot read", () => {
    const jinja = compiled(
      { "page.html": TEMPLATE },
      {
        "page.html": TEMPLATE.replace('class="lead"', 'class="lead big"').replace(
          "<li>{{ item }}</li>",
          '<li><a href="{{ url_for("item") }}">{{ item.name }}</a></li>',
        ),
      },
    );
    expect(ops(jinja)).toEqual(["page.html replace_text (text)", "page.html replace_text (text)"]);
    // A page turned into an EJS template: its markup is no syntax error of the steps that write it.
    const ejs = "<header>\n  <title><%= title %></title>\n</header>\n";
    expect(compiled({ "header.html": PAGE }, { "header.html": ejs }).records.length).toBeGreaterThan(0);
  });
});

describe("creating an HTML template", () => {
  it("creates a Jinja template whose markup inside attribute quotes tree-sitter-html cannot read", () => {
    const page = '<form action="{{ url_for("add") }}">\n  <input id="a" name="a">\n</form>\n';
    const plan = compiled({ "index.html": PAGE }, { "index.html": PAGE, "new.html": page });
    expect(ops(plan)).toEqual(["new.html create_file"]);
  });
});

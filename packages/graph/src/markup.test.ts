/** Shell scripts, CSS and HTML in the graph: the nodes their grammars make natural, as symbols. */
import { beforeAll, describe, expect, it } from "vitest";
import { buildGraph, detectFileLanguage, detectLanguage, graphView, isHtmlTemplate, loadGrammars } from "./index.js";

beforeAll(() => loadGrammars(["bash", "css", "html"]));

const SCRIPT =
  '#!/bin/bash\nset -e\n\nbuild() {\n  make all\n}\n\nfunction deploy {\n  build\n  if [ -n "$HOST" ]; then scp out "$HOST":; fi\n}\n\nbuild\n';
const STYLE =
  '@import url("base.css");\n\n.btn > a,\n.link {\n  color: red; /* brand */\n}\n\n@media (max-width: 600px) {\n  .btn > a { color: blue; }\n}\n';
const PAGE =
  '<!DOCTYPE html>\n<html>\n  <body>\n    <h1>Welcome <em>home</em></h1>\n    <div id="main" class="x">\n      <h2 id="intro">Intro</h2>\n      <p>Hello</p>\n    </div>\n    <script id="boot">start();</script>\n  </body>\n</html>\n';

describe("shell scripts, CSS and HTML in the graph", () => {
  it("reads .sh, .bash, .css, .html and .htm by extension", () => {
    expect(["a.sh", "a.bash", "a.css", "a.html", "a.HTM", "a.scss"].map(detectLanguage)).toEqual([
      "bash",
      "bash",
      "css",
      "html",
      "html",
      undefined,
    ]);
  });

  it("lists shell functions (both forms), CSS rule sets by selector and at-rules by prelude, and @import", async () => {
    const graph = await buildGraph([
      { path: "deploy.sh", source: SCRIPT },
      { path: "site.css", source: STYLE },
    ]);
    expect(graph.errors).toEqual([]);
    expect(graph.symbols.map((s) => [s.file, s.kind, s.name, s.start_line, s.end_line])).toEqual([
      ["deploy.sh", "function", "build", 4, 6],
      ["deploy.sh", "function", "deploy", 8, 11],
      ["site.css", "rule", ".btn > a, .link", 3, 6],
      ["site.css", "at_rule", "@media (max-width: 600px)", 8, 10],
      ["site.css", "rule", ".btn > a", 9, 9],
    ]);
    expect(graph.imports).toEqual([{ file: "site.css", module: "base.css", symbol: null, line: 1 }]);
    expect(graph.line_kinds["deploy.sh"]).toEqual({ "10": "if_statement" });
  });

  it("lists HTML elements by id and headings without one by their text", async () => {
    const graph = await buildGraph([{ path: "index.html", source: PAGE }]);
    expect(graph.errors).toEqual([]);
    expect(graph.symbols.map((s) => [s.kind, s.name, s.start_line, s.end_line])).toEqual([
      ["heading", "Welcome home", 4, 4],
      ["element", "main", 5, 8],
      ["element", "intro", 6, 6],
      ["element", "boot", 9, 9],
    ]);
    expect(graphView(graph)).toContain("main");
  });

  it("reads an HTML template (Jinja, Django, EJS markup) as a document, not as code", async () => {
    const template = '{% extends "base.html" %}\n{% block content %}<div id="a">{{ x }}</div>{% endblock %}\n';
    expect([template, "<p><%= title %></p>\n", PAGE].map(isHtmlTemplate)).toEqual([true, true, false]);
    expect(detectFileLanguage("page.html", template)).toBeUndefined();
    expect(detectFileLanguage("page.html", PAGE)).toBe("html");
    const graph = await buildGraph([{ path: "page.html", source: template }], { documents: true });
    expect(graph.symbols).toEqual([]);
    expect(graph.documents).toEqual([{ file: "page.html", kind: "text", lines: 2, outline: [], omitted: 0 }]);
  });
});
